"""Tournament control from the dashboard: start, pause, resume, late entries, and seat moves
confirmed by staff.

:class:`StaffDirector` is the tournament director
(:class:`~firmware.floor.tournament.director.Director`) with one difference: it does not
move players on its own. After each hand it works out what the procedures
require (:mod:`firmware.floor.tournament.mtt`: a table to break, TDA-24; a player to move,
TDA-25 or HG-4; the final table, HG-5) as a *plan*, shown on the dashboard;
a floor person confirms it once and the director carries out exactly that
plan. A plan has a token (a digest of its steps): if the room changed
between showing and confirming, the confirmation is refused and the new plan
shown. A table break is shown as the table and its players; where each one
goes is drawn when it is applied (TDA-24 draws the seats).

:class:`TournamentControl` lets the web server's threads call into the
director, which lives on the floor's event loop: every call runs there, one
at a time with the director's own handling of hands.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

from firmware.errors import IllegalAction
from firmware.floor.tournament import mtt
from firmware.floor.tournament.director import Director
from firmware.table.draws import Move

T = TypeVar("T")

ANSWER_SECONDS = 120.0
"""How long a dashboard request waits for the director before it says the action is
still under way (it goes on: a table cut off answers when it is back)."""


@dataclass(frozen=True)
class Step:
    """One step of a plan: ``kind`` is ``move``, ``break`` or ``final``."""

    kind: str
    table: str
    move: Move[str] | None = None
    players: int = 0


@dataclass(frozen=True)
class Plan:
    """What the procedures require now, and its token."""

    steps: tuple[Step, ...]

    @property
    def token(self) -> str:
        """A digest of the steps (empty plan: empty token)."""
        if not self.steps:
            return ""
        text = repr([(s.kind, s.table, s.move, s.players) for s in self.steps])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class StaffDirector(Director):
    """A director whose seat moves wait for a floor person's confirmation."""

    confirm_moves: bool = True
    """False: move players at once after each hand, like :class:`Director`."""
    paused: bool = False
    paused_at: float | None = None

    async def _rearrange(self) -> None:
        if not self.confirm_moves:
            await super()._rearrange()
        # else: the dashboard shows plan() until a floor person confirms it

    def _order(self) -> tuple[str, ...]:
        return self.spec.break_order or tuple(reversed(self.spec.tables))

    def plan(self) -> Plan:
        """The moves the procedures require now, up to and including a table break."""
        if self.standings is None or self.finished.is_set():
            return Plan(())
        seats = self.spec.seats_per_table
        room = {t: dict(s) for t, s in self.room.items()}
        steps: list[Step] = []
        while len(room) > 1:
            broken = mtt.table_to_break(room, seats, self._order())
            if broken is not None:
                count = sum(len(s) for s in room.values())
                if mtt.tables_needed(count, seats) == 1:
                    final = next(t for t in reversed(self._order()) if t in room)
                    steps.append(Step("final", final, players=count))
                else:
                    steps.append(Step("break", broken, players=len(room[broken])))
                break
            big_blinds = {t: self._blind(t, "big_blind") for t in room}
            buttons = {t: self._blind(t, "button") for t in room}
            moves = mtt.balance_room(room, big_blinds, buttons, self.spec.method, seats)
            if not moves:
                break
            move = moves[0]
            steps.append(Step("move", move.from_table, move=move))
            del room[move.from_table][move.from_seat]
            room[move.to_table][move.to_seat] = move.player
        return Plan(tuple(steps))

    async def apply(self, token: str) -> Plan:
        """Carry out the plan whose token the floor person confirmed; the plan applied.

        :raises IllegalAction: if there is nothing to apply or the plan changed.
        """
        async with self._deciding:  # one decision at a time, reports included
            plan = self.plan()
            if not plan.steps:
                raise IllegalAction("There is no seat move to apply now.", key="floor.plan.none")
            if plan.token != token:
                raise IllegalAction(
                    "The room changed since the plan was shown; look at the new plan and "
                    "confirm again.",
                    key="floor.plan.changed",
                )
            for step in plan.steps:
                if step.kind == "move" and step.move is not None:
                    self._move(step.move)
                elif step.kind == "final":
                    await self._final_table(self._order())
                else:
                    await self._break(step.table)
            await self._save_state()
            return plan

    async def _break(self, broken: str) -> None:
        """Break ``broken`` (TDA-24): its players drawn into the empty seats now."""
        moves = mtt.break_table(self.room, broken, self.spec.seats_per_table, self.rng)
        for move in moves:
            self._move(move)
        del self.room[broken]
        self.held.discard(broken)
        self._note(f"TDA-24: table {broken} broke.")
        await self._broke_in_hand_for_hand(broken)

    async def start_now(self) -> None:
        """Start the tournament (the draw and the clocks) unless it has started."""
        async with self._deciding:  # one decision at a time, reports included
            if self.standings is not None:
                raise IllegalAction("The tournament has started already.", key="floor.t.started")
            if len(self.players) < 2:
                raise IllegalAction(
                    "A tournament needs two registered players to start.", key="floor.t.few"
                )
            await self.start()

    async def pause(self) -> None:
        """Pause the level clock on every table and stop dealing after the current hands."""
        async with self._deciding:  # one decision at a time, reports included
            if self.standings is None or self.finished.is_set():
                raise IllegalAction("The tournament is not running.", key="floor.t.not_running")
            if self.paused:
                raise IllegalAction("The tournament is paused already.", key="floor.t.paused")
            # One instant for every table, the director's clock and the clock page
            # (issue 23): each table pauses its level clock at that moment.
            await self.clock("pause")
            round_ = self.hfh.round if self.hfh is not None else 0
            await self._deal_all(0, round_)  # stop dealing after the current hands
            self.paused, self.paused_at = True, self.clock_paused_at or time.time()
            await self.conn.execute(
                "INSERT INTO clock_pauses (tournament_id, paused_at) VALUES (%s, %s) "
                "ON CONFLICT (tournament_id) DO UPDATE SET paused_at = EXCLUDED.paused_at",
                (self.spec.id, self.paused_at),
            )
            self._note("The floor paused the tournament.")
            await self._save_state()

    async def resume(self) -> None:
        """Restart the level clocks and the dealing (hand-for-hand: the tables still due)."""
        async with self._deciding:  # one decision at a time, reports included
            if not self.paused or self.paused_at is None:
                raise IllegalAction("The tournament is not paused.", key="floor.t.not_paused")
            before = self.clock_paused
            await self.clock("resume")  # at one instant, as the pause (issue 23)
            resumed_at = self.paused_at + (self.clock_paused - before)
            if self.hfh is None:
                await self._deal_all(None)
            else:
                due = [t for t in self.room if self.hfh.may_deal(t)]
                order = {"kind": "deal", "hands": 1, "round": self.hfh.round}
                replies = await asyncio.gather(*(self._send(t, dict(order)) for t in due))
                self._check(list(replies), "deal the hand-for-hand hand")
            await self.conn.execute(
                "UPDATE clock_pauses SET paused_at = NULL, paused_seconds = paused_seconds + %s "
                "WHERE tournament_id = %s",
                (resumed_at - self.paused_at, self.spec.id),
            )
            self.paused, self.paused_at = False, None
            self._note("The floor resumed the tournament.")
            await self._save_state()

    def entries_open(self) -> bool:
        """Whether late registration and re-entry are open now (FLOOR-LATE): the
        tournament runs and the level in force is within the window."""
        if self.standings is None or self.finished.is_set():
            return False
        try:
            self.entry_rules.check(self.level_now()[0], 0, False)
        except IllegalAction:
            return False
        return True

    async def late_entry(self, player: str, reentry: bool) -> tuple[mtt.Seat[str], str]:
        """Enter ``player`` from the dashboard (FLOOR-LATE): a late registration is a
        name that has not entered yet, a re-entry one that has; the seat drawn and the
        name the entry is ranked under.

        :raises IllegalAction: with a catalog key: the tournament is not running, the
            window is closed, the player is unknown (re-entry) or known (late
            registration), still playing, or out of entries.
        """
        if self.standings is None or self.finished.is_set():
            raise IllegalAction(
                "Late entries are taken only while the tournament runs.",
                key="floor.entry.not_running",
            )
        known = player in self.entries
        if reentry and not known:
            raise IllegalAction(
                f"{player} has not entered this tournament; check the name, or register "
                "the player late instead.",
                key="floor.entry.unknown",
                player=player,
            )
        if not reentry and known:
            raise IllegalAction(
                f"{player} has entered this tournament already; use re-entry instead.",
                key="floor.entry.known",
                player=player,
            )
        seat = await self.enter(player)
        return seat, self.live.get(player, player)

    async def _all(self, command: dict[str, Any], what: str) -> None:
        replies = await asyncio.gather(*(self._send(t, dict(command)) for t in self.room))
        self._check(list(replies), what)


