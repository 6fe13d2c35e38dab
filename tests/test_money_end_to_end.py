"""The cash game's money end to end (issue 25): table -> floor -> reports, real events only.

Two cash tables are played by the real table and controller journaling to SQLite, the
dealer and the players being the simulated room's bots (:class:`SimTable`):

* T1, raked 1/2 with a bad-beat jackpot and its drop: the bank opens with a float, a
  stacked deck deals a bad beat that just qualifies (aces full of tens lose to four
  tens), the table decides the award and a floor badge confirms it; the busted players
  rebuy, the bots play on, the cage brings a fill, players cash out and a newcomer sits,
  the four tens become the high hand of their hour (confirmed too), the cage takes a
  credit and the shift is counted 25 chips short; a second shift follows, with a floor's
  stack adjustment, and is counted even.
* T2, 2/5 with a time charge instead of a rake: its clock runs past two periods and the
  controller takes the charges itself before the next hands; a player then cashes out.
* T3, raked, whose simulated chip trays read the rake zone: a hand that agrees, one
  recounted, one confirmed with a badge.

Every record the tables journaled is ingested by the floor's own ingest into a real
PostgreSQL. Then the table's shift report (replayed from its journal alone), the floor's
views and the journal itself must agree to the chip.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgpack
import psycopg
import pytest

from firmware.cli.main import main
from firmware.engine.cards import parse_cards
from firmware.floor.simroom import SimTable
from firmware.floor.store import books, central
from firmware.floor.store.ingest import Ingested
from firmware.i18n import tr
from firmware.service.controller import Controller
from firmware.service.floorwire import read_outbox
from firmware.service.journal import Journal
from firmware.service.recovery import store_table_setup, table_from_setup
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.bank import expected_on_table
from firmware.table.options import load_table_config
from firmware.table.script import parse_event
from firmware.table.shiftreport import LINES, Shift, shift_report
from firmware.table.table import Table
from hal_sim.fakes import FakeTrays
from tests.floor_kit import ingest_bodies, pg_conninfo, pg_server, run

__all__ = ["pg_conninfo", "pg_server"]

pytestmark = pytest.mark.xdist_group("floor")

NIGHT = datetime(2026, 3, 10, 1, 0, tzinfo=UTC).timestamp()
STEP = 5.0
PIT = ("S-ANA", "S-LUIS")
FLOOR_BADGE = "S-FLOOR"
SEED_FUND = 1000

T1_CONFIG = f"""
[table]
profile = "casino-cash"
small_blind = 1
big_blind = 2
rake_basis_points = 500
rake_cap = 20

[jackpot]
qualifying_hand = "AAATT"
drop_percent = 1
fund = {SEED_FUND}
high_hand = "TTTT2"
high_hand_prize = 300
"""

T2_CONFIG = """
[table]
profile = "casino-cash"
small_blind = 2
big_blind = 5
time_charge = 6
time_charge_minutes = 30
"""

BAD_BEAT = """setbutton 1
shuffle
cut
draw Ah Th 2c 4c Ad Ts 3c 5c
4 allin
1 call
2 call
3 call
draw 6d As Tc Td 6h 2h 7d 3s"""
"""Seat 2's aces full of tens (both aces play) lose to seat 3's four tens, four dealt in."""


class Played:
    """One cash table: the real table and controller on a journal, bots at the seats."""

    def __init__(self, folder: Path, name: str, config_text: str, seed: int) -> None:
        folder.mkdir(parents=True)
        self.folder = folder
        self.sim = SimTable(name, str(folder / "sim"), None, seats=6, seed=seed, pace=0.0)
        self.sim.journal.close()
        self.clock = 0.0
        config = load_table_config(config_text)
        self.sim.journal = Journal(str(folder / "journal.sqlite"), clock=self.wall)
        store_table_setup(self.sim.journal, config, True, [])
        self.sim.table = Table(config, deck_ready=True)
        self.sim.controller = Controller(
            self.sim.table, {}, TagRegistry(":memory:"), self.sim._journal, lambda: self.clock
        )
        self.sim.controller.wall = self.wall
        self.name = name

    def wall(self) -> float:
        return NIGHT + self.clock

    @property
    def table(self) -> Table:
        return self.sim.table

    def apply(self, event: te.TableEvent) -> None:
        """The table must take it (journaled and applied through the controller)."""
        assert self.sim.controller.apply(event), (event, self.sim.controller.alerts)

    def script(self, text: str) -> None:
        for number, line in enumerate(text.splitlines(), 1):
            for event in parse_event(line, number, self.table):
                self.apply(event)

    def tick(self, seconds: float) -> None:
        self.clock += seconds
        self.sim.controller.apply(te.Tick(self.clock))

    def play(self, hands: int) -> None:
        self.sim.hands_to_play = hands
        while not (self.sim.hands_to_play == 0 and self.table.hand is None):
            self.tick(STEP)
            assert self.sim.step() != "wait"

    def count(self, short: int) -> int:
        """The shift count, ``short`` chips less than the table says is there."""
        expected = expected_on_table(self.table.bank, self.table.seating)
        self.apply(te.ShiftCount(expected - short, expected, PIT))
        return expected

    def records(self) -> list[Any]:
        return read_outbox(self.sim.journal.path, 0, 1_000_000)

    def bodies(self) -> list[bytes]:
        """The journal's records as the table's floor link publishes them."""
        return [
            msgpack.packb(
                {
                    "table": self.name,
                    "seq": n,
                    "time": r.time,
                    "kind": r.kind,
                    "record": r.record,
                    "setup": r.setup,
                }
            )
            for n, r in enumerate(self.records(), start=1)
        ]

    def report(self) -> list[Shift]:
        """The table's own shift report, replayed from its journal alone."""
        journal = self.sim.journal
        return shift_report(table_from_setup(journal.meta("table")), journal.events()).shifts


