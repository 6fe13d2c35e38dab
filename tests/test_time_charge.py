"""The time charge instead of a rake (HOUSE-TIME): per seat per period on the table's
journaled clock, between hands only, journaled as ``time_charge``, conserved, replayed.

The controller's clock is injected: every test moves the table's time with
``controller.tick(seconds)`` and never waits for a real second.
"""

from __future__ import annotations

import pathlib

import pytest

from firmware.engine.cards import parse_cards
from firmware.engine.rules import Structure
from firmware.errors import ConfigError, IllegalAction
from firmware.service.controller import Controller
from firmware.service.journal import Journal
from firmware.service.recovery import restore, store_table_setup
from firmware.service.registry import TagRegistry
from firmware.table import event_records
from firmware.table import events as te
from firmware.table.house import due_time_charges
from firmware.table.options import Stakes, TableConfig, load_table_config, profile_options
from firmware.table.table import Table
from firmware.views.audience import console_view, seat_view

STAKES = Stakes(Structure.NO_LIMIT, 1, 2, time_charge=10, time_charge_minutes=30)
PERIOD = 30 * 60.0


def controller_on_journal(tmp_path: pathlib.Path) -> tuple[Controller, Journal]:
    journal = Journal(str(tmp_path / "journal.sqlite"))
    config = TableConfig("casino-cash", profile_options("casino-cash"), STAKES)
    store_table_setup(journal, config, deck_ready=True)
    table = Table(config, deck_ready=True)
    return Controller(table, {}, TagRegistry(":memory:"), journal=journal.append), journal


def stacks(controller: Controller) -> dict[int, int]:
    return {n: s.stack for n, s in controller.table.seating.seats.items()}


def charges(journal: Journal) -> list[te.TimeCharge]:
    return [e for e in journal.events() if isinstance(e, te.TimeCharge)]


def seat_three(controller: Controller) -> None:
    for seat, chips in ((1, 200), (2, 300), (3, 100)):
        assert controller.apply(te.SitDown(seat, f"P{seat}", chips, card=f"C{seat}"))


def test_each_seat_pays_at_the_period_boundary_and_the_chips_leave_the_table(
    tmp_path: pathlib.Path,
) -> None:
    """Nothing is taken before the first half hour ends; at 30:00 each seated player pays
    10 once, journaled as ``time_charge`` with the seat, the player card, the amount and
    the period; the chips left on the table plus what the house took are what came in."""
    controller, journal = controller_on_journal(tmp_path)
    seat_three(controller)
    assert controller.tick(PERIOD - 0.5) is False
    assert stacks(controller) == {1: 200, 2: 300, 3: 100} and not charges(journal)
    assert controller.tick(PERIOD) is True
    assert stacks(controller) == {1: 190, 2: 290, 3: 90}
    assert [event_records.to_record(c) for c in charges(journal)] == [
        {"kind": "time_charge", "seat": n, "player": f"C{n}", "amount": 10, "minutes": 30}
        for n in (1, 2, 3)
    ]
    assert controller.tick(PERIOD + 60) is False  # once per period
    assert len(charges(journal)) == 3
    assert controller.tick(2 * PERIOD) is True  # the next half hour
    assert stacks(controller) == {1: 180, 2: 280, 3: 80}
    assert sum(stacks(controller).values()) + controller.table.house.time_taken == 600


def test_a_boundary_during_a_hand_waits_for_the_hand_to_end(tmp_path: pathlib.Path) -> None:
    """The charge is never taken mid-hand: a tick past the boundary during a hand takes
    nothing; the hand's end and the next tick (or the next shuffle) take it."""
    controller, journal = controller_on_journal(tmp_path)
    seat_three(controller)
    assert controller.apply(te.SetButton(1))
    for event in (te.Shuffle(), te.Cut(), *map(te.CardDrawn, parse_cards("AhKd7cAsKh2d"))):
        assert controller.apply(event)
    assert controller.tick(PERIOD + 5) is False
    assert not charges(journal)
    with pytest.raises(IllegalAction) as refused:  # nor can anyone force one in
        controller.submit(te.TimeCharge(1, "C1", 10, 30))
    assert refused.value.key == "error.time_charge.in_hand"
    for seat in (1, 2):  # seat 1 (the button) and seat 2 fold: seat 3 wins
        assert controller.apply(te.Act(seat, "fold"))
    assert controller.table.hand is None
    after_hand = stacks(controller)
    assert not charges(journal)
    assert controller.apply(te.Shuffle())  # the next hand: the time charge goes first
    taken = charges(journal)
    assert [c.seat for c in taken] == [1, 2, 3]
    records = list(journal.events())
    assert records.index(taken[-1]) < records.index(te.Shuffle(), records.index(taken[0]))
    planned = controller.table.hand
    assert planned is not None
    assert {n: after_hand[n] - 10 for n in after_hand} == {
        n: planned.hand.stacks[planned.position(n)] + planned.hand.bets[planned.position(n)]
        for n in after_hand
    }


