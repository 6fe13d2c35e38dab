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
from firmware.i18n import CATALOG, tr
from firmware.service.controller import Alert
from firmware.service.diag import Item, Report, link_quality
from firmware.table import events as te
from firmware.views.audience import console_view, seat_view, technician_view
from firmware.views.diag import report_view
from firmware.views.redact import CARD_RUN
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


WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
"""A word: letters (accented too), joined by an apostrophe or a hyphen ("All-in")."""

ENGLISH_WORDS = frozenset(
    """the is are was not and of to your you with from this that for on in it its has have
    be can cannot will by at an or no-one device devices open closed seat seats shoe
    reader readers floor showdown button buttons card cards chips hand hands player
    players dealer stack table next back cancel confirm seen alert pot wins answer
    waiting more free empty sit cash rebuy new deck burn board shows muck before after
    every level break paused time call check fold raise bet""".split()  # noqa: SIM905
)
"""English words no Spanish table text uses. A sentence or a catalog text left in English
has some (issue 23: "The buttons device 'buttons' is not open", pills "shoe", "reader",
"seats"); the poker words the Spanish table says as they are ("All-in", "Flop", "Turn",
"River", "Ante") are not in the list, so they never count as English."""

CONFIG_NAME = re.compile(r"\b(?:seat\d+|dealer|console)(?:\.[a-z_]+)?\b")
"""A reader's, button's, LED's or zone's configuration name (``seat1``, ``dealer.next``)."""


def english_words_in(
    texts: list[str], identifiers: frozenset[str] = frozenset()
) -> list[tuple[str, list[str]]]:
    """(drawn text, its English words) for every text with one; configuration names and
    ``identifiers`` (what a device reports of itself: model, serial) aside."""
    found = []
    for text in texts:
        plain = CONFIG_NAME.sub(" ", text)
        for name in sorted(identifiers, key=len, reverse=True):  # "sim-shoe" before "sim"
            plain = plain.replace(name, " ")
        words = [w for w in WORD.findall(plain) if w.lower() in ENGLISH_WORDS]
        if words:
            found.append((text, words))
    return found


def strings_in(value: Any) -> Iterator[str]:
    """Every text in a view (names, prompts, labels), however deep."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_in(item)


SPANISH_WORDS = frozenset(
    w.lower()
    for entry in CATALOG.values()
    for w in WORD.findall(re.sub(r"\{[^}]*\}", " ", entry["es"]))
)


def broken_words(texts: list[str], views: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(drawn text, word) for every word drawn that is no word of the Spanish catalog nor of
    the views' own texts: a word cut by a line break ("SIGUIEN" / "TE"); a word cut short
    on purpose ends with "…" and is not one."""
    known = set(SPANISH_WORDS)
    for view in views:
        known |= {w.lower() for text in strings_in(view) for w in WORD.findall(text)}
    found = []
    for text in texts:
        for match in WORD.finditer(CONFIG_NAME.sub(" ", text)):
            word = match.group(0)
            cut_short = match.end() < len(text) and text[match.end()] == "…"
            if word.lower() not in known and not cut_short and len(word) > 1:
                found.append((text, word))
    return found


def test_the_word_detectors_find_english_and_broken_words() -> None:
    """The checks can fail: a driver's English inside a Spanish alert, an English pill, a
    word cut across two lines; shared words ("All-in") and names pass."""
    fault = "Botones: The buttons device 'buttons' is not open; open it before setting LEDs."
    assert english_words_in([fault]) and english_words_in(["shoe", "Sabot · reader"])
    assert not english_words_in(["All-in 4900", "Flop · Turn · River", "Ana", "Botón dealer.next"])
    assert not english_words_in([tr("ui.console.floor", "es"), tr("ui.showdown.your_turn", "es")])
    view = {"table": {"seats": [{"name": "Fermín"}]}}
    cut = broken_words(["SIGUIEN", "TE CARTA DEL SABOT"], [view])
    assert cut == [("SIGUIEN", "SIGUIEN"), ("TE CARTA DEL SABOT", "TE")]
    assert not broken_words(["SIGUIENTE CARTA DEL SABOT", "Fermín", "Decisio…"], [view])


def test_the_wrapper_breaks_lines_between_words_only() -> None:
    """A paragraph too wide for one line is cut at spaces: every line is whole words."""
    screen = ConsoleScreen({"type": "view", "audience": "console", "lang": "es"})
    text = tr("ui.help.cash_out", "es") + " SIGUIENTE CARTA DEL SABOT"
    for width in (60, 90, 140, 300):
        screen.drawn.clear()
        screen.paragraph(text, pygame.Rect(0, 0, width, 400), 0.04)
        lines = screen.drawn[1:]
        assert len(lines) > 1 and " ".join(lines).split() == text.split(), lines


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
    words: list[tuple[str, list[str]]] = []
    broken: list[tuple[str, str]] = []
    codes: list[str] = []
    ids: list[str] = []
    pages = 0
    for views in walk_states():
        for view in views:
            texts = render_all(view)
            assert texts
            pages += 1
            found += english_in(texts)
            reported = frozenset(  # what each device says of itself (technician only)
                str(v)
                for d in view.get("devices") or []
                for v in (d.get("identity") or {}).values()
                if view["audience"] == "technician"
            )
            words += english_words_in(texts, reported)
            broken += broken_words(texts, views)
            codes += [t for t in texts if CARD_RUN.search(t)]  # "Qh" drawn as "Q♥"
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
    assert not words, f"English words on a Spanish screen: {words}"
    assert not broken, f"words cut across lines: {broken}"
    assert not codes, f"card codes on a screen: {codes}"
    assert not ids, f"rule IDs on a seat screen: {ids}"


def test_a_seat_drops_rule_ids_from_a_refusal() -> None:
    seat = SeatScreen({"type": "view", "audience": "seat", "seat": 2, "lang": "en"})
    seat.show_notice("The minimum buy-in is 20 (10 times the lower limit, CC-16); 5 is not enough.")
    seat.show_notice("Misdeal: one of the first two cards exposed (TDA-27, HG-10).")
    assert seat.notice == "Misdeal: one of the first two cards exposed."
