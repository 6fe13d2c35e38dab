"""Regressions found by review: each test is a reproduction that failed before its fix."""

import pytest

from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.script import run_script
from firmware.table.snapshot import table_state
from firmware.views.audience import seat_view

HEAD = "stakes NL 1/2\ndeck-ready\nseat 1 Ana 200\nseat 2 Bruno 200\nseat 3 Carmen 200\nbutton 1\n"


def test_tda_8_every_dealt_in_hand_dead_does_not_stick_the_table() -> None:
    """TDA-8/HG-17: all three players away: the deal ends, the hand resolves."""
    table, records = run_script(
        "profile tda-tournament\n" + HEAD + "away 1\naway 2\naway 3\nshuffle\ncut\n"
        "draw Ah Kd 7c As Kh 2d\n"
    )
    assert table.hand is None and len(records) == 1
    assert sum(records[0]["finishing_stacks"].values()) == 600


def test_tda_6_button_moves_to_the_dead_small_blinds_place() -> None:
    """TDA-6: after a hand with no small blind the button goes to that empty place."""
    script = (
        "profile tda-tournament\nstakes NL 1/2\ndeck-ready\nseat 1 Ana 200\nseat 2 Bruno 200\n"
        "seat 3 Carmen 50\nseat 4 Diego 200\nbutton 1\n"
        "shuffle\ncut\ndraw 2c 7h Ah Kc 3c 2d As Ks\n4 allin\n1 fold\n2 fold\n3 call\n"
        "draw 9c Ad Qh Jh 8d Ts 8h 4s\ncashout 3\n"
        "shuffle\ncut\ndraw 2c 7h Ah Kc 3c 2d\n1 fold\n2 fold\n"
        "shuffle\ncut\ndraw 2c 7h Ah Kc 3c 2d\n2 call\n4 call\n1 check\ndraw 9c Ad Qh Jh\n"
        "expect next seat 4 to act\n"
    )
    table, _ = run_script(script)
    assert table.hand is not None
    plan = table.hand.plan
    assert (plan.button, plan.small_blind_seat, plan.big_blind_seat) == (3, 4, 1)


def test_misdeal_redeals_the_same_blinds_and_keeps_changes_made_meanwhile() -> None:
    """A misdeal: same positions again; a rebuy or a new player during the hand stays."""
    table, _ = run_script(
        "profile casino-cash\n" + HEAD + "shuffle\ncut\ndraw Ah Kd 7c\nrebuy 1 100\n"
        "sit 4 Diego 300\ndealer misdeal card flashed\n"
    )
    assert table.seating.seats[1].rebuy == 100
    assert table.seating.seats[4].stack == 300
    before = table.records[-1]
    table.apply(te.Shuffle())
    assert table.hand is not None and table.hand.plan.button == before["button"]


def test_tda_27_hg_9_a_premature_flop_does_not_displace_the_exposed_burn() -> None:
    """TDA-27 + HG-9: the exposed card stays the flop burn; the early cards go back."""
    table, _ = run_script(
        "profile casino-cash\n" + HEAD + "shuffle\ncut\ndraw Ah Kd 7c As\ndealer exposed As\n"
        "draw Kh 2d\ndraw Qc\n1 call\n2 call\ndraw 3c Qd Jd\ndealer premature\n3 check\n"
        "draw 9s 8s 7s\nexpect burns As\nexpect board 9s8s7s\n"
    )
    assert table.hand is not None


def test_recall_never_shows_a_previous_occupants_hands() -> None:
    """A new player at a seat does not see the hands of whoever sat there before."""
    table, _ = run_script(
        "profile casino-cash\noption reentry_wait_minutes 0\n"
        + HEAD
        + "shuffle\ncut\ndraw Ah Kd 7c As Kh 2d\n1 fold\n2 fold\ncashout 3\nsit 3 Eve 200\n"
    )
    assert seat_view(table, 3, "en")["recall"] == []


def test_tda_7_a_disqualification_does_not_follow_the_seat_to_its_next_player() -> None:
    """TDA-7: Zoe sits where a disqualified player sat and plays normally."""
    table, _ = run_script(
        "profile tda-tournament\n" + HEAD + "penalty 3 disqualification cheating\n"
        "sit 3 Zoe 200\nshuffle\ncut\ndraw Ah Kd 7c As Kh 2d\n1 fold\n"
    )
    assert table.hand is not None and not table.hand.hand.folded[table.hand.position(3)]
    assert table.penalties.chips_removed == 200


def test_tda_7_a_penalty_on_a_dead_hand_is_recorded_once() -> None:
    """TDA-7: a rounds penalty given after the seat folded is accepted once, not refused."""
    table, _ = run_script(
        "profile tda-tournament\n" + HEAD + "shuffle\ncut\ndraw Ah Kd 7c As Kh 2d\n1 fold\n"
        "penalty 1 rounds 1 abusive language\n"
    )
    assert len(table.penalties.records) == 1


def test_the_table_clock_goes_on_after_a_restart() -> None:
    """After a restart the controller's clock continues from the journal's table time."""
    table, _ = run_script("profile home\n" + HEAD + "tick 3600\n")
    ctl = Controller(table, {}, TagRegistry(":memory:"), clock=lambda: 5.0)
    assert ctl.table_time() == pytest.approx(3600.0)
    assert ctl.apply(te.Tick(ctl.table_time(6.0)))


def test_a_snapshot_taken_after_a_hand_already_lacks_the_disqualified_seat() -> None:
    """Retention snapshots see the table after disqualified seats have left."""
    table, _ = run_script(
        "profile tda-tournament\n" + HEAD + "shuffle\ncut\ndraw Ah Kd 7c As Kh 2d\n"
        "penalty 3 disqualification cheating\n1 fold\n"
    )
    assert 3 not in table.seating.seats  # removed when the hand ended
    assert [s["number"] for s in table_state(table)["seats"]] == [1, 2]
