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

from collections.abc import Callable, Iterable
from typing import Any, Final

from firmware.engine import rulings, showdown
from firmware.engine.betting import LegalActions, check_raise_amount, legal_actions
from firmware.engine.events import (
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
from firmware.engine.state import (
    BETTING,
    BOARD,
    BOARD_SIZES,
    COMPLETE,
    DEALING,
    SHOWDOWN,
    HandResult,
    HandState,
    Phase,
    PotResult,
)
from firmware.errors import IllegalAction

__all__ = ["BOARD_SIZES", "Hand", "HandResult", "HandState", "Phase", "PotResult"]


class Hand(HandState):
    """The state of one hand. Build it with :meth:`start`, change it with :meth:`apply`."""

    __slots__ = ()

    def __init__(self, start: StartHand) -> None:
        _check_start(start)
        super().__init__(start)

    # ------------------------------------------------------------------ setup

    @classmethod
    def start(cls, start: StartHand) -> Hand:
        """Return a new hand from its :class:`StartHand` event."""
        if cls is Hand:
            return Hand(start)  # a direct (native) call in the compiled build
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

    def legal_actions(self) -> LegalActions:
        """What the player to act may do.

        :raises IllegalAction: if nobody is to act now.
        """
        if self.phase is not BETTING or self.actor is None:
            raise IllegalAction(
                f"Nobody is to act now; the hand is in the {self.phase.value} phase.",
                key="error.action.nobody",
                phase=self.phase.value,
            )
        return legal_actions(self, self.actor)

    def expected(self) -> tuple[str, int | None]:
        """What the hand waits for: ``(phase, player or number of cards)``."""
        if self.phase is DEALING:
            # One card at a time, clockwise from the button's left (CC-2).
            fewest = min(len(h) for h in self.hole)
            need = next(i for i in range(self.player_count) if len(self.hole[i]) == fewest)
            return ("hole", need)
        if self.phase is BETTING:
            return ("action", self.actor)
        if self.phase is BOARD:
            return ("board", BOARD_SIZES[self.street + 1] - BOARD_SIZES[self.street])
        if self.phase is SHOWDOWN:
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
            "limit_offset": self.limit_offset,
            "full_level": self.full_level,
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
        if self.phase is COMPLETE:
            raise IllegalAction("The hand is over; start a new hand.", key="error.hand.over")
        # The common events first, called directly (native calls in the compiled
        # build); the same methods as in _HANDLERS, which dispatches the rest.
        kind = type(event)
        if kind is CheckCall:
            self._check_call(event)  # type: ignore[arg-type]
        elif kind is DealHole:
            self._deal_hole(event)  # type: ignore[arg-type]
        elif kind is Fold:
            self._fold(event)  # type: ignore[arg-type]
        elif kind is BetRaise:
            self._bet_raise(event)  # type: ignore[arg-type]
        elif kind is DealBoard:
            self._deal_board(event)  # type: ignore[arg-type]
        elif kind is Show or kind is Muck:
            showdown.apply(self, event)  # type: ignore[arg-type]
        else:
            handler = _HANDLERS.get(kind)
            if handler is None:
                raise IllegalAction(f"The event {event!r} cannot be applied to a hand in progress.")
            handler(self, event)
        self.events.append(event)

    def _deal_hole(self, event: DealHole) -> None:
        if self.phase is not DEALING:
            raise IllegalAction(
                "Hole cards can only be dealt before the first betting round.",
                key="error.deal.hole_late",
            )
        player = event.player
        cards = event.cards
        if type(player) is not int or not 0 <= player < self.player_count:
            self._check_player(player)
        hole = self.hole[player]
        held = len(hole) + len(cards)
        if held > 2 or not cards:
            raise IllegalAction(
                f"{self.who(player).capitalize()} would hold {held} "
                "hole cards; each player gets exactly two.",
                key="error.deal.too_many",
            )
        if len(cards) == 2:
            a, b = cards
            known = self.seen
            fresh = (
                type(a) is int
                and type(b) is int
                and 0 <= a < 52
                and 0 <= b < 52
                and a != b
                and a not in known
                and b not in known
            )
            if not fresh:
                self.check_new_cards(cards)  # words the refusal (or passes unseen cards)
        else:
            self.check_new_cards(cards)
        hole.extend(cards)
        if None in cards:
            self.remember_cards(cards)
        else:
            self.seen.update(cards)  # type: ignore[arg-type]  # no None among them
        self.hole_dealt += len(cards)
        if self.hole_dealt == 2 * self.player_count:
            self._begin_round()

    def _burn(self, event: Burn) -> None:
        if self.phase is not BOARD:
            raise IllegalAction(
                "A card can be burned only before the flop, turn or river is dealt.",
                key="error.burn.not_now",
            )
        self.check_new_cards([event.card])
        self.burns.append(event.card)
        self.remember_cards([event.card])

    def _deal_board(self, event: DealBoard) -> None:
        if self.phase is not BOARD:
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
                self.last_raise = self.street_bets[0]
            else:
                self.last_raise = max(config.min_bet, max(self.blinds))
            # The big blind counts as the round's first bet (CC-8); in fixed
            # limit a live straddle of two bets is the first raise.
            self.full_bets = 1 if self.current_bet > 0 else 0
            if self.fixed_limit:
                self.full_bets = max(self.full_bets, self.current_bet // self.street_bets[0])
            self.limit_offset = 0
            self.full_level = self.current_bet
            opener = self.opener
            if opener is not None:
                # A live big blind posted out of position (a returning or new
                # player) acts in turn: the action starts left of the table's
                # big blind (CC-4, CC-13, HG-15).
                first = (opener + 1) % n
            else:
                blinds = self.blinds
                top = max(blinds)
                if top > 0:
                    # Left of the last player who posted the highest blind.
                    big = n - 1 - blinds[::-1].index(top)
                    first = (big + 1) % n
                else:
                    first = 0
        else:
            self.current_bet = 0
            self.last_raise = self.street_bets[self.street]
            self.full_bets = 0
            self.limit_offset = 0
            self.full_level = 0
            first = 0
        self.pending = {i for i in self.live if self.stacks[i] > 0}
        self.phase = BETTING
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
        if self.phase is not BETTING or self.actor is None:
            raise IllegalAction(
                f"No player may act now; the hand is in the {self.phase.value} phase.",
                key="error.action.no_turn",
            )
        self._check_player(player)
        if player != self.actor:
            raise IllegalAction(
                f"It is not {self.who(player)}'s turn; {self.who(self.actor)} is to act.",
                key="error.action.out_of_turn",
                player=self.seats[player],
                actor=self.seats[self.actor],
            )

    def _fold(self, event: Fold) -> None:
        player = event.player
        if type(player) is not int or player != self.actor:
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
        if type(player) is not int or player != self.actor:
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
        if type(player) is not int or player != self.actor:
            self._check_turn(player)
        to = event.to
        check_raise_amount(self, player, to)
        if self.fixed_limit:
            size = self.street_bets[self.street]
            level = self.full_bets * size + self.limit_offset
            full = to >= level + size
            if not full and 100 * (to - level) >= self.config.limit_all_in_percent * size:
                # An all-in of at least half a bet counts as a full bet or raise:
                # the next raise is a full bet above it (TDA 47B).
                full = True
                self.limit_offset = to - (self.full_bets + 1) * size
            if full:
                self.full_level = to
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
        self.phase = BOARD

    def _return_uncalled(self) -> None:
        """Give back the part of the largest bet that nobody matched (HG-1)."""
        if self.player_count < 2:
            return
        bets = self.bets
        ordered = sorted(bets)
        highest = ordered[-1]
        excess = highest - ordered[-2]  # over the largest other bet (equal ones: nothing)
        if excess <= 0:
            return
        top = bets.index(highest)
        # A killed hand's bet is dead money: only a live bettor gets his excess back.
        if not self.folded[top]:
            self.bets[top] -= excess
            self.matched[top] -= excess
            self.stacks[top] += excess
            self.current_bet = self.bets[top]
            self.returned.append((top, excess))


_HANDLERS: Final[dict[type[Event], Callable[[Hand, Any], None]]] = {
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


def _check_start(start: StartHand) -> None:
    n = len(start.stacks)
    if n < 2:
        raise IllegalAction(
            "A hand needs at least two players (PE-4); seat another player first.",
            key="error.hand.too_few",
        )
    lengths_differ = (
        len(start.seats) != n
        or len(start.names) != n
        or len(start.antes) != n
        or len(start.blinds) != n
        or len(start.dead) != n
    )
    if lengths_differ:
        lists = {
            "seats": start.seats,
            "names": start.names,
            "antes": start.antes,
            "blinds": start.blinds,
            "dead": start.dead,
        }
        for name, values in lists.items():
            if len(values) != n:
                raise IllegalAction(
                    f"The hand has {n} players but {len(values)} {name}; give one value per player."
                )
    for name, amounts in (
        ("stacks", start.stacks),
        ("antes", start.antes),
        ("blinds", start.blinds),
        ("dead", start.dead),
    ):
        for value in amounts:
            if type(value) is int and value >= 0:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise IllegalAction(
                    f"Every {name[:-1]} must be a whole number of chips, 0 or more, not {value!r}."
                )
    if 0 in start.stacks:  # every stack is an int by now
        raise IllegalAction(
            "Every player dealt in must have chips; a player with none cannot play the hand.",
            key="error.hand.empty_stack",
        )
    if start.big_blind is not None and not (
        type(start.big_blind) is int and 0 <= start.big_blind < n
    ):
        raise IllegalAction(
            f"The big blind must be one of the {n} players of the hand, not {start.big_blind!r}."
        )
    if len(set(start.seats)) != n:
        raise IllegalAction(
            "Two players share a seat; one player per seat (PE-4).", key="error.hand.shared_seat"
        )
