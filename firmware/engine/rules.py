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


BASIS_POINTS = 10_000
"""A whole pot, in basis points (hundredths of a percent): 500 is 5 %."""


@dataclass(frozen=True)
class RakePolicy:
    """The house's rake (house procedure HOUSE-RAKE in docs/rules.md).

    Each pot (the main pot, then each side pot) is raked on its own, after
    the betting and before it is split: ``basis_points`` of it, rounded down
    to the smallest chip in play. The ``cap`` bounds the rake of the whole
    hand: the main pot is raked first, then the side pots outwards, until
    the cap is reached. Nothing is taken when no flop was dealt
    (``no_flop_no_drop``) or when the hand's pots total less than
    ``min_pot``. Integers only: no chip is ever a fraction.

    :param basis_points: Share of each pot, in hundredths of a percent
        (``500``: 5 %); from 0 to 10000, so the rake never exceeds a pot.
    :param cap: Most chips taken from one hand; 0: no cap.
    :param no_flop_no_drop: Take nothing from a hand that ends before the flop.
    :param min_pot: Hands whose pots total less than this are not raked; 0: all.

    >>> RakePolicy(500, cap=30).pot_rakes([480, 210], board_cards=5, chip_unit=5)
    [20, 10]
    >>> RakePolicy(500, cap=25).pot_rakes([480, 210], board_cards=5, chip_unit=5)
    [20, 5]
    >>> RakePolicy(500).pot_rakes([480], board_cards=0, chip_unit=5)
    [0]
    """

    basis_points: int
    cap: int = 0
    no_flop_no_drop: bool = True
    min_pot: int = 0

    def __post_init__(self) -> None:
        for name in ("basis_points", "cap", "min_pot"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ConfigError(
                    f"The rake option {name} must be a whole number of 0 or more, not {value!r}.",
                    key="config.rake.whole",
                    option=name,
                    value=repr(value),
                )
        if self.basis_points > BASIS_POINTS:
            raise ConfigError(
                f"A rake of {self.basis_points} basis points could take more than the pot; "
                f"give at most {BASIS_POINTS} (100 %), e.g. 500 for 5 %.",
                key="config.rake.above_pot",
                value=self.basis_points,
                most=BASIS_POINTS,
            )
        if not isinstance(self.no_flop_no_drop, bool):
            raise ConfigError(
                "The rake option no_flop_no_drop must be true or false, "
                f"not {self.no_flop_no_drop!r}.",
                key="config.rake.flag",
                value=repr(self.no_flop_no_drop),
            )

    def raked(self, total: int, board_cards: int) -> bool:
        """Whether a hand whose pots total ``total`` with that many board cards is raked."""
        if self.basis_points == 0 or (self.no_flop_no_drop and board_cards < 3):
            return False
        return total >= self.min_pot

    def hand_rake(self, total: int, board_cards: int, chip_unit: int = 1) -> int:
        """The rake of a hand taken from its whole ``total`` at once, rounded down to the
        chip unit and capped: how other rooms' histories are raked when ``pokertable
        replay --rake`` compares them (their pots share it in proportion to their size,
        :func:`firmware.engine.histories.rake.take_rake`). The table itself rakes each
        pot on its own (:meth:`pot_rakes`).

        >>> RakePolicy(500, cap=3).hand_rake(480, board_cards=3)
        3
        >>> RakePolicy(250).hand_rake(690, board_cards=5, chip_unit=5)
        15
        """
        if not self.raked(total, board_cards):
            return 0
        raked = total * self.basis_points // BASIS_POINTS
        raked -= raked % chip_unit
        return min(raked, self.cap - self.cap % chip_unit) if self.cap else raked

    def pot_rakes(self, amounts: list[int], board_cards: int, chip_unit: int) -> list[int]:
        """The rake of each pot of ``amounts`` (main pot first) in a hand with that board."""
        out = [0] * len(amounts)
        if not self.raked(sum(amounts), board_cards):
            return out
        left = self.cap - self.cap % chip_unit if self.cap else -1
        for k, amount in enumerate(amounts):
            raked = amount * self.basis_points // BASIS_POINTS
            raked -= raked % chip_unit
            if left >= 0:
                raked = min(raked, left)
                left -= raked
            out[k] = raked
        return out

    def to_record(self) -> dict[str, Any]:
        """A plain record of this policy (journaled with the hand's configuration)."""
        return {
            "basis_points": self.basis_points,
            "cap": self.cap,
            "no_flop_no_drop": self.no_flop_no_drop,
            "min_pot": self.min_pot,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> RakePolicy:
        """Rebuild a policy from :meth:`to_record` output."""
        return cls(
            basis_points=record["basis_points"],
            cap=record["cap"],
            no_flop_no_drop=record["no_flop_no_drop"],
            min_pot=record["min_pot"],
        )


@dataclass(frozen=True)
class JackpotDropPolicy:
    """The jackpot drop (house procedure JACKPOT in docs/rules.md).

    Taken at the award with the rake, from each pot on its own: ``percent`` of
    the pot as the betting built it, rounded down to the smallest chip in play,
    at most ``cap`` chips a pot (0: no cap), nothing when no flop was dealt or
    the pot is below ``min_pot``; never more than what the rake leaves of the
    pot. The chips leave the table for the jackpot fund.

    >>> JackpotDropPolicy(5, cap=10).pot_drops([480, 210], [20, 10], 5, chip_unit=5)
    [10, 10]
    >>> JackpotDropPolicy(1).pot_drops([480], [0], board_cards=0, chip_unit=1)
    [0]
    """

    percent: int
    cap: int = 0
    min_pot: int = 0

    def __post_init__(self) -> None:
        for name in ("percent", "cap", "min_pot"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ConfigError(
                    f"The jackpot drop option {name} must be a whole number of 0 or more, "
                    f"not {value!r}.",
                    key="config.drop.whole",
                    option=name,
                    value=repr(value),
                )
        if self.percent > 100:
            raise ConfigError(
                f"A jackpot drop of {self.percent} % would take more than the pot; "
                "give at most 100.",
                key="config.drop.above_pot",
                value=self.percent,
            )

    def pot_drops(
        self, amounts: list[int], rakes: list[int], board_cards: int, chip_unit: int
    ) -> list[int]:
        """The drop of each pot of ``amounts`` (main pot first), after ``rakes``."""
        out = [0] * len(amounts)
        if not self.percent or board_cards < 3:
            return out
        cap = self.cap - self.cap % chip_unit
        for k, amount in enumerate(amounts):
            if amount < max(self.min_pot, 1):
                continue
            chips = amount * self.percent // 100
            chips -= chips % chip_unit
            if cap:
                chips = min(chips, cap)
            out[k] = max(0, min(chips, amount - rakes[k]))
        return out

    def to_record(self) -> dict[str, Any]:
        """A plain record of this policy (journaled with the hand's configuration)."""
        return {"percent": self.percent, "cap": self.cap, "min_pot": self.min_pot}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> JackpotDropPolicy:
        """Rebuild a policy from :meth:`to_record` output."""
        return cls(percent=record["percent"], cap=record["cap"], min_pot=record["min_pot"])


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
    :param rake: The house's rake taken from each pot before it is split
        (cash games); ``None``: no rake, every pot goes to its winners whole.
    :param jackpot_drop: The jackpot drop taken from each pot with the rake
        (JACKPOT, cash games); ``None``: none.

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
    rake: RakePolicy | None = None
    jackpot_drop: JackpotDropPolicy | None = None

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
        if self.rake is not None and not isinstance(self.rake, RakePolicy):
            raise ConfigError(f"The hand option rake must be a RakePolicy, not {self.rake!r}.")
        drop = self.jackpot_drop
        if drop is not None and not isinstance(drop, JackpotDropPolicy):
            raise ConfigError(
                f"The hand option jackpot_drop must be a JackpotDropPolicy, not {drop!r}."
            )

    def street_bet(self, street: int) -> int:
        """Return the fixed bet size on ``street`` (0 preflop .. 3 river).

        In no-limit and pot-limit this is the minimum opening bet.
        """
        if self.structure is Structure.FIXED_LIMIT and street >= 2:
            return self.big_bet or 2 * self.min_bet
        return self.min_bet

    def to_record(self) -> dict[str, Any]:
        """Return a plain, msgpack-serializable record of this configuration.

        ``rake`` (and ``jackpot_drop``) is written only when the hand is raked
        (drops into a jackpot), so other records are unchanged.
        """
        record: dict[str, Any] = {
            "structure": self.structure.value,
            "game": self.game.value,
            "min_bet": self.min_bet,
            "big_bet": self.big_bet,
            "chip_unit": self.chip_unit,
            "odd_chips": self.odd_chips.value,
            "raise_cap": self.raise_cap,
            "limit_all_in_percent": self.limit_all_in_percent,
        }
        if self.rake is not None:
            record["rake"] = self.rake.to_record()
        if self.jackpot_drop is not None:
            record["jackpot_drop"] = self.jackpot_drop.to_record()
        return record

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
                rake=None if record.get("rake") is None else RakePolicy.from_record(record["rake"]),
                jackpot_drop=None
                if record.get("jackpot_drop") is None
                else JackpotDropPolicy.from_record(record["jackpot_drop"]),
            )
        except (KeyError, ValueError, TypeError) as exc:
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
