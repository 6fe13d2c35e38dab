"""A director rebuilt from the store after a crash, on a real PostgreSQL, tables played by the test.

Two situations a floor killed mid-tournament leaves, each met exactly: a hand
the ingest committed that the director never heard of (replayed from
``hands`` after the table's cursor, and handled once), and a seat move under
way (the player to be taken off a table still playing: the command sent, no
answer; the restarted director sends it again with the same id and seats
the player at the seat drawn for him, with his chips). The whole thing with
a real floor process killed with SIGKILL is ``tests/test_floor_resume.py``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from firmware.floor.store.ingest import Ingested
from firmware.floor.tournament.director import Director
from firmware.floor.tournament.resume import recover, resume
from tests.floor_kit import run
from tests.test_floor_director import Tables, _director, _rows, _until

pytestmark = pytest.mark.xdist_group("floor")


async def _crash(director: Director, running: asyncio.Task[None]) -> None:
    """The floor dies: the director's work stops where it is (nothing more is written)."""
    running.cancel()
    await director.orders.cancel()
    await asyncio.gather(running, return_exceptions=True)


async def _store_hand(
    conninfo: str, table: str, seq: int, record: dict[str, Any], at: float
) -> None:
    """What the ingest commits for a record that finished a hand."""
    async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as conn:
        await conn.execute("INSERT INTO tables (id) VALUES (%s) ON CONFLICT DO NOTHING", (table,))
        await conn.execute(
            "INSERT INTO events (table_id, seq, time, kind, record) VALUES (%s, %s, %s, 'act', %s)",
            (table, seq, at, b"\x80"),
        )
        await conn.execute(
            "INSERT INTO hands (table_id, seq, hand, finished, record) VALUES (%s, %s, %s, %s, %s)",
            (table, seq, record["hand"], at, Jsonb(record)),
        )


def test_a_hand_stored_before_the_crash_is_replayed_once_after_it(pg_conninfo: str) -> None:
    tables = Tables(["T1", "T2"])

    async def play() -> tuple[Director, str, int]:
        director = await _director(pg_conninfo, tables, 10, seats_per_table=6)
        running = asyncio.create_task(director.run())
        seats = sorted(tables.seats["T1"])
        victim = tables.seats["T1"][seats[0]][0]
        record = tables.play("T1", [seats[0]], seats[-1])
        # The ingest committed the hand; the floor died before the director heard of it.
        await _store_hand(pg_conninfo, "T1", 7, record, 50.0)
        await director.orders.settle()
        await _crash(director, running)
        assert victim in director.live
        conn = await psycopg.AsyncConnection.connect(pg_conninfo, autocommit=True)
        again = await resume(conn, tables.command, "t1")
        assert again is not None
        await recover(again)
        replayed = len(again.replay)
        running = asyncio.create_task(again.run())
        await _until(lambda: victim not in again.live)
        # The ingest may report that record too (stored meanwhile): it is not handled twice.
        again.on_ingested(Ingested("T1", 7, "act", [record], {}, 50.0))
        again.queue.put_nowait(None)
        await _until(lambda: again.queue.empty())
        await again.orders.settle()
        again.finished.set()
        again.queue.put_nowait(None)
        await running
        return again, victim, replayed

    director, victim, replayed = run(play())
    st = director.standings
    assert replayed == 1 and st is not None and [b.player for b in st.busts] == [victim]
    assert st.places == {victim: 10} and director.cursor["T1"] == 7
    assert victim not in [p for seated in tables.seats.values() for p, _c in seated.values()]
    stored = _rows(pg_conninfo, "SELECT player_id, place FROM registrations WHERE place > 0")
    assert dict(stored) == {victim: 10}


def test_a_move_under_way_at_the_crash_is_finished_with_the_same_command_ids(
    pg_conninfo: str,
) -> None:
    tables = Tables(["T1", "T2"])

    async def play() -> tuple[Director, str, str]:
        director = await _director(pg_conninfo, tables, 10, seats_per_table=6)
        running = asyncio.create_task(director.run())
        tables.between["T1"].clear()  # T1 is playing a hand: nobody leaves it yet
        t2 = sorted(tables.seats["T2"])
        tables.hand(director, "T2", t2[:3], t2[-1], at=10.0)  # T2 is three short
        await _until(lambda: bool(director.leaving))
        (mover,) = director.leaving
        sent = tables.sent

        def removals() -> list[str]:
            return [c["id"] for _t, c in sent if c["kind"] == "remove" and c["player"] == mover]

        await _until(lambda: bool(removals()))  # stored, then sent: waiting for the hand
        (removal,) = removals()
        await _crash(director, running)  # the command was sent; its answer never came
        conn = await psycopg.AsyncConnection.connect(pg_conninfo, autocommit=True)
        again = await resume(conn, tables.command, "t1")
        assert again is not None
        assert again.leaving == {mover: "T1"} and len(again.arriving) == 1
        await recover(again)
        running = asyncio.create_task(again.run())
        tables.between["T1"].set()  # the hand is over: the move goes on
        await _until(lambda: not again.leaving and not again.arriving)
        await again.orders.settle()
        await again._save_state()
        again.finished.set()
        again.queue.put_nowait(None)
        await running
        return again, mover, removal

    director, mover, removal = run(play())
    assert tables.seat_of(mover)[0] == "T2"
    assert director.room["T2"][tables.seat_of(mover)[1]] == mover
    assert tables.chips() == 10 * 1000  # every chip still at a seat
    removes = [c for _t, c in tables.sent if c["kind"] == "remove" and c["player"] == mover]
    assert [c["id"] for c in removes] == [removal, removal]  # sent again with its id
    seats = [c for _t, c in tables.sent if c["kind"] == "seat" and c["player"] == mover]
    assert [c["id"] for c in seats][-1:] == [f"{removal}-seat"]
    assert _rows(pg_conninfo, "SELECT count(*) FROM floor_commands WHERE NOT settled") == [(0,)]
    moved = _rows(pg_conninfo, f"SELECT table_id FROM seat_assignments WHERE player_id = '{mover}'")
    assert moved[-1] == ("T2",)