def _play_t1(folder: Path) -> tuple[Played, dict[str, Any]]:
    t1 = Played(folder, "T1", T1_CONFIG, seed=5)
    t1.apply(te.BankOpen(20_000, PIT))
    for seat, name in ((1, "Ana"), (2, "Bruno"), (3, "Carmen"), (4, "Diego")):
        t1.apply(te.SitDown(seat, name, 200, card=f"C-{name.upper()}"))
    t1.script(BAD_BEAT)
    (pending,) = t1.table.jackpot.pending
    assert pending["jackpot"] == "bad_beat" and pending["hand"] == 1
    t1.apply(te.JackpotAward("bad_beat", 1, tuple(pending["shares"]), FLOOR_BADGE))
    t1.play(10)  # the three busted players rebuy first (the bots' dealer sells them chips)
    t1.apply(te.BankFill(5_000, PIT))
    t1.play(8)
    t1.apply(te.CashOut(3))
    t1.apply(te.SitDown(3, "Elena", 300, card="C-ELENA"))
    t1.play(8)
    t1.apply(te.CashOut(1))
    t1.play(4)
    # The bad beat's four tens held the high hand of their hour (from 01:00 UTC); the
    # first hand to end after 02:00 decided it, and a floor badge confirms it.
    assert t1.wall() > NIGHT + 3600
    (high,) = t1.table.jackpot.pending
    assert (high["jackpot"], high["hand"], high["shares"][0]["seat"]) == ("high_hand", 1, 3)
    t1.apply(te.JackpotAward("high_hand", 1, tuple(high["shares"]), FLOOR_BADGE))
    t1.apply(te.BankCredit(3_000, PIT))
    expected = t1.count(short=25)
    # The next shift: its opening is what was counted; it ends with a count that agrees.
    t1.play(4)
    t1.apply(te.CashOut(2))
    # The floor corrects a stack the dealer paid 5 short (TDA-1): a change of the seats'
    # chips no buy-in, cash-out or hand explains, the report's adjustments line.
    seat = min(t1.table.seating.seats)
    mended = t1.table.seating.seats[seat].stack + 5
    t1.apply(te.AdjustStack(seat, mended, "paid short", "S-FLOOR"))
    second = t1.count(short=0)
    return t1, {"award": pending, "high": high, "expected": [expected, second]}


def _play_t2(folder: Path) -> tuple[Played, dict[str, Any]]:
    t2 = Played(folder, "T2", T2_CONFIG, seed=8)
    t2.apply(te.BankOpen(50_000, PIT))
    t2.apply(te.SitDown(2, "Eva", 500, card="C-EVA"))
    t2.apply(te.SitDown(4, "Ana", 400, card="C-ANA"))  # Ana moves on to a second table
    t2.apply(te.SitDown(5, "fabio", 300))  # seated by name: no card
    t2.play(4)
    for _ in range(2):  # two half hours pass: the charges are taken before the next hand
        t2.tick(30 * 60)
        t2.play(3)
    # Eva leaves: what she takes is her stack after the charges, as the floor's replica
    # must also know it (player_sessions.cash_out).
    t2.apply(te.CashOut(2))
    expected = t2.count(short=0)
    return t2, {"expected": [expected]}


