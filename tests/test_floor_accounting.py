"""The accountant's views (issue 25, items 3 and 5): every query in docs/accounting.md runs
against a real PostgreSQL holding two cash tables' nights, ingested through the floor's
own ingest from journal-shaped records, and the totals reconcile to the chip.

Table T1 is a raked 1/2 table played by the real table (bots, a virtual deck): buy-ins
by player card and by name, the bots' rebuys, cash-outs, a player who sits out and comes
back. T2 is a 2/5 table with time charges, a bad-beat jackpot and a high-hand promotion.
The records of the kinds other branches are adding (MONEY.md: ``time_charge``,
``jackpot_award``, ``bank_open`` / ``bank_fill`` / ``bank_credit`` / ``shift_count``) are
built here and spliced into the tables' journals, as the tables will journal them. The
records' times are laid over a night that crosses midnight in the room's zone
(America/Lima, UTC-5), so every "per day" is checked on both sides of it.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import msgpack
import psycopg
import pytest

from firmware.floor.simroom import SimTable
from firmware.floor.store import books, central
from firmware.floor.store.ingest import Ingested
from firmware.service.controller import Controller
from firmware.service.floorwire import read_outbox
from firmware.service.journal import Journal
from firmware.service.recovery import store_table_setup
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from tests.floor_kit import ingest_bodies, pg_conninfo, pg_server, run

__all__ = ["pg_conninfo", "pg_server"]

pytestmark = pytest.mark.xdist_group("floor")

DOC = Path(__file__).resolve().parents[1] / "docs" / "accounting.md"
ZONE = "America/Lima"
NIGHT = datetime(2026, 3, 10, 4, 0, tzinfo=UTC).timestamp()
"""23:00 in Lima: the tables' clocks start here and move STEP seconds a dealer's or bot's
step (an injected clock: the journal's times, the hands' wall-clock times)."""
STEP = 5.0
STAFF = ["S-ANA", "S-LUIS"]


class Night:
    """One cash table played by the real table, its journal read back with money records
    spliced in where the script says."""

    def __init__(self, folder: Path, name: str, stakes: Stakes, seed: int) -> None:
        self.sim = SimTable(name, str(folder / "sim"), None, seats=6, seed=seed, pace=0.0)
        self.sim.journal.close()
        self.clock = 0.0
        config = TableConfig("home", profile_options("home", max_seats=6), stakes)
        self.sim.journal = Journal(str(folder / "journal.sqlite"), clock=self.wall)
        store_table_setup(self.sim.journal, config, True, [])
        self.sim.table = Table(config, deck_ready=True)
        self.sim.controller = Controller(
            self.sim.table, {}, TagRegistry(":memory:"), self.sim._journal, lambda: self.clock
        )
        self.sim.controller.wall = self.wall
        self.name = name
        self.spliced: dict[int, list[dict[str, Any]]] = defaultdict(list)
        """Money records to put after the journal's record N."""
        self.cashed: list[tuple[int, str, int]] = []
        """(seat, player, chips) of each cash-out, as the table held them."""

    def wall(self) -> float:
        return NIGHT + self.clock

    @property
    def table(self) -> Table:
        return self.sim.table

    def journaled(self) -> int:
        return len(read_outbox(self.sim.journal.path, 0, 1_000_000))

    def apply(self, event: te.TableEvent) -> None:
        if isinstance(event, te.CashOut):
            seat = self.table.seating.seats[event.seat]
            self.cashed.append((event.seat, seat.player, seat.stack + seat.rebuy))
        assert self.sim.controller.apply(event), event

    def play(self, hands: int) -> None:
        self.sim.hands_to_play = hands
        while not (self.sim.hands_to_play == 0 and self.table.hand is None):
            self.clock += STEP
            self.sim.controller.apply(te.Tick(self.clock))  # the table's clock moves on
            assert self.sim.step() != "wait"

    def money(self, kind: str, **fields: Any) -> None:
        self.spliced[self.journaled()].append({"kind": kind, **fields})

    def bodies(self) -> list[bytes]:
        """The night's messages: the journal's records with the money records spliced in
        (journaled at the time of the record before them), numbered again."""
        records = read_outbox(self.sim.journal.path, 0, 1_000_000)
        out: list[tuple[float, str, dict[str, Any], dict[str, Any] | None]] = []
        for index, record in enumerate(records, start=1):
            out.append((record.time, record.kind, record.record, record.setup))
            out.extend((record.time, m["kind"], m, None) for m in self.spliced.get(index, []))
        return [
            msgpack.packb(
                {
                    "table": self.name,
                    "seq": n,
                    "time": time,
                    "kind": kind,
                    "record": record,
                    "setup": setup,
                }
            )
            for n, (time, kind, record, setup) in enumerate(out, start=1)
        ]


