"""The jackpot wired through the whole table (JACKPOT, issue 25 item 2).

A real controller journaling to SQLite, the real server on a Unix socket, the console
as a client (its pygame screen, SDL's dummy driver, makes the confirmation message)
and a seat: a bad beat that just qualifies is decided by the table from the cards it
read, shown pending on the console, refused for a badge that is not a floor member's
(nothing journaled), confirmed with the floor's badge as one ``jackpot_award`` record,
announced on the seats, and rebuilt the same by a replay of the journal; one that just
misses (aces full of nines against aces full of tens) decides nothing. The jackpot
drop leaves the table with the rake: the chips are conserved.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pathlib
from collections.abc import Iterator
from typing import Any

import pygame
import pytest

from firmware.errors import IllegalAction
from firmware.hal import IdCardInserted
from firmware.i18n import tr
from firmware.table import event_records
from firmware.table import events as te
from firmware.table.options import load_table_config
from firmware.table.script import parse_event
from tests.hardening_kit import BADGES, GUARD, JournaledRig, answer, table_fingerprint
from tests.test_ui_seat import tap
from ui.console import ConsoleScreen
from ui.seat import SeatScreen

CONFIG = """
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
"""

SEATS = """sit 1 Ana 200
sit 2 Bruno 200 card:P-2
sit 3 Carmen 200
sit 4 Diego 200
setbutton 1"""

QUALIFIES = """shuffle
cut
draw Ah Th 2c 4c Ad Ts 3c 5c
4 allin
1 call
2 call
3 call
draw 6d As Tc Td 6h 2h 7d 3s"""
"""Seat 2's aces full of tens (both aces play) lose to seat 3's four tens: the
weakest hand that qualifies, with four players dealt in and a showdown."""

MISSES = QUALIFIES.replace("Th 2c 4c Ad Ts", "9h 2c 4c Ad 9s").replace("As Tc Td", "As 9c 9d")
"""The same hand a rank lower: aces full of nines lose to four nines (too weak)."""

EXPECTED_SHARES = [
    {"seat": 2, "player": "P-2", "share": "loser", "amount": 504},
    {"seat": 3, "player": "", "share": "winner", "amount": 252},
    {"seat": 1, "player": "", "share": "table", "amount": 75},
    {"seat": 4, "player": "", "share": "table", "amount": 75},
    {"seat": 0, "player": "", "share": "reserve", "amount": 102},
]
"""The fund is the seed 1,000 plus this hand's drop (1 % of 800); 50 / 25 / 15 / 10 %,
the table share split between the two others, each rounded down, the rest to the reserve."""


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


@pytest.fixture
def rig(tmp_path: pathlib.Path) -> Iterator[JournaledRig]:
    r = JournaledRig(tmp_path, config=load_table_config(CONFIG), badge_grace=3600.0)
    yield r
    r.stop()


def play(rig: JournaledRig, text: str) -> None:
    """Submit each line's events through the controller (journaled, as the devices do)."""

    def run() -> None:
        for number, line in enumerate(text.splitlines(), 1):
            for event in parse_event(line, number, rig.table):
                rig.controller.submit(event)

    rig.on_loop(run)


def journal(rig: JournaledRig) -> list[dict[str, Any]]:
    return rig.on_loop(lambda: [event_records.to_record(e) for e in rig.journal.events()])  # type: ignore[no-any-return]


def insert(rig: JournaledRig, card: str) -> None:
    """A card in the console's reader, as the PC/SC reader reports it."""
    rig.controller.post(IdCardInserted("console-reader", 0.0, "console", card))
    rig.on_loop(lambda: None)


def console_view(client: Any, pending: bool, fund: int | None = None) -> dict[str, Any]:
    """The console's next view whose jackpot has (or has no) award pending (and that fund)."""

    def wanted(m: dict[str, Any]) -> bool:
        jackpot = m["console"].get("jackpot") or {} if m["type"] == "view" else {}
        return (
            m["type"] == "view"
            and bool(jackpot.get("pending")) is pending
            and (fund is None or jackpot.get("fund") == fund)
        )

    return client.wait_for(wanted, GUARD)  # type: ignore[no-any-return]


def confirm_message(view: dict[str, Any]) -> dict[str, Any]:
    """What the console's Confirm button sends, from its pygame screen."""
    screen = ConsoleScreen(view)
    screen.draw()
    out = tap(screen, "jackpot_confirm")
    assert len(out) == 1, out
    return out[0]


