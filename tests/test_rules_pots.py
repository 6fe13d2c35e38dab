"""Pots, side pots, odd chips and showdown rules, named after the rule IDs of docs/rules.md."""

import pytest

from firmware.engine.cards import parse_cards
from firmware.engine.events import DealBoard, Muck, Show
from firmware.engine.hand import Phase
from firmware.engine.pots import build_pots, split_pot
from firmware.engine.rules import OddChips
from firmware.engine.showdown import auto_showdown_event, next_to_show
from firmware.errors import IllegalAction
from tests.kit import act, board, deal, start


def run_out(hand, *cards: str) -> None:  # type: ignore[no-untyped-def]
    for text in cards:
        hand.apply(DealBoard(tuple(parse_cards(text))))


def finish_showdown(hand) -> None:  # type: ignore[no-untyped-def]
    while hand.phase is Phase.SHOWDOWN:
        hand.apply(auto_showdown_event(hand))


def _tie_hand(odd: OddChips):  # type: ignore[no-untyped-def]
    hand = start([1000] * 3, blinds=(25, 50, 0), min_bet=50, chip_unit=25, odd_chips=odd)
    deal(hand, "2c3d", "4h5s", "6c7d")
    act(hand, "c", "f", "c")  # button calls 50, small blind folds 25, big blind checks
    board(hand, "AhKhQh")
    act(hand, "c", "c")
    board(hand, "Jh")
    act(hand, "c", "c")
    board(hand, "Th")
    act(hand, "c", "c")
    finish_showdown(hand)
    return hand


def test_tda_3_leftover_unit_goes_to_first_winner_left_of_button() -> None:
    """TDA-3: the odd chips of a split pot go to the first winner left of the button."""
    hand = _tie_hand(OddChips.FIRST_LEFT_OF_BUTTON)
    assert hand.result is not None
    (pot,) = hand.result.pots
    assert pot.amount == 125 and pot.winners == (1, 2)
    # 5 units of 25 between two: 2 each, the odd unit to the big blind (first left of button).
    assert dict(pot.shares) == {1: 75, 2: 50}
    assert hand.result.finishing_stacks == (975, 1025, 1000)


def test_tda_3_split_never_breaks_a_unit_and_one_each_option() -> None:
    """TDA-3: a split never breaks the smallest chip in play; the house option gives leftover units
    one each to successive winners.
    """
    assert split_pot(100, [0, 1, 2], chip_unit=25) == {0: 50, 1: 25, 2: 25}
    assert split_pot(200, [4, 1, 2], chip_unit=25) == {1: 100, 2: 50, 4: 50}
    assert split_pot(200, [4, 1, 2], chip_unit=25, odd_chips=OddChips.ONE_EACH_FROM_BUTTON) == {
        1: 75,
        2: 75,
        4: 50,
    }
    assert split_pot(101, [3, 5], chip_unit=25) == {3: 51, 5: 50}  # 1 chip below a unit
    for amount in range(0, 400, 7):
        for unit in (1, 5, 25):
            shares = split_pot(amount, [0, 2, 3], chip_unit=unit)
            assert sum(shares.values()) == amount


def test_tda_4_each_pot_is_split_on_its_own() -> None:
    """TDA-4: side pots are split one by one, each with its own odd chips, never merged first."""
    # Player 0 is all-in for 11; the others bet on. Everybody plays the board.
    hand = start([11, 100, 100, 100], dead=(0, 0, 0, 1))
    deal(hand, "2c3d", "2d3h", "2h3s", "2s4c")
    act(hand, "c", "c", "r11", "r30", "c", "c")  # player 0 all-in for 11
    assert hand.phase is Phase.BOARD
    for cards in ("AhKhQh", "Jh", "Th"):
        board(hand, cards)
        if hand.phase is Phase.BETTING:
            act(hand, "c", "c", "c")
    finish_showdown(hand)
    assert hand.result is not None
    main, side = hand.result.pots
    # Main pot: 4 x 11 + 1 dead = 45, four winners, the odd chip to player 0.
    assert (main.amount, main.winners) == (45, (0, 1, 2, 3))
    assert dict(main.shares) == {0: 12, 1: 11, 2: 11, 3: 11}
    # Side pot: 3 x 19 = 57 between players 1-3, 19 each: no odd chip from the main pot.
    assert (side.amount, side.winners) == (57, (1, 2, 3))
    assert dict(side.shares) == {1: 19, 2: 19, 3: 19}


