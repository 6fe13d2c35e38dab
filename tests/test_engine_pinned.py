"""Betting and showdown behaviours a card room relies on that no test pinned (issue 26).

Each test states the room's rule, not the code: chips that are a player's
whole stack are an all-in call even when short of the bet; a big blind's
pushed stack is his whole stack; a third motion after a declared raise is a
string raise; a short stack may still raise all-in; a forced muck at the
showdown; the automatic player mucks a beaten hand and shows the last live
one; half-read hole cards are not "shown" at an all-in showdown; a show of no
card or of three is refused. An outside audit found each of these survived a
mutation of the line that decides it (issue 26 lists them).
"""

from __future__ import annotations

import pytest

from firmware.engine import showdown
from firmware.engine.betting import interpret_chip_bet, interpret_motions, raise_refusal
from firmware.engine.cards import parse_cards
from firmware.engine.events import BetRaise, CheckCall, DealHole, KillHand, Muck, Show
from firmware.engine.hand import Phase
from firmware.errors import IllegalAction
from tests.kit import act, board, deal, start


def _river(hand, *cards: str) -> None:  # type: ignore[no-untyped-def]
    """Check every street down, dealing ``cards`` (flop, turn, river)."""
    for text in cards:
        board(hand, text)
        while hand.phase is Phase.BETTING:
            act(hand, "c")


# ---------------------------------------------------------------- chips read from the felt


def test_a_whole_stack_short_of_the_call_is_an_all_in_call() -> None:
    """8 chips facing a bet of 10 are the player's whole stack: an all-in call, not
    a refusal to add 2 more (betting.py:223)."""
    hand = start([8, 100, 100])  # player 0, the small blind, has 8 in all
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10")  # player 2 raises to 10
    event, back = interpret_chip_bet(hand, 0, 8)
    assert (event, back) == (CheckCall(0), 0)
    hand.apply(event)
    assert hand.stacks[0] == 0 and hand.bets[0] == 8