@pytest.fixture(scope="module")
def shift(tmp_path_factory: pytest.TempPathFactory, pg_server: Any) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("money")
    conninfo = pg_server.conninfo.replace("dbname=postgres", "dbname=money_e2e")
    with psycopg.connect(pg_server.conninfo, autocommit=True) as conn:
        conn.execute("CREATE DATABASE money_e2e")
    central.migrate(conninfo)
    books.set_room_zone(conninfo, "UTC")
    t1, facts1 = _play_t1(folder / "T1")
    t2, facts2 = _play_t2(folder / "T2")
    for table in (t1, t2):
        done = run(ingest_bodies(conninfo, table.bodies()))
        assert all(isinstance(o, Ingested) for o in done), done
    yield {"conninfo": conninfo, "t1": t1, "t2": t2, "T1": facts1, "T2": facts2}
    for table in (t1, t2):
        table.sim.journal.close()


def _rows(conninfo: str, sql: str) -> list[dict[str, Any]]:
    with psycopg.connect(conninfo) as conn, conn.cursor() as cur:
        cur.execute(sql)
        names = [d.name for d in cur.description or []]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _journal_sums(table: Played) -> dict[str, int]:
    """The money lines counted straight from the journal's records (no replay)."""
    sums = dict.fromkeys(
        (
            "float",
            "fills",
            "credits",
            "buy_ins",
            "rebuys",
            "time_charges",
            "jackpots_paid",
            "promotions_paid",
        ),
        0,
    )
    names = {"bank_open": "float", "bank_fill": "fills", "bank_credit": "credits"}
    for r in table.records():
        if r.kind in names:
            sums[names[r.kind]] += r.record["amount"]
        elif r.kind == "sit":
            sums["buy_ins"] += r.record["chips"]
        elif r.kind in ("rebuy", "seat_rebuy"):
            sums["rebuys"] += r.record["chips"]
        elif r.kind == "time_charge":
            sums["time_charges"] += r.record["amount"]
        elif r.kind == "jackpot_award":
            line = "jackpots_paid" if r.record["jackpot"] == "bad_beat" else "promotions_paid"
            sums[line] += sum(s["amount"] for s in r.record["shares"] if s["share"] != "reserve")
    return sums


def _total(shifts: list[Shift], line: str) -> int:
    return sum(getattr(s, line) for s in shifts)


def test_the_tables_own_shift_report_agrees_with_its_journal_and_its_table(
    shift: dict[str, Any],
) -> None:
    for name in ("t1", "t2"):
        played: Played = shift[name]
        shifts = played.report()
        assert [s.expected for s in shifts] == shift[name.upper()]["expected"]
        for report in shifts:
            assert report.agrees, report
        assert [s.adjustments for s in shifts] == ([0, 5] if name == "t1" else [0])
        assert shifts[0].counted == shifts[0].expected - (25 if name == "t1" else 0)
        sums = _journal_sums(played)
        for line, amount in sums.items():
            assert _total(shifts, line) == amount, (name, line)
        hands = played.table.records
        assert _total(shifts, "hands") == played.table.hand_number
        if name == "t1":
            first, second = shifts
            assert first.rebuys > 0 and first.cash_outs > 0 and first.rake > 0
            assert first.jackpot_drop > 0 and first.jackpots_paid > 0
            assert first.promotions_paid == 300
            assert second.opening == first.counted and second.difference == 0
            assert second.hands == 4 and second.cash_outs > 0
        else:
            # The time charges the hands' records list are the journal's, counted once.
            listed = sum(c["amount"] for h in hands for c in h.get("time_charges", ()))
            assert _total(shifts, "time_charges") == listed == sums["time_charges"] > 0


def test_the_floors_table_shifts_agree_with_the_tables_shift_report(
    shift: dict[str, Any],
) -> None:
    rows = _rows(shift["conninfo"], "SELECT * FROM table_shifts ORDER BY table_id, open_seq")
    for name in ("T1", "T2"):
        shifts = shift[name.lower()].report()
        mine = [r for r in rows if r["table_id"] == name]
        assert len(mine) == len(shifts), name
        for report, row in zip(shifts, mine, strict=True):
            pairs = {
                "opening": report.opening,
                "opening_float": report.float,
                "fills": report.fills,
                "credits": report.credits,
                "buy_ins": report.buy_ins,
                "rebuys": report.rebuys,
                "cash_drop": report.drop,
                "cash_outs": report.cash_outs,
                "rake": report.rake,
                "time_charges": report.time_charges,
                "jackpot_drop": report.jackpot_drop,
                "jackpots_paid": report.jackpots_paid,
                "promotions_paid": report.promotions_paid,
                "adjustments": report.adjustments,
                "counted": report.counted,
                "expected": report.expected,
                "difference": report.difference,
            }
            assert {k: row[k] for k in pairs} == pairs, (name, report.number)
    (room,) = _rows(shift["conninfo"], "SELECT * FROM room_shift_report")
    summed = ("opening", "opening_float", "fills", "credits", "cash_drop", "cash_outs", "rake")
    for column in (*summed, "time_charges", "jackpot_drop", "jackpots_paid", "difference"):
        assert room[column] == sum(r[column] for r in rows), column
    assert (room["shifts"], room["counted_shifts"], room["difference"]) == (3, 3, -25)


