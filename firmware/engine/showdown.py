"""Showdown: who shows first, showing and mucking, and awarding the pots.

* Showdown order (TDA-37, CC-10): the last player to bet or raise on the
  river shows first; if nobody bet on the river, the first player to the
  left of the button; then clockwise.
* When nobody can bet any more, every live hand is turned up before the
  board is run out (TDA-9); those hands count as tabled.
* A mucked hand never wins. A tabled hand cannot be mucked (TDA-29). A
  player must table both hole cards to win a share (TDA-40): showing one
  card does not finish his showdown.
* A player may not muck if that would leave a pot with nobody to win it.
* Each pot is decided and split on its own (TDA-4), leftover units to the
  first winner left of the button (TDA-3).
* A raked hand (HOUSE-RAKE) gives the house its rake from each pot after the
  betting and before the split; the winners share the rest.
"""

from __future__ import annotations

from typing import cast

from firmware.engine.evaluator import evaluate7
from firmware.engine.events import Event, Muck, Show
from firmware.engine.pots import split_pot
from firmware.engine.state import COMPLETE, SHOWDOWN, HandResult, HandState, PotResult
from firmware.errors import IllegalAction


def begin(hand: HandState) -> None:
    """Enter the showdown: fix the order and table hands already turned up."""

    hand.phase = SHOWDOWN
    hand.actor = None
    live = hand.live
    start = hand.aggressor if hand.aggressor is not None and hand.street == 3 else 0
    folded = hand.folded
    hand.showdown_order = tuple([i for i in hand.orders[start] if not folded[i]])
    if hand.cards_up:
        for i in live:
            cards = hand.hole[i]
            if len(cards) == 2 and None not in cards:
                hand.shown[i] = cast("tuple[int, ...]", tuple(cards))  # no None among them
    _maybe_award(hand)


def tabled_in_full(hand: HandState, player: int) -> bool:
    """Whether ``player`` has tabled both hole cards."""
    shown = hand.shown[player]
    return shown is not None and len(shown) == 2


def next_to_show(hand: HandState) -> int | None:
    """The next player in showdown order who has neither tabled in full nor mucked."""
    for i in hand.showdown_order:
        if not hand.mucked[i] and not tabled_in_full(hand, i):
            return i
    return None


def apply(hand: HandState, event: Show | Muck) -> None:
    """Apply a show or muck during the showdown (checked first)."""

    if hand.phase is not SHOWDOWN:
        raise IllegalAction(
            "Cards can be shown or mucked only at the showdown.", key="error.showdown.not_now"
        )
    player = event.player
    if player not in hand.showdown_order or hand.mucked[player]:
        raise IllegalAction(
            f"{hand.who(player).capitalize()} has no live hand at this showdown.",
            key="error.showdown.no_hand",
        )
    if isinstance(event, Show):
        _show(hand, player, event.cards)
    else:
        _muck(hand, player)
    _maybe_award(hand)


def _show(hand: HandState, player: int, cards: tuple[int, ...]) -> None:
    hole = hand.hole[player]
    if len(cards) == 2 and hand.shown[player] is None:
        # The usual show: both hole cards, known since the deal, none shown before.
        a, b = cards
        if a != b and len(hole) == 2 and None not in hole and a in hole and b in hole:
            hand.shown[player] = (a, b)
            return
    if not cards or len(cards) > 2 or len(set(cards)) != len(cards):
        raise IllegalAction("Show one or both of your two hole cards.", key="error.show.own_cards")
    known = [c for c in hole if c is not None]
    if len(known) == 2:
        if any(c not in known for c in cards):
            raise IllegalAction(
                f"{hand.who(player).capitalize()} cannot show cards it was not dealt.",
                key="error.showdown.not_his_cards",
            )
    else:
        # Hole cards not read when dealt: the tabled cards become known.
        unseen = [c for c in cards if c not in known]
        hand.check_new_cards(unseen)
        if len(cards) == 2:
            hand.hole[player] = list(cards)
            hand.remember_cards(cards)
    shown = tuple(dict.fromkeys((hand.shown[player] or ()) + cards))
    hand.shown[player] = shown


def _muck(hand: HandState, player: int) -> None:
    if tabled_in_full(hand, player):
        raise IllegalAction(
            f"{hand.who(player).capitalize()}'s hand is tabled and cannot be mucked (TDA-29).",
            key="error.showdown.tabled",
        )
    # Pots are nested: a live player who matched at least as much as ``player`` can win
    # every pot ``player`` can. If one of them has not mucked, no pot is left without
    # a contender, and the pots need not be built.
    matched = hand.matched
    mine = matched[player]
    mucked = hand.mucked
    folded = hand.folded
    for i in range(hand.player_count):
        if i != player and not folded[i] and not mucked[i] and matched[i] >= mine:
            mucked[player] = True
            return
    for pot in hand.pots():
        if player in pot.eligible:
            others = [i for i in pot.eligible if i != player and not hand.mucked[i]]
            if not others:
                raise IllegalAction(
                    f"{hand.who(player).capitalize()} is the last player in contention for a pot "
                    f"of {pot.amount} and cannot muck; table the hand, or the floor must rule.",
                    key="error.showdown.last_contender",
                )
    hand.mucked[player] = True


