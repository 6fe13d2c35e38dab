"""TDA-27 / HG-10 for the last card of the deal: reported after the deal, before any action.

Dealing the last hole card ends the deal and opens the betting, so the dealer
can only report its exposure afterwards. The firmware replays the hand as if
the report had come when that card was dealt; once anybody has acted the
ruling no longer applies (the scenario
``tests/scenarios/tda_27_hg_10_last_card_exposed_after_the_deal.txt`` plays
a whole hand).
"""

from __future__ import annotations

import copy

import pytest

from firmware.engine.cards import parse_card
from firmware.errors import IllegalAction
from firmware.table.script import parse_event, run_script
from firmware.table.table import Table

HEAD = """profile casino-cash
stakes NL 1/2
deck-ready
seat 1 Ana 200
seat 2 Bruno 200
seat 3 Carmen 200
button 1
shuffle
cut
draw Ah Kd 7c As Kh 2d
"""
# Deal order: seat 2, 3, 1, then 2, 3, 1: seat 2 AhAs, seat 3 KdKh, seat 1 (button) 7c2d.


def _table(body: str) -> Table:
    table, _ = run_script(HEAD + body + "expect unfinished\n")
    return table


def _apply(table: Table, line: str) -> None:
    for event in parse_event(line, 1, table):
        table.apply(event)


def test_tda_27_the_buttons_last_card_exposed_gets_a_replacement_and_becomes_the_burn() -> None:
    """The exposed last card is shown, the button is owed the next card (two cards in a
    row at the button), and the exposed card is the first burn: no burn before the flop."""
    table = _table("dealer exposed 2d\n")
    hand = table.hand
    assert hand is not None
    assert [(d.card, d.role, d.public) for d in hand.draws if d.role == "exposed"] == [
        (parse_card("2d"), "exposed", True)
    ]
    assert hand.next_card_role() == ("replacement", 1)
    _apply(table, "draw 9c")
    assert hand.hand.hole[hand.position(1)] == [parse_card("7c"), parse_card("9c")]
    for line in ("1 call", "2 call", "3 check"):
        _apply(table, line)
    assert hand.next_card_role() == ("board", 1)  # the exposed 2d is the flop's burn
    assert [i.rule for i in hand.incidents] == ["TDA-27"]


def test_tda_27_hg_10_one_of_the_first_two_cards_reported_after_the_deal_is_a_misdeal() -> None:
    """The first card dealt (seat 2's Ah) turned up: a misdeal, every chip back."""
    table = _table("")
    _apply(table, "dealer exposed Ah")
    assert table.hand is None
    assert table.records[-1]["void"]
    assert table.seating.seats[2].stack == 200 and table.seating.seats[3].stack == 200


def test_hg_10_a_second_exposed_card_reported_after_the_deal_is_a_misdeal() -> None:
    """One card exposed during the deal and the replacement exposed too: two exposed cards."""
    table, _ = run_script(
        HEAD.replace("draw Ah Kd 7c As Kh 2d\n", "draw Ah Kd 7c As\n")
        + "dealer exposed As\ndraw Kh 2d Qc\nexpect hole 2 AhQc\nexpect unfinished\n"
    )
    _apply(table, "dealer exposed Qc")
    assert table.hand is None
    assert "second card" in table.records[-1]["void"]


def test_tda_27_too_late_once_anybody_has_acted_and_nothing_changes() -> None:
    """After the first action the exposed-card ruling no longer applies; the refusal
    leaves the hand exactly as it was."""
    table = _table("1 call\n")
    assert table.hand is not None
    before = copy.deepcopy(table.hand.s)
    with pytest.raises(IllegalAction) as caught:
        _apply(table, "dealer exposed 2d")
    assert caught.value.key == "error.incident.after_deal"
    assert table.hand.s.draws == before.draws
    assert table.hand.s.hand.hole == before.hand.hole
    assert table.hand.next_card_role() == ("none", None)  # seat 2 to act, no card due


def test_tda_27_a_card_never_dealt_to_a_seat_is_refused_after_the_deal() -> None:
    """Only a hole card can be ruled exposed; a card not dealt is refused by name."""
    table = _table("")
    with pytest.raises(IllegalAction) as caught:
        _apply(table, "dealer exposed Qs")
    assert caught.value.key == "error.incident.not_hole_card"
    assert table.hand is not None and table.hand.next_card_role() == ("none", None)


def test_tda_1_undo_after_a_late_exposure_replays_it() -> None:
    """The floor's undo rebuilds the hand from its events: the late report stays applied."""
    table = _table("dealer exposed 2d\ndraw 9c\n1 raise 6\n")
    _apply(table, 'floor undo "wrong amount"')
    hand = table.hand
    assert hand is not None
    assert hand.hand.hole[hand.position(1)] == [parse_card("7c"), parse_card("9c")]
    assert [d.role for d in hand.draws if d.card == parse_card("2d")] == ["exposed"]
    assert hand.hand.actor == hand.position(1)