def test_a_bad_beat_that_just_qualifies_is_confirmed_by_a_floor_badge_and_replayed(
    rig: JournaledRig,
) -> None:
    play(rig, SEATS)
    console = rig.console("dealer")
    console.send({"type": "language", "lang": "es"})
    play(rig, QUALIFIES)
    record = rig.table.records[-1]
    assert record["rake"] == 20 and record["jackpot_drop"] == 8
    assert record["pots"][0]["jackpot_drop"] == 8 and record["pots"][0]["shares"] == {"3": 772}
    # Chips conserved: what the players brought = stacks + rake + jackpot drop.
    assert sum(record["finishing_stacks"].values()) + 20 + 8 == 800

    view = console_view(console, pending=True)
    assert view["lang"] == "es"
    award = view["console"]["jackpot"]["pending"][0]
    assert (award["jackpot"], award["hand"]) == ("bad_beat", 1)
    assert award["lines"][0] == "Mano perdedora: asiento 2 Bruno 504"
    assert "Full de ases y dieces" in award["hands"] and "Póker de dieces" in award["hands"]
    message = confirm_message(view)
    assert message == {"type": "report", "report": "jackpot", "jackpot": "bad_beat", "hand": 1}

    before = len(journal(rig))
    # The dealer's own badge is in the reader: not a floor member's. Refused, nothing journaled.
    console.send(message)
    assert answer(console)["key"] == "protocol.jackpot.not_floor"
    # A player's card is no staff badge at all.
    insert(rig, "player:P-2")
    console.send(message)
    assert answer(console)["key"] == "protocol.jackpot.not_staff"
    # A badge named that is not the card in the reader.
    console.send({**message, "badge": BADGES["floor"][0]})
    assert answer(console)["key"] == "protocol.jackpot.card"
    assert len(journal(rig)) == before and rig.table.jackpot.pending

    insert(rig, BADGES["floor"][0])
    console.send(message)
    assert answer(console) == {"type": "ok", "request": "report:jackpot"}
    records = journal(rig)
    assert len(records) == before + 1
    assert records[-1] == {
        "kind": "jackpot_award",
        "jackpot": "bad_beat",
        "hand": 1,
        "shares": EXPECTED_SHARES,
        "staff": BADGES["floor"][0],
    }
    assert rig.table.jackpot.pending == [] and rig.table.jackpot.fund == 102
    # Stacks are not touched: the cage pays the award; the chips at the table stay conserved.
    assert sum(s.stack for s in rig.table.seating.seats.values()) == 772

    seat = rig.connect("seat2")
    seat.send({"type": "language", "lang": "es"})
    seen = seat.wait_for(lambda m: m["type"] == "view" and m["lang"] == "es", GUARD)
    kind = tr("jackpot.kind.bad_beat", "es")
    assert seen["table"]["jackpot"] == [
        f"{kind}, mano n.º 1: asiento 2 Bruno 504, asiento 3 Carmen 252, "
        "asiento 1 Ana 75, asiento 4 Diego 75"
    ]
    assert seen["distribution"][0]["said"] == "Bote 800 · comisión 20 · jackpot 8"
    screen = SeatScreen(seen)  # the seat's own screen draws the announcement
    screen.draw()
    assert seen["table"]["jackpot"][0] in screen.drawn, screen.drawn

    # Confirming it again: nothing is pending any more, refused, nothing journaled.
    console.send(message)
    assert answer(console)["key"] == "error.jackpot.none"
    assert len(journal(rig)) == before + 1

    state = rig.table.jackpot.state()
    fingerprint = rig.restart()
    assert table_fingerprint(rig.table) == fingerprint
    assert rig.table.jackpot.state() == state and not rig.problems


def test_a_bad_beat_that_just_misses_decides_nothing(rig: JournaledRig) -> None:
    play(rig, SEATS)
    console = rig.console("floor")
    play(rig, MISSES)
    record = rig.table.records[-1]
    assert record["jackpot_drop"] == 8
    assert rig.table.jackpot.pending == [] and rig.table.jackpot.fund == 1008
    view = console_view(console, pending=False, fund=1008)
    assert view["console"]["jackpot"]["said"] == tr(
        "jackpot.fund", "es", fund=1008
    )  # the console starts in Spanish
    before = len(journal(rig))
    console.send({"type": "report", "report": "jackpot", "jackpot": "bad_beat", "hand": 1})
    assert answer(console)["key"] == "error.jackpot.none"
    assert len(journal(rig)) == before
    fingerprint = rig.restart()
    assert table_fingerprint(rig.table) == fingerprint
    assert rig.table.jackpot.fund == 1008 and rig.table.jackpot.pending == []


