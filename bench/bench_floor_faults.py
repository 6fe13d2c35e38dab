"""Faults while a card room plays into its floor; afterwards every record and hand is stored once.

Usage::

    .venv/bin/python bench/bench_floor_faults.py [--tables 20] [--per-process 10] [--pace 0.2]
        [--cut-seconds 600] [--faults 6] [--seed 1]

Starts its own nats-server and PostgreSQL, the floor as its own process
(``pokertable floor --config``, the real service) and ``--tables`` cash
tables in child processes (``floor_room.py``). One table, ``C000``, reaches
NATS through a relay that this script cuts for ``--cut-seconds``: the table
keeps playing and journaling (its journal is the outbox) and catches up
when the relay lets it through again. While it is cut off, ``--faults``
kill -9 strike at random moments, in random order: the floor process,
nats-server and PostgreSQL, each restarted after a random 1-5 seconds (a
floor restarted while PostgreSQL is down exits and is started again).

Afterwards the tables stop, publish what they had not sent and report what
they journaled; the script waits for the store to hold it all and checks
that every record ``1..n`` of every table and every finished hand is there
exactly once, that the cut table played on while cut off, and prints the
faults with their times.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import floor_room as room
import psycopg
from bench_floor import _rows, exactly_once

from firmware.floor.servers import NatsServer, PostgresServer

CUT = "C000"


class FloorProcess:
    """``pokertable floor --config`` in its own process, killed and restarted at will."""

    def __init__(self, folder: Path, nats_url: str, conninfo: str) -> None:
        self.config = folder / "floor.toml"
        self.config.write_text(
            f'[nats]\nurl = "{nats_url}"\n\n[database]\nconninfo = "{conninfo}"\n\n'
            '[web]\nhost = "127.0.0.1"\nport = 0\n',
            encoding="utf-8",
        )
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start the floor (again)."""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "firmware.cli.main", "floor", "--config", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.starts += 1

    def kill(self) -> None:
        """kill -9."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        """A clean stop (SIGTERM)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(60)


async def _stored(conninfo: str) -> int:
    try:
        async with await psycopg.AsyncConnection.connect(conninfo, connect_timeout=3) as conn:
            cur = await conn.execute("SELECT count(*) FROM events")
            row = await cur.fetchone()
            return int(row[0]) if row else 0
    except psycopg.Error:
        return -1


async def _newest(conninfo: str) -> float:
    """The table time of the cut table's newest stored record (0 if none or unreachable)."""
    try:
        async with await psycopg.AsyncConnection.connect(conninfo, connect_timeout=3) as conn:
            cur = await conn.execute("SELECT max(time) FROM events WHERE table_id = %s", (CUT,))
            row = await cur.fetchone()
            return float(row[0]) if row and row[0] is not None else 0.0
    except psycopg.Error:
        return 0.0


