"""Calls for the floor and the draw for the button, as the table keeps them.

Both are table events (journaled before they take effect, so a replay or a
restart rebuilds them):

* :class:`FloorCalls`: a seat's "call the floor" stays open, with the time it
  was made, until a staff member answers it on the console; the answer
  records who answered and when (:class:`~firmware.table.events.FloorCall`,
  :class:`~firmware.table.events.FloorAnswer`).
* :func:`button_draw`: the draw for the button (TDA-13) from the cards the
  event carries, one per occupied seat; the highest card wins, a tie in rank
  going to the higher suit (spades, hearts, diamonds, clubs: the order of the
  card numbers), and the button is placed there for the next hand.

>>> calls = FloorCalls()
>>> calls.call(4, now=12.0)
>>> [c.seat for c in calls.open()]
[4]
>>> calls.answer(4, "Flor", now=30.0)
>>> calls.open(), calls.calls[0].answered_by
([], 'Flor')
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from firmware.engine.cards import check_distinct, format_card
from firmware.errors import IllegalAction
from firmware.table.seating import Seating

KEEP_ANSWERED = 20
"""Answered calls kept (the console shows the open ones; the journal keeps every one)."""


@dataclass
class FloorCallRecord:
    """One call for the floor: the seat, when, and who answered it when."""

    seat: int
    called_at: float
    answered_by: str = ""
    answered_at: float | None = None


@dataclass
class FloorCalls:
    """The calls for the floor of a table, open and recently answered."""

    calls: list[FloorCallRecord] = field(default_factory=list)

    def open(self) -> list[FloorCallRecord]:
        """The calls nobody has answered yet, oldest first."""
        return [c for c in self.calls if c.answered_at is None]

    def call(self, seat: int, now: float) -> None:
        """``seat`` calls the floor at ``now``; a call already open stays the one shown.

        :raises IllegalAction: when that seat's earlier call is still open.
        """
        if any(c.seat == seat for c in self.open()):
            raise IllegalAction(
                f"Seat {seat} has already called the floor; the floor is on the way.",
                key="error.floor_call.open",
                seat=seat,
            )
        self.calls.append(FloorCallRecord(seat, now))

    def answer(self, seat: int, staff: str, now: float) -> None:
        """``staff`` answered ``seat``'s open call at ``now``.

        :raises IllegalAction: when ``seat`` has no open call.
        """
        for c in self.open():
            if c.seat == seat:
                c.answered_by, c.answered_at = staff, now
                answered = [c for c in self.calls if c.answered_at is not None]
                if len(answered) > KEEP_ANSWERED:
                    self.calls.remove(answered[0])
                return
        raise IllegalAction(
            f"Seat {seat} has no open call for the floor to answer.",
            key="error.floor_call.none",
            seat=seat,
        )

    def state(self) -> list[dict[str, Any]]:
        """The calls as plain records (the table's snapshot)."""
        return [dataclasses.asdict(c) for c in self.calls]

    def restore(self, records: list[dict[str, Any]]) -> None:
        """Put back the calls of :meth:`state`."""
        self.calls = [FloorCallRecord(**r) for r in records]


@dataclass(frozen=True)
class ButtonDrawResult:
    """A draw for the button as the table keeps it: each seat's card, the winner, when."""

    seats: tuple[int, ...]
    cards: tuple[int, ...]
    button: int
    hand_number: int
    """The hands played before the draw: the draw is shown until the next hand starts."""
    time: float

    def card_of(self, seat: int) -> str:
        """The card ``seat`` drew, as ``Ah``."""
        return format_card(self.cards[self.seats.index(seat)])

    def as_record(self) -> dict[str, Any]:
        """A plain record (snapshot and views)."""
        return {
            "seats": list(self.seats),
            "cards": [format_card(c) for c in self.cards],
            "button": self.button,
            "hand_number": self.hand_number,
            "time": self.time,
        }


def button_draw(
    seating: Seating, seats: tuple[int, ...], cards: tuple[int, ...], hand_number: int, now: float
) -> ButtonDrawResult:
    """Check a draw for the button against the table and place the button (TDA-13).

    The draw must give one card to every occupied seat, in seat order, with no
    card twice; the highest card wins (rank, then suit: spades, hearts,
    diamonds, clubs, which is the order of the card numbers).

    :raises IllegalAction: for a draw that does not match the seated players.
    """
    occupied = tuple(sorted(seating.seats))
    if len(occupied) < 2:
        raise IllegalAction(
            "The draw for the button needs at least two seated players.",
            key="error.draw_button.players",
        )
    if tuple(seats) != occupied or len(cards) != len(seats):
        listed = ", ".join(str(s) for s in occupied)
        raise IllegalAction(
            f"The draw for the button deals one card to each occupied seat ({listed}), in "
            "seat order; draw again.",
            key="error.draw_button.seats",
            seats=listed,
        )
    if not all(isinstance(c, int) and 0 <= c < 52 for c in cards):
        raise IllegalAction(
            "A card of the draw for the button is not a card; draw again.",
            key="error.draw_button.card",
        )
    check_distinct(cards)
    winner = max(zip(seats, cards, strict=True), key=lambda pair: pair[1])[0]
    seating.next_button = winner
    seating.last_small_blind = seating.last_big_blind = None
    return ButtonDrawResult(tuple(seats), tuple(cards), winner, hand_number, now)


def restore_button_draw(record: dict[str, Any] | None) -> ButtonDrawResult | None:
    """The draw of :meth:`ButtonDrawResult.as_record` (a snapshot), or ``None``."""
    if record is None:
        return None
    from firmware.engine.cards import parse_card

    return ButtonDrawResult(
        tuple(record["seats"]),
        tuple(parse_card(c) for c in record["cards"]),
        int(record["button"]),
        int(record["hand_number"]),
        float(record["time"]),
    )


__all__ = [
    "KEEP_ANSWERED",
    "ButtonDrawResult",
    "FloorCallRecord",
    "FloorCalls",
    "button_draw",
    "restore_button_draw",
]
