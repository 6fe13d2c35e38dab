"""Records of what happened at the table: cards drawn, incidents, finished hands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from firmware.engine.hand import Hand
from firmware.table.clock import ActionClock, ActionTimer


@dataclass
class Draw:
    """A card that left the card source and the role it took."""

    card: int
    role: str
    seat: int | None = None
    public: bool = False


@dataclass
class Incident:
    """An incident and how it was resolved, for the record and the console."""

    rule: str
    what: str
    instruction: str
    cards: tuple[int, ...] = ()
    key: str = ""
    """Catalog key: ``<key>.what`` and ``<key>.do`` say it in each screen's language."""
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class DealState:
    """Everything a :class:`~firmware.table.dealing.TableHand` rebuilds by replay.

    The engine hand, the draws with their roles and the dealer's pending
    incidents; kept here so that the incident remedies can work on it without
    importing the dealing module that calls them.
    """

    hand: Hand
    slots: list[int | None]
    draws: list[Draw] = field(default_factory=list)
    buffer: dict[int, list[int]] = field(default_factory=dict)
    slot_index: int = 0
    owed: list[int] = field(default_factory=list)
    exposed: list[int] = field(default_factory=list)
    dealt: bool = False
    burn_ready: int | None = None
    burned: set[int] = field(default_factory=set)
    board_buffer: list[int] = field(default_factory=list)
    held_board: list[int] = field(default_factory=list)
    premature: list[int] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)
    incidents: list[Incident] = field(default_factory=list)
    advance: dict[int, tuple[str, int, int]] = field(default_factory=dict)
    declared: set[int] = field(default_factory=set)
    advance_street: int = 0
    marked: list[int] = field(default_factory=list)
    clock: ActionClock = field(default_factory=ActionClock)
    now: float = 0.0
    announced: list[int] = field(default_factory=list)
    absent: set[int] = field(default_factory=set)
    deck_empty: bool = False
    timers: dict[int, ActionTimer] = field(default_factory=dict)
    """The automatic action timer of each position (house option), with its bank."""
    timer_actor: int | None = None


class HandDesk(Protocol):
    """What an incident remedy (:mod:`firmware.table.incidents`) may use of a hand."""

    s: DealState

    def note(
        self,
        rule: str,
        what: str,
        instruction: str,
        cards: tuple[int, ...] = (),
        message: str = "",
        **params: Any,
    ) -> None:
        """Record an incident with the dealer's instruction."""

    def check_card(self, card: int) -> None:
        """Refuse a card that is not valid or was already seen in this hand."""

    def position(self, seat: int) -> int:
        """The engine position of ``seat``."""

    def void(self, reason: str, rule: str, key: str = "incident.void", **params: Any) -> None:
        """Void the hand: every chip back to its owner."""
