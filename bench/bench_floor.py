"""A simulated card room playing into one floor: throughput, latency, the floor's CPU and memory.

Usage::

    .venv/bin/python bench/bench_floor.py [--tables 10] [--seconds 30] [--per-process 10]

Starts its own nats-server and PostgreSQL, then ``--tables`` simulated cash
tables (six bots each, virtual decks, real controllers, journals and floor
links; ``--per-process`` tables per process, in child processes) playing as
fast as they can, while this process runs the floor's ingest alone. It
prints the records and hands ingested per second, the latency from a
record's journaling at the table to its commit in the store (p50/p99), and
this process's CPU and peak memory. At the end it checks that every record of
every table is stored exactly once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg

from firmware.floor.servers import NatsServer, PostgresServer
from firmware.floor.service import Floor


def tables_process(url: str, folder: str, pace: float, names: list[str]) -> None:
    """Child process: run the named tables until SIGTERM, then report journal lengths."""
    stop = {"now": False}  # first: a SIGTERM during start-up must not kill the child
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    from firmware.floor.simroom import SimTable
    from firmware.service.floorlink import FloorConfig

    sims = []
    for n, name in enumerate(names):
        config = FloorConfig(url, name)
        sim = SimTable(name, os.path.join(folder, name), config, seats=6, seed=n, pace=pace)
        sim.seat({s: (f"{name}-p{s}", 200) for s in range(1, 7)})
        sims.append(sim)
    for sim in sims:
        sim.start()
    while not stop["now"]:
        time.sleep(0.1)
    for sim in sims:
        sim.hands_to_play = 0
    for sim in sims:
        while sim.table.hand is not None:
            time.sleep(0.05)
    for sim in sims:
        sim.stop()
    # Publish what the links had not sent yet, then report.
    out = {}
    for sim in sims:
        from firmware.service.floorlink import FloorLink
        from firmware.service.journal import Journal

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
        link.wait_for(lambda k, length=length: k.acked == length, timeout=600)
        link.stop()
        out[sim.table_id] = {"records": length, "hands": sim.table.hand_number}
    print(json.dumps(out), flush=True)


async def measure(args: argparse.Namespace, folder: Path) -> dict[str, float]:
    nats = NatsServer(folder / "nats").start()
    pg = PostgresServer.temporary().start()
    floor = Floor(pg.conninfo, nats.url)
    await floor.open()
    assert floor.ingestor is not None
    latencies: list[float] = []
    floor.ingestor.listeners.append(lambda i: latencies.append(time.time() - i.time))
    names = [f"B{n:03d}" for n in range(args.tables)]
    groups = [names[i : i + args.per_process] for i in range(0, len(names), args.per_process)]
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--child", nats.url, str(folder), str(args.pace), *group],
            stdout=subprocess.PIPE,
            text=True,
        )
        for group in groups
    ]
    ingest = asyncio.create_task(floor.ingest_forever())
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.monotonic()
    await asyncio.sleep(args.seconds)
    stored0 = floor.ingestor.stored
    elapsed = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    async with await psycopg.AsyncConnection.connect(pg.conninfo) as conn:
        cur = await conn.execute("SELECT count(*) FROM hands")
        row = await cur.fetchone()
        hands0 = int(row[0]) if row else 0
    lat = sorted(latencies)
    for child in children:
        child.send_signal(signal.SIGTERM)
    reports: dict[str, dict[str, int]] = {}
    for child in children:
        out, _ = child.communicate(timeout=900)
        reports.update(json.loads(out.strip().splitlines()[-1]))
    total = sum(r["records"] for r in reports.values())
    while True:
        async with await psycopg.AsyncConnection.connect(pg.conninfo) as conn:
            cur = await conn.execute("SELECT table_id, count(*), max(seq) FROM events GROUP BY 1")
            rows = await cur.fetchall()
        if sum(int(r[1]) for r in rows) >= total:
            break
        await asyncio.sleep(0.2)
    floor.stopping.set()
    await ingest
    await floor.close()
    nats.stop()
    pg.stop()
    exact = all(
        int(count) == int(top) == reports[table]["records"] for table, count, top in rows
    ) and len(rows) == len(names)
    cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    return {
        "tables": args.tables,
        "seconds": round(elapsed, 1),
        "records_per_s": round(stored0 / elapsed, 1),
        "hands_per_s": round(hands0 / elapsed, 2),
        "latency_p50_ms": round(1000 * lat[len(lat) // 2], 1) if lat else 0.0,
        "latency_p99_ms": round(1000 * lat[int(len(lat) * 0.99)], 1) if lat else 0.0,
        "floor_cpu_percent": round(100 * cpu / elapsed, 1),
        "floor_peak_rss_mb": round(cpu1.ru_maxrss / 1024, 1),
        "records_total": total,
        "exactly_once": float(exact),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        tables_process(argv[1], argv[2], float(argv[3]), argv[4:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--per-process", type=int, default=10)
    parser.add_argument(
        "--pace", type=float, default=0.0, help="seconds per dealer step (0: flat out)"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as folder:
        os.chmod(folder, 0o755)
        result = asyncio.run(measure(args, Path(folder)))
    for key, value in result.items():
        print(f"{key:20} {value}")
    return 0 if result["exactly_once"] else 1


if __name__ == "__main__":
    sys.exit(main())
