"""One occupied seat (split from :mod:`firmware.table.seating`).

:class:`Seat` stands in a module of its own so that both
:class:`~firmware.table.seating.Seating` and the money checks it inherits
(:mod:`firmware.table.seating_money`) can name it without importing each
other: the import graph has no cycle (``tests/test_import_cycles.py``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Seat:
    """One occupied seat.

    :param number: Seat number, 1 to 10.
    :param player: The player's identity (name or card id).
    :param stack: Chips on the table.
    """

    number: int
    player: str
    stack: int
    sitting_out: bool = False
    away: bool = False
    missed_small: bool = False
    missed_big: bool = False
    new: bool = True
    wait_for_big_blind: bool = False
    rebuy: int = 0
    busted: bool = False
    card: str = ""
    """The player card's id when the player was seated by card ('' when seated by name)."""

    @property
    def markers(self) -> str:
        """The missed-blind marker shown on screens: ``ML``, ``MS`` or ``""``."""
        if self.missed_big:
            return "ML"
        if self.missed_small:
            return "MS"
        return ""
