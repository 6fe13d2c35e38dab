"""The data of one hand and the types every engine module shares.

:class:`HandState` holds what a hand is (stacks, bets, cards, whose turn) and
the queries on it; :class:`~firmware.engine.hand.Hand` adds the rules that
change it. Betting, showdown and rulings work on a :class:`HandState`, so
they import this module and never the hand machine itself (no import cycle).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from firmware.engine.cards import format_card
from firmware.engine.events import Event, StartHand
from firmware.engine.pots import Pot, build_pots
from firmware.engine.rules import HandConfig, Structure
from firmware.errors import IllegalAction

FIXED_LIMIT: Final = Structure.FIXED_LIMIT
"""A constant, so that the compiled build reads it without a look-up by name."""

BOARD_SIZES: Final = (0, 3, 4, 5)
"""Board cards on the table after each street: preflop, flop, turn, river."""


class Phase(enum.Enum):
    """What the hand is waiting for."""

    DEALING = "dealing"
    """Hole cards are being dealt."""
    BETTING = "betting"
    """A betting round: the player to act must act."""
    BOARD = "board"
    """The next board cards (flop, turn or river) must be dealt."""
    SHOWDOWN = "showdown"
    """Players show or muck in showdown order."""
    COMPLETE = "complete"
    """The pots have been awarded."""


# The phases as module constants: reading ``Phase.BETTING`` goes through the enum's
# class look-up on every use (about 0.1 µs in CPython 3.11), a constant does not.
DEALING: Final[Phase] = Phase.DEALING
BETTING: Final[Phase] = Phase.BETTING
BOARD: Final[Phase] = Phase.BOARD
SHOWDOWN: Final[Phase] = Phase.SHOWDOWN
COMPLETE: Final[Phase] = Phase.COMPLETE


@dataclass(frozen=True)
class PotResult:
    """How one pot was decided.

    ``amount`` is the pot as the betting built it; ``rake`` the chips the house
    took from it before the split (HOUSE-RAKE), so the ``shares`` add up to
    ``amount - rake - drop``; ``drop`` is the jackpot drop (JACKPOT).
    """

    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]
    rake: int = 0
    drop: int = 0

    def __init__(
        self,
        amount: int,
        eligible: tuple[int, ...],
        winners: tuple[int, ...],
        shares: tuple[tuple[int, int], ...],
        rake: int = 0,
        drop: int = 0,
    ) -> None:
        # Spelled out so that the compiled build compiles it (see firmware.engine.events).
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "eligible", eligible)
        object.__setattr__(self, "winners", winners)
        object.__setattr__(self, "shares", shares)
        object.__setattr__(self, "rake", rake)
        object.__setattr__(self, "drop", drop)


@dataclass(frozen=True)
class HandResult:
    """The outcome of a hand: pots, returned bets and finishing stacks."""

    pots: tuple[PotResult, ...]
    finishing_stacks: tuple[int, ...]
    starting_stacks: tuple[int, ...]

    def __init__(
        self,
        pots: tuple[PotResult, ...],
        finishing_stacks: tuple[int, ...],
        starting_stacks: tuple[int, ...],
    ) -> None:
        # Spelled out so that the compiled build compiles it (see firmware.engine.events).
        object.__setattr__(self, "pots", pots)
        object.__setattr__(self, "finishing_stacks", finishing_stacks)
        object.__setattr__(self, "starting_stacks", starting_stacks)

    @property
    def rake(self) -> int:
        """Chips the house took from the hand's pots (HOUSE-RAKE); 0 when unraked."""
        return sum(pot.rake for pot in self.pots)

    @property
    def jackpot_drop(self) -> int:
        """Chips the hand's pots dropped into the jackpot fund (JACKPOT); 0 when none."""
        return sum(pot.drop for pot in self.pots)

    @property
    def net(self) -> tuple[int, ...]:
        """Chips won (positive) or lost (negative) by each player."""
        return tuple(
            f - s for f, s in zip(self.finishing_stacks, self.starting_stacks, strict=True)
        )