def test_a_player_who_cannot_pay_pays_what_he_has_and_must_rebuy(
    tmp_path: pathlib.Path,
) -> None:
    """House procedure: a stack smaller than the charge pays what it has; the player is
    then out of chips (a rebuy or a cash-out, HG-13) and is not dealt in; a seat
    with no chips pays nothing."""
    controller, journal = controller_on_journal(tmp_path)
    seat_three(controller)
    assert controller.apply(te.AdjustStack(3, 4, "short stack for the test"))
    assert controller.apply(te.AdjustStack(2, 0, "no chips for the test"))
    controller.tick(PERIOD)
    assert [(c.seat, c.amount) for c in charges(journal)] == [(1, 10), (3, 4)]
    assert stacks(controller) == {1: 190, 2: 0, 3: 0}
    assert controller.table.seating.seats[3].busted


def test_a_player_seated_after_the_collection_pays_from_the_next_period(
    tmp_path: pathlib.Path,
) -> None:
    """The period's charge is owed by the seats that had chips at its first charge; a
    player who sits down later in the period pays at the next boundary."""
    controller, journal = controller_on_journal(tmp_path)
    seat_three(controller)
    controller.tick(PERIOD)
    assert controller.apply(te.SitDown(4, "P4", 100))
    controller.tick(PERIOD + 10)
    assert [c.seat for c in charges(journal)] == [1, 2, 3]
    assert due_time_charges(controller.table) == []
    controller.tick(2 * PERIOD)
    assert [c.seat for c in charges(journal)][3:] == [1, 2, 3, 4]


def test_a_player_who_sits_at_an_empty_table_after_the_boundary_pays_from_the_next(
    tmp_path: pathlib.Path,
) -> None:
    """Nobody was seated when the half hour began: a player who sits down later owes
    nothing until the next boundary, and a replay agrees."""
    controller, journal = controller_on_journal(tmp_path)
    controller.tick(PERIOD + 100)
    assert controller.apply(te.SitDown(1, "Ana", 200))
    controller.tick(PERIOD + 200)
    assert charges(journal) == [] and due_time_charges(controller.table) == []
    controller.tick(2 * PERIOD)
    assert [(c.seat, c.amount) for c in charges(journal)] == [(1, 10)]
    assert restore(journal).house == controller.table.house


def test_the_table_refuses_a_charge_it_does_not_owe() -> None:
    """A charge before the period ends, twice in a period, of another amount or another
    player, or for another period length is refused and changes nothing."""
    table = Table(TableConfig("casino-cash", profile_options("casino-cash"), STAKES), True)
    table.apply(te.SitDown(1, "Ana", 200, card="C1"))
    table.apply(te.SitDown(2, "Bea", 200))
    with pytest.raises(IllegalAction, match="owes no time charge"):
        table.apply(te.TimeCharge(1, "C1", 10, 30))
    table.apply(te.Tick(PERIOD))
    with pytest.raises(IllegalAction, match="is 10 chips"):
        table.apply(te.TimeCharge(1, "C1", 20, 30))
    with pytest.raises(IllegalAction, match="own player's card"):
        table.apply(te.TimeCharge(1, "", 10, 30))
    with pytest.raises(IllegalAction, match="for 30 minutes"):
        table.apply(te.TimeCharge(1, "C1", 10, 60))
    assert table.seating.seats[1].stack == 200
    table.apply(te.TimeCharge(1, "C1", 10, 30))
    with pytest.raises(IllegalAction, match="owes no time charge"):
        table.apply(te.TimeCharge(1, "C1", 10, 30))
    table.apply(te.TimeCharge(2, "", 10, 30))
    assert [s.stack for s in table.seating.seats.values()] == [190, 190]
    unraked = Table(TableConfig("casino-cash", profile_options("casino-cash"), Stakes()), True)
    unraked.apply(te.SitDown(1, "Ana", 200))
    unraked.apply(te.Tick(PERIOD))
    with pytest.raises(IllegalAction, match="charge no time"):
        unraked.apply(te.TimeCharge(1, "", 1, 30))


