"""Bets read from the chip trays: the chips in a seat's betting zone become its action
when the player presses his action button (TDA-10, TDA-11, TDA-32, TDA-39, HG-14)."""

import pytest

from firmware.engine.cards import parse_cards
from firmware.hal import ButtonPressed, ChipsChanged
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table


@pytest.fixture
def ctl(tmp_path) -> Controller:  # type: ignore[no-untyped-def]
    registry = TagRegistry(str(tmp_path / "tags.sqlite"))
    registry.add_chip_range("1000", "10FF", 1)  # ones
    registry.add_chip_range("5000", "50FF", 5)  # fives
    registry.add_chip_range("2500", "25FF", 25)  # quarters
    table = Table(TableConfig("home", profile_options("home"), Stakes()), deck_ready=True)
    for seat in (1, 2, 3):
        table.apply(te.SitDown(seat, f"P{seat}", 200))
    table.apply(te.SetButton(1))
    controller = Controller(table, {}, registry)
    for event in (te.Shuffle(), te.Cut(), *(te.CardDrawn(c) for c in parse_cards("AhKd7cAsKh2d"))):
        controller.apply(event)
    return controller  # seat 1 (the button) is to act, facing the big blind of 2


def chips(ctl: Controller, seat: int, *tags: str) -> None:
    ctl.post(ChipsChanged("trays", 0.0, f"seat{seat}.bet", frozenset(tags)))
    ctl.run_pending()


def press(ctl: Controller, button: str) -> None:
    ctl.post(ButtonPressed("panel", 0.0, button))
    ctl.run_pending()


def bet(ctl: Controller, seat: int) -> int:
    hand = ctl.table.hand
    assert hand is not None
    return hand.hand.bets[hand.position(seat)]


def test_hg_14_tda_11_one_oversized_chip_without_a_word_is_a_call(ctl: Controller) -> None:
    """HG-14, TDA-11: one 25 chip facing a bet of 2, nothing declared: a call, 23 back."""
    chips(ctl, 1, "2501")
    press(ctl, "seat1.action")
    assert bet(ctl, 1) == 2
    assert "Give 23 back to seat 1" in ctl.alerts[-1].text


def test_tda_11_declared_raise_then_one_chip_raises_as_far_as_the_chip_goes(
    ctl: Controller,
) -> None:
    """TDA-11: the raise button before the chip: a raise to the chip's value."""
    press(ctl, "seat1.raise")
    chips(ctl, 1, "2501")
    press(ctl, "seat1.action")
    assert bet(ctl, 1) == 25


def test_tda_39_second_motion_without_declaration_is_a_string_raise(ctl: Controller) -> None:
    """TDA-32, TDA-39: two motions, no declaration: only the first counts."""
    chips(ctl, 1, "1001", "1002")  # first motion: a call of 2
    chips(ctl, 1, "1001", "1002", "5001", "5002")  # second motion: 10 more
    press(ctl, "seat1.action")
    assert bet(ctl, 1) == 2
    texts = " ".join(a.text for a in ctl.alerts[-2:])
    assert "String raise at seat 1" in texts and "Give 10 back" in texts


def test_tda_10_half_a_raise_or_more_forces_a_full_raise(ctl: Controller) -> None:
    """TDA-10: 2 to call plus 1 extra (50% of the raise of 2): forced to a full raise of 4."""
    chips(ctl, 1, "1001", "1002", "1003")
    press(ctl, "seat1.action")
    assert bet(ctl, 1) == 4


def test_action_button_out_of_turn_changes_nothing(ctl: Controller) -> None:
    """TDA-30: chips and the button out of turn are flagged to the dealer, not applied."""
    chips(ctl, 2, "2501")
    press(ctl, "seat2.action")
    assert bet(ctl, 2) == 1  # still just the small blind
    assert "out of turn" in ctl.alerts[-1].text
