"""Every screen in Spanish: no English text on any page, from real table views (issue 12).

A real tournament table is played through its states (between hands with the
level clock running, an incident during the deal, a called clock while a seat
acts, a finished hand with its winners); at each, the views the firmware
computes for a seat, the console and the technician are rendered in Spanish
with the SDL dummy driver: every page of each screen and every step of every
console flow, and every tab of the technician's page (devices with a fault,
wiring, serial links, the last test and the export). Each screen records the
texts it drew (``Screen.drawn``). The English side of the catalog is cut into
its literal fragments (the text between placeholders); a fragment that no
Spanish text also contains is English-only, and no drawn text may contain one
as a whole word sequence.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import re
from collections.abc import Iterator
from typing import Any

import pygame
import pytest

from firmware.hal import Device
from firmware.i18n import CATALOG
from firmware.service.controller import Alert
from firmware.service.diag import Item, Report, link_quality
from firmware.table import events as te
from firmware.views.audience import console_view, seat_view, technician_view
from firmware.views.diag import report_view
from hal_sim.fakes import FakeButtons, FakeReaders, FakeShoe, FakeTrays
from tests.ui_tables import TournamentRun
from ui.console import ConsoleScreen
from ui.console_pages import FLOWS, OPTIONS
from ui.seat import BADGE_HELP, SeatScreen
from ui.widgets import Screen


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


def english_only_fragments() -> list[str]:
    """Literal pieces of English catalog texts that no Spanish text contains."""
    spanish = " ".join(entry["es"] for entry in CATALOG.values()).lower()
    found: set[str] = set()
    for entry in CATALOG.values():
        if entry["en"] == entry["es"]:
            continue
        for piece in re.split(r"\{[^}]*\}", entry["en"]):
            piece = piece.strip(" .,:;·()!?-–—'\"")
            letters = sum(c.isalpha() for c in piece)
            if letters >= 4 and piece.lower() not in spanish:
                found.add(piece)
    return sorted(found, key=len, reverse=True)


RULE_ID = re.compile(r"\b(TDA|HG|CC|PE|GLI)-\d+")
FRAGMENTS = english_only_fragments()
PATTERNS = [(f, re.compile(r"(?<!\w)" + re.escape(f) + r"(?!\w)")) for f in FRAGMENTS]


IDENTIFIER = re.compile(r"\b(?:seat\d+|dealer|console)\.[a-z_]+\b")
"""A button's, LED's or zone's configuration name (``dealer.next``, ``seat2.bet``): the
technician's identifier, the same in every language, not English text."""


def english_in(texts: list[str]) -> list[tuple[str, str]]:
    """(drawn text, English fragment) for every drawn text with an English-only fragment
    (configuration names of buttons, LEDs and zones aside)."""
    plain = [(t, IDENTIFIER.sub("", t)) for t in texts]
    return [(t, f) for t, p in plain for f, pattern in PATTERNS if pattern.search(p)]


def test_the_detector_finds_english_and_passes_spanish() -> None:
    """The check can fail: the English of a catalog text is caught, its Spanish is not."""
    assert english_in(["Seat a player"]) and english_in(["Call floor"])
    assert english_in(["Return every chip to its owner; the button does not move."])
    assert not english_in([CATALOG["ui.incident.sit"]["es"], CATALOG["incident.void.do"]["es"]])
    assert not english_in(["Ana", "Bruno 1.000", "All-in", "Flop"])
    assert not english_in(["panel · Botón dealer.next"]) and english_in(["dealer next"])


class Walk(TournamentRun):
    """A tournament table played through its states, with a controller for alerts."""

    def __init__(self) -> None:
        self.shoe = FakeShoe("shoe", {"seed": 1})
        devices: dict[str, Device] = {
            "shoe": self.shoe,
            "panel": FakeButtons(
                "panel",
                {"buttons": ["dealer.next", "seat1.action"], "leds": ["seat1.turn"]},
            ),
            "trays": FakeTrays("trays", {"zones": ["seat1.bet", "pot"]}),
            "readers": FakeReaders("readers", {"readers": ["seat1", "console"]}),
        }
        # The automatic action timer and time bank, to see them on the seats.
        super().__init__(25, 50, devices, action_timer_seconds=30, time_bank_seconds=60)
        self.controller.display_names = {"shoe": {"es": "Sabot", "en": "Card shoe"}}
        self.controller.start()
        for seat, name in ((1, "Ana"), (2, "Bruno"), (3, "Carla")):
            self.table.apply(te.SitDown(seat, name, 1500))
        self.table.apply(te.SetButton(1))
        # Issue 12's second round: a draw for the button, a call for the floor, a player
        # card waiting on seat 4's reader.
        self.table.apply(te.DrawButton((1, 2, 3), (40, 51, 3)))
        self.table.apply(te.FloorCall(2))
        self.controller.players = {"P-7": "Dora"}
        self.controller.state.readers["seat4"] = "player:P-7"
        self.table.apply(te.LevelClock("start"))
        self.controller.alerts.append(
            Alert(0.0, "Seat 2 calls the floor.", "seat2", "alert.call_floor", {"seat": 2})
        )
        self.controller.alerts.append(
            Alert(0.0, "Seat 3 asks for the clock.", None, "alert.ask_clock", {"seat": 3})
        )

    def views(self) -> list[dict[str, Any]]:
        out = [seat_view(self.table, n, "es", self.controller) for n in (1, 2, 3)]
        console = console_view(self.table, "es", self.controller)
        console["staff"] = {"name": "Flor", "role": "floor"}
        return [*out, console]


