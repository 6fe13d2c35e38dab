"""Issue 23, item 5, for the dealer console and the technician's page: readable and touchable.

A real tournament table (the Spanish walk's, :class:`tests.test_ui_spanish.Walk`) is played
through its states: between hands (a floor call, a player card waiting, the draw for the
button, alerts), a face-up card in the deck during the deal, a seat acting with the time
bank and then a called clock, the hand's end (winners, distribution), and the next hand's
shuffle and cut (the last hand's end still shown). At each, the console view in both
languages is drawn at 800x480 with the SDL dummy driver, in normal and large text, logged
in (floor) and logged out: every page, every step of every guided flow (and its summary),
the login page with and without a badge. The technician's page is drawn on every tab, with
the test mode idle, blocked by a hand, running (a step and a question) and after a test
with its report and an export (written, and failed).

The measures are the drawing calls' own (:mod:`tests.test_ui_readable`): any text rendered
under 14 px, any touch target under 44 px either way, any text cut short fails.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

from collections.abc import Iterator
from typing import Any

import pygame
import pytest

from firmware.service.diag import Item, Report, link_quality
from firmware.table import events as te
from firmware.views.audience import console_view, technician_view
from firmware.views.diag import prompt_view, report_view
from tests import ui_views as V
from tests.test_ui_readable import LANGS, _heights, problems
from tests.test_ui_spanish import Walk
from ui.console import ConsoleScreen
from ui.console_pages import FLOWS, OPTIONS

PAGES = ("main", "floor", "deck", "chiprace", "recall", "game", "login", "bank")
STEP_VALUES: dict[str, Any] = {
    "seat": 2,
    "free_seat": 5,
    "player_card": "seat4",
    "seats": [2],
    "chips": 500,
    "player": "Ana",
    "card": "Ah",
    "cards": ["Ah"],
}


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


def console_states(view: dict[str, Any], name: str, large: bool) -> Iterator[tuple[str, Any]]:
    """Every page and every flow step of a console for ``view``: each drawn state in turn."""
    screen = ConsoleScreen(view, large_text=large)
    for page in PAGES:
        screen.page = page
        yield f"{name}-{page}", screen
    screen.page = "login"
    screen.pin = "1234"
    yield f"{name}-login-pin", screen
    screen.page = "main"
    for kind, (_, steps) in FLOWS.items():
        screen.start(kind, **({"old": 5, "new": 25} if kind == "chip_race" else {}))
        for step in steps:
            if step == "chips":
                screen._pick("digit", 5)
            yield f"{name}-{kind}-{step}", screen
            value = STEP_VALUES.get(step)
            screen._choose(step, OPTIONS[step][0] if value is None else value)
        yield f"{name}-{kind}-summary", screen
        screen.flow = None


def technician_states(view: dict[str, Any], name: str, large: bool) -> Iterator[tuple[str, Any]]:
    """Every tab (and its second page) of the technician's page for ``view``."""
    screen = ConsoleScreen(view, large_text=large)
    for tab in ("devices", "where", "link", "report"):
        screen.tech_tab = tab
        yield f"{name}-{tab}", screen
        screen.report_page = 1  # the second page where there is one
        yield f"{name}-{tab}-2", screen
        screen.report_page = 0


class Both(Walk):
    """The walk's console and technician views in both languages."""

    def consoles(self) -> list[dict[str, Any]]:
        out = []
        for lang in LANGS:
            view = console_view(self.table, lang, self.controller)
            view["staff"] = {"name": "Flor", "role": "floor"}
            out += [view, {**view, "staff": None}]
        return out


def walk() -> Iterator[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]:
    """(state name, console views, technician views) through the walk's states."""
    w = Both()
    try:

        def techs() -> list[dict[str, Any]]:
            return [technician_view(w.controller, lang) for lang in LANGS]

        yield "between", w.consoles(), techs()
        w.table.apply(te.Shuffle())
        w.table.apply(te.Cut())
        w.draw()
        w.table.apply(te.FaceUpInDeck(51))
        yield "deal", w.consoles(), techs()
        th = w.table.hand
        assert th is not None
        while th.next_card_role()[0] == "hole":
            w.draw()
        w.table.apply(te.Tick(w.table.now + 40))
        w.table.apply(te.CallClock(w.table.now))
        yield "clock", w.consoles(), techs()
        w.play_out()
        yield "ended", w.consoles(), []
        w.table.apply(te.Shuffle())
        w.table.apply(te.Cut())
        yield "next", w.consoles(), []
        w.shoe.fail()
        w.controller.run_pending()
        w.controller.state.export = {"time": 1.8e9, "folder": "/media/usb", "path": "/r.txt"}
        tech = []
        for lang in LANGS:
            view = technician_view(w.controller, lang)
            items = [
                Item(
                    "panel", "led seat1.turn", False, "not lit: check the LED", "diag.item.not_lit"
                ),
                Item(
                    "shoe", "serial link", True, "", "diag.item.link", link_quality({"frames": 9})
                ),
                *(Item("trays", f"zone seat{n}.bet", True, "") for n in range(1, 9)),
            ]
            view["diag"]["report"] = report_view(Report(items, time=1.8e9), lang)
            view["diag"]["state"] = "done"
            tech.append(view)
            running = {**view, "diag": {**view["diag"], "state": "running", "device": "panel"}}
            prompt = {"device": "panel", "step": "look", "target": "seat1.turn", "question": True}
            running["diag"]["prompt"] = prompt_view(prompt, lang)
            tech.append(running)
            waiting = {**running, "diag": {**running["diag"], "prompt": None, "device": None}}
            tech.append(waiting)
            failed = {"ok": False, "text": "x " * 5}
            tech.append({**view, "diag": {**view["diag"], "export": failed}})
            tech.append({**view, "diag": None})  # a server without test mode: three tabs
        yield "fault", w.consoles(), tech
    finally:
        w.controller.shutdown()
        w.close()


