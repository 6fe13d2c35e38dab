"""A simulated card room playing into one floor: throughput, latency, the floor's CPU and memory.

Usage::

    .venv/bin/python bench/bench_floor.py [--tables 100] [--seconds 60] [--per-process 25]
        [--pace human|bots|SECONDS] [--warmup 10] [--capacity]

Starts its own nats-server and PostgreSQL, then ``--tables`` simulated cash
tables (six bots each, virtual decks, real controllers, journals and floor
links; ``--per-process`` tables per child process, see ``floor_room.py``)
while this process runs the floor's ingest alone. Once every table
has sent its first record, ``--warmup`` more seconds are ingested but not
measured; the measurement then lasts ``--seconds`` (longer if nothing at all
arrived by then, as on a starved machine). ``--pace human`` deals and
acts about once a second per table (a table played by people); ``bots`` as
fast as the machine lets them.

It prints the records and hands ingested per second, the latency from a
record's journaling at the table to its commit in the store (p50/p99; the
dashboard reads the store), the CPU of the floor, PostgreSQL and nats-server
(percent of one core) and the floor's peak memory. At the end it checks that
every record and every finished hand of every table is stored exactly once.

``--capacity`` measures what the floor can take rather than what the tables
send: the tables play ``--seconds`` with the floor stopped, then the floor
ingests the whole backlog from JetStream and is timed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import floor_room as room
import psycopg

from firmware.floor.servers import NatsServer, PostgresServer
from firmware.floor.service import Floor


async def _rows(conninfo: str) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """Stored records per table (count, highest seq) and hands per table (distinct)."""
    async with await psycopg.AsyncConnection.connect(conninfo) as conn:
        cur = await conn.execute("SELECT table_id, count(*), max(seq) FROM events GROUP BY 1")
        events = {str(t): (int(c), int(m)) for t, c, m in await cur.fetchall()}
        cur = await conn.execute(
            "SELECT table_id, count(*), count(DISTINCT hand) FROM hands GROUP BY 1"
        )
        hands = {str(t): int(c) if c == d else -1 for t, c, d in await cur.fetchall()}
    return events, hands


async def stored_all(conninfo: str, total: int, ingest: asyncio.Task[None]) -> None:
    """Wait until the store holds ``total`` records (or the ingest has stopped)."""
    while not ingest.done():
        async with await psycopg.AsyncConnection.connect(conninfo) as conn:
            cur = await conn.execute("SELECT count(*) FROM events")
            row = await cur.fetchone()
        if row is not None and int(row[0]) >= total:
            return
        await asyncio.sleep(0.2)


async def drain(
    floor: Floor, conninfo: str, total: int, ingest: asyncio.Task[None]
) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    """Wait for ``total`` records in the store, stop and close the floor, and return
    the stored records and hands per table (:func:`_rows`)."""
    await stored_all(conninfo, total, ingest)
    floor.stopping.set()
    await ingest
    await floor.close()
    return await _rows(conninfo)


def exactly_once(
    reports: dict[str, dict[str, Any]],
    events: dict[str, tuple[int, int]],
    hands: dict[str, int],
) -> bool:
    """Every table's records 1..n stored once each, and each finished hand once."""
    for table, report in reports.items():
        if events.get(table, (0, 0)) != (report["records"], report["records"]):
            print(f"table {table}: stored {events.get(table)}, journaled {report['records']}")
            return False
        if hands.get(table, 0) != report["hands"]:
            print(f"table {table}: hands stored {hands.get(table)}, finished {report['hands']}")
            return False
    return set(events) == set(reports)


