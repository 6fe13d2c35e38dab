"""Tournament control from the dashboard on a real PostgreSQL: moves wait for one confirmation.

The director decides (TDA-25 balancing, TDA-24 breaking, HG-5 final table)
but with :class:`StaffDirector` nothing moves until a floor person confirms
the plan shown; a stale confirmation is refused; pause and resume reach
every table and stop the public clock. The tables are a recording stand-in
here (their side is tested in ``test_floor_link.py``).
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import psycopg
import pytest

from firmware.errors import IllegalAction
from firmware.floor.store import dashboard
from firmware.floor.store.central import create_schema
from firmware.floor.tournament.control import StaffDirector
from firmware.floor.tournament.director import TournamentSpec
from tests.floor_kit import run

pytestmark = pytest.mark.xdist_group("floor")


async def _director(conninfo: str, sent: list[tuple[str, dict[str, Any]]]) -> StaffDirector:
    async def command(table: str, cmd: dict[str, Any]) -> dict[str, Any]:
        sent.append((table, {k: v for k, v in cmd.items() if k != "id"}))  # ids are random
        return {"ok": True, "chips": 1000, "playing": False}

    conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    await create_schema(conn)
    dashboard.create_schema(conninfo)
    spec = TournamentSpec("t1", "Control test", 100, 1000, ("A", "B", "C"), seats_per_table=6)
    director = StaffDirector(spec, conn, command, random.Random(5))
    await director.create()
    for n in range(14):
        await director.register(f"p{n:02d}")
    await director.start_now()
    return director


def _hand(table: str, room: dict[int, str]) -> dict[str, Any]:
    return {
        "hand": 1,
        "players": {str(s): p for s, p in room.items()},
        "starting_stacks": {str(s): 1000 for s in room},
        "finishing_stacks": {str(s): 1000 for s in room},
    }


def test_balancing_waits_for_the_floor_and_applies_exactly_the_plan(pg_conninfo: str) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def scenario() -> dict[str, Any]:
        d = await _director(pg_conninfo, sent)
        # The room after some moves elsewhere: A and B full, C short by four.
        players = [p for seated in d.room.values() for p in seated.values()]
        d.room = {
            "A": {s: players[s - 1] for s in range(1, 7)},
            "B": {s: players[s + 5] for s in range(1, 7)},
            "C": {1: players[12], 3: players[13]},
        }
        before = {t: dict(s) for t, s in d.room.items()}
        sent.clear()
        await d._hand_finished("A", _hand("A", d.room["A"]), time.time())
        # Nobody moves before the floor confirms (C, four short, is only held: TDA-25).
        moved = [c for _, c in sent if c["kind"] in ("remove", "seat")]
        unmoved = d.room == before and not moved
        sent.clear()
        plan = d.plan()
        with pytest.raises(IllegalAction, match="The room changed") as stale:
            await d.apply("0" * 16)
        applied = await d.apply(plan.token)
        await d.orders.settle()  # the moves are carried out seat by seat
        after = {t: len(s) for t, s in d.room.items()}
        again = d.plan()
        with pytest.raises(IllegalAction, match="no seat move") as nothing:
            await d.apply(plan.token)
        return {
            "unmoved": unmoved,
            "plan": plan,
            "applied": applied,
            "after": after,
            "again": again,
            "keys": (stale.value.key, nothing.value.key),
            "room": d.room,
        }

    out = run(scenario())
    assert out["unmoved"]
    steps = out["plan"].steps
    assert [s.kind for s in steps] == ["move", "move"]
    assert {s.move.to_table for s in steps if s.move} == {"C"}
    assert out["applied"] == out["plan"]
    assert out["after"] == {"A": 5, "B": 5, "C": 4}
    assert out["again"].steps == () and out["again"].token == ""
    assert out["keys"] == ("floor.plan.changed", "floor.plan.none")
    # Each move: taken off at its table, seated at C with the chips the table reported.
    kinds = [(t, c["kind"]) for t, c in sent]
    assert sorted(kinds) == sorted([(steps[0].table, "remove"), ("C", "seat"),
                                    (steps[1].table, "remove"), ("C", "seat")])  # fmt: skip
    for step in steps:  # each player is taken off before he is seated at C
        assert step.move is not None
        player = step.move.player
        removed = next(i for i, (_, c) in enumerate(sent) if c.get("player") == player)
        seated = max(i for i, (_, c) in enumerate(sent) if c.get("player") == player)
        assert sent[removed][1]["kind"] == "remove" and sent[seated][1]["kind"] == "seat"
        assert removed < seated
    assert all(c["chips"] == 1000 for _, c in sent if c["kind"] == "seat")
    for step in steps:
        assert step.move is not None
        assert out["room"]["C"][step.move.to_seat] == step.move.player


def test_a_table_break_is_planned_then_drawn_when_confirmed(pg_conninfo: str) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def scenario() -> tuple[Any, dict[str, int]]:
        d = await _director(pg_conninfo, sent)
        players = [p for seated in d.room.values() for p in seated.values()]
        # Eight players left fit on two tables of six: the break order's first (C) breaks.
        d.room = {"A": {1: players[0], 2: players[1], 3: players[2]},
                  "B": {1: players[3], 2: players[4], 4: players[5]},
                  "C": {2: players[6], 5: players[7]}}  # fmt: skip
        plan = d.plan()
        await d.apply(plan.token)
        return plan, {t: len(s) for t, s in d.room.items()}

    plan, after = run(scenario())
    assert [(s.kind, s.table, s.players) for s in plan.steps] == [("break", "C", 2)]
    assert sorted(after.values()) == [4, 4] and "C" not in after


def test_pause_and_resume_reach_every_table_and_stop_the_clock(pg_conninfo: str) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def scenario() -> list[Any]:
        d = await _director(pg_conninfo, sent)
        sent.clear()
        await d.pause()
        with pytest.raises(IllegalAction, match="paused already"):
            await d.pause()
        paused = dashboard.clock_elapsed(pg_conninfo, "t1", d.started_at or 0)
        await asyncio.sleep(0.05)
        later = dashboard.clock_elapsed(pg_conninfo, "t1", d.started_at or 0)
        pause_cmds = list(sent)
        sent.clear()
        await d.resume()
        running = dashboard.clock_elapsed(pg_conninfo, "t1", d.started_at or 0)
        return [paused, later, pause_cmds, list(sent), running]

    paused, later, pause_cmds, resume_cmds, running = run(scenario())
    assert paused[1] and later == paused  # the clock stands still while paused
    assert not running[1] and running[0] >= later[0]
    with psycopg.connect(pg_conninfo) as conn:
        row = conn.execute("SELECT paused_at, paused_seconds FROM clock_pauses").fetchone()
    assert row is not None and row[0] is None and row[1] >= 0.05  # the pause is left out
    tables = {"A", "B", "C"}
    # Every table pauses and resumes its level clock at one instant, the one the clock
    # page counts from (issue 23).
    for cmds, action in ((pause_cmds, "pause"), (resume_cmds, "resume")):
        clock = [(t, c) for t, c in cmds if c.get("kind") == "levels"]
        assert {t for t, c in clock if c["action"] == action} == tables
        assert len({c["at"] for _, c in clock}) == 1, clock
    (at,) = {c["at"] for _, c in pause_cmds if c.get("kind") == "levels"}
    (back,) = {c["at"] for _, c in resume_cmds if c.get("kind") == "levels"}
    assert row[1] == pytest.approx(back - at)
    assert {t for t, c in pause_cmds if c == {"kind": "deal", "hands": 0, "round": 0}} == tables
    assert {t for t, c in resume_cmds if c == {"kind": "deal", "hands": None, "round": 0}} == tables
