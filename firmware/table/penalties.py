"""Tournament penalties (TDA-7, TDA-31): a warning, missed rounds, disqualification.

A :class:`PenaltyBook` keeps one table's penalties by seat: the hands each
offender misses (one per player at the table when it was given, times the
rounds), a penalty that starts with the next hand, and the chips a
disqualification removes from play. The table applies them through
:mod:`firmware.table.table_rulings`.

Everything here is pure: time is passed in as seconds (``now``).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from firmware.errors import IllegalAction

log = logging.getLogger(__name__)


class PenaltyKind(enum.Enum):
    """The penalties the floor can give (TDA-7)."""

    WARNING = "warning"
    ROUNDS = "rounds"
    DISQUALIFICATION = "disqualification"


@dataclass(frozen=True)
class Penalty:
    """A penalty: a warning, 1 to 4 rounds away from the table, or disqualification."""

    kind: PenaltyKind
    rounds: int = 0

    def __post_init__(self) -> None:
        if self.kind is PenaltyKind.ROUNDS and not 1 <= self.rounds <= 4:
            raise IllegalAction(
                f"A penalty is one, two, three or four rounds (TDA-7), not {self.rounds}.",
                key="error.penalty.rounds",
                rounds=self.rounds,
            )
        if self.kind is not PenaltyKind.ROUNDS and self.rounds:
            raise IllegalAction(
                f"A {self.kind.value} has no rounds; give rounds=0.",
                key="error.penalty.no_rounds",
                kind=self.kind.value,
            )


def hands_to_miss(rounds: int, players_at_table: int) -> int:
    """Hands missed for ``rounds``: one per player at the table, the offender
    included, when the penalty is given, times the rounds (TDA-7).

    >>> hands_to_miss(2, 9)
    18
    """
    if players_at_table < 1:
        raise IllegalAction(
            "The offender counts himself: at least one player is at the table.",
            key="error.penalty.no_players",
        )
    return Penalty(PenaltyKind.ROUNDS, rounds).rounds * players_at_table


@dataclass
class PenaltyRecord:
    """One penalty given, for the audit log (TDA-1) and the seat's screen."""

    seat: int
    penalty: Penalty
    reason: str
    given_at: float
    players_at_table: int
    hands_total: int = 0
    hands_left: int = 0
    deferred: bool = False
    started: bool = True
    chips_removed: int = 0
    kill_now: bool = False
    """Given during a hand and not deferred: that hand is killed and counts."""