def sample_consoles() -> Iterator[dict[str, Any]]:
    for make in (V.console_dealing, V.console_distribution, V.console_fault):
        for lang in LANGS:
            view = make()
            view["lang"] = lang
            yield view


@pytest.mark.parametrize("large", [False, True])
def test_every_console_and_technician_page_is_readable_and_touchable(large: bool) -> None:
    found: list[str] = []
    states = 0
    size = "large" if large else "normal"
    for state, consoles, techs in walk():
        for i, view in enumerate(consoles + list(sample_consoles()) * (state == "between")):
            name = f"{state}-console{i}-{view['lang']}-{size}"
            for where, screen in console_states(view, name, large):
                found += problems(screen, where)
                states += 1
        for i, view in enumerate(techs):
            name = f"{state}-tech{i}-{view['lang']}-{size}"
            for where, screen in technician_states(view, name, large):
                found += problems(screen, where)
                states += 1
    assert states > 1000
    assert not found, f"{len(found)} problems:\n" + "\n".join(sorted(set(found))[:80])


def test_the_console_measures_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same measures catch a console laid out as before: a 32 px status bar button, a
    seat line ellipsised in a narrow map."""
    import ui.console

    w = Both()
    try:
        view = console_view(w.table, "es", w.controller)
    finally:
        w.controller.shutdown()
        w.close()
    monkeypatch.setattr(ui.console, "BAR", 0.07)
    screen = ConsoleScreen({**view, "staff": {"name": "Flor", "role": "floor"}})
    found = problems(screen, "main")
    assert any("target 'lang' is 88x" in p for p in found), found
    monkeypatch.undo()
    screen = ConsoleScreen({**view, "staff": {"name": "Flor", "role": "floor"}})
    screen.draw()
    screen.seat_map(pygame.Rect(0, 0, 150, 100), compact=True)
    assert screen.cut and all("fichas" in t for t in screen.cut)


def test_the_console_keeps_the_hands_end_until_the_next_hands_first_card() -> None:
    """Issue 23, item 3: the last hand's board, winners per pot and winning hands' names
    stay on the console through the next hand's shuffle and cut, and at least 8 s."""
    w = Both()
    try:
        w.table.apply(te.Shuffle())
        w.table.apply(te.Cut())
        w.play_out()
        view = console_view(w.table, "en", w.controller)
        ended = view["table"]["ended"]
        assert ended and ended["hands"] and ended["board"]
        screen = ConsoleScreen(view)
        screen.draw()
        winners = [str(ended["hands"][str(x["seat"])]) for x in ended["winners"]]
        assert all(any(name in t for t in screen.drawn) for name in winners), screen.drawn
        w.table.apply(te.Shuffle())
        w.table.apply(te.Cut())
        screen.set_view(console_view(w.table, "en", w.controller))
        screen.draw()
        title = screen.t("ui.console.ended", hand=ended["hand"])
        assert title in screen.drawn
        assert all(any(name in t for t in screen.drawn) for name in winners)
        assert not screen.cut
        w.draw()  # the next hand's first card: the view no longer carries the end
        screen.set_view(console_view(w.table, "en", w.controller))
        assert screen.view["table"]["ended"] is None
        screen.tick(7.5)
        screen.draw()
        assert title in screen.drawn  # held 8 s on the screen's clock
        assert screen.tick(1.0)  # and then gone, with a redraw
        screen.draw()
        assert title not in screen.drawn
        assert not any(name in t for t in screen.drawn for name in winners)
    finally:
        w.controller.shutdown()
        w.close()


def test_large_text_enlarges_the_console_and_the_technicians_page() -> None:
    """'Letra grande' on the console: no text smaller, most texts larger, on every page
    and technician tab, in both languages."""
    checked = 0
    for state, consoles, techs in walk():
        if state != "fault":  # the busiest state: a fault, alerts, a floor call, a report
            continue
        for views, states in ((consoles[::2], console_states), (techs[::5], technician_states)):
            for view in views:
                # Measured as each state is drawn (the generators change one screen).
                normal = {w: _heights(s) for w, s in states(view, "n", False)}
                large = {w: _heights(s) for w, s in states(view, "n", True)}
                for where in [w for w in normal if w.count("-") == 1]:  # pages and tabs
                    small_h, large_h = normal[where], large[where]
                    common = set(small_h) & set(large_h)
                    assert len(common) > 8, where
                    assert not [t for t in common if large_h[t] < small_h[t]], where
                    grown = [t for t in common if large_h[t] > small_h[t]]
                    assert len(grown) >= len(common) * 0.6, (where, len(grown), len(common))
                    checked += 1
    assert checked >= 2 * (len(PAGES) + 4)
