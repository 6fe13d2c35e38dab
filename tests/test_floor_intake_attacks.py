"""One table's key against the floor's intake, on a real nats-server with per-table NKeys
and a real PostgreSQL (issue 27, findings 1, 2, 3 and 8).

Table T1's own key may publish only on T1's subject; each test publishes there what
an attacker holding that key would, while honest tables play and the floor's own
service ingests: the floor must park what it cannot take (with an alert), never store
it under another table, and store every record of every other table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import nats
import psycopg
import pytest

from firmware.floor.messaging.natsconf import TableKey, new_table_key, room_config, write_seed
from firmware.floor.servers import NatsServer
from firmware.floor.service import Floor
from firmware.floor.simroom import SimTable
from firmware.floor.store import dashboard
from firmware.floor.store.dashboard import CALL_KEY, NoticeListener
from firmware.floor.store.ingest import ensure_stream
from firmware.service.floorwire import EVENTS, NOTICES, FloorConfig, read_outbox
from tests.floor_kit import pg_conninfo, pg_server, run, wait_until

__all__ = ["pg_conninfo", "pg_server"]

pytestmark = pytest.mark.xdist_group("floor")

TABLES = ("T1", "T2", "T3")


class Room:
    """A nats-server whose tables each have their own NKey, and their seed files."""

    def __init__(self, tmp_path: Path) -> None:
        self.keys: dict[str, TableKey] = {t: new_table_key() for t in TABLES}
        config = room_config({}, "pw-floor", nkeys={t: k.public for t, k in self.keys.items()})
        self.server = NatsServer(tmp_path / "nats", config).start()
        self.url = self.server.url
        self.seeds: dict[str, str] = {}
        for table, key in self.keys.items():
            self.seeds[table] = str(tmp_path / f"{table}.seed")
            write_seed(self.seeds[table], key)
        self.tmp = tmp_path

    def sim(self, table: str, hands: int, seed: int) -> SimTable:
        """An honest table playing ``hands`` hands through its own key."""
        floor = FloorConfig(self.url, table, seed=self.seeds[table])
        sim = SimTable(table, str(self.tmp / table), floor, seats=6, seed=seed, pace=0.002)
        sim.seat({1: (f"ana{table}", 200), 3: (f"beto{table}", 200), 5: (f"carla{table}", 200)})
        sim.hands_to_play = hands
        return sim


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    r = Room(tmp_path)
    run(_create_stream(r.url))
    yield r
    r.server.stop()


async def _create_stream(url: str) -> None:
    nc = await nats.connect(url, user="floor", password="pw-floor")
    await ensure_stream(nc.jetstream())
    await nc.close()


async def _as_t1(room: Room, messages: list[tuple[bytes, str]]) -> list[bool]:
    """Publish with T1's own key on T1's own subject; whether JetStream stored each."""
    nc = await nats.connect(
        room.url, nkeys_seed=room.seeds["T1"], inbox_prefix=b"_INBOX_T1", allow_reconnect=False
    )
    js = nc.jetstream(timeout=5)
    stored = []
    for body, msg_id in messages:
        ack = await js.publish(f"{EVENTS}.T1", body, headers={"Nats-Msg-Id": msg_id})
        stored.append(not ack.duplicate)
    await nc.close()
    return stored


def _floor_ingests(room: Room, conninfo: str, sims: list[SimTable]) -> dict[str, Any]:
    """Run the floor's own service until every honest table's records are stored (or its
    ingest task ended); what it did."""

    async def go() -> dict[str, Any]:
        floor = Floor(conninfo, room.url, "floor", "pw-floor")
        await floor.open()
        task = asyncio.create_task(floor.ingest_forever())
        assert floor.ingest_conn is not None
        conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)

        async def caught_up() -> bool:
            cur = await conn.execute("SELECT id, last_seq FROM tables")
            stored = dict(await cur.fetchall())
            return all(s.link is not None and stored.get(s.table_id) == s.link.acked for s in sims)

        polls = 0
        while not task.done() and not await caught_up() and polls < 3000:
            polls += 1
            await asyncio.sleep(0.02)
        died = task.done()
        floor.stopping.set()
        with _suppress_all():
            await task
        parked = getattr(floor.ingestor, "parked", 0)
        await conn.close()
        await floor.close()
        return {"died": died, "parked": parked}

    return dict(run(go()))


class _suppress_all:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return True


def _play(sims: list[SimTable]) -> None:
    for sim in sims:
        sim.start()
    _played(sims)


def _played(sims: list[SimTable]) -> None:
    """Wait until each table played its hands and JetStream acknowledged its records."""
    for sim in sims:
        assert wait_until(lambda s=sim: s.hands_to_play == 0 and s.table.hand is None)  # type: ignore[misc]
        assert sim.link is not None
        assert sim.link.wait_for(lambda k, s=sim: k.acked == len(s.journal))  # type: ignore[misc]


def _stored(conninfo: str, table: str) -> list[int]:
    with psycopg.connect(conninfo) as conn:
        return [
            int(r[0])
            for r in conn.execute(
                "SELECT seq FROM events WHERE table_id = %s ORDER BY seq", (table,)
            )
        ]


def _parked(conninfo: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(conninfo) as conn:
        return list(
            conn.execute(
                "SELECT d.table_id, d.reason, a.key, a.params->>'table' FROM dead_letters d "
                "JOIN alerts a ON a.key = 'floor.parked' AND (a.params->>'number')::bigint = d.id "
                "ORDER BY d.id"
            )
        )


def test_a_body_that_is_not_msgpack_is_parked_and_every_table_goes_on(
    room: Room, pg_conninfo: str
) -> None:
    """Finding 1: one unreadable message on T1's subject stopped every table's intake."""
    assert run(_as_t1(room, [(b"\xc1 this is not msgpack", "T1:1")])) == [True]
    sims = [room.sim("T2", hands=2, seed=2)]
    _play(sims)
    first = _floor_ingests(room, pg_conninfo, sims)
    assert first["died"] is False and first["parked"] == 1
    assert _stored(pg_conninfo, "T2") == list(range(1, len(sims[0].journal) + 1))
    parked = _parked(pg_conninfo)
    assert [(p[0], p[2], p[3]) for p in parked] == [("T1", "floor.parked", "T1")]
    assert "not msgpack" in parked[0][1]
    # A restarted floor does not meet the message again, and goes on with T2's next hand.
    sims[0].hands_to_play = 1
    _played(sims)
    again = _floor_ingests(room, pg_conninfo, sims)
    for sim in sims:
        sim.stop()
    assert again["died"] is False and again["parked"] == 0
    assert _stored(pg_conninfo, "T2") == list(range(1, len(sims[0].journal) + 1))
    assert len(_parked(pg_conninfo)) == 1


def test_a_body_naming_another_table_is_parked_not_stored_as_that_table(
    room: Room, pg_conninfo: str
) -> None:
    """Finding 2: T1 published T2's set-up with a sequence 100,000 ahead as T2; the floor
    stored it as T2 and then dropped T2's real records as duplicates."""
    sims = [room.sim("T2", hands=1, seed=4)]
    setup = read_outbox(sims[0].journal.path, 0, 1)[0].setup
    assert setup is not None
    forged = {"table": "T2", "seq": 100_000, "time": 1.0, "kind": "seat", "setup": setup}
    forged["record"] = {"kind": "seat", "seat": 2, "player": "Mallory", "chips": 10**9}
    assert run(_as_t1(room, [(msgpack.packb(forged), "T1:100000")])) == [True]
    _play(sims)
    result = _floor_ingests(room, pg_conninfo, sims)
    for sim in sims:
        sim.stop()
    assert result["died"] is False
    assert _stored(pg_conninfo, "T2") == list(range(1, len(sims[0].journal) + 1))
    assert _stored(pg_conninfo, "T1") == []
    parked = _parked(pg_conninfo)
    assert [(p[0], p[3]) for p in parked] == [("T1", "T1")]
    assert "names table 'T2'" in parked[0][1]