@dataclass
class PenaltyBook:
    """Penalties at one table, by seat.

    A penalised seat is dealt in and posts its blinds and antes; its hand is
    killed (TDA-7). Call :meth:`hand_dealt` once per hand dealt and
    :meth:`hand_over` when it ends; a hand counts toward a penalty only if the
    seat was dealt in.
    """

    records: list[PenaltyRecord] = field(default_factory=list)
    closed: list[PenaltyRecord] = field(default_factory=list)
    """Penalties of players who have left their seat (kept for the audit)."""
    in_hand: bool = False
    _dealt: frozenset[int] = frozenset()
    _serving: set[int] = field(default_factory=set)
    _counted: list[PenaltyRecord] = field(default_factory=list)
    """Penalties that counted the hand in progress (given back if it is voided)."""
    _started_now: list[PenaltyRecord] = field(default_factory=list)
    """Deferred penalties (TDA-31) that started with the hand in progress."""

    def give(
        self,
        seat: int,
        penalty: Penalty,
        reason: str,
        now: float,
        players_at_table: int,
        *,
        starts_next_hand: bool = False,
        chips: int = 0,
    ) -> PenaltyRecord:
        """Record ``penalty`` on ``seat`` for ``reason`` at ``now``.

        With ``starts_next_hand`` (TDA-31) the current hand stays live and the
        count starts with the next hand dealt. Otherwise, given during a hand
        the seat was dealt into, that hand is killed (``kill_now``) and is the
        first hand missed. For a disqualification ``chips`` is the stack
        removed from play.

        :raises IllegalAction: for an empty reason, or a seat already disqualified.
        """
        if not reason.strip():
            raise IllegalAction(
                "A penalty needs a reason for the audit log (TDA-1); say why it is given.",
                key="error.ruling.no_reason",
            )
        if self.is_disqualified(seat):
            raise IllegalAction(
                f"Seat {seat} is already disqualified.", key="error.penalty.disqualified", seat=seat
            )
        record = PenaltyRecord(seat, penalty, reason.strip(), now, players_at_table)
        if penalty.kind is PenaltyKind.ROUNDS:
            record.hands_total = record.hands_left = hands_to_miss(penalty.rounds, players_at_table)
            record.deferred = starts_next_hand
            record.started = not starts_next_hand
            if self.in_hand and not starts_next_hand and seat in self._dealt:
                self._count(seat, record)
                record.kill_now = True
        elif penalty.kind is PenaltyKind.DISQUALIFICATION:
            if chips < 0:
                raise IllegalAction(
                    "The chips removed cannot be negative.", key="error.penalty.negative_chips"
                )
            record.chips_removed = chips
            for other in self.records:
                if other.seat == seat:
                    other.hands_left = 0
            record.kill_now = self.in_hand and seat in self._dealt
        self.records.append(record)
        log.info("Penalty on seat %d: %s (%s) at %.1f", seat, penalty, reason, now)
        return record

    def disqualify(self, seat: int, reason: str, now: float, chips: int, players: int = 1) -> int:
        """Disqualify ``seat``; its ``chips`` leave the tournament (TDA-7). Returns them."""
        self.give(seat, Penalty(PenaltyKind.DISQUALIFICATION), reason, now, players, chips=chips)
        return chips

    def hand_dealt(self, seats_dealt_in: Iterable[int]) -> frozenset[int]:
        """A hand was dealt to ``seats_dealt_in``: start deferred penalties, count
        one hand for each serving seat, and return the seats whose hands are killed."""
        self.in_hand = True
        self._dealt = frozenset(seats_dealt_in)
        self._serving = set()
        self._counted = []
        self._started_now = [r for r in self.records if not r.started]
        for record in self.records:
            record.started = True
        for seat in sorted(self._dealt):
            active = [r for r in self.records if r.seat == seat and r.hands_left > 0]
            if active:
                self._count(seat, active[0])
            if self.is_disqualified(seat):
                self._serving.add(seat)
        return frozenset(self._serving)

    def hand_over(self, voided: bool = False) -> None:
        """The hand ended. A voided hand (misdeal, dead hand, floor void) was never
        played, so it does not count toward any penalty (TDA-7): the hands it took
        are given back and deferred penalties start again with the next hand."""
        if voided:
            for record in self._counted:
                record.hands_left += 1
            for record in self._started_now:
                record.started = False
        self._counted = []
        self._started_now = []
        self.in_hand = False
        self._dealt = frozenset()
        self._serving = set()

    def is_serving(self, seat: int) -> bool:
        """The seat's hand is killed this hand, or a started penalty still has hands
        to miss (a deferred penalty, TDA-31, leaves the current hand live)."""
        return seat in self._serving or any(
            r.seat == seat and r.started and r.hands_left > 0 for r in self.records
        )

    def hands_left(self, seat: int) -> int:
        """Hands the seat still has to miss, deferred penalties included."""
        return sum(r.hands_left for r in self.records if r.seat == seat)

    def is_disqualified(self, seat: int) -> bool:
        """The seat's player was disqualified."""
        return any(
            r.seat == seat and r.penalty.kind is PenaltyKind.DISQUALIFICATION for r in self.records
        )

    @property
    def chips_removed(self) -> int:
        """Chips removed from play by disqualifications."""
        return sum(r.chips_removed for r in (*self.records, *self.closed))

    def seat_vacated(self, seat: int) -> None:
        """The player at ``seat`` left: his penalties end there and do not pass to
        the seat's next occupant (they stay in :attr:`closed` for the audit)."""
        self.closed.extend(r for r in self.records if r.seat == seat)
        self.records = [r for r in self.records if r.seat != seat]
        self._serving.discard(seat)

    def _count(self, seat: int, record: PenaltyRecord) -> None:
        record.hands_left -= 1
        self._counted.append(record)
        self._serving.add(seat)
