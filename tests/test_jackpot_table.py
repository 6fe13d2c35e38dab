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

from firmware.hal import IdCardInserted
from firmware.i18n import tr
from firmware.table import events as te
from firmware.table.options import load_table_config
from firmware.table.script import parse_event
from tests.hardening_kit import BADGES, GUARD, JournaledRig, answer, table_fingerprint
from tests.test_ui_seat import tap
from ui.console import ConsoleScreen

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
    return rig.on_loop(lambda: [te.to_record(e) for e in rig.journal.events()])  # type: ignore[no-any-return]


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
    assert table.jackpot.fund == 1008 and len(table.jackpot.pending) == 1
    table.apply(te.JackpotAward("bad_beat", 1, tuple(EXPECTED_SHARES), "BADGE-FLOOR"))
    assert table.jackpot.fund == 102 and table.jackpot.pending == []


def test_a_tournament_with_a_jackpot_is_refused() -> None:
    text = CONFIG.replace('profile = "casino-cash"', 'profile = "tda-tournament"')
    text = text.replace("rake_basis_points = 500", "").replace("rake_cap = 20", "")
    with pytest.raises(Exception, match="jackpots are for cash games only"):
        load_table_config(text)
