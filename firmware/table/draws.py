"""Seat and button draws (TDA-13, HG-5) and table balancing (TDA-25, HG-4).

Randomness comes from an injected :class:`random.Random` (production passes
:class:`random.SystemRandom`, TDA-13's cryptographic source).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from firmware.engine.cards import Card, check_distinct, format_card, full_deck
from firmware.errors import ConfigError, IllegalAction

log = logging.getLogger(__name__)

T = TypeVar("T")

# ------------------------------------------------------------------ draws (TDA-13, HG-5)


def draw_seats(players: list[str], seats: list[int], rng: random.Random) -> dict[str, int]:
    """Draw a seat for each player at random (TDA-13, HG-5); every assignment is
    equally likely. The result is returned and logged.

    >>> draw_seats(["ana", "beto"], [1, 2, 3], random.Random(7))
    {'ana': 3, 'beto': 1}
    """
    if len(set(players)) != len(players) or len(set(seats)) != len(seats):
        raise IllegalAction(
            "Each player and each seat may appear only once in a seat draw.", key="error.draw.twice"
        )
    if len(players) > len(seats):
        raise IllegalAction(
            f"{len(players)} players cannot be seated in {len(seats)} seats; open another table.",
            key="error.draw.too_many",
            players=len(players),
            seats=len(seats),
        )
    shuffled = list(seats)
    rng.shuffle(shuffled)
    result = dict(zip(players, shuffled, strict=False))
    log.info("Seat draw (TDA-13): %s", ", ".join(f"{p} -> {s}" for p, s in result.items()))
    return result


@dataclass(frozen=True)
class ButtonDraw:
    """The draw for the button: each seat's card and the seat that won."""

    button: int
    cards: dict[int, Card]
    order: tuple[int, ...]

    def describe(self) -> str:
        """The draw in one line, for the log."""
        shown = ", ".join(f"seat {s}: {format_card(self.cards[s])}" for s in self.order)
        return f"Draw for the button: {shown}; the button goes to seat {self.button}."


def draw_for_button(
    players_by_seat: Mapping[int, str],
    rng: random.Random,
    deal: Callable[[], Card] | None = None,
) -> ButtonDraw:
    """Deal one card to each occupied seat, clockwise from the lowest seat; the
    highest card takes the button, a tie in rank going to the higher suit,
    spades > hearts > diamonds > clubs (HG-19's order; the card numbers' order).

    ``deal`` gives physical cards; without it the cards come from a deck
    shuffled with ``rng``.
    """
    order = tuple(sorted(players_by_seat))
    if len(order) < 2:
        raise IllegalAction(
            "The draw for the button needs at least two players.", key="error.draw.button_two"
        )
    if deal is None:
        deck = full_deck()
        rng.shuffle(deck)
        cards = dict(zip(order, deck, strict=False))
    else:
        cards = {seat: deal() for seat in order}
    check_distinct(cards.values())
    draw = ButtonDraw(max(order, key=lambda s: cards[s]), cards, order)
    log.info(draw.describe())
    return draw


# ------------------------------------------------------------------ balancing (TDA-25, HG-4)


@dataclass(frozen=True)
class Move(Generic[T]):
    """A suggested move of one player between tables."""

    player: str
    from_table: T
    from_seat: int
    to_table: T
    to_seat: int
    reason: str


def _after(start: int, seat: int, size: int) -> int:
    """Clockwise distance from ``start`` to ``seat`` on seats 1..size (1..size)."""
    return (seat - start - 1) % size + 1


def suggest_move(
    tables: Mapping[T, Mapping[int, str]],
    big_blinds: Mapping[T, int],
    buttons: Mapping[T, int] | None = None,
    method: str = "tda",
    seats_per_table: int = 10,
) -> Move[T] | None:
    """Suggest one move to even the tables, or ``None`` if no table has two or
    more players more than another.

    The move is from the fullest table to the shortest (ties: the first listed,
    the "predetermined procedure" of TDA-25). The seat taken is the empty seat
    of the short table closest after its big blind, so the player is big blind
    as soon as possible there. ``method="tda"`` (TDA-25) moves the player who
    will be big blind next at the full table; ``method="hg"`` (HG-4, needs
    ``buttons``) moves the player at the same position relative to the button
    as that empty seat, or the nearest one, the closer to the button on a tie.
    """
    if not tables:
        return None
    counts = {t: len(seated) for t, seated in tables.items()}
    source = max(counts, key=lambda t: counts[t])
    target = min(counts, key=lambda t: counts[t])
    if counts[source] - counts[target] < 2:
        return None
    empty = [s for s in range(1, seats_per_table + 1) if s not in tables[target]]
    to_seat = min(empty, key=lambda s: _after(big_blinds[target], s, seats_per_table))
    seated = tables[source]
    if method == "tda":
        from_seat = min(seated, key=lambda s: _after(big_blinds[source], s, seats_per_table))
        reason = (
            f"TDA-25: {seated[from_seat]} is big blind next at table {source}; seat {to_seat} "
            f"is the empty seat closest to the big blind at table {target}."
        )
    elif method == "hg":
        if buttons is None:
            raise ConfigError("The HG-4 balancing method needs each table's button seat.")
        offset = _after(buttons[target], to_seat, seats_per_table)

        def gap(seat: int) -> tuple[int, int]:
            d = abs(_after(buttons[source], seat, seats_per_table) - offset)
            return min(d, seats_per_table - d), _after(buttons[source], seat, seats_per_table)

        from_seat = min(seated, key=gap)
        reason = (
            f"HG-4: {seated[from_seat]} sits {_after(buttons[source], from_seat, seats_per_table)}"
            f" seat(s) after the button at table {source}, nearest to empty seat {to_seat}, "
            f"{offset} after the button at table {target}."
        )
    else:
        raise ConfigError(f"The balancing method must be 'tda' or 'hg', not {method!r}.")
    return Move(seated[from_seat], source, from_seat, target, to_seat, reason)


def table_should_pause(counts: Mapping[T, int], table: T) -> bool:
    """Play stops at a table short three or more players versus the fullest (TDA-25).

    >>> table_should_pause({"A": 9, "B": 6}, "B"), table_should_pause({"A": 9, "B": 7}, "B")
    (True, False)
    """
    return max(counts.values()) - counts[table] >= 3
