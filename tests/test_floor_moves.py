"""A player moved on before he arrived, on a real PostgreSQL, tables played by the test.

When two tables break in one decision (TDA-24), a player drawn into the
second one is moved again before he has sat down there. If the hand he was
playing at his first table busts him, that hand must still eliminate him,
and the second move must not ask a table to take off a player who never sat
there (the table would refuse and the tournament would stop).
"""

from __future__ import annotations

import asyncio

import pytest

from firmware.floor.store.ingest import Ingested
from firmware.floor.tournament.director import Director
from firmware.table.draws import Move
from tests.floor_kit import run
from tests.test_floor_director import Tables, _director, _until

pytestmark = pytest.mark.xdist_group("floor")


def test_a_player_moved_twice_and_busted_on_the_way_is_eliminated_by_his_hand(
    pg_conninfo: str,
) -> None:
    tables = Tables(["T1", "T2", "T3"])

    async def play() -> tuple[Director, str]:
        director = await _director(pg_conninfo, tables, 12, seats_per_table=6)
        running = asyncio.create_task(director.run())
        await director.orders.settle()
        tables.between["T1"].clear()  # T1 is playing a hand: nobody leaves it yet
        seat = min(tables.seats["T1"])
        player = tables.seats["T1"][seat][0]
        middle = min(s for s in range(1, 7) if s not in tables.seats["T2"])
        last = min(s for s in range(1, 7) if s not in tables.seats["T3"])
        async with director._deciding:  # one decision: moved into T2, then on to T3
            director._move(Move(player, "T1", seat, "T2", middle, "first move"))
            director._move(Move(player, "T2", middle, "T3", last, "second move"))
            await director._save_state()
        winner = max(tables.seats["T1"])
        record = tables.play("T1", [seat], winner)  # he busts in the hand at T1
        director.on_ingested(Ingested("T1", 99, "act", [record], {}, 30.0))
        await _until(lambda: player not in director.live)
        tables.between["T1"].set()  # the hand is over: the first move finds no chips
        await _until(lambda: not director.leaving and not director.arriving)
        await director.orders.settle()
        director.finished.set()
        director.queue.put_nowait(None)
        await running
        return director, player

    director, player = run(play())
    assert director.error == ""
    st = director.standings
    assert st is not None and [b.player for b in st.busts] == [player]
    assert player not in [p for seated in director.room.values() for p in seated.values()]
    assert player not in [p for seated in tables.seats.values() for p, _c in seated.values()]
    sent = [(t, c["kind"]) for t, c in tables.sent if c.get("player") == player]
    assert sent == [("T1", "seat"), ("T1", "remove")]  # taken off once; seated nowhere else
    assert tables.chips() == 12 * 1000