def test_an_award_the_table_did_not_decide_is_refused() -> None:
    """Shares changed by one chip, or a hand with no award: refused, the fund unchanged."""
    from firmware.table.table import Table

    table = Table(load_table_config(CONFIG), deck_ready=True)
    for text in (SEATS, QUALIFIES):
        for number, line in enumerate(text.splitlines(), 1):
            for event in parse_event(line, number, table):
                table.apply(event)
    shares = [dict(s) for s in EXPECTED_SHARES]
    shares[0]["amount"] += 1
    with pytest.raises(Exception, match="not the one the table decided"):
        table.apply(te.JackpotAward("bad_beat", 1, tuple(shares), "BADGE-FLOOR"))
    with pytest.raises(Exception, match="No jackpot award of hand 2"):
        table.apply(te.JackpotAward("bad_beat", 2, tuple(EXPECTED_SHARES), "BADGE-FLOOR"))
    with pytest.raises(Exception, match="floor badge"):
        table.apply(te.JackpotAward("bad_beat", 1, tuple(EXPECTED_SHARES), ""))
    for bad in (("x",), ([1, 2],), 5):  # a record that is not a list of shares: a sentence
        with pytest.raises(IllegalAction) as refused:
            table.apply(te.JackpotAward("bad_beat", 1, bad, "BADGE-FLOOR"))  # type: ignore[arg-type]
        assert refused.value.key == "error.jackpot.shares"
    floats = [dict(s) for s in EXPECTED_SHARES]
    floats[0]["amount"] = float(floats[0]["amount"])  # 504.0 == 504, but chips are integers
    with pytest.raises(IllegalAction):
        table.apply(te.JackpotAward("bad_beat", 1, tuple(floats), "BADGE-FLOOR"))
    with pytest.raises(IllegalAction):
        table.apply(te.JackpotAward("bad_beat", 1.0, tuple(EXPECTED_SHARES), "BADGE-FLOOR"))  # type: ignore[arg-type]
    assert table.jackpot.fund == 1008 and len(table.jackpot.pending) == 1
    table.apply(te.JackpotAward("bad_beat", 1, tuple(EXPECTED_SHARES), "BADGE-FLOOR"))
    assert table.jackpot.fund == 102 and table.jackpot.pending == []


@pytest.mark.parametrize("lang", ["en", "es"])
def test_an_award_of_an_empty_fund_is_shown_on_the_console(lang: str) -> None:
    """A bad beat on a table whose fund is still 0 (no seed, no drop yet): every share is
    0 chips, so the award holds only the reserve line; the console still names the
    loser's and the winner's seats and hands (its view once failed on it)."""
    from firmware.table.table import Table
    from firmware.views.jackpot import console_jackpot

    text = CONFIG.replace("fund = 1000", "fund = 0").replace("drop_percent = 1\n", "")
    table = Table(load_table_config(text), deck_ready=True)
    for part in (SEATS, QUALIFIES):
        for number, line in enumerate(part.splitlines(), 1):
            for event in parse_event(line, number, table):
                table.apply(event)
    [award] = table.jackpot.pending
    assert [s["share"] for s in award["shares"]] == ["reserve"]
    view = console_jackpot(table, lang)
    assert view is not None and view["fund"] == 0
    [pending] = view["pending"]
    from firmware.table.jackpot_table import best_of

    assert pending["hands"] == tr(
        "jackpot.pending.hands",
        lang,
        loser=2,
        loser_hand=best_of(award["loser"]).describe(lang),
        winner=3,
        winner_hand=best_of(award["winner"]).describe(lang),
    )


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_award_names_the_players_of_the_hand_after_their_seats_change(lang: str) -> None:
    """Bruno (seat 2) loses the bad beat, cashes out and Zoe sits in his seat before the
    floor confirms: the console's lines and the seats' announcement still name Bruno."""
    from firmware.table.table import Table
    from firmware.views.jackpot import awarded_lines, console_jackpot

    table = Table(load_table_config(CONFIG), deck_ready=True)
    for part in (SEATS, QUALIFIES, "cashout 2\nsit 2 Zoe 200"):
        for number, line in enumerate(part.splitlines(), 1):
            for event in parse_event(line, number, table):
                table.apply(event)
    assert table.seating.seats[2].player == "Zoe"
    view = console_jackpot(table, lang)
    assert view is not None
    loser_line = view["pending"][0]["lines"][0]
    assert "Bruno" in loser_line and "Zoe" not in loser_line
    table.apply(te.JackpotAward("bad_beat", 1, tuple(EXPECTED_SHARES), "BADGE-FLOOR"))
    [said] = awarded_lines(table, lang)
    assert "Bruno" in said and "Zoe" not in said