def test_pokertable_shift_report_prints_the_floors_figures(
    shift: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The shift report staff print at the table (CSV of ``pokertable shift report``)
    and the floor's ``table_shifts`` are the same numbers, line by line."""
    floor = {
        "opening": "opening",
        "float": "opening_float",
        "drop": "cash_drop",
        **{n: n for n in LINES if n not in ("opening", "float", "drop")},
    }
    rows = _rows(shift["conninfo"], "SELECT * FROM table_shifts ORDER BY table_id, open_seq")
    for name in ("T1", "T2"):
        folder = shift[name.lower()].folder
        assert (
            main(["shift", "report", "--data", str(folder), "--lang", "en", "--zone", "UTC"]) == 0
        )
        head, *printed = list(csv.reader(io.StringIO(capsys.readouterr().out)))
        names = ["shift", "started", "ended", "hands", *LINES, "staff"]
        assert head == [tr(f"shift.line.{n}", "en") for n in names]
        mine = [r for r in rows if r["table_id"] == name]
        assert len(printed) == len(mine) > 0
        for line, row in zip(printed, mine, strict=True):
            values = dict(zip(names, line, strict=True))
            assert {n: int(values[n]) for n in floor} == {n: row[c] for n, c in floor.items()}


def test_revenue_counts_each_time_charge_once_and_the_rake_apart_from_the_drop(
    shift: dict[str, Any],
) -> None:
    rows = _rows(shift["conninfo"], "SELECT * FROM revenue_by_table_day")
    for name in ("T1", "T2"):
        shifts = shift[name.lower()].report()
        mine = [r for r in rows if r["table_id"] == name]
        rake, charged = _total(shifts, "rake"), _total(shifts, "time_charges")
        assert sum(r["rake"] for r in mine) == rake
        assert sum(r["jackpot_drop"] for r in mine) == _total(shifts, "jackpot_drop")
        assert sum(r["time_charges"] for r in mine) == charged
        assert sum(r["revenue"] for r in mine) == rake + charged
        assert sum(r["hands"] for r in mine) == _total(shifts, "hands")


def test_the_floors_jackpot_fund_is_the_tables(shift: dict[str, Any]) -> None:
    t1: Played = shift["t1"]
    (fund,) = _rows(shift["conninfo"], "SELECT * FROM jackpot_fund")
    shifts = t1.report()
    award = shift["T1"]["award"]
    paid = sum(s["amount"] for s in award["shares"] if s["share"] != "reserve")
    assert fund["dropped"] == _total(shifts, "jackpot_drop")
    assert fund["bad_beat_paid"] == _total(shifts, "jackpots_paid") == paid
    assert fund["promotions_paid"] == _total(shifts, "promotions_paid") == 300
    # The table's fund: its seed, plus every drop, less what the bad beat paid (its
    # reserve stays in the fund). The floor sees no seed (it is in no money record).
    assert t1.table.jackpot.fund == SEED_FUND + fund["balance"]
    ledger = _rows(shift["conninfo"], "SELECT * FROM jackpot_ledger")
    assert sum(r["amount"] for r in ledger) == fund["balance"]
    awards = _rows(shift["conninfo"], "SELECT * FROM jackpot_awards ORDER BY seq, seat")
    shares = [*award["shares"], *shift["T1"]["high"]["shares"]]
    assert sorted((a["seat"], a["player"], a["share"], a["amount"]) for a in awards) == sorted(
        (s["seat"], s["player"], s["share"], s["amount"]) for s in shares
    )
    assert {a["staff"] for a in awards} == {FLOOR_BADGE}


def test_player_sessions_hold_every_chip_bought_and_cashed_out(shift: dict[str, Any]) -> None:
    sessions = _rows(shift["conninfo"], "SELECT * FROM player_sessions")
    for name in ("T1", "T2"):
        played: Played = shift[name.lower()]
        shifts = played.report()
        mine = [s for s in sessions if s["table_id"] == name]
        assert sum(s["buy_in"] for s in mine) == _total(shifts, "buy_ins")
        assert sum(s["rebuys"] for s in mine) == _total(shifts, "rebuys")
        assert sum(s["cash_out"] or 0 for s in mine) == _total(shifts, "cash_outs") > 0
        still = {(s["seat"], s["player"]) for s in mine if s["stood_at"] is None}
        seated = {(n, s.player) for n, s in played.table.seating.seats.items()}
        assert still == seated
    hands = {s["card"]: s["hands"] for s in sessions if s["table_id"] == "T1"}
    assert hands["C-BRUNO"] > 1  # the bad beat's loser rebought and played on


# --- the rake zone: the real trays' comparisons, one row per difference ----------------

ZONE_CHIPS = [f"1{n:03X}" for n in range(40)]  # chips of 1


def _raked_hand(controller: Controller) -> int:
    """Seat 1 raises to 20, both blinds call, seat 2 bets the flop, the others fold."""
    flow: list[te.TableEvent] = [te.SetButton(1), te.Shuffle(), te.Cut()]
    flow += map(te.CardDrawn, parse_cards("AhKd7cAsKh2d"))
    flow += [te.Act(1, "raise", 20), te.Act(2, "call"), te.Act(3, "call")]
    flow += map(te.CardDrawn, parse_cards("3c4d5h9s"))
    flow += [te.Act(2, "bet", 40), te.Act(3, "fold"), te.Act(1, "fold")]
    for event in flow:
        assert controller.apply(event), (event, controller.alerts)
    return int(controller.table.records[-1]["rake"])


def test_the_rake_zone_view_has_one_row_per_difference_and_how_it_was_resolved(
    tmp_path: Path, pg_conninfo: str
) -> None:
    """Three raked hands on a table whose trays read the rake zone: the first agrees, the
    second is a chip short until the dealer adds it and recounts, the third a chip over
    and confirmed with a badge. The journal holds five comparisons; the floor lists the
    two differences."""
    trays = FakeTrays("trays", {"zones": ["pot", "rake"]})
    played = Played(tmp_path / "T3", "T3", T1_CONFIG.split("[jackpot]")[0], seed=1)
    registry = TagRegistry(str(tmp_path / "tags.sqlite"))
    registry.add_chip_range("1000", "10FF", 1)
    controller = Controller(
        played.table, {"trays": trays}, registry, played.sim._journal, lambda: played.clock
    )
    controller.wall = played.wall
    played.sim.controller = controller
    trays.open(controller.post)
    for seat in (1, 2, 3):
        played.apply(te.SitDown(seat, f"P{seat}", 200))
    chips = iter(ZONE_CHIPS)
    in_zone: list[str] = []

    def drop(count: int) -> None:
        in_zone.extend(next(chips) for _ in range(count))
        trays.place("rake", in_zone)
        controller.run_pending()

    def empty() -> None:  # the dealer drops the zone's chips into the drop box
        trays.remove("rake", in_zone)
        in_zone.clear()
        controller.run_pending()

    drop(_raked_hand(controller))
    rake = _raked_hand(controller)  # the next hand starts: the zone agreed
    empty()
    drop(rake - 1)
    assert controller.apply(te.SetButton(1)) and not controller.apply(te.Shuffle())
    drop(1)
    controller.rake_zone_answer("recount", "")
    empty()
    rake = _raked_hand(controller)
    empty()
    drop(rake + 1)
    assert not controller.apply(te.Shuffle())
    controller.rake_zone_answer("confirm", "B-0042")
    assert controller.apply(te.Shuffle())
    zone = [r.record for r in played.records() if r.kind == "rake_zone"]
    assert [(z["hand"], z["read"] - z["computed"], z["resolved_by"]) for z in zone] == [
        (1, 0, ""), (2, -1, ""), (2, 0, ""), (3, 1, ""), (3, 1, "B-0042")
    ]  # fmt: skip
    central.migrate(pg_conninfo)
    done = run(ingest_bodies(pg_conninfo, played.bodies()))
    assert all(isinstance(o, Ingested) for o in done), done
    rows = _rows(pg_conninfo, "SELECT * FROM rake_zone_checks ORDER BY seq")
    assert [
        (r["hand"], r["difference"], r["resolution"], r["resolved_by"], r["recount"]) for r in rows
    ] == [(2, -1, "recounted", "", rake), (3, 1, "confirmed", "B-0042", rake + 1)]
    played.sim.journal.close()