def _play_t1(folder: Path) -> Night:
    night = Night(
        folder,
        "T1",
        Stakes(
            small_blind=1,
            big_blind=2,
            rake_basis_points=1000,
            rake_cap=4,
            rake_no_flop_no_drop=False,
        ),
        seed=3,
    )
    night.money("bank_open", amount=20_000, staff=STAFF)
    night.apply(te.SitDown(1, "Ana", 200, card="C-ANA"))
    night.apply(te.SitDown(3, "Beto", 150, card="C-BETO"))
    night.apply(te.SitDown(5, "carla", 100))  # seated by name: no card
    night.apply(te.SitDown(6, "Fede", 120, card="C-FEDE"))
    night.play(8)
    night.apply(te.SitOut(5))
    night.apply(te.SitOut(5))  # again: nothing changes, no second row
    night.play(4)
    night.apply(te.SitOut(5, out=False))
    night.money("bank_fill", amount=5_000, staff=STAFF)
    # As the table journals them: the comparison that differs, the dealer's confirmation.
    night.money("rake_zone", hand=12, read=3, computed=4, resolved_by="")
    night.money("rake_zone", hand=12, read=3, computed=4, resolved_by=STAFF[0])
    night.play(8)
    night.apply(te.CashOut(3))
    night.apply(te.SitDown(3, "Dana", 300, card="C-DANA"))
    night.play(10)
    night.apply(te.CashOut(1))
    night.play(4)
    night.money("bank_credit", amount=3_000, staff=STAFF)
    night.money("shift_count", counted=0, expected=0, staff=STAFF)  # filled in below
    return night


def _play_t2(folder: Path) -> Night:
    night = Night(folder, "T2", Stakes(small_blind=2, big_blind=5), seed=8)
    night.money("bank_open", amount=50_000, staff=STAFF)
    night.apply(te.SitDown(2, "Eva", 500, card="C-EVA"))
    night.apply(te.SitDown(4, "Ana", 400, card="C-ANA"))  # Ana moves on to a second table
    night.play(5)
    for seat, player in ((2, "C-EVA"), (4, "C-ANA")):
        night.money("time_charge", seat=seat, player=player, amount=6, minutes=30)
    night.play(5)
    night.money(
        "jackpot_award",
        jackpot="bad_beat",
        hand=9,
        staff=STAFF[0],
        shares=[
            {"seat": 2, "player": "C-EVA", "share": "loser", "amount": 600},
            {"seat": 4, "player": "C-ANA", "share": "winner", "amount": 300},
            {"seat": 0, "player": "", "share": "reserve", "amount": 100},
        ],
    )
    night.money(
        "jackpot_award",
        jackpot="high_hand",
        hand=10,
        staff=STAFF[1],
        shares=[
            {"seat": 4, "player": "C-ANA", "share": "high_hand", "amount": 250},
        ],
    )
    night.play(3)
    return night


def _day(when: float) -> date:
    return datetime.fromtimestamp(when, UTC).astimezone(ZoneInfo(ZONE)).date()


