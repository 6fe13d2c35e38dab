"""Refusals word for word: the sentence, the catalog key and the figures each one names.

A seat or the dealer console shows a refusal through its catalog key (in the
screen's language) with the figures passed along; the English sentence goes
to the log. A refusal with the wrong key shows another message, a lost
figure shows a blank, and a wrong figure ("go all-in for 96" when the player
has 100) misleads the player even when the table refuses the right thing.
Issue 26's audit found these refusals pinned by no test; each case below
states the exact sentence, key and parameters, and that the catalog renders
the key in both languages with those parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from firmware.engine import showdown
from firmware.engine.betting import check_raise_amount
from firmware.engine.events import Show
from firmware.engine.hand import Phase
from firmware.engine.rules import Structure
from firmware.errors import IllegalAction
from firmware.i18n import tr
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.script import run_script
from firmware.table.seating import Seating
from tests.kit import act, board, deal, start


def _facing_a_raise():  # type: ignore[no-untyped-def]
    hand = start([100, 100, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10")  # player 2 raises to 10 (a raise of 8); player 0 to act
    return hand


def _raise(to: int) -> Callable[[], None]:
    return lambda: check_raise_amount(_facing_a_raise(), 0, to)


def _no_raise() -> None:
    hand = start([100, 10, 100])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r10", "c")
    check_raise_amount(hand, 1, 12)


def _pot_limit_too_large() -> None:
    hand = start([1000, 1000, 1000], structure=Structure.POT_LIMIT)
    deal(hand, "AhAd", "KhKd", "QhQd")
    check_raise_amount(hand, 2, 900)


def _showdown():  # type: ignore[no-untyped-def]
    hand = start([100, 100])
    deal(hand, "AhAd", "KhKd")
    while hand.phase is not Phase.SHOWDOWN:
        if hand.phase is Phase.BETTING:
            act(hand, "c")
        else:
            board(hand, {0: "7c8s9d", 3: "Jc", 4: "4s"}[len(hand.board)])
    return hand


def _muck_tabled() -> None:
    hand = _showdown()
    first = hand.showdown_order[0]
    hand.apply(Show(first, tuple(c for c in hand.hole[first] if c is not None)))
    showdown._muck(hand, first)


def _nobody_to_show() -> None:
    hand = _showdown()
    hand.mucked = [True, True]
    showdown.auto_showdown_event(hand)


def _seating(*seats: int, profile: str = "casino-cash") -> Seating:
    """Seats at a 1/2 cash table whose buy-in is 40 to 200 chips (CC-16)."""
    options = profile_options(profile, max_buy_in_multiple=100)
    s = Seating(TableConfig(profile, options, Stakes(small_blind=1, big_blind=2)))
    for seat in seats:
        s.sit(seat, f"P{seat}", 200)
    return s


def _busted_without_rebuy() -> None:
    s = _seating(1, 2, 3)
    plan = s.plan_hand()
    s.begin_hand(plan)
    s.finish_hand(plan, tuple(0 if x == 3 else 300 for x in plan.seats))
    s.plan_hand()


def _cash_out_in_a_hand() -> None:
    s = _seating(1, 2)
    s.begin_hand(s.plan_hand())
    s.cash_out(1)


def _misdeal_after_betting() -> None:
    run_script(
        "profile casino-cash\nstakes NL 1/2\ndeck-ready\nseat 1 A 200\nseat 2 B 200\n"
        "seat 3 C 200\nbutton 1\nshuffle\ncut\ndraw Ah Kd 7c As Kh 2d\n1 call\n"
        "dealer misdeal wrong game\n"
    )


CASES: list[tuple[str, Callable[[], Any], str, str, dict[str, Any]]] = [
    (
        "raise not above the bet",
        _raise(10),
        "A bet or raise to 10 does not exceed the current bet of 10; check or call instead.",
        "error.action.raise_not_above",
        {"to": 10, "current": 10},
    ),
    (
        "raise too small names the all-in figure",
        _raise(12),
        "The smallest bet or raise allowed is to 18 (the last full raise was 8); raise to at "
        "least 18, or go all-in for 100.",
        "error.action.raise_too_small",
        {"to": 12, "low": 18},
    ),
    (
        "raise above the stack",
        _raise(101),
        "A bet or raise to 101 is not allowed: you have only 100 including your bet; the most "
        "allowed is 100.",
        "error.action.raise_too_large",
        {"to": 101, "high": 100},
    ),
    (
        "raise above the pot",
        _pot_limit_too_large,
        "A bet or raise to 900 is not allowed: that is more than the pot after calling; the "
        "most allowed is 7.",
        "error.action.raise_too_large",
        {"to": 900, "high": 7},
    ),
    (
        "no raise when calling is all",
        _no_raise,
        "You cannot raise: calling already takes all your chips.",
        "error.action.no_raise",
        {"seat": 2},
    ),
    (
        "a tabled hand cannot be mucked",
        _muck_tabled,
        "Seat 1's hand is tabled and cannot be mucked (TDA-29).",
        "error.showdown.tabled",
        {},
    ),
    ("nobody left to show", _nobody_to_show, "Nobody is left to show.", "error.show.nobody", {}),
    (
        "rebuy not a whole number",
        lambda: _seating(1, 2).declare_rebuy(1, 0),
        "A rebuy must be a whole number of chips, not 0.",
        "error.rebuy.whole",
        {"amount": 0},
    ),
    (
        "buy-in not a whole number",
        lambda: _seating().sit(1, "Ana", 0),
        "A buy-in must be a whole number of chips, not 0.",
        "error.buyin.whole",
        {"amount": 0},
    ),
    (
        "empty seat",
        lambda: _seating(1, 2).seat_of(5),
        "Seat 5 is empty.",
        "error.table.empty_seat",
        {},
    ),
    (
        "seat taken",
        lambda: _seating(1, 2).sit(2, "Ana", 200),
        "Seat 2 is taken by P2; one player per seat (PE-4).",
        "error.table.seat_taken",
        {},
    ),
    (
        "no partial cash-out",
        lambda: _seating(1, 2).remove_chips(1, 10),
        "Chips cannot be taken off the table; a player plays all his chips or cashes out "
        "with all of them (HG-6).",
        "error.table.partial_cash_out",
        {},
    ),
    (
        "no transfer",
        lambda: _seating(1, 2).transfer(1, 2, 10),
        "Chips cannot pass between players; buy chips from the dealer or the cashier (HG-7).",
        "error.table.transfer",
        {},
    ),
    (
        "busted player must rebuy or leave",
        _busted_without_rebuy,
        "Seat 3 (P3) is out of chips and must rebuy or leave before the next hand is dealt "
        "(HG-13).",
        "error.table.rebuy_pending",
        {},
    ),
    (
        "no cash-out during a hand",
        _cash_out_in_a_hand,
        "Nobody can leave with chips during a hand (PE-4); cash out after the hand.",
        "error.table.stakes",
        {},
    ),
    (
        "add-on above the maximum",
        lambda: _seating(1, 2).declare_rebuy(1, 1),
        "Seat 1 has 200 chips and the maximum buy-in at this table is 200; seat 1 may add at "
        "most 0, not 1 (CC-16).",
        "error.table.add_on_high",
        {"seat": 1, "have": 200, "high": 200, "room": 0, "amount": 1},
    ),
]


@pytest.mark.parametrize(
    ("refused", "sentence", "key", "params"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_each_refusal_says_exactly_what_to_do(
    refused: Callable[[], Any], sentence: str, key: str, params: dict[str, Any]
) -> None:
    with pytest.raises(IllegalAction) as caught:
        refused()
    assert str(caught.value) == sentence
    assert caught.value.key == key
    assert caught.value.params == params
    for lang in ("en", "es"):
        text = tr(key, lang, **params)
        assert text and "{" not in text and key not in text


def test_a_misdeal_after_the_betting_began_is_for_the_floor() -> None:
    """TDA-1, HG-10: once money has gone in, the dealer's misdeal is refused; the line
    is named and the sentence says who may void the hand."""
    with pytest.raises(Exception) as caught:
        _misdeal_after_betting()
    assert str(caught.value) == (
        "Line 12 (dealer misdeal wrong game): Betting has begun, so the dealer can no longer "
        "call a misdeal; call the floor, who may void the hand (TDA-1)."
    )
    cause = caught.value.__cause__
    assert isinstance(cause, IllegalAction) and cause.key == "error.incident.misdeal_late"