def apply_muck_forced(hand: HandState, player: int) -> None:
    """Muck ``player``'s untabled hand by ruling (the last-contender check still applies)."""
    _muck(hand, player)
    _maybe_award(hand)


def _maybe_award(hand: HandState) -> None:
    """Award the pots once one contender is left or every contender has tabled in full."""
    mucked = hand.mucked
    shown = hand.shown
    contenders = 0
    waiting = False  # someone has neither tabled in full nor mucked (next_to_show)
    for i in hand.showdown_order:
        if not mucked[i]:
            contenders += 1
            cards = shown[i]
            if cards is None or len(cards) != 2:
                waiting = True
    if contenders <= 1 or not waiting:
        award(hand)


def strength(hand: HandState, player: int) -> int:
    """Strength of ``player``'s seven cards (higher is better).

    Computed once per player and hand: once two known hole cards and the
    five board cards are there, they never change.
    """
    cached = hand.strengths.get(player)
    if cached is not None:
        return cached
    cards = [c for c in hand.hole[player] if c is not None]
    board = hand.board
    if len(cards) != 2 or len(board) != 5:
        raise IllegalAction(
            f"{hand.who(player).capitalize()}'s hand cannot be evaluated: it needs two hole "
            "cards and five board cards."
        )
    # The engine checked every card when it was dealt or shown: seven distinct cards.
    value = evaluate7(cards[0], cards[1], board[0], board[1], board[2], board[3], board[4])
    hand.strengths[player] = value
    return value


def award(hand: HandState) -> None:
    """Decide every pot on its own and pay the winners; the hand is then complete."""

    results: list[PotResult] = []
    mucked = hand.mucked
    shown = hand.shown
    stacks = hand.stacks
    config = hand.config
    pots = hand.pots()
    policy = config.rake
    rakes = (
        policy.pot_rakes([pot.amount for pot in pots], len(hand.board), config.chip_unit)
        if policy is not None
        else [0] * len(pots)
    )
    drop_policy = config.jackpot_drop  # taken with the rake, after it (JACKPOT)
    drops = (
        drop_policy.pot_drops(
            [pot.amount for pot in pots], rakes, len(hand.board), config.chip_unit
        )
        if drop_policy is not None
        else [0] * len(pots)
    )
    for pot, rake, drop in zip(pots, rakes, drops, strict=True):
        contenders = [i for i in pot.eligible if not mucked[i]]
        if len(contenders) == 1:
            winners = contenders
        else:
            # The best hands among those tabled in full, in contender order.
            best = -1
            winners = []
            for i in contenders:
                cards = shown[i]
                if cards is not None and len(cards) == 2:
                    value = strength(hand, i)
                    if value > best:
                        best = value
                        winners = [i]
                    elif value == best:
                        winners.append(i)
        paid = pot.amount - rake - drop
        if len(winners) == 1:
            winner = winners[0]
            stacks[winner] += paid
            shares_items: tuple[tuple[int, int], ...] = ((winner, paid),)
        else:
            shares = split_pot(paid, winners, config.chip_unit, config.odd_chips)
            for player, amount in shares.items():
                stacks[player] += amount
            shares_items = tuple(sorted(shares.items()))
        results.append(
            PotResult(pot.amount, pot.eligible, tuple(sorted(winners)), shares_items, rake, drop)
        )
    hand.matched = [0] * hand.player_count
    hand.dead_posted = [0] * hand.player_count
    hand.bets = [0] * hand.player_count
    hand.phase = COMPLETE
    hand.actor = None
    hand.result = HandResult(
        pots=tuple(results),
        finishing_stacks=tuple(hand.stacks),
        starting_stacks=hand.starting_stacks,
    )


def auto_showdown_event(hand: HandState) -> Event:
    """The event a player who shows only when he can win would send next.

    The next player in order shows if, in some pot he is eligible for, his
    hand is at least as good as every hand tabled so far by the other
    players eligible for that pot (or nobody else contends it); otherwise he
    mucks.
    """
    player = next_to_show(hand)
    if player is None:
        raise IllegalAction("Nobody is left to show.", key="error.show.nobody")
    cards = tuple(c for c in hand.hole[player] if c is not None)
    mine = strength(hand, player)
    for pot in hand.pots():
        if player not in pot.eligible:
            continue
        rivals = [i for i in pot.eligible if i != player and not hand.mucked[i]]
        if not rivals:
            return Show(player, cards)  # the last contender may not muck
        if all(mine >= strength(hand, i) for i in rivals if tabled_in_full(hand, i)):
            return Show(player, cards)  # he can win (a share of) this pot
    return Muck(player)
