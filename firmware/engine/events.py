"""Events that drive a hand.

Every change to a hand is one of these records. They are plain frozen
dataclasses; :func:`to_record` turns one into a dict of ints, strings, lists
and ``None`` (msgpack-serializable) and :func:`from_record` turns it back, so
a journal of records replays to exactly the same state.

Each event spells out its ``__init__`` (the one :func:`~dataclasses.dataclass`
would write, field by field): the compiled build (mypyc) compiles it to C, where
the generated one stays interpreted Python, about eight times slower per event.
``tests/test_engine_constructors.py`` checks that every such ``__init__`` takes
exactly the fields, in order, with their defaults.

Players are numbered by their *position index* in the hand: index 0 is the
first player to the left of the button, the last index is the button (in a
heads-up hand, index 0 is the big blind and index 1 the button, who posts the
small blind).

>>> rec = to_record(BetRaise(player=2, to=300))
>>> rec
{'kind': 'bet_raise', 'player': 2, 'to': 300}
>>> from_record(rec)
BetRaise(player=2, to=300)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final

from firmware.engine.rules import HandConfig
from firmware.errors import IllegalAction


@dataclass(frozen=True)
class Event:
    """Base class of every hand event."""

    @property
    def kind(self) -> str:
        """The event's name in records (``"bet_raise"``), from :data:`EVENT_KINDS`.

        A property rather than a class variable: the compiled build (mypyc) makes
        every name declared in a dataclass body a field.
        """
        return EVENT_KINDS[type(self)]


@dataclass(frozen=True)
class StartHand(Event):
    """The hand begins: who plays, with what, and what each player posts.

    :param config: The rules of the hand.
    :param seats: Seat number of each player, in position order.
    :param names: Display name of each player.
    :param stacks: Chips of each player before anything is posted.
    :param antes: Ante of each player (uniform antes are matched like bets:
        a player who cannot cover the ante can win only what he matched).
    :param blinds: Live blinds and straddles of each player (they count as
        that player's bet in the first betting round).
    :param dead: Dead money each player puts straight into the main pot
        (a dead small blind, a big-blind ante); it is never matched.
    :param big_blind: Position of the table's big blind (or of the straddle):
        the first action before the flop is left of it, whoever else posts a
        live big blind out of position (CC-4, CC-13, HG-15). ``None``: the last
        player posting the highest blind.
    """

    config: HandConfig
    seats: tuple[int, ...]
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    antes: tuple[int, ...]
    blinds: tuple[int, ...]
    dead: tuple[int, ...]
    big_blind: int | None = None

    def __init__(
        self,
        config: HandConfig,
        seats: tuple[int, ...],
        names: tuple[str, ...],
        stacks: tuple[int, ...],
        antes: tuple[int, ...],
        blinds: tuple[int, ...],
        dead: tuple[int, ...],
        big_blind: int | None = None,
    ) -> None:
        object.__setattr__(self, "config", config)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "stacks", stacks)
        object.__setattr__(self, "antes", antes)
        object.__setattr__(self, "blinds", blinds)
        object.__setattr__(self, "dead", dead)
        object.__setattr__(self, "big_blind", big_blind)


@dataclass(frozen=True)
class DealHole(Event):
    """Hole cards given to a player (one or both; ``None`` for a card not seen)."""

    player: int
    cards: tuple[int | None, ...]

    def __init__(self, player: int, cards: tuple[int | None, ...]) -> None:
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "cards", cards)


@dataclass(frozen=True)
class Burn(Event):
    """A card burned before a board card (``None`` when not read)."""

    card: int | None

    def __init__(self, card: int | None) -> None:
        object.__setattr__(self, "card", card)


@dataclass(frozen=True)
class DealBoard(Event):
    """Board cards turned up: three on the flop, one on the turn and river."""

    cards: tuple[int, ...]

    def __init__(self, cards: tuple[int, ...]) -> None:
        object.__setattr__(self, "cards", cards)


@dataclass(frozen=True)
class Fold(Event):
    """The player to act folds."""

    player: int

    def __init__(self, player: int) -> None:
        object.__setattr__(self, "player", player)


@dataclass(frozen=True)
class CheckCall(Event):
    """The player to act checks, or calls the current bet (all-in if short)."""

    player: int

    def __init__(self, player: int) -> None:
        object.__setattr__(self, "player", player)


@dataclass(frozen=True)
class BetRaise(Event):
    """The player to act bets or raises so that his bet this round is ``to``."""

    player: int
    to: int

    def __init__(self, player: int, to: int) -> None:
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "to", to)


@dataclass(frozen=True)
class Show(Event):
    """At showdown the player tables ``cards`` (both hole cards to win, TDA-40)."""

    player: int
    cards: tuple[int, ...]

    def __init__(self, player: int, cards: tuple[int, ...]) -> None:
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "cards", cards)


@dataclass(frozen=True)
class Muck(Event):
    """At showdown the player throws his hand away unshown; it can never win."""

    player: int

    def __init__(self, player: int) -> None:
        object.__setattr__(self, "player", player)


@dataclass(frozen=True)
class KillHand(Event):
    """A ruling kills ``player``'s hand, in turn or not.

    Used for an unprotected hand killed by the dealer (TDA-28: a raise not
    yet called is returned), a player absent when the deal ends (TDA-8), the
    clock running out (TDA-5) and penalties (TDA-7). ``reason`` is recorded.
    """

    player: int
    reason: str

    def __init__(self, player: int, reason: str) -> None:
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "reason", reason)


@dataclass(frozen=True)
class VoidHand(Event):
    """The hand is void (misdeal, dead deck, floor ruling): every chip goes back.

    Each player gets back exactly what he put in, antes, blinds and dead
    money included; the hand ends with no winner.
    """

    reason: str

    def __init__(self, reason: str) -> None:
        object.__setattr__(self, "reason", reason)


@dataclass(frozen=True)
class AwardPots(Event):
    """The floor awards every pot to ``winners`` (split in chip units), ending the hand (TDA-1)."""

    winners: tuple[int, ...]
    reason: str

    def __init__(self, winners: tuple[int, ...], reason: str) -> None:
        object.__setattr__(self, "winners", winners)
        object.__setattr__(self, "reason", reason)


EVENT_KINDS: Final[dict[type[Event], str]] = {
    StartHand: "start_hand",
    DealHole: "deal_hole",
    Burn: "burn",
    DealBoard: "deal_board",
    Fold: "fold",
    CheckCall: "check_call",
    BetRaise: "bet_raise",
    Show: "show",
    Muck: "muck",
    KillHand: "kill_hand",
    VoidHand: "void_hand",
    AwardPots: "award_pots",
}
"""The record name of each event type."""

EVENT_TYPES: Final[dict[str, type[Event]]] = {kind: cls for cls, kind in EVENT_KINDS.items()}
"""Each event type by its record name."""


def to_record(event: Event) -> dict[str, Any]:
    """Return ``event`` as a plain dict (msgpack-serializable)."""
    record: dict[str, Any] = {"kind": event.kind}
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        if isinstance(value, HandConfig):
            value = value.to_record()
        elif isinstance(value, tuple):
            value = list(value)
        record[field.name] = value
    return record


def from_record(record: dict[str, Any]) -> Event:
    """Rebuild an event from :func:`to_record` output.

    :raises IllegalAction: if the record names no known event or lacks fields.
    """
    kind = record.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise IllegalAction(
            f"The record {record!r} names no known event kind; known kinds are "
            f"{', '.join(sorted(EVENT_TYPES))}."
        )
    values: dict[str, Any] = {}
    try:
        for field in dataclasses.fields(cls):
            if field.name not in record and field.default is not dataclasses.MISSING:
                continue  # a field added later, with a default (older journals)
            value = record[field.name]
            if field.name == "config":
                value = HandConfig.from_record(value)
            elif isinstance(value, list):
                value = tuple(value)
            values[field.name] = value
    except KeyError as exc:
        raise IllegalAction(f"The {kind} record {record!r} lacks the field {exc}.") from exc
    return cls(**values)