def test_tda_9_all_hands_turned_up_when_no_more_betting() -> None:
    """TDA-9: once a player is all-in and no more betting is possible, every live hand is turned
    face up.
    """
    hand = start([100, 100, 100])
    deal(hand, "AhAd", "KhKd", "2c7d")
    act(hand, "r100", "f", "c")
    assert hand.cards_up is True
    assert hand.board == []  # turned up before the board is run out
    run_out(hand, "2h3h4d", "9s", "Jc")
    assert hand.phase is Phase.COMPLETE
    assert hand.shown[1] is not None and hand.shown[2] is not None
    assert hand.shown[0] is None  # a folded hand is never exposed


def test_tda_21_no_rabbit_hunting_after_the_hand_ends() -> None:
    """TDA-21: no rabbit hunting: a board card that was not dealt is never shown after the hand
    ends.
    """
    hand = start([100, 100, 100])
    deal(hand, "AhAd", "KhKd", "2c7d")
    act(hand, "r10", "f", "f")
    assert hand.phase is Phase.COMPLETE
    with pytest.raises(IllegalAction, match="hand is over"):
        run_out(hand, "2h3h4d")
    assert hand.board == []
    dealt = {c for h in hand.hole for c in h}
    seen_in_events = {c for e in hand.events for c in getattr(e, "cards", ()) if isinstance(c, int)}
    assert seen_in_events == dealt  # nothing but dealt cards is ever recorded


def test_tda_37_showdown_order_last_river_aggressor_first() -> None:
    """TDA-37: at showdown the last aggressor of the final betting round shows first."""
    hand = start([1000] * 4)
    deal(hand, "AhAd", "KhKd", "QhQd", "JhJd")
    act(hand, "c", "c", "c", "c")
    board(hand, "2c3c8d")
    act(hand, "c", "c", "c", "c")
    board(hand, "9s")
    act(hand, "c", "c", "c", "c")
    board(hand, "Tc")
    act(hand, "c", "c", "r20", "c", "c", "c")
    assert hand.showdown_order == (2, 3, 0, 1)
    assert next_to_show(hand) == 2


def test_tda_37_no_river_bet_first_left_of_button_shows_first() -> None:
    """TDA-37: with no bet on the river, the first player left of the button shows first, then
    clockwise.
    """
    hand = start([1000] * 4)
    deal(hand, "AhAd", "KhKd", "QhQd", "JhJd")
    act(hand, "c", "c", "c", "c")
    board(hand, "2c3c8d")
    act(hand, "c", "c", "c", "c")
    board(hand, "9s")
    act(hand, "f", "c", "c", "c")  # player 0, first left of the button, folds
    board(hand, "Tc")
    act(hand, "c", "c", "c")
    assert hand.showdown_order[0] == 1  # player 0 folded on the turn


def test_cc_10_caller_may_muck_and_mucked_hand_never_wins() -> None:
    """CC-10: a caller need not show and may muck; a mucked hand can never win a pot."""
    hand = start([1000] * 2)
    deal(hand, "2c7d", "AhAd")  # index 0 big blind, index 1 button
    act(hand, "c", "c")
    for cards in ("2h3h4d", "9s", "Jc"):
        board(hand, cards)
        act(hand, "c", "c")
    hand.apply(Show(0, tuple(parse_cards("2c7d"))))
    hand.apply(Muck(1))  # the aces muck: they cannot win
    assert hand.result is not None
    assert hand.result.finishing_stacks == (1002, 998)