def doc_queries() -> dict[str, str]:
    """Every query in docs/accounting.md, by the name in its first line (``-- name``)."""
    text = DOC.read_text(encoding="utf-8")
    found = {}
    for block in re.findall(r"```sql\n(.*?)```", text, flags=re.S):
        first = block.splitlines()[0]
        assert first.startswith("-- "), f"a documented query without its name: {first}"
        found[first[3:].strip()] = block
    return found


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory, pg_server: Any) -> dict[str, Any]:
    """Two tables' night in one store: the expected figures, worked out from the tables
    themselves, and the store's connection string."""
    folder = tmp_path_factory.mktemp("night")
    conninfo = pg_server.conninfo.replace("dbname=postgres", "dbname=books_night")
    with psycopg.connect(pg_server.conninfo, autocommit=True) as conn:
        conn.execute("CREATE DATABASE books_night")
    central.migrate(conninfo)
    books.set_room_zone(conninfo, ZONE)
    t1, t2 = _play_t1(folder / "T1"), _play_t2(folder / "T2")
    # The shift's count: the table's bank after the float, the fill, the credit and the
    # chips sold over the shift (the cage helper's `expected`), counted 25 short.
    sold = sum(
        r.record["chips"]
        for r in read_outbox(t1.sim.journal.path, 0, 1_000_000)
        if r.kind in ("sit", "rebuy", "seat_rebuy")
    )
    expected = 20_000 + 5_000 - 3_000 - sold
    t1.spliced[max(t1.spliced)][-1].update(counted=expected - 25, expected=expected)
    outcomes = {}
    for nightly in (t1, t2):
        done = run(ingest_bodies(conninfo, nightly.bodies()))
        assert all(isinstance(o, Ingested) for o in done), done
        outcomes[nightly.name] = [o for o in done if isinstance(o, Ingested)]
    # Two T1 hands also dropped to the jackpot (the jackpot helper's `jackpot_drop`): the
    # same chips the table took, part of them for the jackpot instead of the house.
    with psycopg.connect(conninfo, autocommit=True) as conn:
        dropped = conn.execute(
            "UPDATE hands SET record = record || jsonb_build_object('jackpot_drop', 1, "
            "'rake', (record->>'rake')::int - 1) WHERE table_id = 'T1' AND seq IN (SELECT seq "
            "FROM hands WHERE table_id = 'T1' AND (record->>'rake')::int >= 2 ORDER BY seq "
            "LIMIT 2) RETURNING seq"
        ).fetchall()
    assert len(dropped) == 2
    return {
        "conninfo": conninfo,
        "t1": t1,
        "t2": t2,
        "outcomes": outcomes,
        "sold": sold,
        "expected": expected,
        "drops": {seq for (seq,) in dropped},
    }


def _rows(conninfo: str, sql: str) -> list[dict[str, Any]]:
    with psycopg.connect(conninfo) as conn, conn.cursor() as cur:
        cur.execute(sql)
        names = [d.name for d in cur.description or []]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def test_every_documented_query_runs_and_the_doc_names_every_view(night: dict[str, Any]) -> None:
    queries = doc_queries()
    assert len(queries) >= 12
    views = {
        r["table_name"]
        for r in _rows(
            night["conninfo"],
            "SELECT table_name FROM information_schema.views WHERE table_schema = current_schema()",
        )
    }
    text = DOC.read_text(encoding="utf-8")
    for view in views:
        assert f"`{view}`" in text, f"docs/accounting.md says nothing of the view {view}"
    for name, sql in queries.items():
        rows = _rows(night["conninfo"], sql)
        assert rows, f"the documented query {name!r} found nothing in a night of play"


def _hands_by_day(night: dict[str, Any], table: str) -> dict[date, list[tuple[int, dict]]]:
    days: dict[date, list[tuple[int, dict]]] = defaultdict(list)
    for outcome in night["outcomes"][table]:
        for hand in outcome.hands:
            days[_day(outcome.time)].append((outcome.seq, hand))
    return days