def test_a_tournament_with_a_jackpot_is_refused() -> None:
    text = CONFIG.replace('profile = "casino-cash"', 'profile = "tda-tournament"')
    text = text.replace("rake_basis_points = 500", "").replace("rake_cap = 20", "")
    with pytest.raises(Exception, match="jackpots are for cash games only"):
        load_table_config(text)


# --- chips, exports and replay --------------------------------------------------------


@pytest.fixture(scope="module")
def soaked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    """Sixty random hands at a table that rakes and drops into the jackpot; the soak's
    ledger checks after every hand that the chips are conserved (stacks + out + rake +
    drop = in), and the history keeps each hand for the exports."""
    from firmware.engine.rules import Structure
    from firmware.service.history import HandHistory
    from firmware.table.jackpot import parse_jackpot
    from firmware.table.options import Stakes
    from hal_sim.table_soak import Soak

    stakes = Stakes(Structure.NO_LIMIT, 5, 10, chip_unit=5, rake_basis_points=500, rake_cap=15)
    rules = parse_jackpot({"drop_percent": 3, "drop_cap": 10, "drop_min_pot": 40})
    history = HandHistory(str(tmp_path_factory.mktemp("jackpot") / "history.sqlite"))
    soak = Soak("casino-cash", seed=11, stakes=stakes, jackpot=rules)
    soak.table.hand_listeners.append(history.listener(lambda: soak.table.now))
    for _ in range(60):
        soak.play_hand()
    yield history, soak
    history.close()


def test_the_drop_leaves_the_table_like_the_rake_and_chips_are_conserved(
    soaked: tuple[Any, Any],
) -> None:
    _history, soak = soaked
    records = [r for r in soak.table.records if not r["void"] and r["pots"]]
    dropped = [r for r in records if r["jackpot_drop"]]
    assert dropped and any(not r["jackpot_drop"] for r in records)
    for record in records:
        assert record["jackpot_drop"] == sum(p["jackpot_drop"] for p in record["pots"])
        for pot in record["pots"]:
            assert pot["jackpot_drop"] <= 10 and pot["jackpot_drop"] % 5 == 0
            if pot["amount"] < 40 or not record["cards"]["board"]:
                assert pot["jackpot_drop"] == 0, record
            assert sum(pot["shares"].values()) == pot["amount"] - pot["rake"] - pot["jackpot_drop"]
        brought = sum(record["starting_stacks"].values())
        taken = record["rake"] + record["jackpot_drop"]
        assert sum(record["finishing_stacks"].values()) + taken == brought
    assert soak.table.jackpot.fund == sum(r["jackpot_drop"] for r in soak.table.records)