def test_tda_29_tabled_hand_cannot_be_mucked() -> None:
    """TDA-29: a hand tabled at showdown cannot be mucked afterwards; cards speak."""
    hand = start([1000] * 2)
    deal(hand, "2c7d", "AhAd")
    act(hand, "c", "c")
    for cards in ("2h3h4d", "9s", "Jc"):
        board(hand, cards)
        act(hand, "c", "c")
    hand.apply(Show(0, tuple(parse_cards("2c7d"))))
    with pytest.raises(IllegalAction, match="cannot be mucked"):
        hand.apply(Muck(0))


def test_tda_40_playing_the_board_needs_both_cards_tabled() -> None:
    """TDA-40: a player who plays the board must table both hole cards to get a share."""
    hand = start([1000] * 2)
    deal(hand, "2c3d", "4c5d")
    act(hand, "c", "c")
    for cards in ("AhKhQh", "Jh", "Th"):
        board(hand, cards)
        act(hand, "c", "c")
    hand.apply(Show(0, tuple(parse_cards("2c3d"))))
    hand.apply(Show(1, tuple(parse_cards("4c"))))  # one card only: not finished
    assert hand.phase is Phase.SHOWDOWN and next_to_show(hand) == 1
    hand.apply(Muck(1))  # gives up rather than table the second card
    assert hand.result is not None
    assert hand.result.finishing_stacks == (1002, 998)


def test_tda_40_tabling_both_cards_shares_the_pot() -> None:
    """TDA-40: tabling both hole cards while playing the board earns an equal share of the pot."""
    hand = start([1000] * 2)
    deal(hand, "2c3d", "4c5d")
    act(hand, "c", "c")
    for cards in ("AhKhQh", "Jh", "Th"):
        board(hand, cards)
        act(hand, "c", "c")
    hand.apply(Show(0, tuple(parse_cards("2c3d"))))
    hand.apply(Show(1, tuple(parse_cards("4c"))))
    hand.apply(Show(1, tuple(parse_cards("5d"))))
    assert hand.result is not None and hand.result.finishing_stacks == (1000, 1000)


def test_hg_1_smaller_all_in_is_matched_rest_returned() -> None:
    """HG-1: when two players are all-in for different amounts, the smaller stack is matched and the
    rest returns to the bigger one.
    """
    hand = start([100, 250])  # index 0 big blind, index 1 button
    deal(hand, "AhAd", "KhKd")
    act(hand, "r250", "c")
    # The uncalled 150 goes back to the button before any pot is built.
    assert hand.stacks == [0, 150]
    assert [p.amount for p in hand.pots()] == [200]


def test_hg_2_short_all_in_against_two_players_main_and_side_pot() -> None:
    """HG-2: a short all-in against two players makes a main pot all three can win and a side pot
    only the other two can.
    """
    hand = start([1000, 1000, 60])
    deal(hand, "KhKd", "QhQd", "AhAd")
    act(hand, "r60", "c", "c")  # button all-in for 60, blinds call
    board(hand, "2c3c8d")
    act(hand, "r100", "c")  # the two others keep betting into a side pot
    pots = hand.pots()
    assert [(p.amount, p.eligible) for p in pots] == [(180, (0, 1, 2)), (200, (0, 1))]
    for cards in ("9s", "Jd"):
        board(hand, cards)
        act(hand, "c", "c")
    finish_showdown(hand)
    assert hand.result is not None
    assert hand.result.finishing_stacks == (1040, 840, 180)