def test_revenue_per_table_per_day_is_the_rake_and_time_charges_on_each_side_of_midnight(
    night: dict[str, Any],
) -> None:
    got = {
        (r["table_id"], r["day"]): r
        for r in _rows(night["conninfo"], doc_queries()["revenue per table per day"])
    }
    t1_days = _hands_by_day(night, "T1")
    assert len(t1_days) == 2, "the night crosses midnight in Lima"
    drops = night["drops"]
    for day, hands in t1_days.items():
        row = got[("T1", day)]
        taken = sum(h["rake"] for _, h in hands)
        assert row["hands"] == len(hands)
        assert row["rake"] + row["jackpot_drop"] == taken
        assert row["jackpot_drop"] == sum(1 for seq, _ in hands if seq in drops)
        assert row["time_charges"] == 0 and row["revenue"] == row["rake"]
    t2 = [r for (t, _), r in got.items() if t == "T2"]
    assert sum(r["rake"] for r in t2) == 0
    assert sum(r["time_charges"] for r in t2) == sum(r["revenue"] for r in t2) == 12


def test_rake_per_stakes_adds_up_to_the_tables_rake(night: dict[str, Any]) -> None:
    rows = _rows(night["conninfo"], doc_queries()["rake per stakes"])
    by_stakes: dict[str, int] = defaultdict(int)
    for r in rows:
        by_stakes[r["stakes"]] += r["rake"]
    t1 = sum(h["rake"] for o in night["outcomes"]["T1"] for h in o.hands)
    assert dict(by_stakes) == {"NL 1/2": t1 - len(night["drops"]), "NL 2/5": 0}


def test_the_jackpot_fund_is_what_was_dropped_less_what_was_paid(night: dict[str, Any]) -> None:
    queries = doc_queries()
    (fund,) = _rows(night["conninfo"], queries["jackpot fund"])
    # The bad beat's reserve share stays in the fund and the high hand is the house's
    # promotion (JACKPOT): neither leaves the fund.
    assert fund == {
        "dropped": 2,
        "bad_beat_paid": 900,
        "promotions_paid": 250,
        "balance": 2 - 900,
    }
    awards = _rows(night["conninfo"], queries["last awards"])
    assert [(a["jackpot"], a["hand"], a["player"], a["amount"]) for a in awards] == [
        ("high_hand", 10, "C-ANA", 250),
        ("bad_beat", 9, "C-EVA", 600),
        ("bad_beat", 9, "C-ANA", 300),
        ("bad_beat", 9, "", 100),
    ]
    ledger = _rows(night["conninfo"], queries["jackpot ledger"])
    assert sum(r["amount"] for r in ledger) == fund["balance"]


def test_rake_zone_mismatches_are_listed_with_who_resolved_them(night: dict[str, Any]) -> None:
    rows = _rows(night["conninfo"], doc_queries()["rake zone mismatches"])
    assert [(r["table_id"], r["hand"], r["difference"], r["resolved_by"]) for r in rows] == [
        ("T1", 12, -1, "S-ANA")
    ]


def _expected_sessions(t: Night) -> list[tuple[int, str, str, int, int, int | None, int]]:
    """(seat, player, card, buy-in, rebuys, cash-out, hands) of each stay, from the table's
    own journal and hand records."""
    records = read_outbox(t.sim.journal.path, 0, 1_000_000)
    stays: list[dict[str, Any]] = []
    open_at: dict[int, dict[str, Any]] = {}
    cashed = iter(t.cashed)
    hands_seen = iter(t.table.records)
    for r in records:
        if r.kind == "sit":
            stay = {
                "seat": r.record["seat"],
                "player": r.record["player"],
                "card": r.record.get("card", ""),
                "buy_in": r.record["chips"],
                "rebuys": 0,
                "cash_out": None,
                "hands": 0,
            }
            stays.append(stay)
            open_at[stay["seat"]] = stay
        elif r.kind in ("rebuy", "seat_rebuy"):
            open_at[r.record["seat"]]["rebuys"] += r.record["chips"]
        elif r.kind == "cash_out":
            seat, _player, chips = next(cashed)
            open_at.pop(seat)["cash_out"] = chips
    for hand in hands_seen:
        for seat, player in hand["players"].items():
            stay = next(
                s for s in reversed(stays) if s["seat"] == int(seat) and s["player"] == player
            )
            stay["hands"] += 1
    return sorted(
        (s["seat"], s["player"], s["card"], s["buy_in"], s["rebuys"], s["cash_out"], s["hands"])
        for s in stays
    )


