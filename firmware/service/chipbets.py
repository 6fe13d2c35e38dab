"""Bets read from the chip trays: chips placed in a seat's betting zone become
that seat's action when the player presses his action button.

Each increase of the zone's value is one *motion*. When the action button is
pressed the chips are judged by the rules for physical chips:

* one oversized chip without a word is a call, with "raise" declared a raise
  of its value, and it opens the betting for its value after the flop
  (TDA-11, HG-14);
* only the first motion counts unless a raise was declared (TDA-32, TDA-39);
* 50% or more of a full raise beyond the call forces a full raise, less is a
  call with the excess given back (TDA-10).

The dealer is told what to give back and when a string raise was ruled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from firmware.engine.betting import interpret_motions, interpret_single_chip
from firmware.engine.events import BetRaise
from firmware.errors import IllegalAction
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.table import Table

Note = tuple[str, str, dict[str, Any]]
"""What to tell the dealer: the English sentence, its catalog key and the key's values."""


@dataclass
class _Zone:
    value: int = 0
    tags: frozenset[str] = frozenset()
    motions: list[int] = field(default_factory=list)
    single_chip: bool = False


class ChipBets:
    """Follows every seat's betting zone during the hand.

    :param registry: Chip values by tag.
    """

    def __init__(self, registry: TagRegistry) -> None:
        self.registry = registry
        self._zones: dict[int, _Zone] = {}
        self._round: tuple[int, int] | None = None

    def zone_changed(self, table: Table, seat: int, tags: frozenset[str]) -> None:
        """Record the chips now in ``seat``'s betting zone."""
        self._new_round(table)
        zone = self._zones.setdefault(seat, _Zone())
        value, _ = self.registry.chips_value(tags)
        added = tags - zone.tags
        if value > zone.value:
            zone.motions.append(value - zone.value)
            zone.single_chip = len(zone.motions) == 1 and len(added) == 1
        zone.value, zone.tags = value, tags

    def action(self, table: Table, seat: int) -> tuple[te.Act | None, list[Note]]:
        """The action the chips in ``seat``'s zone amount to, and what to tell the dealer
        (each note its English sentence, catalog key and values)."""
        th = table.hand
        if th is None or th.hand.actor is None or th.seat(th.hand.actor) != seat:
            raise IllegalAction(
                f"Seat {seat} pressed its action button out of turn; the chips stay where they "
                "are until its turn (TDA-30).",
                key="error.action.out_of_turn",
                player=seat,
                actor=th.seat(th.hand.actor) if th and th.hand.actor is not None else None,
            )
        self._new_round(table)
        hand = th.hand
        position = th.position(seat)
        zone = self._zones.get(seat, _Zone())
        if not zone.motions:
            if hand.current_bet == hand.bets[position]:
                return te.Act(seat, "check"), []
            return None, [
                (
                    f"Seat {seat} pressed its action button with no chips in front of it: it "
                    "must call, raise or fold (on its screen).",
                    "alert.chips.no_chips",
                    {"seat": seat},
                )
            ]
        declared = th.declared_raise(seat)
        notes: list[Note] = []
        to_call = hand.current_bet - hand.bets[position]
        if zone.single_chip and zone.motions[0] > to_call:
            event, back = interpret_single_chip(hand, position, zone.motions[0], declared)
            string_raise = False
        else:
            event, back, string_raise = interpret_motions(hand, position, zone.motions, declared)
        if string_raise:
            notes.append(
                (
                    f"String raise at seat {seat}: only the first motion counts, no raise was "
                    "declared (TDA-32, TDA-39).",
                    "alert.chips.string_raise",
                    {"seat": seat},
                )
            )
        if back:
            notes.append(
                (
                    f"Give {back} back to seat {seat} from its betting zone (TDA-10, TDA-11).",
                    "alert.chips.give_back",
                    {"seat": seat, "chips": back},
                )
            )
        zone.motions = []
        if isinstance(event, BetRaise):
            return te.Act(seat, "raise", event.to), notes
        return te.Act(seat, "call" if to_call else "check"), notes

    def _new_round(self, table: Table) -> None:
        th = table.hand
        key = (table.hand_number, th.hand.street if th is not None else -1)
        if key != self._round:
            self._round = key
            for zone in self._zones.values():
                zone.motions = []
                zone.single_chip = False
