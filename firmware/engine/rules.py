"""The rules a single hand is played under.

A :class:`HandConfig` is everything the engine needs to know about the game
that does not change during a hand: the betting structure, the bet sizes, the
smallest chip in play and the house options where the source documents
disagree. Table-level options (buttons, missed blinds, profiles) live in the
table procedures, which build a :class:`HandConfig` for each hand.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from firmware.errors import ConfigError


class Structure(enum.Enum):
    """Betting structure of the game."""

    NO_LIMIT = "NL"
    """No-limit: any raise of at least the last full raise (TDA-26)."""
    POT_LIMIT = "PL"
    """Pot-limit: raises up to the size of the pot after calling."""
    FIXED_LIMIT = "FL"
    """Fixed-limit: bets and raises of a fixed size, capped (CC-7, CC-8)."""


class GameKind(enum.Enum):
    """Cash game or tournament: a few rules differ (CC-8 raise cap heads-up)."""

    CASH = "cash"
    TOURNAMENT = "tournament"


class OddChips(enum.Enum):
    """Who receives the leftover units of a split pot (TDA-3)."""

    FIRST_LEFT_OF_BUTTON = "first"
    """All leftover units go to the first winner left of the button (the rule's letter)."""
    ONE_EACH_FROM_BUTTON = "one-each"
    """One unit each to successive winners, starting left of the button."""


@dataclass(frozen=True)
class HandConfig:
    """Rules for one hand.

    :param structure: No-limit, pot-limit or fixed-limit.
    :param game: Cash game or tournament.
    :param min_bet: The big blind: the smallest opening bet and the smallest
        raise before any bet; in fixed-limit, the small bet (preflop and flop).
    :param big_bet: Fixed-limit only: the big bet of the turn and river
        (defaults to twice ``min_bet``).
    :param chip_unit: The smallest chip denomination in play; split pots are
        divided in units of it (TDA-3).
    :param odd_chips: Who receives the leftover units of a split pot.
    :param raise_cap: Fixed-limit only: the most full bets in one betting
        round, the opening bet (or the big blind preflop) included (CC-8).
    :param limit_all_in_percent: Fixed-limit only: an all-in bet or raise of at
        least this percentage of a full bet counts as a full bet or raise: the
        next raise is a full bet above it and it reopens the betting (TDA 2022
        rule 47B, the 50% idea of TDA-10). A smaller all-in may be called or
        completed and reopens nothing. 100: only a complete bet counts.

    >>> HandConfig(Structure.FIXED_LIMIT, min_bet=10).street_bet(3)
    20
    """

    structure: Structure
    game: GameKind = GameKind.TOURNAMENT
    min_bet: int = 2
    big_bet: int = 0
    chip_unit: int = 1
    odd_chips: OddChips = OddChips.FIRST_LEFT_OF_BUTTON
    raise_cap: int = 4
    limit_all_in_percent: int = 50

    def __post_init__(self) -> None:
        for name in ("min_bet", "chip_unit", "raise_cap"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(
                    f"The hand option {name} must be a whole number of at least 1, "
                    f"not {value!r}; chip amounts are integers in the smallest unit."
                )
        percent = self.limit_all_in_percent
        if not isinstance(percent, int) or isinstance(percent, bool) or not 1 <= percent <= 100:
            raise ConfigError(
                f"The hand option limit_all_in_percent must be a whole number from 1 to 100, "
                f"not {percent!r}."
            )
        if not isinstance(self.big_bet, int) or self.big_bet < 0:
            raise ConfigError(f"The hand option big_bet must be 0 or more, not {self.big_bet!r}.")

    def street_bet(self, street: int) -> int:
        """Return the fixed bet size on ``street`` (0 preflop .. 3 river).

        In no-limit and pot-limit this is the minimum opening bet.
        """
        if self.structure is Structure.FIXED_LIMIT and street >= 2:
            return self.big_bet or 2 * self.min_bet
        return self.min_bet

    def to_record(self) -> dict[str, Any]:
        """Return a plain, msgpack-serializable record of this configuration."""
        return {
            "structure": self.structure.value,
            "game": self.game.value,
            "min_bet": self.min_bet,
            "big_bet": self.big_bet,
            "chip_unit": self.chip_unit,
            "odd_chips": self.odd_chips.value,
            "raise_cap": self.raise_cap,
            "limit_all_in_percent": self.limit_all_in_percent,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> HandConfig:
        """Rebuild a configuration from :meth:`to_record` output."""
        try:
            return cls(
                structure=Structure(record["structure"]),
                game=GameKind(record["game"]),
                min_bet=record["min_bet"],
                big_bet=record["big_bet"],
                chip_unit=record["chip_unit"],
                odd_chips=OddChips(record["odd_chips"]),
                raise_cap=record["raise_cap"],
                limit_all_in_percent=record.get("limit_all_in_percent", 50),
            )
        except (KeyError, ValueError) as exc:
            raise ConfigError(
                f"The hand configuration record {record!r} is incomplete or invalid ({exc}); "
                "it must come from HandConfig.to_record()."
            ) from exc


def limit_blinds(lower_limit: int) -> tuple[int, int]:
    """Return (small blind, big blind) for a fixed-limit game (CC-3).

    The small blind is half the lower limit rounded down, the big blind the
    lower limit.

    >>> limit_blinds(15)
    (7, 15)
    >>> limit_blinds(5)
    (2, 5)
    """
    if lower_limit < 1:
        raise ConfigError(f"The lower limit must be at least 1, not {lower_limit}.")
    return lower_limit // 2, lower_limit
