"""A multi-table tournament played to the end on simulated tables in child processes.

Usage::

    .venv/bin/python bench/bench_floor_mtt.py [--players 1000] [--seats 9] [--per-process 14]

Starts its own nats-server and PostgreSQL, ``ceil(players / seats)`` empty
tournament tables in child processes (bots, virtual decks, real
controllers, journals and floor links, see ``floor_room.py``) and, in this
process, the floor with its director: the seat draw over all tables
(TDA-13), the level clock started everywhere at once (TDA-17), eliminations,
breaking (TDA-24), balancing (TDA-25), hand-for-hand on the bubble and the
final table's draw (HG-5) until one player has every chip. The bots play as
fast as they can; the levels last ``--level-seconds``.

At the end it checks the tournament: every chip bought in is at the
winner's seat and nowhere else (chips conserved across all tables), every
player has one place and the pool is paid out exactly, the store holds
every record and every finished hand of every table exactly once, and
prints how long it took.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import floor_room as room
import psycopg
from bench_floor import drain, exactly_once

from firmware.floor.servers import NatsServer, PostgresServer
from firmware.floor.service import Floor
from firmware.floor.tournament.director import Director, TournamentSpec

CHIPS = 1000
BUY_IN = 100


def levels(seconds: float) -> list[dict[str, Any]]:
    """Blinds that double quickly, then a last level long enough to finish on."""
    short = [
        {"small_blind": sb, "big_blind": 2 * sb, "minutes": seconds / 60}
        for sb in (10, 25, 50, 100, 200, 300, 500, 1000)
    ]
    return [*short, {"small_blind": 5000, "big_blind": 10000, "minutes": 600}]


def places_complete(places: list[int], players: int) -> bool:
    """Every player has a place, one wins, and tied players share the best of the
    places they cover (sorted, the k-th place is k or a tie with the places above it)."""
    ordered = sorted(places)
    if len(ordered) != players or ordered.count(1) != 1:
        return False
    return all(p == k or (p < k and p == ordered[k - 2]) for k, p in enumerate(ordered, 1))


async def _play(
    args: argparse.Namespace, folder: Path, nats: NatsServer, pg: PostgresServer
) -> dict[str, Any]:
    floor = Floor(pg.conninfo, nats.url)
    await floor.open()
    assert floor.conn is not None and floor.ingestor is not None
    count = math.ceil(args.players / args.seats)
    names = [f"M{n:03d}" for n in range(count)]
    groups = [names[i : i + args.per_process] for i in range(0, count, args.per_process)]
    schedule = levels(args.level_seconds)
    spec = {"url": nats.url, "folder": str(folder), "pace": args.pace, "levels": schedule}
    children = [
        room.start_tables({**spec, "names": g, "seed": n, "seats": args.seats}, args.nice)
        for n, g in enumerate(groups)
    ]
    await asyncio.to_thread(room.wait_ready, children)
    ingest = asyncio.create_task(floor.ingest_forever())
    while len(floor.ingestor.last_seq) < count:  # every table is up and linked
        await asyncio.sleep(0.2)
    tournament = TournamentSpec(
        "mtt", "Benchmark MTT", BUY_IN, CHIPS, tuple(names), args.seats, levels=tuple(schedule)
    )
    director = Director(tournament, floor.conn, floor.command, random.Random(args.seed))
    floor.ingestor.listeners.append(director.on_ingested)
    await director.create()
    for number in range(args.players):
        await director.register(f"p{number:04d}")
    t0 = time.monotonic()
    await director.start()
    seated = time.monotonic() - t0
    running = asyncio.create_task(director.run())
    stalled = False
    seen, quiet = -1, 0.0
    while not director.finished.is_set():  # the floor decides something every few seconds
        await asyncio.sleep(1.0)
        if director.finished.is_set():
            break
        quiet = 0.0 if len(director.decisions) != seen else quiet + 1.0
        seen = len(director.decisions)
        if quiet > args.stall_seconds or running.done():
            stalled = True
            print("The tournament stalled:", *director.decisions[-10:], sep="\n  ")
            break
    played = time.monotonic() - t0
    running.cancel()
    reports = room.stop_tables(children)
    total = sum(r["records"] for r in reports.values())
    events, hands = await drain(floor, pg.conninfo, total, ingest)
    async with await psycopg.AsyncConnection.connect(pg.conninfo) as conn:
        cur = await conn.execute(
            "SELECT coalesce(place, 0), coalesce(prize, 0) FROM registrations ORDER BY 1"
        )
        rows = await cur.fetchall()
        places = [int(p) for p, _ in rows]
        prizes = sum(int(m) for _, m in rows)
        cur = await conn.execute("SELECT reason, count(*) FROM seat_assignments GROUP BY 1")
        reasons: dict[str, int] = {}
        for reason, n in await cur.fetchall():
            rule = str(reason).split(":")[0].split(" ")[0]
            reasons[rule] = reasons.get(rule, 0) + int(n)
    st = director.standings
    assert st is not None
    winner = next((p for p, place in st.places.items() if place == 1), "")
    stacks = [
        (table, player, chips)
        for table, report in reports.items()
        for player, chips in report["stacks"].values()
    ]
    live = [entry for entry in stacks if entry[2] > 0]
    conserved = sum(c for _, _, c in stacks) == args.players * CHIPS and [
        p for _, p, _ in live
    ] == [winner]
    text = "\n".join(director.decisions)
    return {
        "players": args.players,
        "tables": count,
        "seconds_to_seat_everyone": round(seated, 1),
        "seconds_to_the_end": round(played, 1),
        "hands_played": sum(r["hands"] for r in reports.values()),
        "records": total,
        "tables_broken_tda24": text.count(" broke."),
        "seat_assignments": reasons,
        "chips_conserved_at_winner": conserved,
        "places_complete": places_complete(places, args.players),
        "pool_paid_exactly": prizes == args.players * BUY_IN,
        "exactly_once": exactly_once(reports, events, hands),
        "store_outages": floor.outages,
        "error": director.error or ("stalled" if stalled else ""),
        "load_average": round(os.getloadavg()[0], 1),
    }


async def play(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Start the servers, run, and stop them whatever happens."""
    return await room.with_servers(folder, lambda nats, pg: _play(args, folder, nats, pg))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--seats", type=int, default=9)
    parser.add_argument("--per-process", type=int, default=14)
    parser.add_argument("--level-seconds", type=float, default=20.0)
    parser.add_argument("--pace", type=room.pace_value, default=0.0)
    parser.add_argument("--nice", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--stall-seconds", type=float, default=300.0, help="give up after this long without news"
    )
    args = parser.parse_args(argv)
    room.stop_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="bench-mtt-") as folder:
        os.chmod(folder, 0o755)
        result = asyncio.run(play(args, Path(folder)))
    for key, value in result.items():
        print(f"{key:26} {value}")
    good = ("chips_conserved_at_winner", "places_complete", "pool_paid_exactly")
    return 0 if all(result[k] for k in (*good, "exactly_once")) and not result["error"] else 1


if __name__ == "__main__":
    sys.exit(main())
