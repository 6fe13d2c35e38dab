"""The tournament director's decisions on a real PostgreSQL, with tables played by the test.

The tables here are a small stand-in that answers the floor's commands the
way a table's link does (a player is taken off only between hands, with the
chips he has); the hands they report are written by the test, so each
procedure meets exactly the situation its rule is about: places in the
hands' real order, late registration and re-entry (FLOOR-LATE), a table
three short held until the moved player arrives (TDA-25), and hand-for-hand
rounds whose start and stop the store records (FLOOR-HFH). The whole
tournament on real tables and NATS is ``tests/test_floor_tournament.py``.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from typing import Any

import psycopg
import pytest

from firmware.errors import IllegalAction
from firmware.floor.store.central import create_schema
from firmware.floor.store.ingest import Ingested
from firmware.floor.tournament.director import Director, TournamentSpec
from tests.floor_kit import run

pytestmark = pytest.mark.xdist_group("floor")


class Tables:
    """Tables as the floor sees them through their commands."""

    def __init__(self, names: list[str]) -> None:
        self.seats: dict[str, dict[int, list[Any]]] = {t: {} for t in names}
        self.between = {t: asyncio.Event() for t in names}
        for event in self.between.values():
            event.set()
        self.deal: dict[str, int | None] = dict.fromkeys(names)
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.numbers = itertools.count(1)

    async def command(self, table: str, cmd: dict[str, Any]) -> dict[str, Any]:
        self.sent.append((table, cmd))
        seats = self.seats[table]
        if cmd["kind"] == "seat":
            if cmd["seat"] in seats:
                return {"ok": False, "error": f"Seat {cmd['seat']} is taken."}
            seats[cmd["seat"]] = [cmd["player"], cmd["chips"]]
        elif cmd["kind"] == "remove":
            await self.between[table].wait()  # nobody leaves during a hand
            player, chips = seats.pop(cmd["seat"])
            assert player == cmd["player"]
            return {"ok": True, "chips": chips, "player": player}
        elif cmd["kind"] == "deal":
            self.deal[table] = cmd["hands"]
        return {"ok": True, "chips": 0, "playing": not self.between[table].is_set()}

    def hand(
        self, director: Director, table: str, busted: list[int], winner: int, at: float
    ) -> None:
        """A hand at ``table``: the ``busted`` seats lose everything to ``winner``."""
        record = self.play(table, busted, winner)
        director.on_ingested(Ingested(table, record["hand"], "act", [record], {}, at))

    def play(self, table: str, busted: list[int], winner: int) -> dict[str, Any]:
        """Play the hand at the table; its record (for the floor to see, now or later)."""
        seats = self.seats[table]
        number = next(self.numbers)
        start = {str(s): chips for s, (_p, chips) in seats.items()}
        for seat in busted:
            seats[winner][1] += seats[seat][1]
            seats[seat][1] = 0
        record = {
            "hand": number,
            "players": {str(s): p for s, (p, _c) in seats.items()},
            "starting_stacks": start,
            "finishing_stacks": {str(s): chips for s, (_p, chips) in seats.items()},
        }
        return record

    def seat_of(self, player: str) -> tuple[str, int]:
        return next(
            (t, s)
            for t, seated in self.seats.items()
            for s, (p, _c) in seated.items()
            if p == player
        )

    def chips(self) -> int:
        return sum(c for seated in self.seats.values() for _p, c in seated.values())


async def _until(check: Any) -> None:
    """Let the director's tasks run until ``check()`` holds."""
    for _ in range(12000):  # a guard against a hang only
        if check():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the director never got there")


async def _director(conninfo: str, tables: Tables, players: int, **spec: Any) -> Director:
    conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    await create_schema(conn)
    director = Director(
        TournamentSpec("t1", "Test", 100, 1000, tuple(tables.seats), **spec),
        conn,
        tables.command,
        random.Random(5),
    )
    await director.create()
    for number in range(players):
        await director.register(f"p{number}")
    await director.start()
    return director


