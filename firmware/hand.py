"""One hand of Texas Hold'em as a state machine driven by events.

A :class:`Hand` changes only through :meth:`Hand.apply`, which first checks
the event against the rules (raising :class:`~firmware.errors.IllegalAction`
with a full-sentence reason and leaving the hand untouched) and then applies
it. The hand holds no randomness and does no I/O: replaying the same events
rebuilds exactly the same state (:meth:`Hand.replay`).

Chips are integers. At every moment ``sum(stacks) + pot_total`` equals the
chips the players brought to the hand; after the award, the stacks alone do.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from firmware import rulings, showdown
from firmware.betting import LegalActions, check_raise_amount, legal_actions
from firmware.cards import format_card
from firmware.errors import IllegalAction
from firmware.events import (
    AwardPots,
    BetRaise,
    Burn,
    CheckCall,
    DealBoard,
    DealHole,
    Event,
    Fold,
    KillHand,
    Muck,
    Show,
    StartHand,
    VoidHand,
    to_record,
)
from firmware.pots import Pot, build_pots
from firmware.rules import HandConfig, Structure

BOARD_SIZES = (0, 3, 4, 5)
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


@dataclass(frozen=True)
class PotResult:
    """How one pot was decided."""

    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class HandResult:
    """The outcome of a hand: pots, returned bets and finishing stacks."""

    pots: tuple[PotResult, ...]
    finishing_stacks: tuple[int, ...]
    starting_stacks: tuple[int, ...]

    @property
    def net(self) -> tuple[int, ...]:
        """Chips won (positive) or lost (negative) by each player."""
        return tuple(
            f - s for f, s in zip(self.finishing_stacks, self.starting_stacks, strict=True)
        )


class Hand:
    """The state of one hand. Build it with :meth:`start`, change it with :meth:`apply`."""

    def __init__(self, start: StartHand) -> None:
        _check_start(start)
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
        self.phase = Phase.DEALING
        self.street = 0
        self.actor: int | None = None
        self.current_bet = 0
        self.last_raise = self.config.min_bet
        self.full_bets = 0
        self.acted_level: list[int | None] = [None] * n
        self.pending: set[int] = set()
        self.aggressor: int | None = None
        self.cards_up = False
        self.showdown_order: tuple[int, ...] = ()
        self.result: HandResult | None = None
        self.voided: str | None = None
        self.events: list[Event] = [start]
        # Derived from the state above and kept up to date (not part of snapshot()):
        self.live: list[int] = list(range(n))
        """Players who have not folded, in position order (see :meth:`in_hand`)."""
        self.seen: set[int] = set()
        """Cards known in this hand: hole cards read, board and burned cards."""
        self.strengths: dict[int, int] = {}
        """Cache of :func:`showdown.strength` by player."""
        self.hole_dealt = 0
        """Hole cards dealt so far (the betting starts at two per player)."""
        self.fixed_limit = self.config.structure is Structure.FIXED_LIMIT
        self.orders = _orders(n)
        """``orders[s]``: every position index clockwise from ``s`` (0 <= s <= n)."""
        self._post_forced(start)

    # ------------------------------------------------------------------ setup

    @classmethod
    def start(cls, start: StartHand) -> Hand:
        """Return a new hand from its :class:`StartHand` event."""
        return cls(start)

    @classmethod
    def replay(cls, events: Iterable[Event]) -> Hand:
        """Rebuild a hand from its events (the first must be :class:`StartHand`)."""
        iterator = iter(events)
        first = next(iterator, None)
        if not isinstance(first, StartHand):
            raise IllegalAction("A hand's events must begin with StartHand; this journal does not.")
        hand = cls(first)
        for event in iterator:
            hand.apply(event)
        return hand

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

    def legal_actions(self) -> LegalActions:
        """What the player to act may do.

        :raises IllegalAction: if nobody is to act now.
        """
        if self.phase is not Phase.BETTING or self.actor is None:
            raise IllegalAction(
                f"Nobody is to act now; the hand is in the {self.phase.value} phase."
            )
        return legal_actions(self, self.actor)

    def expected(self) -> tuple[str, int | None]:
        """What the hand waits for: ``(phase, player or number of cards)``."""
        if self.phase is Phase.DEALING:
            # One card at a time, clockwise from the button's left (CC-2).
            fewest = min(len(h) for h in self.hole)
            need = next(i for i in range(self.player_count) if len(self.hole[i]) == fewest)
            return ("hole", need)
        if self.phase is Phase.BETTING:
            return ("action", self.actor)
        if self.phase is Phase.BOARD:
            return ("board", BOARD_SIZES[self.street + 1] - BOARD_SIZES[self.street])
        if self.phase is Phase.SHOWDOWN:
            return ("show", showdown.next_to_show(self))
        return ("complete", None)

    def snapshot(self) -> dict[str, Any]:
        """A plain dict of the whole state, for comparing replays."""
        return {
            "stacks": list(self.stacks),
            "bets": list(self.bets),
            "matched": list(self.matched),
            "dead": list(self.dead_posted),
            "folded": list(self.folded),
            "mucked": list(self.mucked),
            "shown": [list(s) if s is not None else None for s in self.shown],
            "hole": [list(h) for h in self.hole],
            "board": list(self.board),
            "burns": list(self.burns),
            "phase": self.phase.value,
            "street": self.street,
            "actor": self.actor,
            "current_bet": self.current_bet,
            "last_raise": self.last_raise,
            "full_bets": self.full_bets,
            "acted": list(self.acted_level),
            "pending": sorted(self.pending),
            "cards_up": self.cards_up,
            "voided": self.voided,
            "result": None if self.result is None else repr(self.result),
            "events": [to_record(e) for e in self.events],
        }

    # ----------------------------------------------------------------- apply

    def apply(self, event: Event) -> None:
        """Check ``event`` against the rules, then apply it.

        :raises IllegalAction: with the reason, leaving the hand unchanged.
        """
        if self.phase is Phase.COMPLETE:
            raise IllegalAction("The hand is over; start a new hand.", key="error.hand.over")
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise IllegalAction(f"The event {event!r} cannot be applied to a hand in progress.")
        handler(self, event)
        self.events.append(event)

    def check_new_cards(self, cards: Iterable[int | None]) -> None:
        """Refuse cards already seen in this hand or not valid card numbers."""
        known = self.seen
        fresh: set[int] = set()
        for card in cards:
            if card.__class__ is int and 0 <= card < 52 and card not in known:
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

    def _deal_hole(self, event: DealHole) -> None:
        if self.phase is not Phase.DEALING:
            raise IllegalAction(
                "Hole cards can only be dealt before the first betting round.",
                key="error.deal.hole_late",
            )
        self._check_player(event.player)
        held = len(self.hole[event.player]) + len(event.cards)
        if held > 2 or not event.cards:
            raise IllegalAction(
                f"Player {event.player} would hold {held} "
                "hole cards; each player gets exactly two.",
                key="error.deal.too_many",
            )
        self.check_new_cards(event.cards)
        self.hole[event.player].extend(event.cards)
        self.remember_cards(event.cards)
        self.hole_dealt += len(event.cards)
        if self.hole_dealt == 2 * self.player_count:
            self._begin_round()

    def _burn(self, event: Burn) -> None:
        if self.phase is not Phase.BOARD:
            raise IllegalAction(
                "A card can be burned only before the flop, turn or river is dealt."
            )
        self.check_new_cards([event.card])
        self.burns.append(event.card)
        self.remember_cards([event.card])

    def _deal_board(self, event: DealBoard) -> None:
        if self.phase is not Phase.BOARD:
            raise IllegalAction(
                "No board card may be dealt now: the betting round is not over "
                f"(the hand is in the {self.phase.value} phase).",
                key="error.deal.premature",
            )
        need = BOARD_SIZES[self.street + 1] - BOARD_SIZES[self.street]
        if len(event.cards) != need:
            raise IllegalAction(
                f"The next street takes {need} board card(s), not {len(event.cards)}.",
                key="error.deal.board_count",
            )
        self.check_new_cards(event.cards)
        self.board.extend(event.cards)
        self.seen.update(event.cards)
        self.street += 1
        if self._betting_possible():
            self._begin_round()
        elif self.street == 3:
            showdown.begin(self)

    def _check_player(self, player: int) -> None:
        if not isinstance(player, int) or not 0 <= player < self.player_count:
            raise IllegalAction(
                f"There is no player {player!r}; players are numbered 0 to {self.player_count - 1}."
            )

    # --------------------------------------------------------------- betting

    def _betting_possible(self) -> bool:
        """Whether two or more players in the hand still have chips to bet."""
        stacks = self.stacks
        seen_one = False
        for i in self.live:
            if stacks[i] > 0:
                if seen_one:
                    return True
                seen_one = True
        return False

    def _begin_round(self) -> None:
        config = self.config
        n = self.player_count
        self.acted_level = [None] * n
        self.aggressor = None
        if self.street == 0:
            self.current_bet = max(self.bets)
            if self.fixed_limit:
                self.last_raise = config.street_bet(0)
            else:
                self.last_raise = max(config.min_bet, max(self.blinds))
            # The big blind counts as the round's first bet (CC-8).
            self.full_bets = 1 if self.current_bet > 0 else 0
            posted = [i for i in range(n) if self.blinds[i] > 0]
            if posted:
                top = max(self.blinds)
                big = max(i for i in posted if self.blinds[i] == top)
                first = (big + 1) % n
            else:
                first = 0
        else:
            self.current_bet = 0
            self.last_raise = config.street_bet(self.street)
            self.full_bets = 0
            first = 0
        self.pending = {i for i in self.live if self.stacks[i] > 0}
        self.phase = Phase.BETTING
        self.actor = None
        self.advance(first)

    def advance(self, start: int) -> None:
        """Move the turn to the next pending player from ``start``, or end the round."""
        pending = self.pending
        if pending:
            bets = self.bets
            current = self.current_bet
            for i in self.orders[start]:
                if i not in pending:
                    continue
                if bets[i] >= current and not self._betting_possible():
                    # Nothing to call and nobody left to bet against.
                    pending.discard(i)
                    continue
                self.actor = i
                return
        self.end_round()

    def _check_turn(self, player: int) -> None:
        """Refuse an action by ``player`` unless he is the player to act."""
        if self.phase is not Phase.BETTING or self.actor is None:
            raise IllegalAction(
                f"No player may act now; the hand is in the {self.phase.value} phase.",
                key="error.action.no_turn",
            )
        self._check_player(player)
        if player != self.actor:
            raise IllegalAction(
                f"It is not player {player}'s turn; player {self.actor} is to act.",
                key="error.action.out_of_turn",
                player=player,
                actor=self.actor,
            )

    def _fold(self, event: Fold) -> None:
        player = event.player
        if player.__class__ is not int or player != self.actor:
            self._check_turn(player)
        self.folded[player] = True
        live = self.live
        live.remove(player)
        self.pending.discard(player)
        self.acted_level[player] = self.current_bet
        if len(live) == 1:
            self.end_round()
        else:
            self.advance(player + 1)

    def _check_call(self, event: CheckCall) -> None:
        player = event.player
        if player.__class__ is not int or player != self.actor:
            self._check_turn(player)
        current = self.current_bet
        stacks = self.stacks
        amount = current - self.bets[player]
        if amount:
            stack = stacks[player]
            if amount > stack:
                amount = stack
            stacks[player] = stack - amount
            self.bets[player] += amount
            self.matched[player] += amount
        self.pending.discard(player)
        self.acted_level[player] = current
        if len(self.live) == 1:
            self.end_round()
        else:
            self.advance(player + 1)

    def _bet_raise(self, event: BetRaise) -> None:
        player = event.player
        if player.__class__ is not int or player != self.actor:
            self._check_turn(player)
        to = event.to
        check_raise_amount(self, player, to)
        if self.fixed_limit:
            full = to >= (self.full_bets + 1) * self.config.street_bet(self.street)
        else:
            raise_size = to - self.current_bet
            full = raise_size >= self.last_raise
            if full:
                self.last_raise = raise_size
        stacks = self.stacks
        amount = to - self.bets[player]
        stacks[player] -= amount
        self.bets[player] = to
        self.matched[player] += amount
        if full:
            self.full_bets += 1
        self.current_bet = to
        self.aggressor = player
        self.pending = {i for i in self.live if stacks[i] > 0 and i != player}
        self.acted_level[player] = to
        if len(self.live) == 1:
            self.end_round()
        else:
            self.advance(player + 1)

    def end_round(self) -> None:
        self.actor = None
        self.pending = set()
        self._return_uncalled()
        self.bets = [0] * self.player_count
        if len(self.live) == 1:
            showdown.award(self)
            return
        if self.street == 3:
            showdown.begin(self)
            return
        if not self._betting_possible():
            self.cards_up = True
        self.phase = Phase.BOARD

    def _return_uncalled(self) -> None:
        """Give back the part of the largest bet that nobody matched (HG-1)."""
        if self.player_count < 2:
            return
        bets = self.bets
        highest = max(bets)
        top = bets.index(highest)  # the first of equals
        second = max(max(bets[:top], default=0), max(bets[top + 1 :], default=0))
        excess = highest - second
        # A killed hand's bet is dead money: only a live bettor gets his excess back.
        if excess > 0 and not self.folded[top]:
            self.bets[top] -= excess
            self.matched[top] -= excess
            self.stacks[top] += excess
            self.current_bet = self.bets[top]


_HANDLERS: dict[type[Event], Callable[[Hand, Any], None]] = {
    DealHole: Hand._deal_hole,
    Burn: Hand._burn,
    DealBoard: Hand._deal_board,
    Fold: Hand._fold,
    CheckCall: Hand._check_call,
    BetRaise: Hand._bet_raise,
    Show: showdown.apply,
    Muck: showdown.apply,
    KillHand: rulings.kill_hand,
    VoidHand: rulings.void_hand,
    AwardPots: rulings.award_pots,
}
"""How :meth:`Hand.apply` handles each event type (checks first, then changes)."""


_ORDERS: dict[int, tuple[tuple[int, ...], ...]] = {}


def _orders(n: int) -> tuple[tuple[int, ...], ...]:
    """For ``s`` in 0..n, the position indices clockwise from ``s`` (``n`` is ``0`` again)."""
    orders = _ORDERS.get(n)
    if orders is None:
        orders = tuple(tuple((s + k) % n for k in range(n)) for s in range(n + 1))
        _ORDERS[n] = orders
    return orders


def _check_start(start: StartHand) -> None:
    n = len(start.stacks)
    if n < 2:
        raise IllegalAction(
            "A hand needs at least two players (PE-4); seat another player first.",
            key="error.hand.too_few",
        )
    for name in ("seats", "names", "antes", "blinds", "dead"):
        if len(getattr(start, name)) != n:
            raise IllegalAction(
                f"The hand has {n} players but {len(getattr(start, name))} {name}; "
                "give one value per player."
            )
    for name in ("stacks", "antes", "blinds", "dead"):
        for value in getattr(start, name):
            if value.__class__ is int and value >= 0:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise IllegalAction(
                    f"Every {name[:-1]} must be a whole number of chips, 0 or more, not {value!r}."
                )
    if any(s == 0 for s in start.stacks):
        raise IllegalAction(
            "Every player dealt in must have chips; a player with none cannot play the hand.",
            key="error.hand.empty_stack",
        )
    if len(set(start.seats)) != n:
        raise IllegalAction(
            "Two players share a seat; one player per seat (PE-4).", key="error.hand.shared_seat"
        )
