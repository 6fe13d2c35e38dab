"""The table's bank (TABLE-BANK): float, fills, credits with two different badges, the
shift count, and a shift report that reconciles to the chip.

A simulated shift is played by :class:`hal_sim.table_soak.Soak` (random players with
rebuys and cash-outs, raked pots) on a real SQLite journal; the soak keeps its own
ledger of every chip brought, taken out and raked, and the report, replayed from the
journal alone, must give the same totals and a difference of zero. A chip missing from
the tray shows as a difference of exactly its value, booked once.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest

from firmware.engine.rules import Structure
from firmware.errors import IllegalAction
from firmware.service.journal import Journal
from firmware.service.recovery import restore, table_from_setup
from firmware.table import events as te
from firmware.table.bank import expected_on_table, seat_chips
from firmware.table.house import due_time_charges
from firmware.table.options import Stakes, load_table_config
from firmware.table.script import parse_event
from firmware.table.shiftreport import ShiftReport, shift_report
from firmware.table.snapshot import table_state
from firmware.table.table import Table
from hal_sim.table_soak import Soak

STAKES = Stakes(
    Structure.NO_LIMIT,
    small_blind=5,
    big_blind=10,
    chip_unit=5,
    rake_basis_points=500,
    rake_cap=15,
)
PIT = ("B-100", "B-200")
"""Two different staff badges (a dealer and a floor supervisor)."""


@pytest.fixture
def soak(tmp_path: pathlib.Path) -> Iterator[Soak]:
    journal = Journal(str(tmp_path / "journal.sqlite"))
    played = Soak("casino-cash", seed=11, incident_rate=0.0, journal=journal, stakes=STAKES)
    yield played
    assert played.journal is not None
    played.journal.close()


def _bank(soak: Soak, event: te.TableEvent) -> None:
    """Journal and apply a bank event the table must accept."""
    assert soak._apply(event), event


def _play(soak: Soak, hands: int) -> None:
    for _ in range(hands):
        soak.play_hand()


def _cash_out_one(soak: Soak) -> int:
    """Cash out the seat with the most chips (between hands); the chips it took."""
    number, seat = max(soak.table.seating.seats.items(), key=lambda kv: kv[1].stack + kv[1].rebuy)
    chips = seat.stack + seat.rebuy
    assert soak._apply(te.CashOut(number))
    soak.result.chips_out += chips
    return chips


def _report(soak: Soak) -> ShiftReport:
    """The report replayed from the journal alone, on a fresh table from its set-up."""
    assert soak.journal is not None
    return shift_report(table_from_setup(soak.journal.meta("table")), soak.journal.events())


def _on_table(soak: Soak, tray: int) -> int:
    """What staff count: the tray as the test kept it, plus the chips on the seats."""
    return tray + seat_chips(soak.table.seating)


def test_a_simulated_shift_reconciles_to_the_chip(soak: Soak) -> None:
    """Float, hands with rake, rebuys, a fill, a credit and cash-outs: every total of the
    report equals the soak's own ledger and the bank movements made, and the count
    (the tray as kept plus the seats) differs from the expected by zero."""
    tray = 6000
    _bank(soak, te.BankOpen(6000, PIT))
    _play(soak, 25)
    _bank(soak, te.BankFill(2500, ("B-300", "B-100")))
    tray += 2500
    _play(soak, 25)
    out = _cash_out_one(soak)
    _bank(soak, te.BankCredit(1500, PIT))
    tray -= 1500
    _play(soak, 25)
    counted = _on_table(soak, tray)
    expected = expected_on_table(soak.table.bank, soak.table.seating)
    _bank(soak, te.ShiftCount(counted, expected, PIT))
    [shift] = _report(soak).shifts
    assert (shift.float, shift.fills, shift.credits) == (6000, 2500, 1500)
    assert shift.drop == shift.buy_ins + shift.rebuys == soak.result.chips_in
    assert shift.rebuys > 0, "nobody rebought in 75 hands: the test proves less"
    assert shift.cash_outs == soak.result.chips_out >= out > 0
    assert shift.rake == soak.raked > 0
    assert shift.hands == soak.table.hand_number == 75
    assert (shift.jackpot_drop, shift.time_charges, shift.adjustments) == (0, 0, 0)
    assert shift.expected == (
        6000 + 2500 - 1500 + soak.result.chips_in - soak.result.chips_out - soak.raked
    )
    assert shift.expected == expected == counted and shift.difference == 0
    assert shift.agrees and shift.staff == PIT
    assert [m["kind"] for m in shift.movements] == ["bank_open", "bank_fill", "bank_credit"]
    assert shift.movements[1]["staff"] == ["B-300", "B-100"]


def test_a_missing_chip_is_a_difference_of_exactly_its_value_booked_once(soak: Soak) -> None:
    """A 25 chip gone from the tray: the count is 25 short and the report says -25; the
    next shift starts from what was counted, so it balances again (not -25 twice)."""
    tray = 4000
    _bank(soak, te.BankOpen(tray, PIT))
    _play(soak, 20)
    tray -= 25  # a chip leaves the tray unseen
    expected = expected_on_table(soak.table.bank, soak.table.seating)
    _bank(soak, te.ShiftCount(_on_table(soak, tray), expected, PIT))
    _play(soak, 20)
    _bank(soak, te.BankFill(1000, PIT))
    tray += 1000
    expected = expected_on_table(soak.table.bank, soak.table.seating)
    _bank(soak, te.ShiftCount(_on_table(soak, tray), expected, PIT))
    first, second = _report(soak).shifts
    assert first.difference == -25 and first.counted == first.expected - 25
    assert second.opening == first.counted
    assert second.difference == 0 and second.fills == 1000
    assert first.agrees and second.agrees


def test_the_report_keeps_an_open_shift_uncounted(soak: Soak) -> None:
    """Hands after the last count are an open shift: its expected, no count, no difference."""
    _bank(soak, te.BankOpen(3000, PIT))
    _play(soak, 5)
    [shift] = _report(soak).shifts
    assert shift.counted is None and shift.difference is None
    assert shift.expected == expected_on_table(soak.table.bank, soak.table.seating)


def test_the_report_is_a_function_of_the_journal(soak: Soak) -> None:
    """Two replays of the same journal give the same report, line for line."""
    _bank(soak, te.BankOpen(3000, PIT))
    _play(soak, 10)
    first, second = _report(soak), _report(soak)
    assert [s.lines() for s in first.shifts] == [s.lines() for s in second.shifts]
    assert first.shifts[0].hands == 10


def _fresh() -> Table:
    soak = Soak("casino-cash", seed=5, incident_rate=0.0, stakes=STAKES)
    return soak.table


REFUSALS = [
    ([], te.BankFill(100, PIT), "error.bank.not_open"),
    ([], te.ShiftCount(0, 0, PIT), "error.bank.not_open_count"),
    ([], te.BankOpen(100, ("B-100",)), "error.bank.two_badges"),
    ([], te.BankOpen(100, ("B-100", "")), "error.bank.two_badges"),
    ([], te.BankOpen(100, ("B-100", "B-100")), "error.bank.same_badge"),
    ([], te.BankOpen(0, PIT), "error.bank.amount"),
    ([te.BankOpen(100, PIT)], te.BankOpen(100, PIT), "error.bank.open_twice"),
    ([te.BankOpen(100, PIT)], te.BankCredit(101, PIT), "error.bank.credit_high"),
    ([te.BankOpen(100, PIT)], te.BankFill(50, ("B-200", "B-200")), "error.bank.same_badge"),
]


@pytest.mark.parametrize(("before", "event", "key"), REFUSALS)
def test_a_refused_bank_movement_says_why_and_changes_nothing(
    before: list[te.TableEvent], event: te.TableEvent, key: str
) -> None:
    table = _fresh()
    for earlier in before:
        table.apply(earlier)
    state = table_state(table)
    with pytest.raises(IllegalAction) as refused:
        table.apply(event)
    assert refused.value.key == key
    assert str(refused.value).endswith(".") and len(str(refused.value).split()) > 6
    assert table_state(table) == state


def test_a_shift_closed_twice_a_count_in_a_hand_and_a_wrong_expected_are_refused() -> None:
    table = _fresh()
    table.apply(te.BankOpen(1000, PIT))
    expected = expected_on_table(table.bank, table.seating)
    with pytest.raises(IllegalAction) as wrong:
        table.apply(te.ShiftCount(expected, expected + 5, PIT))
    assert wrong.value.key == "error.bank.expected"
    with pytest.raises(IllegalAction) as floating:  # equal, but chips are whole numbers
        table.apply(te.ShiftCount(expected, float(expected), PIT))  # type: ignore[arg-type]
    assert floating.value.key == "error.bank.expected"
    table.apply(te.ShiftCount(expected, expected, PIT))
    with pytest.raises(IllegalAction) as twice:
        table.apply(te.ShiftCount(expected, expected, PIT))
    assert twice.value.key == "error.bank.counted_twice"
    table.apply(te.Shuffle())
    with pytest.raises(IllegalAction) as in_hand:
        table.apply(te.ShiftCount(expected, expected, PIT))
    assert in_hand.value.key == "error.bank.count_in_hand"


def test_the_bank_survives_a_restart_from_a_snapshot(tmp_path: pathlib.Path) -> None:
    """The tray and the last count are in the snapshot recovery starts from."""
    journal = Journal(str(tmp_path / "journal.sqlite"))
    soak = Soak(
        "casino-cash", seed=3, incident_rate=0.0, journal=journal, stakes=STAKES, snapshot_every=2
    )
    _bank(soak, te.BankOpen(2000, PIT))
    _play(soak, 5)
    _bank(soak, te.BankCredit(700, PIT))
    _play(soak, 4)  # the last snapshot is after the credit
    assert soak.journal is not None and soak.journal.latest_snapshot() is not None
    back = restore(soak.journal)
    assert back.bank == soak.table.bank and back.bank.tray == 1300
    assert expected_on_table(back.bank, back.seating) == expected_on_table(
        soak.table.bank, soak.table.seating
    )
    soak.journal.close()


def test_every_bank_event_has_a_script_line_that_reads_back() -> None:
    from firmware.table.script_write import format_event

    table = _fresh()
    for event in (
        te.BankOpen(500, PIT),
        te.BankFill(200, ("Ana Pérez", "B-2")),
        te.BankCredit(100, PIT),
        te.ShiftCount(900, 905, PIT),
    ):
        assert parse_event(format_event(event), 1, table) == [event]


# --- a jackpot drop, a jackpot, a promotion and time charges: the real events -------

JACKPOT_CONFIG = """
[table]
profile = "casino-cash"
small_blind = 1
big_blind = 2
rake_basis_points = 500
rake_cap = 20