def test_player_sessions_are_each_stay_with_its_money_hands_and_hours(
    night: dict[str, Any],
) -> None:
    rows = _rows(night["conninfo"], doc_queries()["player sessions"])
    for name in ("T1", "T2"):
        t: Night = night[name.lower()]
        got = sorted(
            (r["seat"], r["player"], r["card"], r["buy_in"], r["rebuys"], r["cash_out"], r["hands"])
            for r in rows
            if r["table_id"] == name
        )
        assert got == _expected_sessions(t)
    assert all("cards" not in r and "hole" not in r for r in rows)
    carla = next(r for r in rows if r["player"] == "carla")
    # Sat out for four hands' records, never stood up: hours to the table's last record.
    assert 0 < carla["hours_sitting_out"] < carla["hours"]
    assert carla["stood_at"] is None and carla["cash_out"] is None
    beto = next(r for r in rows if r["player"] == "Beto")
    journal = read_outbox(night["t1"].sim.journal.path, 0, 1_000_000)
    (left,) = [r.time for r in journal if r.kind == "cash_out" and r.record["seat"] == 3]
    assert beto["sat_at"].timestamp() == NIGHT and beto["stood_at"].timestamp() == left
    assert float(beto["hours"]) == round((left - NIGHT) / 3600, 3) > 0


def test_the_chips_reconcile_buy_ins_rebuys_cash_outs_rake_and_what_is_on_the_table(
    night: dict[str, Any],
) -> None:
    t1: Night = night["t1"]
    sessions = [
        r
        for r in _rows(night["conninfo"], doc_queries()["player sessions"])
        if r["table_id"] == "T1"
    ]
    (revenue,) = _rows(
        night["conninfo"],
        "SELECT sum(rake + jackpot_drop) AS taken FROM revenue_by_table_day WHERE table_id = 'T1'",
    )
    bought = sum(r["buy_in"] + r["rebuys"] for r in sessions)
    cashed = sum(r["cash_out"] or 0 for r in sessions)
    on_table = sum(s.stack + s.rebuy for s in t1.table.seating.seats.values())
    assert bought == night["sold"]
    assert bought - cashed - revenue["taken"] == on_table


def test_hours_per_player_follow_a_card_across_tables(night: dict[str, Any]) -> None:
    rows = {
        r["card"] or r["player"]: r
        for r in _rows(night["conninfo"], doc_queries()["hours per player"])
    }
    ana = rows["C-ANA"]
    assert ana["tables"] == 2 and ana["sessions"] == 2
    sessions = _rows(night["conninfo"], "SELECT * FROM player_sessions WHERE card = 'C-ANA'")
    assert ana["hours"] == sum(s["hours"] for s in sessions)
    assert ana["hands"] == sum(s["hands"] for s in sessions) > 0
    days = _rows(night["conninfo"], doc_queries()["a player's days"])
    assert sum(d["hands"] for d in days) == ana["hands"]


def test_the_shift_report_per_table_and_for_the_room(night: dict[str, Any]) -> None:
    queries = doc_queries()
    shifts = {r["table_id"]: r for r in _rows(night["conninfo"], queries["table shifts"])}
    s1 = shifts["T1"]
    t1_hands = [h for o in night["outcomes"]["T1"] for h in o.hands]
    cashed = sum(chips for _, _, chips in night["t1"].cashed)
    assert (s1["opening_float"], s1["fills"], s1["credits"]) == (20_000, 5_000, 3_000)
    assert s1["cash_drop"] == s1["buy_ins"] + s1["rebuys"] == night["sold"]
    assert s1["cash_outs"] == cashed
    assert s1["rake"] + s1["jackpot_drop"] == sum(h["rake"] for h in t1_hands)
    assert s1["jackpot_drop"] == 2
    assert (s1["counted"], s1["expected"], s1["difference"]) == (
        night["expected"] - 25,
        night["expected"],
        -25,
    )
    s2 = shifts["T2"]
    assert s2["count_seq"] is None and s2["counted"] is None  # not counted yet
    assert (s2["time_charges"], s2["jackpots_paid"], s2["promotions_paid"]) == (12, 900, 250)
    (room,) = _rows(night["conninfo"], queries["room shift report"])
    for column in (
        "opening_float",
        "fills",
        "credits",
        "cash_drop",
        "cash_outs",
        "rake",
        "time_charges",
        "jackpot_drop",
        "jackpots_paid",
        "promotions_paid",
    ):
        assert room[column] == s1[column] + s2[column], column
    assert (room["shifts"], room["counted_shifts"], room["difference"]) == (2, 1, -25)


