"""Rulings that act on a hand out of the normal flow: killing a hand, voiding it.

These are how the table procedures carry out the dealer's and the floor's
decisions (misdeals, dead hands, unprotected hands, the clock, penalties).
"""

from __future__ import annotations

from firmware.engine import showdown
from firmware.engine.events import AwardPots, KillHand, VoidHand
from firmware.engine.state import (
    BETTING,
    BOARD,
    COMPLETE,
    DEALING,
    SHOWDOWN,
    HandResult,
    HandState,
    PotResult,
)
from firmware.errors import IllegalAction


def kill_hand(hand: HandState, event: KillHand) -> None:
    """Kill ``event.player``'s hand (checked first).

    The part of his bet this round that nobody has called is returned
    (TDA-28). At the showdown a tabled hand cannot be killed (TDA-29); an
    untabled one is mucked.
    """

    player = event.player
    if not isinstance(player, int) or not 0 <= player < hand.player_count:
        raise IllegalAction(f"There is no player {player!r} in this hand.")
    if hand.folded[player] or hand.mucked[player]:
        raise IllegalAction(
            f"{hand.who(player).capitalize()}'s hand is already dead.",
            key="error.ruling.already_dead",
        )
    if hand.phase is SHOWDOWN:
        if showdown.tabled_in_full(hand, player):
            raise IllegalAction(
                f"{hand.who(player).capitalize()}'s hand is tabled and cannot be killed (TDA-29); "
                "only the floor can overrule.",
                key="error.ruling.tabled",
            )
        showdown.apply_muck_forced(hand, player)
        return
    # Only a raise nobody called comes back; a posted blind stays in the pot (TDA-8).
    others = [hand.bets[i] for i in range(hand.player_count) if i != player]
    blind_part = min(hand.blinds[player], hand.bets[player]) if hand.street == 0 else 0
    uncalled = hand.bets[player] - max(max(others, default=0), blind_part)
    if uncalled > 0:
        hand.bets[player] -= uncalled
        hand.matched[player] -= uncalled
        hand.stacks[player] += uncalled
        hand.current_bet = max(hand.bets)
        hand.returned.append((player, uncalled))
    hand.fold(player)
    hand.pending.discard(player)
    if hand.phase is DEALING:
        return  # the betting round, when it starts, skips the dead hand
    if len(hand.live) == 1:
        hand.end_round()
        return
    if hand.phase is BETTING and hand.actor == player:
        hand.advance(player + 1)
    elif hand.phase is BETTING and hand.actor is not None:
        hand.advance(hand.actor)
    elif hand.phase is BOARD and sum(1 for i in hand.live if hand.stacks[i] > 0) < 2:
        hand.cards_up = True  # no more betting is possible: every live hand is turned up (TDA-9)


def void_hand(hand: HandState, event: VoidHand) -> None:
    """Give every player back exactly what he put in; the hand ends with no winner."""

    if not event.reason.strip():
        raise IllegalAction(
            "A hand can be voided only with a reason; say why (misdeal, dead deck, floor ruling).",
            key="error.ruling.no_reason",
        )
    for i in range(hand.player_count):
        hand.stacks[i] += hand.matched[i] + hand.dead_posted[i]
    hand.matched = [0] * hand.player_count
    hand.dead_posted = [0] * hand.player_count
    hand.bets = [0] * hand.player_count
    hand.phase = COMPLETE
    hand.actor = None
    hand.pending = set()
    hand.voided = event.reason
    hand.result = HandResult(
        pots=(),
        finishing_stacks=tuple(hand.stacks),
        starting_stacks=hand.starting_stacks,
    )


def award_pots(hand: HandState, event: AwardPots) -> None:
    """End the hand by a floor ruling: all chips in the middle go to ``event.winners``."""
    from firmware.engine.pots import split_pot

    if not event.reason.strip():
        raise IllegalAction(
            "A floor award needs a reason; it is written to the audit log.",
            key="error.ruling.award_reason",
        )
    winners = sorted(set(event.winners))
    if not winners or any(not 0 <= w < hand.player_count for w in winners):
        raise IllegalAction(
            f"Name the winners by position, 0 to {hand.player_count - 1}, not {event.winners!r}."
        )
    amount = hand.pot_total
    policy = hand.config.rake  # the house's rake comes first here too (HOUSE-RAKE)
    rake = (
        policy.pot_rakes([amount], len(hand.board), hand.config.chip_unit)[0]
        if policy is not None
        else 0
    )
    drop_policy = hand.config.jackpot_drop  # the jackpot drop after the rake (JACKPOT)
    drop = (
        drop_policy.pot_drops([amount], [rake], len(hand.board), hand.config.chip_unit)[0]
        if drop_policy is not None
        else 0
    )
    shares = split_pot(amount - rake - drop, winners, hand.config.chip_unit, hand.config.odd_chips)
    for player, share in shares.items():
        hand.stacks[player] += share
    hand.matched = [0] * hand.player_count
    hand.dead_posted = [0] * hand.player_count
    hand.bets = [0] * hand.player_count
    hand.phase = COMPLETE
    hand.actor = None
    hand.pending = set()
    hand.result = HandResult(
        pots=(
            PotResult(
                amount=amount,
                eligible=tuple(winners),
                winners=tuple(winners),
                shares=tuple(sorted(shares.items())),
                rake=rake,
                drop=drop,
            ),
        ),
        finishing_stacks=tuple(hand.stacks),
        starting_stacks=hand.starting_stacks,
    )