async def _measure(
    args: argparse.Namespace, folder: Path, nats: NatsServer, pg: PostgresServer
) -> dict[str, float]:
    assert nats.proc is not None and pg.proc is not None
    floor = Floor(pg.conninfo, nats.url)
    await floor.open()
    assert floor.ingestor is not None
    latencies: list[float] = []
    floor.ingestor.listeners.append(lambda i: latencies.append(time.time() - i.time))
    names = [f"B{n:03d}" for n in range(args.tables)]
    groups = [names[i : i + args.per_process] for i in range(0, len(names), args.per_process)]
    spec = {"url": nats.url, "folder": str(folder), "pace": args.pace}
    children = [
        room.start_tables({**spec, "names": group, "seed": n}, args.nice)
        for n, group in enumerate(groups)
    ]
    await asyncio.to_thread(room.wait_ready, children)
    result: dict[str, float] = {"tables": args.tables, "pace_s": args.pace}
    if args.capacity:
        await asyncio.sleep(args.seconds)
        reports = room.stop_tables(children)
        total = sum(r["records"] for r in reports.values())
        latencies.clear()
    ingest = asyncio.create_task(floor.ingest_forever())
    if not args.capacity:  # the tables start and connect: not measured
        while len(floor.ingestor.last_seq) < args.tables:
            await asyncio.sleep(0.1)
        await asyncio.sleep(args.warmup)
        latencies.clear()
    servers0 = room.tree_cpu(nats.proc.pid), room.tree_cpu(pg.proc.pid)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    batches0, stored0 = floor.ingestor.batches, floor.ingestor.stored
    _, hands0 = await _rows(pg.conninfo)
    t0 = time.monotonic()
    if args.capacity:
        while floor.ingestor.stored < total:
            await asyncio.sleep(0.05)
    else:
        await asyncio.sleep(args.seconds)
        while floor.ingestor.stored == stored0:  # (a starved machine: at least one record)
            await asyncio.sleep(0.1)
    stored = floor.ingestor.stored - stored0
    elapsed = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    servers1 = room.tree_cpu(nats.proc.pid), room.tree_cpu(pg.proc.pid)
    pg_rss = room.tree_rss_mb(pg.proc.pid)
    batches = floor.ingestor.batches - batches0
    _, hands_now = await _rows(pg.conninfo)
    lat = list(latencies)
    if not args.capacity:
        reports = room.stop_tables(children)
        total = sum(r["records"] for r in reports.values())
    events, hands = await drain(floor, pg.conninfo, total, ingest)
    async with await psycopg.AsyncConnection.connect(pg.conninfo) as conn:
        cur = await conn.execute(
            "SELECT pg_total_relation_size('events'), "
            "(SELECT coalesce(avg(pg_column_size(record)), 0) FROM hands)"
        )
        sizes = await cur.fetchone() or (0, 0)
    cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    hands_total = sum(r["hands"] for r in reports.values())
    result.update(
        seconds=round(elapsed, 1),
        records_per_s=round(stored / elapsed, 1),
        hands_per_s=round((sum(hands_now.values()) - sum(hands0.values())) / elapsed, 2),
        records_per_batch=round(stored / max(batches, 1), 1),
        latency_p50_ms=round(1000 * room.percentile(lat, 0.50), 1),
        latency_p99_ms=round(1000 * room.percentile(lat, 0.99), 1),
        floor_cpu_percent=round(100 * cpu / elapsed, 1),
        floor_cpu_ms_per_record=round(1000 * cpu / max(stored, 1), 3),
        postgres_cpu_percent=round(100 * (servers1[1] - servers0[1]) / elapsed, 1),
        nats_cpu_percent=round(100 * (servers1[0] - servers0[0]) / elapsed, 1),
        floor_peak_rss_mb=round(cpu1.ru_maxrss / 1024, 1),
        postgres_rss_mb=round(pg_rss, 1),
        records_total=total,
        store_bytes_per_record=round(int(sizes[0]) / max(total, 1)),
        store_bytes_per_hand_record=round(float(sizes[1])),
        hands_total=hands_total,
        exactly_once=float(exactly_once(reports, events, hands)),
        load_average=round(os.getloadavg()[0], 1),
    )
    if args.capacity:  # the latency of a backlog says nothing of the room
        del result["latency_p50_ms"], result["latency_p99_ms"]
    return result


async def measure(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Start the servers, run, and stop them whatever happens."""
    return await room.with_servers(folder, lambda nats, pg: _measure(args, folder, nats, pg))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--per-process", type=int, default=25)
    parser.add_argument(
        "--pace",
        type=room.pace_value,
        default=0.0,
        help="seconds per dealer or bot step, 'human' (1 s) or 'bots' (0: flat out)",
    )
    parser.add_argument(
        "--warmup", type=float, default=10.0, help="seconds of start-up left out of the figures"
    )
    parser.add_argument("--nice", type=int, default=10, help="the tables' lower priority")
    parser.add_argument(
        "--capacity", action="store_true", help="time the floor on the tables' backlog"
    )
    args = parser.parse_args(argv)
    room.stop_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as folder:
        os.chmod(folder, 0o755)
        result = asyncio.run(measure(args, Path(folder)))
    for key, value in result.items():
        print(f"{key:24} {value}")
    return 0 if result["exactly_once"] else 1


if __name__ == "__main__":
    sys.exit(main())
