"""Betting and showdown edges found by mutation testing (docs/testing.md).

Each test pins a behaviour of ``firmware/engine/betting.py`` or
``firmware/engine/showdown.py`` that a surviving mutant changed unnoticed:
the exact refusal a player reads, chips read from the felt, and how the
showdown orders, tables and pays hands.
"""

from __future__ import annotations

import itertools

import pytest

from firmware.engine import showdown
from firmware.engine.betting import interpret_chip_bet, interpret_motions, interpret_single_chip
from firmware.engine.cards import parse_cards
from firmware.engine.events import BetRaise, CheckCall, DealHole, Muck, Show
from firmware.engine.hand import Hand, Phase
from firmware.engine.rules import OddChips, Structure
from firmware.errors import IllegalAction
from tests.kit import act, board, deal, start


def _river(hand, *cards: str) -> None:  # type: ignore[no-untyped-def]
    """Check every street down, dealing ``cards`` (flop, turn, river)."""
    for text in cards:
        board(hand, text)
        while hand.phase is Phase.BETTING:
            act(hand, "c")


# ---------------------------------------------------------------- betting refusals


def test_a_raise_to_the_current_bet_is_no_raise() -> None:
    """A "raise" to exactly the bet already made does not exceed it: the player is told
    to check or call, not that the raise is too small."""
    hand = start([100, 100, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    with pytest.raises(IllegalAction, match="to 2 does not exceed the current bet of 2"):
        act(hand, "r2")


def test_a_raise_above_the_stack_names_the_most_allowed() -> None:
    """A raise beyond the player's chips is refused with its key and amounts."""
    hand = start([100, 100, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    with pytest.raises(IllegalAction) as caught:
        act(hand, "r500")
    assert caught.value.key == "error.action.raise_too_large"
    assert caught.value.params == {"to": 500, "high": 100}


def test_chips_that_do_not_cover_the_call_are_refused_with_their_key() -> None:
    """Chips short of the call, and not all the player's chips, are refused (TDA-10)."""
    hand = start([100, 100, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10")
    with pytest.raises(IllegalAction) as caught:
        interpret_chip_bet(hand, 0, 5)
    assert caught.value.key == "error.action.under_call"
    with pytest.raises(IllegalAction, match="do not cover the call of 10"):
        interpret_single_chip(hand, 0, 2, declared_raise=False)  # 1 posted + 2: still short


def test_an_all_in_short_of_a_raise_is_a_raise_of_everything() -> None:
    """Chips making the player's whole stack are an all-in raise, nothing handed back,
    even when short of a full raise."""
    hand2 = start([100, 100, 100, 15])
    deal(hand2, "AhAd", "KhKd", "QhQd", "JhJd")
    act(hand2, "r10")  # player 2 to 10 (full raise 8); player 3 has 15
    assert interpret_chip_bet(hand2, 3, 15) == (BetRaise(3, 15), 0)


def test_tda_10_an_opening_bet_of_less_than_half_the_minimum_is_forced_up() -> None:
    """After the flop, chips opening the betting for less than the minimum bet are a bet
    of the minimum, however few they are (the 50% rule is for raises)."""
    hand = start([1000, 1000], min_bet=10, blinds=(10, 5))
    deal(hand, "AhAd", "KhKd")
    act(hand, "c", "c")
    board(hand, "2c7d9h")
    player = hand.actor
    assert player is not None
    assert interpret_chip_bet(hand, player, 3) == (BetRaise(player, 10), 0)


def test_motions_need_at_least_one() -> None:
    """A bet read from the felt needs at least one motion of chips."""
    hand = start([100, 100])
    deal(hand, "AhAd", "KhKd")
    with pytest.raises(ValueError, match=r"^A bet needs at least one motion of chips\.$"):
        interpret_motions(hand, hand.actor, [], declared_raise=False)  # type: ignore[arg-type]


def test_a_declared_raise_with_one_chip_from_the_small_blind_is_capped_by_the_stack() -> None:
    """A declared raise with an oversized chip raises to at most the player's whole
    stack, counting the blind he already posted."""
    hand = start([20, 100, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r6")
    event, back = interpret_single_chip(hand, 0, 100, declared_raise=True)
    assert event == BetRaise(0, 20)
    assert back == 0  # the chip is worth more than his stack: he is all-in for 20


def test_raising_is_open_while_an_opponent_has_chips_behind() -> None:
    """A raise is allowed while some opponent could still call more: here the raiser has
    8 chips behind his bet of 10."""
    hand = start([1000, 18])  # heads-up: player 1 is the button and acts first
    deal(hand, "AhAd", "KhKd")
    act(hand, "r10")
    legal = hand.legal_actions()
    assert legal.can_raise and legal.raise_refusal is None
    assert (legal.min_raise_to, legal.max_raise_to) == (18, 1000)


def test_raising_is_closed_when_every_opponent_is_all_in() -> None:
    """With every opponent all-in for less, a raise could not be called: call or fold."""
    hand = start([1000, 10])
    deal(hand, "AhAd", "KhKd")
    act(hand, "r10")  # the button all-in for 10
    legal = hand.legal_actions()
    assert legal.raise_refusal == (
        "You cannot raise: every other player is all-in or already covered; call or fold."
    )
    assert legal.min_raise_to is None and legal.max_raise_to is None


def test_cc_8_the_cap_refusal_names_the_number_of_raises() -> None:
    """At the fixed-limit cap the refusal says the round is capped at one bet and three
    raises (CC-8)."""
    hand = start([1000] * 3, structure=Structure.FIXED_LIMIT, min_bet=10, blinds=(5, 10, 0))
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r20", "r30", "r40")
    assert hand.legal_actions().raise_refusal == (
        "You cannot raise: the round is capped at one bet and 3 raises (CC-8); call or fold."
    )


# ---------------------------------------------------------------- showdown


def _showdown(n: int = 3):  # type: ignore[no-untyped-def]
    hand = start([100] * n)
    deal(hand, *["2h3d", "4h5d", "7h8d", "9s9c"][:n])
    while hand.phase is Phase.BETTING:
        act(hand, "c")
    _river(hand, "AcKcQc", "Js", "Tc")  # a royal flush on the board: everyone ties
    return hand


def test_showdown_without_a_river_bet_starts_left_of_the_button() -> None:
    """Nobody bet on the river: the first live player left of the button shows first
    (TDA-37)."""
    hand = _showdown()
    assert hand.showdown_order == (0, 1, 2)


def test_showdown_refusals_say_why() -> None:
    """Showing the same card twice, a card not dealt, or a hand no longer live are refused
    with their sentences and keys; the last contender cannot muck."""
    hand = _showdown()
    ah = parse_cards("2h")[0]
    with pytest.raises(IllegalAction, match=r"^Show one or both of your two hole cards\.$"):
        hand.apply(Show(0, (ah, ah)))
    with pytest.raises(IllegalAction) as caught:
        hand.apply(Show(0, tuple(parse_cards("QsQd"))))
    assert caught.value.key == "error.showdown.not_his_cards"
    hand.apply(Muck(0))
    with pytest.raises(IllegalAction) as caught:
        hand.apply(Muck(0))
    assert str(caught.value) == "Seat 1 has no live hand at this showdown."
    assert caught.value.key == "error.showdown.no_hand"
    hand.apply(Muck(1))
    assert hand.phase is Phase.COMPLETE  # the last hand wins unshown
    betting = start([100, 100])
    deal(betting, "AhAd", "KhKd")
    with pytest.raises(IllegalAction) as caught:
        betting.apply(Muck(0))
    assert str(caught.value) == "Cards can be shown or mucked only at the showdown."
    assert caught.value.key == "error.showdown.not_now"


def test_the_last_contender_cannot_muck() -> None:
    """A player alone in contention for a pot (here the side pot) must table his hand or
    let the floor rule: mucking would leave that pot with nobody to win it."""
    hand = start([50, 200, 200])
    deal(hand, "2h3d", "4h5d", "7h8d")
    act(hand, "r50", "c", "c")  # the button raises to 50, player 0 calls all-in, 1 calls
    board(hand, "AcKcQc")
    act(hand, "r20", "c")  # a side pot of 40 between players 1 and 2
    _river(hand, "Js", "Tc")
    assert hand.showdown_order == (0, 1, 2)
    hand.apply(Show(0, tuple(parse_cards("2h3d"))))
    hand.apply(Muck(1))
    with pytest.raises(IllegalAction) as caught:
        hand.apply(Muck(2))
    assert str(caught.value) == (
        "Seat 3 is the last player in contention for a pot of 40 and cannot muck; "
        "table the hand, or the floor must rule."
    )
    assert caught.value.key == "error.showdown.last_contender"


def test_unread_hole_cards_become_known_when_tabled() -> None:
    """Hole cards the shoe did not read are learnt when tabled; a tabled card already
    seen in the hand (a board card) is refused."""
    hand = start([100, 100])
    hand.apply(DealHole(0, (None, None)))
    hand.apply(DealHole(1, tuple(parse_cards("KhKd"))))
    while hand.phase is Phase.BETTING:
        act(hand, "c")
    _river(hand, "2c7d9s", "Tc", "3h")
    first = hand.showdown_order[0]
    if first == 1:
        hand.apply(Show(1, tuple(parse_cards("KhKd"))))
    with pytest.raises(IllegalAction):
        hand.apply(Show(0, tuple(parse_cards("2cAs"))))
    hand.apply(Show(0, tuple(parse_cards("AhAs"))))
    assert hand.hole[0] == parse_cards("AhAs")
    if hand.phase is Phase.SHOWDOWN:
        hand.apply(Show(1, tuple(parse_cards("KhKd"))))
    assert hand.result is not None and hand.result.pots[0].winners == (0,)


def test_award_pays_with_the_tables_odd_chip_rule_and_clears_the_bets() -> None:
    """A split pot follows the table's odd-chip rule; after the award no bet is left and
    the result keeps the starting stacks."""
    for rule, won in (
        (OddChips.ONE_EACH_FROM_BUTTON, (3, 3, 2)),
        (OddChips.FIRST_LEFT_OF_BUTTON, (4, 2, 2)),
    ):
        # A pot of 8 (blinds, calls and 2 dead chips) split three ways: 2 odd chips.
        hand = start([100, 100, 100], dead=(2, 0, 0), odd_chips=rule)
        deal(hand, "2h3d", "4h5d", "7h8d")
        act(hand, "c", "c", "c")
        _river(hand, "AcKcQc", "Js", "Tc")
        for player in hand.showdown_order:
            hand.apply(Show(player, tuple(c for c in hand.hole[player] if c is not None)))
        assert hand.result is not None
        assert hand.result.starting_stacks == (100, 100, 100)
        assert hand.bets == [0, 0, 0]
        paid = (4, 2, 2)  # player 0 put in 2 dead chips and 2
        expected = tuple(100 - p + w for p, w in zip(paid, won, strict=True))
        assert hand.result.finishing_stacks == expected


def test_strength_needs_a_full_board() -> None:
    """A hand cannot be ranked before the five board cards are out."""
    hand = start([100, 100])
    deal(hand, "AhAd", "KhKd")
    act(hand, "c", "c")
    board(hand, "2c7d9s")
    with pytest.raises(IllegalAction, match="needs two hole cards and five board cards"):
        showdown.strength(hand, 0)


def test_check_call_is_the_call_when_raising_is_closed() -> None:
    """Sanity for the closed-raise path: a check-call event stays a call."""
    hand = start([1000, 10])
    deal(hand, "AhAd", "KhKd")
    act(hand, "r10")
    assert interpret_chip_bet(hand, 0, 50) == (CheckCall(0), 40)


def _refuses_muck_pot_by_pot(hand: Hand, player: int) -> bool:
    """The last-contender rule read pot by pot, as the rule says it."""
    for pot in hand.pots():
        others = [i for i in pot.eligible if i != player and not hand.mucked[i]]
        if player in pot.eligible and not others:
            return True
    return False


def test_the_quick_muck_check_agrees_with_the_pots() -> None:
    """``_muck`` skips building the pots when a live player who put in at least as much
    has not mucked; over every small case (contributions, folds, mucks, dead money) it
    refuses exactly the mucks the pot-by-pot reading refuses."""
    cases = refused = 0
    for n in (2, 3, 4):
        hand = start([100] * n)
        for matched in itertools.product((0, 1, 2, 5), repeat=n):
            for folded in itertools.product((False, True), repeat=n):
                for mucked in itertools.product((False, True), repeat=n):
                    for dead in (0, 1):
                        for player in range(n):
                            if folded[player] or mucked[player]:
                                continue
                            hand.matched = list(matched)
                            hand.dead_posted = [dead] + [0] * (n - 1)
                            hand.folded = list(folded)
                            hand.live = [i for i in range(n) if not folded[i]]
                            hand.mucked = list(mucked)
                            want = _refuses_muck_pot_by_pot(hand, player)
                            try:
                                showdown._muck(hand, player)
                            except IllegalAction as exc:
                                assert want, (matched, folded, mucked, dead, player)
                                assert exc.key == "error.showdown.last_contender"
                                assert not hand.mucked[player]
                                refused += 1
                            else:
                                assert not want, (matched, folded, mucked, dead, player)
                                assert hand.mucked[player]
                            cases += 1
    assert cases > 10_000 and refused > 1_000
