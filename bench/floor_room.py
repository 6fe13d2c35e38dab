"""Pieces shared by the floor benchmarks: simulated tables in child processes, CPU of a
process tree, a TCP link that can be cut.

A child process (``python bench/floor_room.py '<json>'``) runs several
:class:`~firmware.floor.simroom.SimTable` at once, either cash tables (six bots
seated at start) or empty tournament tables that deal when the floor says
so. On SIGTERM it stops its tables at once, publishes whatever their links
had not sent yet (the journal is the outbox) and prints one line of JSON per
table: records journaled, hands finished, and the seats' stacks.

The children run at a lower priority (``nice``) than the floor, PostgreSQL
and NATS: on the measurement machine they stand for other computers (the
tables), and flat-out bots would otherwise take the two shared cores from
the floor they are measuring.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HUMAN_PACE = 1.0
"""Mean seconds per dealer or player step at a table played by people."""


def pace_value(text: str) -> float:
    """``--pace``: seconds per step, or ``human`` (one step a second) or ``bots`` (0)."""
    named = {"human": HUMAN_PACE, "bots": 0.0}
    return named[text] if text in named else float(text)


def start_tables(spec: dict[str, Any], nice: int = 10) -> subprocess.Popen[str]:
    """Start a child process running the tables of ``spec`` (see :func:`child_main`)."""

    def lower() -> None:
        os.nice(nice)

    child = subprocess.Popen(
        [sys.executable, __file__, json.dumps(spec)],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lower,
    )
    _children.append(child)
    return child


_children: list[subprocess.Popen[str]] = []

T = TypeVar("T")


def stop_all() -> None:
    """Kill every child still running (after an error)."""
    for child in _children:
        if child.poll() is None:
            child.kill()
            child.wait()


async def with_servers(folder: Path, run: Callable[[Any, Any], Awaitable[T]]) -> T:
    """Start a throw-away nats-server (in ``folder/nats``) and PostgreSQL, return
    ``await run(nats, pg)``, and stop every child and both servers whatever happens."""
    from firmware.floor.servers import NatsServer, PostgresServer

    nats = NatsServer(folder / "nats").start()
    pg = PostgresServer.temporary().start()
    try:
        return await run(nats, pg)
    finally:
        stop_all()
        stop_servers(nats, pg)


def stop_servers(*servers: Any) -> None:
    """Stop each server cleanly, or kill it if that fails (none is left running)."""
    for server in servers:
        try:
            server.stop()
        except Exception:
            if server.proc is not None:
                server.proc.kill()
                server.proc.wait()


def stop_on_sigterm() -> None:
    """Turn SIGTERM into an exit, so the benchmark stops its servers and children."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def wait_ready(children: list[subprocess.Popen[str]]) -> None:
    """Wait until every child has started its tables (its first line)."""
    for child in children:
        assert child.stdout is not None
        child.stdout.readline()


def stop_tables(children: list[subprocess.Popen[str]]) -> dict[str, dict[str, Any]]:
    """SIGTERM every child, then collect their reports by table."""
    for child in children:
        child.send_signal(signal.SIGTERM)
    reports: dict[str, dict[str, Any]] = {}
    for child in children:
        out, _ = child.communicate(timeout=1800)
        reports.update(json.loads(out.strip().splitlines()[-1]))
    return reports