def test_a_refused_record_and_a_tournament_table_move_no_money(night: dict[str, Any]) -> None:
    # The ingest's replica takes a money move only when the table accepted the record.
    t1: Night = night["t1"]
    table = t1.table
    empty = next(n for n in range(1, 7) if n not in table.seating.seats)
    assert books.seat_move(table, {"kind": "cash_out", "seat": empty}) is None
    assert books.seat_move(table, {"kind": "rebuy", "seat": 1, "chips": True}) is None
    seated = next(iter(table.seating.seats))
    pending = books.seat_move(table, {"kind": "sit_out", "seat": seated, "out": False})
    assert pending is not None and pending.accepted(7, table) is None  # nothing changed
    tournament = SimTable(
        "TX",
        str(night["t1"].sim.journal.path) + ".tx",
        None,
        levels=[{"small_blind": 1, "big_blind": 2, "minutes": 10}],
    )
    try:
        record = {"kind": "sit", "seat": 1, "player": "x", "chips": 5000}
        assert books.seat_move(tournament.table, record) is None
    finally:
        tournament.journal.close()


def test_the_room_zone_comes_from_the_floors_configuration(pg_conninfo: str) -> None:
    from firmware.errors import ConfigError
    from firmware.floor.cli import _serve

    central.migrate(pg_conninfo)
    midnight = "SELECT room_day('2026-03-10 04:30+00'::timestamptz)"
    assert _rows(pg_conninfo, midnight) == [{"room_day": date(2026, 3, 10)}]  # UTC at first
    books.set_room_zone(pg_conninfo, books.room_zone("America/Lima"))
    assert _rows(pg_conninfo, midnight) == [{"room_day": date(2026, 3, 9)}]
    assert books.room_zone(None) == books.room_zone("") != ""  # the system's zone
    config: dict[str, Any] = {
        "nats": {"url": "nats://127.0.0.1:1"},
        "database": {"conninfo": pg_conninfo},
        "room": {"timezone": "Mars/Olympus"},
    }
    with pytest.raises(ConfigError, match="The time zone 'Mars/Olympus' is not known"):
        run(_serve(config, asyncio.Event()))
    config["room"] = {"timezone": "UTC", "currency": "PEN"}
    with pytest.raises(ConfigError, match=r"\[room\] section knows one option: timezone"):
        run(_serve(config, asyncio.Event()))


def test_each_room_counts_days_in_its_own_zone_whatever_the_search_path(
    pg_conninfo: str,
) -> None:
    with psycopg.connect(pg_conninfo, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA lima; CREATE SCHEMA madrid")
    for room, zone in (("lima", "America/Lima"), ("madrid", "Europe/Madrid")):
        conninfo = f"{pg_conninfo} options='-csearch_path={room}'"
        central.migrate(conninfo)
        books.set_room_zone(conninfo, zone)
    moment = "'2026-03-09 23:30+00'::timestamptz"
    rows = _rows(
        f"{pg_conninfo} options='-csearch_path=madrid'",
        f"SELECT lima.room_day({moment}) AS lima, madrid.room_day({moment}) AS madrid, "
        "lima.room_zone() AS zone",
    )
    assert rows == [{"lima": date(2026, 3, 9), "madrid": date(2026, 3, 10), "zone": "America/Lima"}]