def walk_states() -> Iterator[list[dict[str, Any]]]:
    w = Walk()
    yield w.views()  # between hands, the level clock running
    w.table.apply(te.Shuffle())
    w.table.apply(te.Cut())
    w.draw()
    w.table.apply(te.FaceUpInDeck(51))  # an incident during the deal (HG-8)
    yield w.views()
    th = w.table.hand
    assert th is not None
    while th.next_card_role()[0] == "hole":
        w.draw()
    w.table.apply(te.Tick(w.table.now + 40))  # the action time spent: the time bank runs
    yield w.views()
    w.table.apply(te.CallClock(w.table.now))  # the clock on the seat to act (TDA-5)
    yield w.views()
    w.play_out()
    yield w.views()  # the hand is over: winners, distribution, recall
    w.shoe.fail()  # a device fault: the technician reads it, and the console's alert
    w.controller.run_pending()
    w.controller.state.export = {"time": 1.8e9, "folder": "/media/usb", "path": "/media/usb/r.txt"}
    technician = technician_view(w.controller, "es")
    items = [
        Item("panel", "led seat1.turn", False, "not lit: check the LED", "diag.item.not_lit"),
        Item("shoe", "serial link", True, "", "diag.item.link", link_quality({"frames": 90})),
    ]
    technician["diag"]["report"] = report_view(Report(items, time=1.8e9), "es")
    yield [technician]
    w.controller.shutdown()
    w.close()


def texts_of(screen: Screen) -> list[str]:
    """Draw ``screen`` and return the texts it drew."""
    screen.draw()
    return list(screen.drawn)


def render_all(view: dict[str, Any]) -> list[str]:
    """Every text drawn on every page (and every console flow step) for ``view``."""
    drawn: list[str] = []
    screen: Screen
    if view["audience"] == "seat":
        seat = SeatScreen(view)
        for page in ("table", "recall"):
            seat.page = page
            drawn += texts_of(seat)
        seat.page = "table"
        seat.rebuy_pick = 500
        drawn += texts_of(seat)
        seat.rebuy_pick = None
        for key in (*BADGE_HELP.values(), "ui.explain.pot"):  # what a tap on each explains
            seat.explain(key)
            drawn += texts_of(seat)
        drawn += texts_of(SeatScreen(view, hold_to_peek=True))
        return drawn
    screen = ConsoleScreen(view)
    if view["audience"] == "technician":
        assert isinstance(screen, ConsoleScreen)
        for tab in ("devices", "where", "link", "report"):  # every tab of the page
            screen.tech_tab = tab
            drawn += texts_of(screen)
        return drawn
    for page in ("main", "floor", "deck", "chiprace", "recall", "game", "login"):
        screen.page = page
        drawn += texts_of(screen)
    for kind, (_, steps) in FLOWS.items():
        screen.start(kind, **({"old": 5, "new": 25} if kind == "chip_race" else {}))
        for step in steps:
            drawn += texts_of(screen)
            value: Any = {
                "seat": 2,
                "free_seat": 5,
                "player_card": "seat4",
                "seats": [2],
                "chips": 500,
                "player": "Ana",
                "card": "Ah",
                "cards": ["Ah"],
            }.get(step)
            screen._choose(step, OPTIONS[step][0] if value is None else value)
        drawn += texts_of(screen)  # the summary with its consequence
    return drawn


def test_every_screen_and_flow_in_spanish_shows_no_english() -> None:
    """Seat, console and technician pages from real views in Spanish draw no English text,
    and seat screens no rule ID."""
    found: list[tuple[str, str]] = []
    ids: list[str] = []
    pages = 0
    for views in walk_states():
        for view in views:
            texts = render_all(view)
            assert texts
            pages += 1
            found += english_in(texts)
            if view["audience"] == "technician":  # its four tabs drew their content
                assert {"Exportar informe", "simulado (sin cableado)", "Asiento 1"} <= set(texts)
                assert any("El dispositivo 'Sabot' dejó de responder" in t for t in texts)
                assert any(t.startswith("Prueba del ") for t in texts)
            if view["audience"] == "seat":  # players never read rule IDs
                ids += [t for t in texts if RULE_ID.search(t)]
            if pages == 4:  # the same console in English: the walk does see English
                assert english_in(render_all({**view, "lang": "en"}))
    assert pages == 21
    assert not sorted(set(found)), "English on a Spanish screen: " + repr(sorted(set(found)))
    assert not ids, f"rule IDs on a seat screen: {ids}"


def test_a_seat_drops_rule_ids_from_a_refusal() -> None:
    seat = SeatScreen({"type": "view", "audience": "seat", "seat": 2, "lang": "en"})
    seat.show_notice("The minimum buy-in is 20 (10 times the lower limit, CC-16); 5 is not enough.")
    seat.show_notice("Misdeal: one of the first two cards exposed (TDA-27, HG-10).")
    assert seat.notice == "Misdeal: one of the first two cards exposed."
