"""Floor ingest: tables' journals through JetStream into a real PostgreSQL, exactly once.

The hands in the central store are the same records the tables keep; a
record delivered twice is stored once; a floor restarted with empty memory
rebuilds each table's replica from the store and goes on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgpack
import nats
import psycopg
import pytest

from firmware.floor.servers import NatsServer
from firmware.floor.simroom import SimTable
from firmware.floor.store.central import create_schema
from firmware.floor.store.ingest import Gap, Ingestor, ensure_stream
from firmware.service.floorwire import FloorConfig, read_outbox
from tests.floor_kit import run, wait_until

pytestmark = pytest.mark.xdist_group("floor")


async def _drain(url: str, conninfo: str, sims: list[SimTable], stop_after: int = 0) -> Ingestor:
    """Ingest until every table's stored last record is its link's last acked one."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    await ensure_stream(js)
    conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    await create_schema(conn)
    ingestor = Ingestor(conn)
    while True:
        await ingestor.consume(js, timeout=0.2)
        if stop_after and ingestor.stored >= stop_after:
            break
        cur = await conn.execute("SELECT id, last_seq FROM tables")
        stored = dict(await cur.fetchall())
        if all(
            s.link is not None and s.link.acked > 0 and stored.get(s.table_id) == s.link.acked
            for s in sims
        ) and all(s.table.hand is None and s.hands_to_play == 0 for s in sims):
            break
    await conn.close()
    await nc.close()
    return ingestor


def _sims(tmp_path: Path, url: str, hands: int) -> list[SimTable]:
    sims = []
    for number, name in enumerate(("T1", "T2")):
        sim = SimTable(
            name, str(tmp_path / name), FloorConfig(url, name), seats=6, seed=number, pace=0.002
        )
        sim.seat({1: ("ana" + name, 200), 3: ("beto" + name, 200), 5: ("carla" + name, 200)})
        sim.hands_to_play = hands
        sims.append(sim)
    return sims


def _plain(record: dict[str, Any]) -> Any:
    return json.loads(json.dumps(record))


def test_every_hand_of_every_table_is_stored_once_as_the_table_keeps_it(
    nats_server: NatsServer, pg_conninfo: str, tmp_path: Path
) -> None:
    run(_setup(nats_server.url))
    sims = _sims(tmp_path, nats_server.url, hands=4)
    for sim in sims:
        sim.start()
    assert wait_until(lambda: all(len(s.table.records) == 4 for s in sims))
    ingestor = run(_drain(nats_server.url, pg_conninfo, sims))
    for sim in sims:
        sim.stop()
    assert ingestor.duplicates == 0 and ingestor.gaps == 0
    with psycopg.connect(pg_conninfo) as conn:
        for sim in sims:
            assert sim.link is not None
            seqs = [
                r[0]
                for r in conn.execute(
                    "SELECT seq FROM events WHERE table_id = %s ORDER BY seq", (sim.table_id,)
                )
            ]
            assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) >= sim.link.acked
            hands = [
                r[0]
                for r in conn.execute(
                    "SELECT record FROM hands WHERE table_id = %s ORDER BY hand", (sim.table_id,)
                )
            ]
            assert hands == [_plain(r) for r in sim.table.records]
            # Each hand the floor stores carries its real start and end (UTC), rebuilt
            # from the journaled wall-clock anchor (issue 23).
            assert all(h["started_wall"] and h["finished_wall"] >= h["started_wall"] for h in hands)
            status = conn.execute(
                "SELECT status FROM tables WHERE id = %s", (sim.table_id,)
            ).fetchone()[0]
            stacks = {s["player"]: s["stack"] for s in status["seats"].values()}
            assert stacks == {s.player: s.stack for s in sim.table.seating.seats.values()}


async def _setup(url: str) -> None:
    nc = await nats.connect(url)
    await ensure_stream(nc.jetstream())
    await nc.close()


async def _replay_twice(conninfo: str, bodies: list[bytes]) -> tuple[int, int, bool]:
    conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    await create_schema(conn)
    first = Ingestor(conn)
    for body in bodies[:-1]:
        await first.ingest(body)
    # A floor restarted with empty memory: the replica is rebuilt from the store.
    second = Ingestor(conn)
    assert await second.ingest(bodies[0]) is None  # a redelivery: stored once
    gap = False
    try:
        await second.ingest(bodies[-1] if len(bodies) < 3 else _skip(bodies))
    except Gap:
        gap = True
    await second.ingest(bodies[-1])
    cur = await conn.execute("SELECT count(*) FROM events")
    events = (await cur.fetchone())[0]
    cur = await conn.execute("SELECT count(*) FROM hands")
    hands = (await cur.fetchone())[0]
    await conn.close()
    return events, hands, gap


def _skip(bodies: list[bytes]) -> bytes:
    """A record two past the stored ones (one missing in between)."""
    body = msgpack.unpackb(bodies[-1])
    body["seq"] += 1
    return bytes(msgpack.packb(body))


def test_redelivery_and_restart_store_each_record_once(pg_conninfo: str, tmp_path: Path) -> None:
    """Without NATS: the outbox's messages fed straight to the ingest, twice, out of order."""
    sim = SimTable("T9", str(tmp_path / "T9"), None, seats=6, seed=3)
    sim.seat({1: ("ana", 200), 2: ("beto", 200)})
    sim.hands_to_play = 3
    sim.start()
    assert wait_until(lambda: len(sim.table.records) == 3 and sim.table.hand is None)
    sim.stop()
    records = read_outbox(sim.journal.path, 0, limit=100_000)
    bodies = [r.message("T9") for r in records]
    events, hands, gap = run(_replay_twice(pg_conninfo, bodies))
    assert gap  # a record after a missing one is refused, to be redelivered
    assert events == len(bodies)
    assert hands == 3