def test_another_tables_message_ids_cannot_make_jetstream_drop_its_records(
    room: Room, pg_conninfo: str
) -> None:
    """Finding 3: T1 published, on its own subject, the message ids T3 uses next; JetStream
    then acknowledged T3's real records as duplicates without storing them."""
    ids = [f"T3:{seq}" for seq in range(1, 201)]
    bodies = [
        msgpack.packb({"table": "T1", "seq": n + 1, "time": 1.0, "kind": "x", "record": {}})
        for n in range(len(ids))
    ]
    assert all(run(_as_t1(room, list(zip(bodies, ids, strict=True)))))
    sims = [room.sim("T3", hands=3, seed=6)]
    _play(sims)
    assert len(sims[0].journal) < len(ids)  # every record T3 sent had a pre-empted id
    result = _floor_ingests(room, pg_conninfo, sims)
    for sim in sims:
        sim.stop()
    assert result["died"] is False
    assert _stored(pg_conninfo, "T3") == list(range(1, len(sims[0].journal) + 1))
    # T1's messages carry ids that are not T1's: each is parked with its alert.
    parked = _parked(pg_conninfo)
    assert len(parked) == len(ids) and {p[0] for p in parked} == {"T1"}
    assert all("message id 'T3:" in p[1] for p in parked)