class TournamentControl:
    """Calls into a :class:`StaffDirector` from other threads (the web server's).

    :param director: The director.
    :param loop: The event loop it runs on.
    """

    def __init__(self, director: StaffDirector, loop: asyncio.AbstractEventLoop) -> None:
        self.director = director
        self.loop = loop

    def _call(self, make: Callable[[], Awaitable[T]]) -> T:
        async def run() -> T:
            return await make()

        future: Future[T] = asyncio.run_coroutine_threadsafe(run(), self.loop)
        try:
            return future.result(ANSWER_SECONDS)
        except TimeoutError as exc:  # still under way on the loop (a table slow to answer)
            raise IllegalAction(
                "The floor is still carrying this out: a table has not answered yet. "
                "Look at the dashboard again in a moment before repeating it.",
                key="floor.t.under_way",
            ) from exc

    def plan(self) -> Plan:
        """The plan shown now."""

        async def read() -> Plan:
            return self.director.plan()

        return self._call(read)

    def state(self) -> dict[str, Any]:
        """Started, paused, finished."""

        async def read() -> dict[str, Any]:
            d = self.director
            return {
                "started": d.standings is not None,
                "paused": d.paused,
                "finished": d.finished.is_set(),
                "players": len(d.players),
                "entries_open": d.entries_open(),
                "late_until": d.spec.late_until_level,
                "max_entries": d.spec.max_entries,
            }

        return self._call(read)

    def apply(self, token: str) -> Plan:
        """Apply the confirmed plan."""
        return self._call(lambda: self.director.apply(token))

    def start(self) -> None:
        """Start the tournament."""
        self._call(self.director.start_now)

    def pause(self) -> None:
        """Pause the tournament."""
        self._call(lambda: self.director.pause())

    def resume(self) -> None:
        """Resume the tournament."""
        self._call(lambda: self.director.resume())

    def enter(self, player: str, reentry: bool) -> tuple[mtt.Seat[str], str]:
        """A late registration or a re-entry: the seat drawn and the entry's name."""
        return self._call(lambda: self.director.late_entry(player, reentry))