[jackpot]
qualifying_hand = "AAATT"
drop_percent = 1
fund = 1000
high_hand = "TTTT2"
high_hand_prize = 300
"""

BAD_BEAT = """sit 1 Ana 200
sit 2 Bruno 200 card:P-2
sit 3 Carmen 200
sit 4 Diego 200
setbutton 1
shuffle
cut
draw Ah Th 2c 4c Ad Ts 3c 5c
4 allin
1 call
2 call
3 call
draw 6d As Tc Td 6h 2h 7d 3s"""
"""Seat 2's aces full of tens lose to seat 3's four tens (a bad beat that just
qualifies); the four tens are also the high hand of their hour."""


def _script(table: Table, text: str) -> None:
    for number, line in enumerate(text.splitlines(), 1):
        for event in parse_event(line, number, table):
            table.apply(event)


def test_a_shift_with_a_jackpot_drop_a_jackpot_and_a_promotion_reconciles() -> None:
    """The table's own jackpot: the drop leaves the table with the rake; the bad beat it
    decided from the cards and the high hand of the hour, each confirmed by a floor
    badge, are paid by the cage (no seat's chips change, nor the tray's) and listed on
    their own lines, the reserve share staying in the fund; the difference is zero."""
    config = load_table_config(JACKPOT_CONFIG)
    table = Table(config, deck_ready=True)
    ten_twenty = 1_780_000_000 // 3600 * 3600 + 20 * 60
    _script(table, f"wallclock {ten_twenty}")
    table.apply(te.BankOpen(5000, PIT))
    _script(table, BAD_BEAT)
    (bad_beat,) = table.jackpot.pending
    chips = seat_chips(table.seating)
    table.apply(te.JackpotAward("bad_beat", 1, tuple(bad_beat["shares"]), "B-FLOOR"))
    assert seat_chips(table.seating) == chips and table.bank.tray == 5000
    table.apply(te.Rebuy(1, 200))
    table.apply(te.CashOut(2))  # busted: leaves with nothing
    _script(table, "sit 5 Elena 300\ncashout 4\ntick 3000\nshuffle\ncut")
    card = 0
    while table.hand is not None and table.hand.next_card_role()[0] == "hole":
        table.apply(te.CardDrawn(card))
        card += 1
    while table.hand is not None:  # everyone folds to the big blind, after 11:00
        table.apply(te.Act(table.hand.seat(table.hand.hand.actor), "fold"))
    (high,) = table.jackpot.pending
    assert high["jackpot"] == "high_hand"
    table.apply(te.JackpotAward("high_hand", 1, tuple(high["shares"]), "B-FLOOR"))
    table.apply(te.BankFill(1000, PIT))
    carmen = table.seating.seats[3].stack  # the bad beat's pot, less a blind she folded
    table.apply(te.CashOut(3))
    table.apply(te.BankCredit(500, PIT))
    assert table.bank.tray == 5000 + 1000 - 500  # the awards took nothing from the tray
    expected = expected_on_table(table.bank, table.seating)
    table.apply(te.ShiftCount(expected, expected, PIT))
    [shift] = shift_report(Table(config, deck_ready=True), table.log).shifts
    paid = sum(s["amount"] for s in bad_beat["shares"] if s["share"] != "reserve")
    assert (shift.jackpots_paid, shift.promotions_paid) == (paid, 300)
    assert paid == 1008 - bad_beat["shares"][-1]["amount"] and shift.jackpot_drop == 8
    assert table.jackpot.fund == 1000 + shift.jackpot_drop - paid  # the reserve stays
    assert shift.rake == sum(r["rake"] for r in table.records) == 20
    assert (shift.buy_ins, shift.rebuys) == (1100, 200)
    assert shift.cash_outs == carmen > 700  # seats 2 and 4 left with nothing
    assert shift.expected == 5000 + 1000 - 500 + 1300 - carmen - 20 - 8 == expected
    assert shift.adjustments == 0 and shift.difference == 0 and shift.agrees


def test_a_shift_with_time_charges_reconciles() -> None:
    """The time charge the table takes between hands (HOUSE-TIME) leaves the table to the
    house, like the rake: its own line, and the difference is still zero."""
    stakes = Stakes(Structure.NO_LIMIT, small_blind=5, big_blind=10, chip_unit=5, time_charge=10)
    soak = Soak("casino-cash", seed=13, incident_rate=0.0, stakes=stakes)
    table = soak.table
    tray = 5000
    _bank(soak, te.BankOpen(tray, PIT))
    charged = 0
    for _ in range(60):
        soak.play_hand()
        for charge in due_time_charges(table):  # as the controller takes them
            _bank(soak, charge)
            charged += charge.amount
            soak.raked += charge.amount  # the house's: they leave the table
    assert charged > 0 and table.house.time_taken == charged
    _bank(soak, te.BankFill(650, PIT))
    tray += 650
    expected = expected_on_table(table.bank, table.seating)
    _bank(soak, te.ShiftCount(_on_table(soak, tray), expected, PIT))
    [shift] = shift_report(Table(table.config, deck_ready=True), table.log).shifts
    assert shift.time_charges == charged
    assert (shift.rake, shift.jackpot_drop) == (0, 0)
    assert shift.drop == soak.result.chips_in and shift.cash_outs == soak.result.chips_out
    assert shift.adjustments == 0 and shift.difference == 0 and shift.agrees