async def run_faults(
    args: argparse.Namespace, folder: Path, nats: NatsServer, pg: PostgresServer
) -> dict[str, Any]:
    rng = random.Random(args.seed)
    floor = FloorProcess(folder, nats.url, pg.conninfo)
    floor.start()
    assert nats.url.startswith("nats://127.0.0.1:")
    link = await room.CuttableLink("127.0.0.1", nats.port).start()
    names = [CUT] + [f"F{n:03d}" for n in range(1, args.tables)]
    groups = [names[i : i + args.per_process] for i in range(0, len(names), args.per_process)]
    spec = {"url": nats.url, "urls": {CUT: link.url}, "folder": str(folder), "pace": args.pace}
    children = [
        room.start_tables({**spec, "names": g, "seed": n}, args.nice) for n, g in enumerate(groups)
    ]
    await asyncio.to_thread(room.wait_ready, children)
    t0 = time.monotonic()
    log: list[str] = []

    def note(text: str) -> None:
        log.append(f"{time.monotonic() - t0:7.1f} s  {text}")
        print(log[-1], flush=True)

    async def watch_floor() -> None:  # a floor that exits (store down at start) comes back
        while True:
            await asyncio.sleep(0.5)
            if not floor.alive() and not paused_floor["now"]:
                floor.start()
                note("floor exited (store unreachable at start); started again")

    paused_floor = {"now": False}
    watcher = asyncio.create_task(watch_floor())
    while await _stored(pg.conninfo) < 50 * args.tables:  # the room is under way
        await asyncio.sleep(0.5)
    link.cut()
    cut_at = time.time()
    note(f"network of table {CUT} cut")
    kinds = [("floor", "nats", "postgres")[i % 3] for i in range(args.faults)]
    rng.shuffle(kinds)
    span = args.cut_seconds * 0.8
    moments = sorted(rng.uniform(0.05 * span, span) for _ in kinds)
    for moment, kind in zip(moments, kinds, strict=True):
        await asyncio.sleep(max(0.0, moment - (time.time() - cut_at)))
        down = rng.uniform(1.0, 5.0)
        if kind == "floor":
            paused_floor["now"] = True
            floor.kill()
            note(f"kill -9 floor, down {down:.1f} s")
            await asyncio.sleep(down)
            floor.start()
            paused_floor["now"] = False
        elif kind == "nats":
            nats.kill()
            note(f"kill -9 nats-server, down {down:.1f} s")
            await asyncio.sleep(down)
            nats.start()
        else:
            pg.kill()
            note(f"kill -9 PostgreSQL, down {down:.1f} s")
            await asyncio.sleep(down)
            pg.start()
    await asyncio.sleep(max(0.0, args.cut_seconds - (time.time() - cut_at)))
    link.mend()
    mended_at = time.time()
    note(f"network of table {CUT} back")
    while await _newest(pg.conninfo) < mended_at:  # the cut table's backlog goes through
        await asyncio.sleep(0.5)
    caught_up = time.time() - mended_at
    note(f"table {CUT} caught up: its records journaled after the cut are stored")
    await asyncio.sleep(args.after_seconds)
    reports = room.stop_tables(children)
    total = sum(r["records"] for r in reports.values())
    note(f"tables stopped: {total} records journaled")
    while await _stored(pg.conninfo) < total:
        await asyncio.sleep(0.5)
    note("every record is in the store")
    watcher.cancel()
    floor.stop()
    await link.close()
    events, hands = await _rows(pg.conninfo)
    async with await psycopg.AsyncConnection.connect(pg.conninfo) as conn:
        cur = await conn.execute(
            "SELECT count(*) FROM events WHERE table_id = %s AND time > %s AND time < %s",
            (CUT, cut_at + 1, mended_at - 1),
        )
        row = await cur.fetchone()
        during_cut = int(row[0]) if row else 0
    return {
        "tables": args.tables,
        "cut_seconds": args.cut_seconds,
        "faults": ", ".join(kinds),
        "floor_starts": floor.starts,
        "records_total": total,
        "hands_total": sum(r["hands"] for r in reports.values()),
        "cut_table_records_played_while_cut": during_cut,
        "cut_table_seconds_to_catch_up": round(caught_up, 1),
        "exactly_once": exactly_once(reports, events, hands),
    }


async def faults(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Start the servers, run, and stop them whatever happens."""
    return await room.with_servers(folder, lambda nats, pg: run_faults(args, folder, nats, pg))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--per-process", type=int, default=10)
    parser.add_argument("--pace", type=room.pace_value, default=0.2)
    parser.add_argument("--cut-seconds", type=float, default=600.0)
    parser.add_argument("--after-seconds", type=float, default=10.0)
    parser.add_argument("--faults", type=int, default=6)
    parser.add_argument("--nice", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    room.stop_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="bench-faults-") as folder:
        os.chmod(folder, 0o755)
        result = asyncio.run(faults(args, Path(folder)))
    for key, value in result.items():
        print(f"{key:40} {value}")
    return 0 if result["exactly_once"] and result["cut_table_records_played_while_cut"] else 1


if __name__ == "__main__":
    sys.exit(main())