def _rows(conninfo: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(conninfo) as conn:
        return list(conn.execute(sql))


def test_places_follow_the_hands_real_order_not_the_order_they_arrive(
    pg_conninfo: str,
) -> None:
    """A hand at T1 that ended before a hand at T2 reaches the floor after it: its
    players still finish below the one T2 busted later (and, busted in one hand,
    the one who started it with fewer chips finishes lower)."""
    tables = Tables(["T1", "T2"])

    async def play() -> tuple[Director, list[str]]:
        director = await _director(pg_conninfo, tables, 10, seats_per_table=6)
        running = asyncio.create_task(director.run())
        t1, t2 = sorted(tables.seats["T1"]), sorted(tables.seats["T2"])
        early = [tables.seats["T1"][s][0] for s in t1[:2]]
        late = tables.seats["T2"][t2[0]][0]
        tables.hand(director, "T2", t2[:1], t2[-1], at=2000.0)
        await _until(lambda: len(director.standings.busts) == 1)  # type: ignore[union-attr]
        tables.seats["T1"][t1[0]][1] = 300  # fewer chips at the start of the hand
        tables.hand(director, "T1", t1[:2], t1[-1], at=1000.0)
        await _until(lambda: len(director.standings.busts) == 3)  # type: ignore[union-attr]
        director.finished.set()
        director.queue.put_nowait(None)
        await running
        return director, [*early, late]

    director, (fewest, more, later) = run(play())
    st = director.standings
    assert st is not None
    assert st.places == {fewest: 10, more: 9, later: 8}
    stored = _rows(pg_conninfo, "SELECT player_id, place FROM registrations WHERE place > 0")
    assert dict(stored) == st.places  # the stored place of the T2 player moved up


def test_a_moved_player_busted_in_a_hand_not_yet_seen_is_placed_by_that_hand(
    pg_conninfo: str,
) -> None:
    """The floor moves a player whose table is playing a hand; he busts in it, so the
    move finds him with no chips. A player at another table busts after him, and the
    floor sees that hand first: the moved player still finishes below him."""
    tables = Tables(["T1", "T2"])

    async def play() -> tuple[Director, str, str]:
        director = await _director(pg_conninfo, tables, 18, seats_per_table=9)
        running = asyncio.create_task(director.run())
        tables.between["T1"].clear()  # T1 is playing a hand
        t2 = sorted(tables.seats["T2"])
        tables.hand(director, "T2", t2[:3], t2[-1], at=10.0)
        await _until(lambda: bool(director.leaving))
        (mover,) = director.leaving
        _table, seat = tables.seat_of(mover)
        other = next(s for s in tables.seats["T1"] if s != seat)
        unseen = tables.play("T1", [seat], other)  # he busts; the floor sees it last
        tables.between["T1"].set()  # the hand is over: the move finds no chips
        await _until(lambda: mover in director.gone)
        t2 = sorted(tables.seats["T2"])
        later = tables.seats["T2"][t2[0]][0]
        tables.hand(director, "T2", t2[:1], t2[-1], at=30.0)
        await _until(lambda: later not in director.live)
        director.on_ingested(Ingested("T1", unseen["hand"], "act", [unseen], {}, 20.0))
        await _until(lambda: mover not in director.live)
        await director.orders.settle()
        director.finished.set()
        director.queue.put_nowait(None)
        await running
        return director, mover, later

    director, mover, later = run(play())
    st = director.standings
    assert st is not None and len(st.places) == 5
    assert st.places[mover] == 15 and st.places[later] == 14
    stored = dict(_rows(pg_conninfo, "SELECT player_id, place FROM registrations WHERE place > 0"))
    assert stored == st.places
    assert not director.gone and not director.leaving


def test_floor_late_registration_and_re_entry_windows_tda_13(pg_conninfo: str) -> None:
    """Late registration and re-entry until the end of level 1, at most two entries:
    each entry is drawn to a shortest table, adds to the pool and is stored; a
    re-entry comes only after the bust; the window closes with level 1."""
    tables = Tables(["T1", "T2"])
    levels = (
        {"small_blind": 5, "big_blind": 10, "minutes": 20},
        {"break_minutes": 5},
        {"small_blind": 10, "big_blind": 20, "minutes": 20},
    )

    async def play() -> tuple[Director, list[str], dict[str, Any]]:
        director = await _director(
            pg_conninfo,
            tables,
            5,
            seats_per_table=6,
            levels=levels,
            late_until_level=1,
            max_entries=2,
        )
        running = asyncio.create_task(director.run())
        refusals: list[str] = []
        out: dict[str, Any] = {}
        short = min(tables.seats, key=lambda t: len(tables.seats[t]))
        seat = await director.enter("late")
        out["late_seat"] = (seat.table, short, tables.seat_of("late"))
        table, at = tables.seat_of("p0")
        for who in ("late", "p0"):
            try:
                await director.enter(who)
            except IllegalAction as exc:
                refusals.append(str(exc))
        winner = next(s for s in tables.seats[table] if s != at)
        tables.hand(director, table, [at], winner, at=100.0)
        await _until(lambda: "p0" not in director.live)
        await director.enter("p0")  # the re-entry, once p0 is out
        out["p0_again"] = tables.seat_of("p0")
        for who in ("p0",):
            try:
                await director.enter(who)
            except IllegalAction as exc:
                refusals.append(str(exc))
        table, at = tables.seat_of("p0")
        winner = next(s for s in tables.seats[table] if s != at)
        tables.hand(director, table, [at], winner, at=200.0)
        await _until(lambda: "p0" not in director.live)
        try:
            await director.enter("p0")  # a third entry
        except IllegalAction as exc:
            refusals.append(str(exc))
        assert director.started_at is not None
        director.started_at -= 21 * 60  # the clock ran past level 1: the break
        try:
            await director.enter("later")
        except IllegalAction as exc:
            refusals.append(str(exc))
        out["chips"] = tables.chips()
        director.finished.set()
        director.queue.put_nowait(None)
        await running
        return director, refusals, out

    director, refusals, out = run(play())
    drawn, short, (table, seat) = out["late_seat"]
    assert drawn == short == table and seat >= 1
    assert refusals[0].startswith("A player re-enters only after")  # late is playing
    assert refusals[1].startswith("A player re-enters only after")  # p0 is playing
    assert refusals[2].startswith("A player re-enters only after")  # p0 #2 is playing
    assert refusals[3] == "This tournament takes at most 2 entries per player."
    assert refusals[4] == "Late registration and re-entry closed at the end of level 1."
    st = director.standings
    assert st is not None and st.entries == 7 and sum(st.prizes) == 700
    assert out["chips"] == 7 * 1000  # every entry's chips, all at the tables
    assert st.places == {"p0": 7, "p0 #2": 6}
    entries = _rows(
        pg_conninfo, "SELECT player_id, entry, place FROM registrations ORDER BY player_id, entry"
    )
    assert ("p0", 1, 7) in entries and ("p0", 2, 6) in entries and ("late", 1, None) in entries
    assert len(entries) == 7
    reasons = [r for (r,) in _rows(pg_conninfo, "SELECT reason FROM seat_assignments")]
    assert sum("FLOOR-LATE late registration" in r for r in reasons) == 1
    assert sum("FLOOR-LATE re-entry" in r for r in reasons) == 1
    (state,) = _rows(pg_conninfo, "SELECT state FROM tournaments")[0]
    assert sum(state["prizes"]) == 700 and state["entries"] == 7


def test_tda_25_a_table_three_short_waits_until_the_moved_player_arrives(
    pg_conninfo: str,
) -> None:
    """Eighteen players at two tables of nine; three bust at T2. T2 is three short of
    T1 and stops; the player moved from T1 waits for T1's hand, and meanwhile nothing
    else waits (a late entry is seated); T2 deals again when he sits down there."""
    tables = Tables(["T1", "T2"])

    async def play() -> tuple[Director, dict[str, Any]]:
        director = await _director(
            pg_conninfo,
            tables,
            18,
            seats_per_table=9,
            levels=({"small_blind": 5, "big_blind": 10, "minutes": 20},),
            late_until_level=1,
        )
        running = asyncio.create_task(director.run())
        out: dict[str, Any] = {}
        tables.between["T1"].clear()  # T1 is playing a hand
        t2 = sorted(tables.seats["T2"])
        tables.hand(director, "T2", t2[:3], t2[-1], at=10.0)
        await _until(lambda: tables.deal["T2"] == 0)
        out["held"] = sorted(director.held)
        out["moving"] = dict(director.leaving)
        await director.enter("late")  # not held up by the waiting move
        out["late"] = tables.seat_of("late")
        out["t2_while_waiting"] = len(tables.seats["T2"])
        tables.between["T1"].set()  # T1's hand ends: the move goes ahead
        await _until(lambda: not director.held)
        out["t2_after"] = len(tables.seats["T2"])
        out["chips"] = tables.chips()
        director.finished.set()
        director.queue.put_nowait(None)
        await running
        return director, out

    _director_done, out = run(play())
    assert out["held"] == ["T2"]
    assert list(out["moving"].values()) == ["T1"]
    assert out["late"][0] == "T2" and out["t2_while_waiting"] == 7  # 6 + the late entry
    assert out["t2_after"] == 8 and tables.deal["T2"] is None
    assert out["chips"] == 19 * 1000
    log = _rows(pg_conninfo, "SELECT kind, text FROM tournament_log ORDER BY id")
    holds = [text for kind, text in log if kind == "hold"]
    assert holds == [
        "TDA-25: table T2 is 3 players short; play stops there until the players moved "
        "to it arrive.",
        "TDA-25: table T2 is balanced; play resumes there.",
    ]


def test_floor_hfh_rounds_are_ordered_and_the_decisions_stored(pg_conninfo: str) -> None:
    """Six players, two paid, three tables of two. With three left at two tables
    hand-for-hand begins: every table gets a journaled order for one hand per
    round, a round ends when both tables finished, and reaching the money ends it;
    the store keeps the start, the round and the end."""
    tables = Tables(["T1", "T2", "T3"])

    async def bust(director: Director, table: str, count: int, at: float) -> None:
        await director.orders.settle()
        seats = sorted(tables.seats[table])
        tables.hand(director, table, seats[:count], seats[-1], at=at)
        busts = len(director.standings.busts) + count  # type: ignore[union-attr]
        await _until(lambda: len(director.standings.busts) == busts)  # type: ignore[union-attr]
        await director.orders.settle()

    async def play() -> Director:
        director = await _director(pg_conninfo, tables, 6, seats_per_table=2)
        running = asyncio.create_task(director.run())
        await bust(director, "T1", 1, 1.0)
        await bust(director, "T2", 1, 2.0)
        await _until(lambda: len(director.room) == 2)  # T3 broke (TDA-24)
        await bust(director, "T1", 1, 3.0)
        await _until(lambda: tables.deal["T1"] == 1 and tables.deal["T2"] == 1)
        assert director.hfh is not None and director.hfh.round == 1
        await bust(director, "T1", 0, 4.0)  # round 1 at T1: nobody out
        await _until(lambda: director.hfh is not None and director.hfh.done == {"T1"})
        await bust(director, "T2", 1, 5.0)  # round 1 at T2: one out, the money
        await _until(lambda: director.hfh is None and len(director.room) == 1)
        await director.orders.settle()
        director.finished.set()
        director.queue.put_nowait(None)
        await running
        return director

    director = run(play())
    st = director.standings
    assert st is not None and st.left == 2
    orders = [(c["hands"], c["round"]) for _t, c in tables.sent if c["kind"] == "deal"]
    assert (0, 1) in orders and (1, 1) in orders  # hold, then one hand, round 1
    assert orders[-1][0] is None  # then any number again
    log = [k for (k,) in _rows(pg_conninfo, "SELECT kind FROM tournament_log ORDER BY id")]
    assert log.count("hand_for_hand") == 2 and log.count("hfh_round") == 1
    assert log.index("hand_for_hand") < log.index("hfh_round")