@pytest.mark.parametrize(
    "bad",
    [
        te.TimeCharge(1, "C1", 10.0, 30),  # type: ignore[arg-type]
        te.TimeCharge(True, "C1", 10, 30),  # type: ignore[arg-type]
        te.TimeCharge(1, "C1", 10, 30.0),  # type: ignore[arg-type]
    ],
)
def test_a_charge_that_is_not_whole_chips_is_refused(bad: te.TimeCharge) -> None:
    """A damaged record whose amount, seat or minutes is not a whole number (10.0, True)
    is refused: it once made the stack a float (chips are integers)."""
    table = Table(TableConfig("casino-cash", profile_options("casino-cash"), STAKES), True)
    table.apply(te.SitDown(1, "Ana", 200, card="C1"))
    table.apply(te.Tick(PERIOD))
    with pytest.raises(IllegalAction) as refused:
        table.apply(bad)
    assert refused.value.key == "error.time_charge.whole"
    assert table.seating.seats[1].stack == 200 and table.house.time_taken == 0
    table.apply(te.TimeCharge(1, "C1", 10, 30))
    assert type(table.seating.seats[1].stack) is int and table.seating.seats[1].stack == 190


def test_replay_rebuilds_the_charges_and_the_next_hand_records_them(
    tmp_path: pathlib.Path,
) -> None:
    """The journal replays to the same stacks and the same book; the next hand's record
    lists the time charges taken before it (``time_charges``), as the history shows."""
    controller, journal = controller_on_journal(tmp_path)
    seat_three(controller)
    controller.apply(te.SetButton(1))
    controller.tick(PERIOD)
    for event in (te.Shuffle(), te.Cut(), *map(te.CardDrawn, parse_cards("AhKd7cAsKh2d"))):
        assert controller.apply(event)
    for seat in (1, 2):
        assert controller.apply(te.Act(seat, "fold"))
    record = controller.table.records[-1]
    assert record["time_charges"] == [
        {"seat": n, "player": f"C{n}", "amount": 10, "minutes": 30, "at": PERIOD} for n in (1, 2, 3)
    ]
    brought = sum(record["starting_stacks"].values())
    assert sum(record["finishing_stacks"].values()) == brought  # charged before the hand
    restored = restore(journal)
    assert restored.seating.seats == controller.table.seating.seats
    assert restored.house == controller.table.house
    assert restored.records[-1]["time_charges"] == record["time_charges"]


def test_the_seats_and_the_console_show_the_charge_in_both_languages(
    tmp_path: pathlib.Path,
) -> None:
    """The seat's screen says what its player paid ("Tiempo 10 · 30 min"); the console
    says the whole collection ("Tiempo cobrado: asiento 1 10, ...")."""
    controller, _journal = controller_on_journal(tmp_path)
    seat_three(controller)
    table = controller.table
    assert seat_view(table, 2, "es", controller)["house"]["lines"] == []
    controller.tick(PERIOD)
    assert seat_view(table, 2, "es", controller)["house"]["lines"] == ["Tiempo 10 · 30 min"]
    assert seat_view(table, 2, "en", controller)["house"]["lines"] == ["Time 10 · 30 min"]
    lines = console_view(table, "es", controller)["house"]["lines"]
    assert lines == ["Tiempo cobrado: asiento 1 10, asiento 2 10, asiento 3 10"]


def test_a_rake_and_a_time_charge_together_are_refused_with_a_sentence() -> None:
    """The house takes a rake or a time charge, not both; a tournament charges no time;
    the period and the chip unit are checked."""
    base = '[table]\nprofile = "casino-cash"\nsmall_blind = 5\nbig_blind = 10\nchip_unit = 5\n'
    config = load_table_config(base + "time_charge = 10\ntime_charge_minutes = 60\n")
    assert config.stakes.time_charge == 10 and config.hand_config().rake is None
    bad = {
        "rake_basis_points = 500\ntime_charge = 10\n": "config.time_charge.with_rake",
        "time_charge = 7\n": "config.time_charge.unit",
        "time_charge = 10\ntime_charge_minutes = 0\n": "config.time_charge.minutes",
        "time_charge = -5\n": "config.time_charge.amount",
    }
    for extra, key in bad.items():
        with pytest.raises(ConfigError) as refused:
            load_table_config(base + extra)
        assert refused.value.key == key
    with pytest.raises(ConfigError) as refused:
        load_table_config(
            '[table]\nprofile = "tda-tournament"\ntime_charge = 10\n', source="t.toml"
        )
    assert refused.value.key == "config.time_charge.not_cash"


def test_config_check_names_a_rake_with_a_time_charge_in_both_languages() -> None:
    """``config check`` says why stakes with both a rake and a time charge are refused,
    in English and in Spanish with no English word left."""
    import tomllib

    from firmware.cli.config_check import check_problems
    from firmware.cli.lang import said_error

    text = '[table]\nprofile = "casino-cash"\nrake_basis_points = 500\ntime_charge = 10\n'
    problems = check_problems(tomllib.loads(text), text, "table.toml")
    keys = [getattr(p, "key", None) for p in problems]
    assert "config.time_charge.with_rake" in keys, [str(p) for p in problems]
    problem = problems[keys.index("config.time_charge.with_rake")]
    assert "one or the other" in said_error(problem, "en")
    assert "uno u otro" in said_error(problem, "es")
