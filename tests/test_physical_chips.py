"""Bets read from chips in the betting zone: oversized chips, declarations, motions."""

from firmware.betting import interpret_motions, interpret_single_chip
from firmware.events import BetRaise, CheckCall
from tests.kit import act, board, deal, start


def facing_a_bet():  # type: ignore[no-untyped-def]
    hand = start([1000] * 3)
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10")  # player 2 raises to 10; the small blind (player 0) faces 9 more
    return hand


def test_tda_11_hg_14_one_oversized_chip_without_a_word_is_a_call() -> None:
    """TDA-11, HG-14: one 100 chip facing a bet of 10, nothing declared: a call, change back."""
    hand = facing_a_bet()
    event, back = interpret_single_chip(hand, 0, 100, declared_raise=False)
    assert event == CheckCall(0) and back == 100 + 1 - 10


def test_tda_11_declared_raise_with_one_chip_raises_its_full_value() -> None:
    """TDA-11: "raise" declared, one 100 chip, no amount: a raise of the chip's value."""
    hand = facing_a_bet()
    event, back = interpret_single_chip(hand, 0, 100, declared_raise=True)
    assert event == BetRaise(0, 110) and back == 0


def test_tda_11_single_chip_opening_after_the_flop_is_a_bet_of_its_value() -> None:
    """TDA-11: after the flop, one chip opening the betting is a bet of its full value."""
    hand = start([1000] * 2)
    deal(hand, "AhAd", "KhKd")
    act(hand, "c", "c")
    board(hand, "2c7d9h")
    event, back = interpret_single_chip(hand, 0, 25, declared_raise=False)
    assert event == BetRaise(0, 25) and back == 0


def test_tda_32_tda_39_second_motion_counts_only_with_a_raise_declaration() -> None:
    """TDA-32, TDA-39: without a declaration only the first motion counts (string raise)."""
    hand = facing_a_bet()
    event, back, string_raise = interpret_motions(hand, 0, [9, 40], declared_raise=False)
    assert event == CheckCall(0) and back == 40 and string_raise
    event, back, string_raise = interpret_motions(hand, 0, [9, 40], declared_raise=True)
    assert event == BetRaise(0, 50) and back == 0 and not string_raise
