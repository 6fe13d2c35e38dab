"""Bets read from chips in the betting zone: oversized chips, declarations, motions."""

import pytest

from firmware.engine.betting import interpret_motions, interpret_single_chip
from firmware.engine.events import BetRaise, CheckCall
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
    """TDA-11: "raise" declared, one 100 chip, no amount: the largest raise the chip allows."""
    hand = facing_a_bet()
    event, back = interpret_single_chip(hand, 0, 100, declared_raise=True)
    assert event == BetRaise(0, 101) and back == 0  # his blind of 1 plus the chip


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


def test_tda_32_a_declared_raise_is_recorded_for_the_betting_round() -> None:
    """TDA-32: the seat's "raise" declaration is recorded, in every view, for this round only."""
    from firmware.engine.cards import parse_cards
    from firmware.errors import IllegalAction
    from firmware.table import events as te
    from firmware.table.options import Stakes, TableConfig, profile_options
    from firmware.table.table import Table
    from firmware.views.audience import console_view

    t = Table(TableConfig("home", profile_options("home"), Stakes()), deck_ready=True)
    for seat in (1, 2, 3):
        t.apply(te.SitDown(seat, f"P{seat}", 200))
    t.apply(te.SetButton(1))
    t.apply(te.Shuffle())
    t.apply(te.Cut())
    for card in parse_cards("AhKd7cAsKh2d"):
        t.apply(te.CardDrawn(card))
    t.apply(te.DeclareRaise(1))
    assert t.hand is not None and t.hand.declared_raise(1)
    seats = console_view(t, "en")["table"]["seats"]
    assert next(s for s in seats if s["seat"] == 1)["declared"] is True
    for seat, action in ((1, "call"), (2, "call"), (3, "check")):
        t.apply(te.Act(seat, action))
    for card in parse_cards("3c4d5h9s"):
        t.apply(te.CardDrawn(card))
    assert not t.hand.declared_raise(1)  # a new betting round
    t.apply(te.Act(2, "fold"))
    with pytest.raises(IllegalAction, match="can still bet"):
        t.apply(te.DeclareRaise(2))