def test_hg_3_several_all_ins_build_pots_of_any_depth() -> None:
    """HG-3: several all-ins build one pot per stack size, each remembering who may win it."""
    hand = start([1000, 50, 100, 200, 400])
    deal(hand, "2c3d", "AhAd", "KhKd", "QhQd", "5c5d")
    act(hand, "r100", "r200", "r400", "c", "c")
    pots = hand.pots()
    assert [(p.amount, p.eligible) for p in pots] == [
        (250, (0, 1, 2, 3, 4)),
        (200, (0, 2, 3, 4)),
        (300, (0, 3, 4)),
        (400, (0, 4)),
    ]
    run_out(hand, "7h8hJs", "Tc", "4s")
    assert hand.result is not None
    # Aces win the main pot, kings the first side pot, queens the next, fives the last.
    assert hand.result.finishing_stacks == (600, 250, 200, 300, 400)


def test_hg_18_stack_below_small_blind_can_win_only_its_stack_from_each() -> None:
    """HG-18: an all-in player wins at most his own stack from each opponent."""
    hand = start([1000, 1, 1000, 1000], blinds=(1, 2, 0, 0), antes=0)
    # Player 1 has a single chip for the big blind of 2: all-in at once.
    assert hand.stacks[1] == 0 and hand.bets[1] == 1
    deal(hand, "2c3d", "AhAd", "KhKd", "QhQd")
    act(hand, "c", "c", "c")
    pots = hand.pots()
    assert pots[0].amount == 4 and 1 in pots[0].eligible
    run_out(hand, "7h8hJs")
    act(hand, "c", "c", "c")
    run_out(hand, "Tc")
    act(hand, "c", "c", "c")
    run_out(hand, "4s")
    act(hand, "c", "c", "c")
    finish_showdown(hand)
    assert hand.result is not None
    assert hand.result.finishing_stacks[1] == 4  # one chip from each of four players


def test_dead_money_goes_to_the_main_pot() -> None:
    pots = build_pots([10, 50, 50], dead=5, live=[True, True, True])
    assert [(p.amount, p.eligible) for p in pots] == [(35, (0, 1, 2)), (80, (1, 2))]


def test_dead_money_alone_is_a_main_pot_for_every_live_player() -> None:
    # Player 0 is all-in from a big-blind ante alone: he matched nothing, yet
    # the dead money is a pot he can win; the matched chips are a side pot.
    pots = build_pots([0, 5, 5, 3], dead=2, live=[True, True, True, False])
    assert [(p.amount, p.eligible) for p in pots] == [(2, (0, 1, 2)), (13, (1, 2))]
    # With no such player the dead money joins the first level's pot.
    pots = build_pots([1, 5, 5], dead=2, live=[True, True, True])
    assert [(p.amount, p.eligible) for p in pots] == [(5, (0, 1, 2)), (8, (1, 2))]
    # A folded player with nothing matched does not make a pot of his own.
    pots = build_pots([0, 5, 5], dead=2, live=[False, True, True])
    assert [(p.amount, p.eligible) for p in pots] == [(12, (1, 2))]


def test_dead_only_all_in_player_wins_the_dead_money_at_showdown() -> None:
    # The big blind's whole stack (2) goes in as his big-blind ante: no chips matched.
    hand = start([100, 2, 100], blinds=(1, 2, 0), dead=(0, 2, 0))
    assert hand.stacks[1] == 0 and hand.matched[1] == 0
    deal(hand, "7c2d", "AcAd", "8h3s")
    act(hand, "c", "c")  # the button calls 1, the small blind checks
    for cards in ("KhQh5s", "4c", "9d"):
        board(hand, cards)
        act(hand, "c", "c")
    finish_showdown(hand)
    assert hand.result is not None
    assert [(p.amount, p.winners) for p in hand.result.pots] == [(2, (1,)), (2, (2,))]
    assert hand.result.finishing_stacks == (99, 2, 101)


def test_killed_hands_chips_above_every_live_level_stay_in_the_pot() -> None:
    # The winner put nothing in; two killed hands posted 3 and 6 that nobody matched.
    pots = build_pots([3, 6, 0], dead=6, live=[False, False, True])
    assert sum(p.amount for p in pots) == 15
    assert all(p.eligible == (2,) for p in pots)