class HandState:
    """The state of one hand: what the rules read and change.

    :class:`~firmware.engine.hand.Hand` subclasses it and is the only class
    that changes it (through ``Hand.apply``).
    """

    # Slots: the pure build's attribute reads and writes go to fixed offsets instead of
    # an instance dict (too many keys for CPython's shared-key dicts); the compiled
    # build ignores this (its native classes have fixed attributes anyway).
    __slots__ = (
        "acted_level",
        "actor",
        "aggressor",
        "bets",
        "blinds",
        "board",
        "burns",
        "cards_up",
        "config",
        "current_bet",
        "dead_posted",
        "events",
        "fixed_limit",
        "folded",
        "full_bets",
        "full_level",
        "hole",
        "hole_dealt",
        "last_raise",
        "limit_offset",
        "live",
        "matched",
        "mucked",
        "names",
        "opener",
        "orders",
        "pending",
        "phase",
        "player_count",
        "result",
        "returned",
        "seats",
        "seen",
        "showdown_order",
        "shown",
        "stacks",
        "starting_stacks",
        "street",
        "street_bets",
        "strengths",
        "voided",
    )

    def __init__(self, start: StartHand) -> None:
        n = len(start.stacks)
        self.config: HandConfig = start.config
        self.player_count = n
        self.seats = start.seats
        self.names = start.names
        self.starting_stacks = start.stacks
        self.stacks = list(start.stacks)
        self.bets = [0] * n
        self.matched = [0] * n
        self.dead_posted = [0] * n
        self.folded = [False] * n
        self.mucked = [False] * n
        self.shown: list[tuple[int, ...] | None] = [None] * n
        self.hole: list[list[int | None]] = [[] for _ in range(n)]
        self.board: list[int] = []
        self.burns: list[int | None] = []
        self.phase = DEALING
        self.street = 0
        self.actor: int | None = None
        self.current_bet = 0
        self.last_raise = self.config.min_bet
        self.full_bets = 0
        self.limit_offset = 0
        """Fixed-limit: how far the full-bet levels are shifted by an all-in that
        counted as a full bet (TDA 47B); the next full level is
        ``(full_bets + 1) * bet + limit_offset``."""
        self.full_level = 0
        """Fixed-limit: the bet level of the round's last full (or counted-as-full)
        bet; a player who acted below it may raise again."""
        self.acted_level: list[int | None] = [None] * n
        self.pending: set[int] = set()
        self.aggressor: int | None = None
        self.cards_up = False
        self.returned: list[tuple[int, int]] = []
        """Uncalled bets given back, as (player, chips), in order (HG-1, TDA-28)."""
        self.showdown_order: tuple[int, ...] = ()
        self.result: HandResult | None = None
        self.voided: str | None = None
        self.events: list[Event] = [start]
        self.opener: int | None = start.big_blind
        """The table's big blind (or straddle): preflop action starts left of it."""
        # Derived from the state above and kept up to date (not part of snapshot()):
        self.live: list[int] = list(range(n))
        """Players who have not folded, in position order (see :meth:`in_hand`)."""
        self.seen: set[int] = set()
        """Cards known in this hand: hole cards read, board and burned cards."""
        self.strengths: dict[int, int] = {}
        """Cache of :func:`showdown.strength` by player."""
        self.hole_dealt = 0
        """Hole cards dealt so far (the betting starts at two per player)."""
        self.fixed_limit = self.config.structure is FIXED_LIMIT
        config = self.config
        self.street_bets = (
            config.street_bet(0),
            config.street_bet(1),
            config.street_bet(2),
            config.street_bet(3),
        )
        """``config.street_bet(street)`` of each street (the config is immutable): read
        without a call (an interpreted one in the compiled build, where rules.py is not
        compiled)."""
        self.orders = _orders(n)
        """``orders[s]``: every position index clockwise from ``s`` (0 <= s <= n)."""
        self._post_forced(start)

    def _post_forced(self, start: StartHand) -> None:
        stacks = self.stacks
        if any(start.dead) or any(start.antes):
            for i in range(self.player_count):
                for amount, dead in ((start.dead[i], True), (start.antes[i], False)):
                    paid = min(amount, stacks[i])
                    stacks[i] -= paid
                    if dead:
                        self.dead_posted[i] += paid
                    else:
                        self.matched[i] += paid
        bets = self.bets
        matched = self.matched
        for i, blind in enumerate(start.blinds):
            if blind:
                paid = min(blind, stacks[i])
                stacks[i] -= paid
                bets[i] += paid
                matched[i] += paid
        self.current_bet = max(bets)
        self.blinds = start.blinds

    # ------------------------------------------------------------ properties

    def who(self, player: object) -> str:
        """``player`` as refusals name him: by his seat (``seat 5``), never by engine
        position; an index that is no player of the hand is named as given."""
        if isinstance(player, int) and 0 <= player < self.player_count:
            return f"seat {self.seats[player]}"
        return f"player {player!r}"

    @property
    def pot_total(self) -> int:
        """All chips in the middle: pots plus this round's bets."""
        return sum(self.matched) + sum(self.dead_posted)

    @property
    def total_chips(self) -> int:
        """Stacks plus everything in the middle; constant through the hand."""
        return sum(self.stacks) + self.pot_total

    def is_all_in(self, player: int) -> bool:
        """Whether ``player`` is still in the hand with no chips behind."""
        return not self.folded[player] and self.stacks[player] == 0

    def in_hand(self) -> list[int]:
        """Players who have not folded, in position order."""
        return list(self.live)

    def fold(self, player: int) -> None:
        """Mark ``player``'s hand as folded or dead (no check: callers check first)."""
        self.folded[player] = True
        self.live.remove(player)

    def pots(self) -> list[Pot]:
        """The main pot and side pots as they stand now."""
        return build_pots(self.matched, sum(self.dead_posted), [not f for f in self.folded])

    def check_new_cards(self, cards: Iterable[int | None]) -> None:
        """Refuse cards already seen in this hand or not valid card numbers."""
        known = self.seen
        fresh: set[int] = set()
        for card in cards:
            if type(card) is int and 0 <= card < 52 and card not in known:
                if card in fresh:
                    break
                fresh.add(card)
                continue
            if card is None:
                continue
            break
        else:
            return
        fresh.clear()
        for card in cards:
            if card is None:
                continue
            if not isinstance(card, int) or not 0 <= card < 52:
                raise IllegalAction(f"{card!r} is not a card number (0 to 51).")
            if card in known or card in fresh:
                raise IllegalAction(
                    f"The card {format_card(card)} was already dealt in this hand; "
                    "a deck holds each card once. Check the deck and report the incident.",
                    key="error.card.seen_twice",
                    card=format_card(card),
                )
            fresh.add(card)

    def remember_cards(self, cards: Iterable[int | None]) -> None:
        """Record cards (checked by :meth:`check_new_cards`) as known in this hand."""
        self.seen.update(c for c in cards if c is not None)

    def advance(self, start: int) -> None:
        """Move the turn to the next pending player from ``start``, or end the round."""
        raise NotImplementedError

    def end_round(self) -> None:
        """Close the betting round: return uncalled chips, then the board or showdown."""
        raise NotImplementedError


_ORDERS: Final[dict[int, tuple[tuple[int, ...], ...]]] = {}


def _orders(n: int) -> tuple[tuple[int, ...], ...]:
    """For ``s`` in 0..n, the position indices clockwise from ``s`` (``n`` is ``0`` again)."""
    orders = _ORDERS.get(n)
    if orders is None:
        orders = tuple(tuple((s + k) % n for k in range(n)) for s in range(n + 1))
        _ORDERS[n] = orders
    return orders
