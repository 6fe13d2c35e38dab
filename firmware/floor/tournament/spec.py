"""A multi-table tournament's set-up (what the director runs, stored with its state)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TournamentSpec:
    """A tournament's set-up."""

    id: str
    name: str
    buy_in: int
    starting_chips: int
    tables: tuple[str, ...]
    seats_per_table: int = 9
    method: str = "tda"
    """Balancing: ``tda`` (TDA-25) or ``hg`` (HG-4)."""
    break_order: tuple[str, ...] = ()
    """Tables in the order they break (default: the last listed first)."""
    levels: tuple[dict[str, Any], ...] = ()
    """The blind levels the tables play (for the clock page and the entry window)."""
    late_until_level: int = 0
    """Late registration and re-entry are open until the end of this level (0: closed)."""
    max_entries: int = 1
    """Entries per player (1: no re-entry)."""
