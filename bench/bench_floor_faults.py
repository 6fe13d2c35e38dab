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

With ``--tournament PLAYERS`` the tables are tournament tables instead and
the floor runs a tournament over all of them (its ``[tournament]`` section);
``--faults`` kill -9 of the floor process strike at random moments while it
runs (``--kinds`` adds nats-server and PostgreSQL), each floor started again
after 1-5 seconds and resuming the tournament from the store. The script
waits for the tournament to end and checks every entry placed once, the
pool paid exactly, every chip at the winner's seat, no command left
unsettled, and every record and hand stored once::

    .venv/bin/python bench/bench_floor_faults.py --tournament 30 --tables 4 \
        --per-process 4 --pace 0.01 --faults 3 --seed 1
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

    def __init__(self, folder: Path, nats_url: str, conninfo: str, extra: str = "") -> None:
        self.config = folder / "floor.toml"
        self.config.write_text(
            f'[nats]\nurl = "{nats_url}"\n\n[database]\nconninfo = "{conninfo}"\n\n'
            '[web]\nhost = "127.0.0.1"\nport = 0\n' + extra,
            encoding="utf-8",
        )
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start the floor (again)."""
        self.starts += 1
        out = (self.config.parent / f"floor-{self.starts}.log").open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "firmware.cli.main", "floor", "--config", str(self.config)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        out.close()

    def output(self) -> str:
        """What every start of the floor printed (its log lines included)."""
        return "".join(
            f"--- floor start {n}\n"
            + (self.config.parent / f"floor-{n}.log").read_text(errors="replace")[-3000:]
            for n in range(1, self.starts + 1)
        )

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


LEVELS: list[dict[str, Any]] = [
    {"small_blind": sb, "big_blind": 2 * sb, "minutes": 0.1} for sb in (10, 25, 50, 100, 200, 500)
] + [{"small_blind": 2000, "big_blind": 4000, "minutes": 600}]
"""Tournament mode: six-second levels, so the tournament ends in minutes."""
CHIPS = 1000
BUY_IN = 100


async def _query(conninfo: str, sql: str) -> list[tuple[Any, ...]]:
    """Rows of ``sql``, or none while PostgreSQL is away."""
    try:
        async with await psycopg.AsyncConnection.connect(conninfo, connect_timeout=3) as conn:
            cur = await conn.execute(sql)
            return list(await cur.fetchall())
    except psycopg.Error:
        return []


async def run_tournament_faults(
    args: argparse.Namespace, folder: Path, nats: NatsServer, pg: PostgresServer
) -> dict[str, Any]:
    """A tournament over every table while the floor (and what ``--kinds`` names) is killed."""
    rng = random.Random(args.seed)
    names = [f"M{n:03d}" for n in range(args.tables)]
    levels = "".join(
        f"[[tournament.levels]]\nsmall_blind = {lv['small_blind']}\n"
        f"big_blind = {lv['big_blind']}\nminutes = {lv['minutes']}\n"
        for lv in LEVELS
    )
    section = (
        f'\n[tournament]\nid = "bench"\nbuy_in = {BUY_IN}\nstarting_chips = {CHIPS}\n'
        f"tables = [{', '.join(repr(n) for n in names)}]\nseats_per_table = 9\n"
        f"players = {args.tournament}\n{levels}"
    ).replace("'", '"')
    groups = [names[i : i + args.per_process] for i in range(0, len(names), args.per_process)]
    spec = {"url": nats.url, "folder": str(folder), "pace": args.pace, "seats": 9}
    children = [
        room.start_tables({**spec, "names": g, "seed": n, "levels": LEVELS}, args.nice)
        for n, g in enumerate(groups)
    ]
    await asyncio.to_thread(room.wait_ready, children)
    floor = FloorProcess(folder, nats.url, pg.conninfo, section)
    floor.start()
    t0 = time.monotonic()
    log: list[str] = []

    def note(text: str) -> None:
        log.append(f"{time.monotonic() - t0:7.1f} s  {text}")
        print(log[-1], flush=True)

    state = "SELECT state->>'left', state->>'finished' FROM tournaments WHERE id = 'bench'"
    moving = "SELECT count(*) FROM floor_commands WHERE follow ? 'table' AND NOT settled"
    while not await _query(pg.conninfo, state):
        await asyncio.sleep(0.2)
    note(f"{args.tournament} players drawn over {args.tables} tables")
    kinds = [k for k in args.kinds.split(",") if k]
    struck: list[str] = []
    while len(struck) < args.faults:
        await asyncio.sleep(rng.uniform(2.0, 12.0))
        rows = await _query(pg.conninfo, state)
        if rows and rows[0][1] == "true":
            break
        kind = rng.choice(kinds)
        down = rng.uniform(1.0, 5.0)
        left = rows[0][0] if rows else "?"
        if kind == "floor":
            in_flight = (await _query(pg.conninfo, moving) or [(0,)])[0][0]
            floor.kill()
            note(f"kill -9 floor ({left} left, {in_flight} moves under way), down {down:.1f} s")
            await asyncio.sleep(down)
            floor.start()
        elif kind == "nats":
            nats.kill()
            note(f"kill -9 nats-server ({left} left), down {down:.1f} s")
            await asyncio.sleep(down)
            nats.start()
        else:
            pg.kill()
            note(f"kill -9 PostgreSQL ({left} left), down {down:.1f} s")
            await asyncio.sleep(down)
            pg.start()
        struck.append(kind)
    while True:
        if not floor.alive():  # a floor started while PostgreSQL was down exits: again
            floor.start()
            note("floor exited (store unreachable at start); started again")
        rows = await _query(pg.conninfo, state)
        if rows and rows[0][1] == "true":
            break
        await asyncio.sleep(0.5)
    note("the tournament is over")
    reports = room.stop_tables(children)
    total = sum(r["records"] for r in reports.values())
    while (await _stored(pg.conninfo)) < total:
        await asyncio.sleep(0.5)
    floor.stop()
    events, hands = await _rows(pg.conninfo)
    entries = await _query(
        pg.conninfo, "SELECT place, prize FROM registrations WHERE tournament_id = 'bench'"
    )
    open_rows = await _query(pg.conninfo, "SELECT count(*) FROM floor_commands WHERE NOT settled")
    winner = (await _query(pg.conninfo, "SELECT state->>'winner' FROM tournaments"))[0][0]
    places = sorted(int(p) for p, _prize in entries if p is not None)
    stacks = [(p, c) for r in reports.values() for p, c in r["stacks"].values() if c > 0]
    correct = (
        len(places) == len(entries) == args.tournament
        and places == [places.index(p) + 1 for p in places]
        and sum(int(prize or 0) for _p, prize in entries) == args.tournament * BUY_IN
        and stacks == [(winner, args.tournament * CHIPS)]
        and open_rows == [(0,)]
    )
    if not correct:
        print(floor.output(), flush=True)
        for row in await _query(pg.conninfo, "SELECT kind, text FROM tournament_log ORDER BY id"):
            print("log:", *row)
        for row in await _query(
            pg.conninfo,
            "SELECT n, table_id, body, follow, reply, settled FROM floor_commands ORDER BY n",
        ):
            print("command:", *row)
    return {
        "players": args.tournament,
        "tables": args.tables,
        "faults": ", ".join(struck),
        "floor_starts": floor.starts,
        "seconds_to_the_end": round(time.monotonic() - t0, 1),
        "records_total": total,
        "hands_total": sum(r["hands"] for r in reports.values()),
        "tournament_correct": correct,
        "exactly_once": exactly_once(reports, events, hands),
    }


async def faults(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Start the servers, run, and stop them whatever happens."""
    if args.tournament:
        return await room.with_servers(
            folder, lambda nats, pg: run_tournament_faults(args, folder, nats, pg)
        )
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
    parser.add_argument(
        "--tournament", type=int, default=0, help="players: a tournament under floor kill -9"
    )
    parser.add_argument(
        "--kinds", default="floor", help="tournament: what is killed (floor,nats,postgres)"
    )
    args = parser.parse_args(argv)
    room.stop_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="bench-faults-") as folder:
        os.chmod(folder, 0o755)
        result = asyncio.run(faults(args, Path(folder)))
    for key, value in result.items():
        print(f"{key:40} {value}")
    if args.tournament:
        return 0 if result["exactly_once"] and result["tournament_correct"] else 1
    return 0 if result["exactly_once"] and result["cut_table_records_played_while_cut"] else 1


if __name__ == "__main__":
    sys.exit(main())