async def _notices(room: Room, conninfo: str, fakes: int) -> int:
    """T2's seat calls the floor, then T1's key sends ``fakes`` calls of its own; the
    floor's notice listener stores them all. How many it stored."""
    listener = NoticeListener(conninfo)
    floor = await nats.connect(room.url, user="floor", password="pw-floor")
    await listener.start(floor)
    await floor.flush()
    tables = {}
    for table in ("T2", "T1"):
        tables[table] = await nats.connect(
            room.url, nkeys_seed=room.seeds[table], inbox_prefix=f"_INBOX_{table}".encode()
        )
    real = {"text": "Seat 4 calls the floor.", "key": CALL_KEY, "params": {"seat": 4}}
    await tables["T2"].publish(f"{NOTICES}.T2", msgpack.packb({"alerts": [real]}))
    await tables["T2"].flush()
    while listener.stored < 1:
        await asyncio.sleep(0.01)
    for n in range(fakes):
        fake = {"text": f"Seat {n % 9 + 1} calls the floor ({n}).", "key": CALL_KEY}
        await tables["T1"].publish(f"{NOTICES}.T1", msgpack.packb({"alerts": [fake]}))
    await tables["T1"].flush()
    while listener.stored < 1 + fakes:
        await asyncio.sleep(0.01)
    for nc in tables.values():
        await nc.close()
    await listener.stop()
    await floor.close()
    return listener.stored


def test_one_tables_calls_cannot_push_another_tables_call_off_the_dashboard(
    room: Room, pg_conninfo: str
) -> None:
    """Finding 8: only the 30 newest open calls were shown; 40 fake calls from T1 hid
    T2's real one."""
    dashboard.create_schema(pg_conninfo)
    assert run(_notices(room, pg_conninfo, fakes=40)) == 41
    shown = dashboard.open_notices(pg_conninfo, limit=30)
    assert len(shown) <= 30
    assert [(r[1], r[2], r[3]) for r in shown if r[1] == "T2"] == [
        ("T2", "call", "Seat 4 calls the floor.")
    ]
    # T1's flood is capped, and every call it sent is still stored to acknowledge.
    assert 1 <= sum(1 for r in shown if r[1] == "T1") <= 5
    with psycopg.connect(pg_conninfo) as conn:
        count = conn.execute("SELECT count(*) FROM table_notices WHERE table_id = 'T1'").fetchone()
    assert count == (40,)