def test_exports_and_history_carry_the_drop_and_replay_checks_it(
    soaked: tuple[Any, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    from firmware.cli.replay import replay_hand
    from firmware.engine.histories.phh import loads_phh
    from firmware.engine.rules import GameKind
    from firmware.errors import HandHistoryError

    history, soak = soaked
    for record in soak.table.records:
        if record["void"] or not record["jackpot_drop"]:
            continue
        try:
            text = history.to_phh(record["hand"])
        except HandHistoryError:
            continue  # a killed hand has no PHH form
        break
    else:
        raise AssertionError("no exportable hand with a drop")
    assert f"_jackpot_drop = {record['jackpot_drop']}" in text
    line = replay_hand(loads_phh(text), GameKind.CASH)
    assert line["matches_file"] is True and line["jackpot_drop"] == record["jackpot_drop"]
    forged = text.replace(
        f"_jackpot_drop = {record['jackpot_drop']}", f"_jackpot_drop = {record['jackpot_drop'] + 5}"
    )
    line = replay_hand(loads_phh(forged), GameKind.CASH)
    assert line["matches_file"] is False and line["difference"]["jackpot_drop"] == [5]
    stars = history.to_pokerstars(record["hand"], unit=None)
    assert f"| Rake {record['rake'] + record['jackpot_drop']}" in stars


# --- the high hand of the hour --------------------------------------------------------

HIGH = CONFIG.replace("fund = 1000", 'fund = 1000\nhigh_hand = "TTTT2"\nhigh_hand_prize = 300')


def test_the_high_hand_of_a_window_is_decided_after_it_and_confirmed() -> None:
    """Four tens at 10:20 UTC hold the 10:00 window; the first hand ending after 11:00
    makes the award pending; the floor's badge confirms it."""
    from firmware.table.table import Table

    table = Table(load_table_config(HIGH), deck_ready=True)
    ten_twenty = 1_780_000_000 // 3600 * 3600 + 20 * 60
    lines = f"wallclock {ten_twenty}\n{SEATS}\n{QUALIFIES}\nsit 5 Elena 200\nsit 6 Fabio 200"
    for number, line in enumerate(lines.splitlines(), 1):
        for event in parse_event(line, number, table):
            table.apply(event)
    assert [p["jackpot"] for p in table.jackpot.pending] == ["bad_beat"]
    assert table.jackpot.high is not None and table.jackpot.high["holders"][0][1] == 3
    later = "cashout 1\ncashout 2\ncashout 4\ntick 3000\nshuffle\ncut"
    for number, line in enumerate(later.splitlines(), 1):
        for event in parse_event(line, number, table):
            table.apply(event)
    card = 0
    while table.hand is not None and table.hand.next_card_role()[0] == "hole":
        table.apply(te.CardDrawn(card))
        card += 1
    while table.hand is not None:  # everyone folds to the big blind, at 11:10
        table.apply(te.Act(table.hand.seat(table.hand.hand.actor), "fold"))
    high = [p for p in table.jackpot.pending if p["jackpot"] == "high_hand"]
    assert len(high) == 1 and high[0]["hand"] == 1
    assert high[0]["shares"] == [{"seat": 3, "player": "", "share": "high_hand", "amount": 300}]
    from firmware.views.jackpot import console_jackpot

    for event in (te.CashOut(3), te.SitDown(3, "Zoe", 200)):  # the seat changes hands
        table.apply(event)
    view = console_jackpot(table, "es")
    assert view is not None and "Carmen" in view["pending"][-1]["lines"][0]
    table.apply(te.JackpotAward("high_hand", 1, tuple(high[0]["shares"]), "BADGE-FLOOR"))
    assert table.jackpot.fund == 1008  # the promotion is the house's prize, not the fund


# --- the configuration ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "key", "on_header"),
    [
        ("drop_percent = 101\n", "config.jackpot.range", False),
        ('qualifying_hand = "AAAT"\n', "config.jackpot.hand", False),
        ("loser_percent = 60\n", "config.jackpot.shares", True),  # the shares together
        ("bogus = 1\n", "config.jackpot.unknown", False),
    ],
)
def test_config_check_names_a_bad_jackpot_with_its_line_in_both_languages(
    extra: str, key: str, on_header: bool
) -> None:
    """Each problem of [jackpot] on the line of its option (the shares' sum on the
    section's), in English and Spanish."""
    import tomllib

    from firmware.cli.config_check import located_problems
    from firmware.cli.lang import said_error

    name = extra.split(" ")[0]
    text = "".join(x for x in CONFIG.lstrip().splitlines(True) if not x.startswith(name)) + extra
    found = {p.key: (p, at) for p, at in located_problems(tomllib.loads(text), text, "t.toml")}
    assert key in found, [str(p) for p in found]
    problem, at = found[key]
    lines = text.splitlines()
    assert at == lines.index("[jackpot]" if on_header else extra.strip()) + 1, (text, at)
    english, spanish = said_error(problem, "en"), said_error(problem, "es")
    assert english != spanish and "{" not in spanish and "[jackpot]" in spanish


def test_a_snapshot_carries_the_fund_and_the_pending_award() -> None:
    """A journal rotated between hands starts with a snapshot: the fund and the award
    waiting for a badge come back with it, and the award can still be confirmed."""
    from firmware.table.snapshot import table_state
    from firmware.table.table import Table

    config = load_table_config(CONFIG)
    table = Table(config, deck_ready=True)
    for text in (SEATS, QUALIFIES):
        for number, line in enumerate(text.splitlines(), 1):
            for event in parse_event(line, number, table):
                table.apply(event)
    state = table_state(table)
    again = Table(config, deck_ready=True)
    again.apply(te.Restore(state))
    assert again.jackpot.state() == table.jackpot.state()
    assert again.jackpot.fund == 1008 and len(again.jackpot.pending) == 1
    again.apply(te.JackpotAward("bad_beat", 1, tuple(EXPECTED_SHARES), "BADGE-FLOOR"))
    assert again.jackpot.fund == 102