def child_main(spec: dict[str, Any]) -> None:
    """Run the tables of ``spec`` until SIGTERM.

    ``spec``: ``url`` (NATS), ``urls`` (a table's own URL, e.g. through a link
    that can be cut), ``folder``, ``pace``, ``names``, ``seats``, ``levels``
    (tournament tables; absent: cash tables with six bots each), ``seed``.
    """
    stop = {"now": False}  # first: a SIGTERM during start-up must not kill the child
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    from firmware.floor.simroom import SimTable
    from firmware.service.floorwire import FloorConfig

    levels = spec.get("levels")
    sims: list[SimTable] = []
    hands: dict[str, int] = {}
    for n, name in enumerate(spec["names"]):
        url = spec.get("urls", {}).get(name, spec["url"])
        sim = SimTable(
            name,
            os.path.join(spec["folder"], name),
            FloorConfig(url, name),
            seats=int(spec.get("seats", 6)),
            levels=levels,
            seed=int(spec.get("seed", 0)) * 1000 + n,
            pace=float(spec["pace"]),
        )
        hands[name] = 0

        def count(record: dict[str, Any], hand: object, name: str = name) -> None:
            hands[name] += 1

        sim.table.hand_listeners.append(count)
        if levels is None:
            sim.seat({s: (f"{name}-p{s}", 200) for s in range(1, 7)})
        else:
            sim.hands_to_play = 0  # the floor says when to deal
        sims.append(sim)
    for sim in sims:
        sim.start()
    print("ready", flush=True)
    while not stop["now"]:
        time.sleep(0.1)
    for sim in sims:
        sim.stop()
    print(json.dumps(_flush(spec["url"], sims, hands)), flush=True)


def _flush(url: str, sims: list[Any], hands: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Publish what the links had not sent (from the journals), then the report."""
    from firmware.service.floorlink import FloorLink
    from firmware.service.floorwire import FloorConfig
    from firmware.service.journal import Journal

    links = []
    out: dict[str, dict[str, Any]] = {}
    for sim in sims:
        journal = Journal(sim.journal.path)
        length = len(journal)
        journal.close()
        link = FloorLink(
            FloorConfig(url, sim.table_id),
            sim.journal.path,
            os.path.dirname(sim.journal.path),
            sim.table,
            lambda e: None,
            lambda f: None,
        )
        link.start()
        links.append((link, length))
        stacks = {str(n): [s.player, s.stack] for n, s in sim.table.seating.seats.items()}
        out[sim.table_id] = {
            "records": length,
            "hands": hands[sim.table_id],
            "stacks": stacks,
            "chips": sim.chips(),
            "playing": sim.table.hand is not None,
        }
    for link, length in links:

        def sent(k: FloorLink, length: int = length) -> bool:
            return k.acked == length

        link.wait_for(sent, timeout=1800)
        link.stop()
    return out


# ------------------------------------------------------------------ measuring


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system) of a process and its living descendants."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
            times[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo.extend(p for p, parent in parents.items() if parent == pid)
    return total


def tree_rss_mb(root: int) -> float:
    """Resident memory (MB) of a process and its living descendants."""
    total, todo = 0, [root]
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry)] = int(fields[1])
    while todo:
        pid = todo.pop()
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        todo.extend(p for p, parent in parents.items() if parent == pid)
    return total / 1024


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


# ------------------------------------------------------------------ a link that can be cut


class CuttableLink:
    """A TCP relay to NATS for some tables: :meth:`cut` drops every connection and
    refuses new ones (the table's network is gone); :meth:`mend` lets them in again."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self.cut_now = False
        self.refused = 0
        """Connections refused while cut (a table trying to come back)."""
        self._server: asyncio.base_events.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> CuttableLink:
        """Listen on a free local port."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    @property
    def url(self) -> str:
        """The URL tables behind this link connect to."""
        return f"nats://127.0.0.1:{self.port}"

    def cut(self) -> None:
        """Cut the network: drop every connection, refuse new ones."""
        self.cut_now = True
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def mend(self) -> None:
        """The network is back."""
        self.cut_now = False

    async def close(self) -> None:
        """Stop relaying."""
        self.cut()
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut_now:
            self.refused += 1
            writer.transport.abort()
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            writer.close()
            return
        if self.cut_now:  # cut while this connection was being opened: it must not survive
            self.refused += 1
            for end in (writer, up_writer):
                end.transport.abort()
            return
        self._writers.update((writer, up_writer))

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await src.read(65536):
                    if self.cut_now:
                        break
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers.discard(writer)
        self._writers.discard(up_writer)


if __name__ == "__main__":
    child_main(json.loads(sys.argv[1]))