def test_the_big_blind_pushing_his_whole_stack_raises_to_all_of_it() -> None:
    """The big blind's 98 behind and his 2 posted are all-in for 100 (betting.py:220)."""
    hand = start([100, 100, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "c", "c")  # player 2 calls, the small blind completes
    assert hand.actor == 1
    event, back = interpret_chip_bet(hand, 1, 100)
    assert (event, back) == (BetRaise(1, 100), 0)
    event, back = interpret_chip_bet(hand, 1, 150)  # more than he has: the rest goes back
    assert event == BetRaise(1, 100)


def test_a_third_motion_after_a_declared_raise_is_a_string_raise() -> None:
    """TDA-32, TDA-39: "raise" declared, the first motion and one more complete it; a
    third motion is a string raise and goes back (betting.py:288)."""
    hand = start([1000] * 3)
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10")
    event, back, string_raise = interpret_motions(hand, 0, [9, 40, 20], declared_raise=True)
    assert (event, back, string_raise) == (BetRaise(0, 50), 20, True)


def test_a_big_blind_with_ten_behind_may_raise_all_in_over_a_raise_to_ten() -> None:
    """Facing a raise to 10 with his 2 posted and 10 behind, calling takes 8: he may still
    move all-in to 12 (betting.py:89)."""
    hand = start([100, 12, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10", "c")  # player 2 raises to 10, the small blind calls
    assert hand.actor == 1
    assert raise_refusal(hand, 1) is None
    act(hand, "r12")
    assert hand.bets[1] == 12 and hand.stacks[1] == 0


def test_a_player_whose_call_takes_all_his_chips_may_not_raise() -> None:
    """The other side of the same line: with 8 behind facing 8 more, calling is all."""
    hand = start([100, 10, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10", "c")
    assert raise_refusal(hand, 1) == "You cannot raise: calling already takes all your chips."


# ---------------------------------------------------------------- the showdown


def _three_way_showdown():  # type: ignore[no-untyped-def]
    hand = start([100, 100, 100])
    deal(hand, "AhAd", "KhKd", "2h3d")
    while hand.phase is Phase.BETTING:
        act(hand, "c")
    _river(hand, "7c8s9d", "Jc", "4s")
    assert hand.phase is Phase.SHOWDOWN
    return hand


def test_a_hand_killed_at_the_showdown_is_mucked_and_the_rest_share_the_pot() -> None:
    """A floor ruling at the showdown (KillHand) mucks an untabled hand; when one
    contender is left the pot is awarded to him (showdown.apply_muck_forced)."""
    hand = _three_way_showdown()
    order = hand.showdown_order
    hand.apply(KillHand(0, "ruling"))
    assert hand.mucked[0] and hand.phase is Phase.SHOWDOWN  # two contenders left
    hand.apply(KillHand(2, "ruling"))
    assert hand.mucked[2]
    assert hand.result is not None and hand.result.pots[0].winners == (1,)
    assert hand.result.finishing_stacks == (98, 104, 98)
    assert order == hand.showdown_order


def _side_pot_showdown(unread: tuple[int, ...] = ()):  # type: ignore[no-untyped-def]
    """Player 0 all-in for 50 preflop; 1 bets 20 on the flop, 2 calls, both check down:
    a main pot of 150 (0, 1, 2) and a side pot of 40 (1, 2), shown in order 0, 1, 2."""
    hand = start([50, 100, 100])
    for player, text in enumerate(("AhAd", "2h3d", "KhKd")):
        cards = (None, None) if player in unread else tuple(parse_cards(text))
        hand.apply(DealHole(player, cards))
    act(hand, "c", "r50", "c", "c")  # 2 calls, 0 moves all-in, 1 and 2 call
    board(hand, "7c8s9d")
    act(hand, "r20", "c")
    _river(hand, "Jc", "4s")
    assert hand.phase is Phase.SHOWDOWN and hand.showdown_order == (0, 1, 2)
    assert [p.amount for p in hand.pots()] == [150, 40]
    return hand


def test_the_last_contender_for_a_pot_cannot_be_killed_at_the_showdown() -> None:
    """A ruling may not leave a pot to nobody: with player 1 mucked by ruling, killing
    player 2, the last one in the side pot, is refused with the sentence the dealer reads."""
    hand = _side_pot_showdown()
    hand.apply(KillHand(1, "ruling"))
    with pytest.raises(IllegalAction) as caught:
        hand.apply(KillHand(2, "ruling"))
    assert caught.value.key == "error.showdown.last_contender"
    assert str(caught.value) == (
        f"Seat {hand.seats[2]} is the last player in contention for a pot of 40 and "
        "cannot muck; table the hand, or the floor must rule."
    )
    assert not hand.mucked[2]


def test_the_automatic_player_mucks_a_beaten_hand_and_shows_a_winner() -> None:
    """auto_showdown_event: a hand beaten by every tabled rival is mucked; one that wins
    is shown with its two cards; the last contender shows (showdown.py:242-244)."""
    hand = _three_way_showdown()
    first = hand.showdown_order[0]
    holes = {0: "AhAd", 1: "KhKd", 2: "2h3d"}
    event = showdown.auto_showdown_event(hand)
    assert event == Show(first, tuple(parse_cards(holes[first])))  # nothing tabled yet
    hand.apply(event)
    while hand.result is None:
        player = showdown.next_to_show(hand)
        event = showdown.auto_showdown_event(hand)
        beaten = player != 0  # aces win
        expected = Muck(player) if beaten else Show(player, tuple(parse_cards(holes[player])))
        assert event == expected
        hand.apply(event)
    assert hand.result.pots[0].winners == (0,)


def test_the_only_rival_left_shows_even_a_beaten_hand_when_he_alone_contends_a_pot() -> None:
    """A side pot that only one live player contends is his: the automatic player shows
    his cards although the main pot's tabled aces beat them (showdown.py:242-244)."""
    hand = _side_pot_showdown()
    hand.apply(Show(0, tuple(parse_cards("AhAd"))))
    hand.apply(Muck(2))
    assert showdown.next_to_show(hand) == 1
    event = showdown.auto_showdown_event(hand)
    assert event == Show(1, tuple(parse_cards("2h3d")))
    hand.apply(event)
    assert hand.result is not None
    assert [pot.winners for pot in hand.result.pots] == [(0,), (1,)]


def test_half_read_hole_cards_are_not_shown_at_an_all_in_showdown() -> None:
    """TDA-9: at an all-in showdown every live hand is turned up; a hand with one card
    the shoe did not read is not recorded as shown (showdown.py:39)."""
    hand = start([100, 100])
    hand.apply(DealHole(0, (parse_cards("Ah")[0], None)))
    hand.apply(DealHole(1, tuple(parse_cards("KhKd"))))
    act(hand, "r100", "c")
    while hand.phase is not Phase.SHOWDOWN and hand.result is None:
        board(hand, {0: "7c8s9d", 3: "Jc", 4: "4s"}[len(hand.board)])
    assert hand.cards_up
    assert hand.shown[1] == tuple(parse_cards("KhKd"))
    assert hand.shown[0] is None  # nothing made up for the unread card
    assert hand.result is None  # the award waits for player 0's cards


@pytest.mark.parametrize("cards", ["", "AhAsKc"])
def test_a_show_of_no_card_or_of_three_is_refused_when_the_hole_was_not_read(
    cards: str,
) -> None:
    """A player shows one or both of his two cards: none, or three, is refused with the
    sentence and key the seat reads (showdown.py:86)."""
    hand = start([100, 100])
    hand.apply(DealHole(0, (None, None)))
    hand.apply(DealHole(1, tuple(parse_cards("KhKd"))))
    while hand.phase is Phase.BETTING:
        act(hand, "c")
    _river(hand, "2c7d9s", "Tc", "3h")
    with pytest.raises(IllegalAction) as caught:
        hand.apply(Show(0, tuple(parse_cards(cards))))
    assert str(caught.value) == "Show one or both of your two hole cards."
    assert caught.value.key == "error.show.own_cards"
    assert hand.hole[0] == [None, None]


def test_a_short_all_in_raise_does_not_reopen_the_betting_word_for_word() -> None:
    """TDA-10: a player who acted and then faces only a short all-in may not raise; the
    seat reads why, and what it may still do."""
    hand = start([100, 14, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10", "c", "r14")  # 2 raises to 10, 0 calls, the big blind all-in for 14
    assert hand.actor == 2
    assert raise_refusal(hand, 2) == (
        "You cannot raise: the bet was increased only by an all-in smaller than a full raise "
        "since you acted, so betting is not reopened to you (TDA-10); call or fold."
    )


def test_nobody_left_to_raise_against_word_for_word() -> None:
    """Every other player is all-in: there is no one to raise against."""
    hand = start([100, 200, 10])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10", "r100")  # 2 all-in for 10, 0 all-in for 100
    assert hand.actor == 1
    assert raise_refusal(hand, 1) == (
        "You cannot raise: every other player is all-in or already covered; call or fold."
    )


def test_a_short_all_in_raise_read_from_the_felt_hands_nothing_back() -> None:
    """The big blind's whole 12 chips facing 10 are an all-in raise to 12, all of it."""
    hand = start([100, 12, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10", "c")
    assert interpret_chip_bet(hand, 1, 12) == (BetRaise(1, 12), 0)


def test_a_hand_cannot_be_ranked_before_the_river_and_the_refusal_names_the_seat() -> None:
    hand = start([100, 100])
    deal(hand, "AhAd", "KhKd")
    with pytest.raises(IllegalAction) as caught:
        showdown.strength(hand, 1)
    assert str(caught.value) == (
        f"Seat {hand.seats[1]}'s hand cannot be evaluated: it needs two hole cards and five "
        "board cards."
    )
