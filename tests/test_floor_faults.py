"""Faults while tables play into the floor: PostgreSQL and nats-server killed with SIGKILL,
the floor restarted with empty memory. Afterwards every record and every hand of every
table is in the central store exactly once."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from firmware.floor.servers import NatsServer, PostgresServer
from firmware.floor.service import Floor
from firmware.floor.simroom import SimTable
from firmware.service.floorlink import FloorLink
from firmware.service.floorwire import FloorConfig
from firmware.service.journal import Journal
from tests.floor_kit import run

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]


async def _until(check: object, floor: Floor) -> None:
    """Wait until the coroutine ``check()`` is true (the floor keeps ingesting meanwhile)."""
    assert callable(check)
    while not await check():
        await asyncio.sleep(0.05)


async def _stored(conninfo: str) -> int:
    try:
        conn = await psycopg.AsyncConnection.connect(conninfo, connect_timeout=2)
    except psycopg.Error:
        return -1
    async with conn:
        cur = await conn.execute("SELECT count(*) FROM events")
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def _faults(nats: NatsServer, pg: PostgresServer, sims: list[SimTable]) -> None:
    floor = Floor(pg.conninfo, nats.url)
    await floor.open()
    ingest = asyncio.create_task(floor.ingest_forever())

    async def stored_more_than(n: int) -> bool:
        return await _stored(pg.conninfo) > n

    await _until(lambda: stored_more_than(50), floor)
    pg.kill()  # kill -9 of PostgreSQL mid-ingest
    await _until(lambda: _true(floor.outages > 0), floor)
    pg.start()
    before = await _stored(pg.conninfo)
    await _until(lambda: stored_more_than(before + 20), floor)
    nats.kill()  # kill -9 of the messaging server
    await _until(
        lambda: _true(all(s.link is not None and not s.link.connected for s in sims)), floor
    )
    nats.start()
    before = await _stored(pg.conninfo)
    await _until(lambda: stored_more_than(before + 20), floor)
    # The floor dies (its memory is lost) and comes back.
    floor.stopping.set()  # (the NATS client's fetch swallows a task cancellation)
    await ingest
    await floor.close()
    floor = Floor(pg.conninfo, nats.url)
    await floor.open()
    ingest = asyncio.create_task(floor.ingest_forever())
    before = await _stored(pg.conninfo)
    await _until(lambda: stored_more_than(before + 20), floor)
    for sim in sims:
        sim.hands_to_play = 0
    await _until(lambda: _true(all(s.table.hand is None for s in sims)), floor)
    for sim in sims:
        await asyncio.to_thread(sim.stop)
    # Whatever the links had not sent yet goes now, from the journals.
    for sim in sims:
        folder = str(Path(sim.journal.path).parent)
        config = FloorConfig(nats.url, sim.table_id)
        link = FloorLink(
            config, sim.journal.path, folder, sim.table, lambda e: None, lambda f: None
        )
        link.start()
        total = _journal_length(sim)
        await asyncio.to_thread(link.wait_for, lambda k, total=total: k.acked == total)
        link.stop()
    total = sum(_journal_length(s) for s in sims)
    await _until(lambda: _true_async(_stored(pg.conninfo), total), floor)
    floor.stopping.set()
    await ingest
    await floor.close()


async def _true(value: bool) -> bool:
    return value


async def _true_async(stored: object, total: int) -> bool:
    assert asyncio.iscoroutine(stored)
    return bool(await stored == total)


def _journal_length(sim: SimTable) -> int:
    journal = Journal(sim.journal.path)
    try:
        return len(journal)
    finally:
        journal.close()


def test_kill_9_of_postgres_nats_and_the_floor_loses_and_doubles_nothing(tmp_path: Path) -> None:
    nats = NatsServer(tmp_path / "nats").start()
    pg = PostgresServer.temporary().start()
    sims = [
        SimTable(t, str(tmp_path / t), FloorConfig(nats.url, t), seats=6, seed=n, pace=0.002)
        for n, t in enumerate(("F1", "F2"))
    ]
    for sim in sims:
        sim.seat({1: ("ana", 200), 2: ("beto", 200), 4: ("carla", 200), 6: ("dora", 200)})
        sim.start()
    try:
        run(asyncio.wait_for(_faults(nats, pg, sims), 900))  # a guard against a hang only
        with psycopg.connect(pg.conninfo) as conn:
            for sim in sims:
                seqs = [
                    r[0]
                    for r in conn.execute(
                        "SELECT seq FROM events WHERE table_id = %s ORDER BY seq", (sim.table_id,)
                    )
                ]
                assert seqs == list(range(1, _journal_length(sim) + 1))
                hands = conn.execute(
                    "SELECT count(*), count(DISTINCT hand) FROM hands WHERE table_id = %s",
                    (sim.table_id,),
                ).fetchone()
                assert hands == (len(sim.table.records), len(sim.table.records))
                assert 0 < len(sim.table.records) < sim.table.KEEP_RECORDS
    finally:
        for sim in sims:
            if sim._thread is not None and sim._thread.is_alive():
                sim.stop()
        nats.stop()
        pg.stop()


@pytest.mark.soak
def test_a_table_cut_off_plays_on_and_catches_up_through_kill_9_of_everything() -> None:
    """The faults benchmark's small run: while table C000's network is cut for 30 s, the
    floor process, nats-server and PostgreSQL are each killed -9 once at random moments;
    the cut table journals on, catches up when its network is back, and every record and
    hand of every table is stored exactly once."""
    script = Path(__file__).resolve().parent.parent / "bench" / "bench_floor_faults.py"
    done = subprocess.run(
        [
            *(sys.executable, str(script), "--tables", "3", "--per-process", "3"),
            *("--pace", "0.01", "--cut-seconds", "30", "--faults", "3", "--after-seconds", "2"),
        ],
        capture_output=True,
        text=True,
        timeout=1800,  # a guard against a hang only
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = dict(
        line.split(None, 1) for line in done.stdout.splitlines() if line and line[0] != " "
    )
    assert figures["exactly_once"].strip() == "True"
    assert sorted(figures["faults"].strip().split(", ")) == ["floor", "nats", "postgres"]
    assert int(figures["cut_table_records_played_while_cut"]) > 0
    assert int(figures["floor_starts"]) >= 2
