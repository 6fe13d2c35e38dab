"""Issue 23, item 5: readable and touchable at 800x480, in both languages, in large text.

Every seat page and flow (real tournament views played through a hand, and the
sample views) is drawn with the SDL dummy driver; the measures come from the
drawing calls themselves: every text rendered, with its height in pixels
(:attr:`Screen.rendered`, noted by the shared font), every touch target
(:meth:`Screen.targets`) and every text that could not be shown whole
(:attr:`Screen.cut`). Text under 14 px, a target under 44 px, a text cut off, or
a notice over the acting seat's buttons or own cards fails.

The console's and the technician's pages share the fonts: their text heights
are checked here too; every console and technician page and flow, with its
targets and cut texts, is measured in tests/test_ui_console_readable.py.
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

from firmware.table import events as te
from firmware.views.audience import console_view, seat_view, technician_view
from tests import ui_views as V
from tests.test_ui_seat_safety import facing_a_call_of_everything
from tests.test_ui_spanish import Walk
from ui.console import ConsoleScreen
from ui.fonts import MIN_TEXT_HEIGHT
from ui.seat import BADGE_HELP, SeatScreen
from ui.widgets import MIN_TARGET, Screen

LANGS = ("es", "en")
TEXT_PX = 14
"""The issue's floor for text, in pixels of the rendered line (not the widgets' constant)."""
TARGET_PX = 44
"""The issue's floor for a touch target, in pixels either way."""
ACTION_IDS = ("fold", "call", "check", "raise", "slider", "declare_raise")


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


def problems(screen: Screen, where: str, targets: bool = True) -> list[str]:
    """What the last draw of ``screen`` did wrong: small text, small targets, cut text."""
    screen.draw()
    found = [f"{where}: text {t!r} is {h} px" for t, h in screen.rendered if h < TEXT_PX]
    if targets:
        found += [
            f"{where}: target {id!r} is {r.width}x{r.height}"
            for id, r in screen.targets()
            if r.width < TARGET_PX or r.height < TARGET_PX
        ]
        found += [f"{where}: {t!r} cut off" for t in screen.cut]
    return found


def seat_flows(view: dict[str, Any], large: bool) -> Iterator[tuple[str, SeatScreen]]:
    """Every page and flow of a seat screen for ``view``: each drawn state in turn."""
    name = f"seat{view.get('seat')}-{view.get('lang')}-{'large' if large else 'normal'}"
    s = SeatScreen(view, large_text=large)
    yield f"{name}-table", s
    s.page = "recall"
    yield f"{name}-recall", s
    s.page = "table"
    s.rebuy_pick = 500
    yield f"{name}-rebuy", s
    s.rebuy_pick = None
    if s.legal:
        s.allin_pending = {"type": "act", "action": "allin", "amount": 180}
        yield f"{name}-allin", s
        s.allin_pending = None
    for key in (*BADGE_HELP.values(), "ui.explain.pot"):
        s.explain(key)
        yield f"{name}-{key}", s
    s.explain_pot()
    yield f"{name}-pot", s
    s.show_notice(s.t("ui.call_floor.sent"))
    yield f"{name}-floor", s
    s.close_notice()
    yield f"{name}-peek", SeatScreen(view, large_text=large, hold_to_peek=True)


class BothLanguages(Walk):
    """The Spanish walk's table, seen in both languages."""

    def seat_views(self) -> list[dict[str, Any]]:
        return [
            seat_view(self.table, n, lang, self.controller) for n in (1, 2, 3) for lang in LANGS
        ]


def walk_seat_views() -> Iterator[dict[str, Any]]:
    """Real seat views: between hands (a draw for the button, the level clock, a floor
    call), during the deal, the time bank, a called clock, the hand's end, the next hand."""
    w = BothLanguages()
    try:
        yield from w.seat_views()
        w.table.apply(te.Shuffle())
        w.table.apply(te.Cut())
        w.draw()
        yield from w.seat_views()
        th = w.table.hand
        assert th is not None
        while th.next_card_role()[0] == "hole":
            w.draw()
        yield from w.seat_views()
        w.table.apply(te.Tick(w.table.now + 40))
        yield from w.seat_views()
        w.table.apply(te.CallClock(w.table.now))
        yield from w.seat_views()
        w.play_out()
        yield from w.seat_views()
        w.table.apply(te.Shuffle())
        w.table.apply(te.Cut())
        yield from w.seat_views()
    finally:
        w.controller.shutdown()
        w.close()


def sample_views() -> Iterator[dict[str, Any]]:
    makers = (V.seat_waiting, V.seat_to_act, V.seat_waiting_turn, V.seat_allin_showdown,
              V.seat_recall, V.seat_show_or_muck, facing_a_call_of_everything)  # fmt: skip
    for make in makers:
        for lang in LANGS:
            view = make()
            view["lang"] = lang
            yield view
    hidden = V.seat_to_act()
    hidden["table"]["pot_total"] = None
    for lang in LANGS:
        yield {**V.clone(hidden), "lang": lang}


def test_the_measures_can_fail() -> None:
    """A small button and small text are caught by the same measures."""

    class Tiny(Screen):
        def paint(self) -> None:
            self.button("tiny", pygame.Rect(10, 10, 60, 30), "x")
            self.text("a long sentence that cannot fit", pygame.Rect(10, 60, 40, 20), 0.02)

    found = problems(Tiny(), "tiny")
    assert any("'tiny' is 60x30" in p for p in found)
    assert any("cut off" in p for p in found)
    assert all(h >= TEXT_PX for _, h in Tiny().rendered)  # the font keeps to 14 px
    assert (MIN_TEXT_HEIGHT, MIN_TARGET) == (TEXT_PX, TARGET_PX)


@pytest.mark.parametrize("large", [False, True])
def test_every_seat_page_and_flow_is_readable_and_touchable(large: bool) -> None:
    found: list[str] = []
    states = 0
    for view in [*walk_seat_views(), *sample_views()]:
        for where, screen in seat_flows(view, large):
            found += problems(screen, where)
            states += 1
    assert states > 400
    assert not found, "\n".join(found[:40])


@pytest.mark.parametrize("lang", LANGS)
def test_notices_never_cover_the_acting_seats_buttons_or_cards(lang: str) -> None:
    for view in (V.seat_to_act(), facing_a_call_of_everything(), V.seat_show_or_muck()):
        view["lang"] = lang
        s = SeatScreen(view)
        s.draw()
        actions = [r for id, r in s.targets() if id in ACTION_IDS or id in ("show", "muck")]
        buttons = [r for id, r in s.targets() if id in ACTION_IDS[:4] or id in ("show", "muck")]
        assert actions and buttons
        for text in (s.t("ui.explain.ML"), s.t("ui.call_floor.sent"), s.t("ui.explain.pot")):
            s.show_notice(text)
            s.draw()
            band = dict(s.targets())["notice"]
            assert s._cards_rect is not None and not band.colliderect(s._cards_rect)
            for r in actions:
                assert not band.colliderect(r)
            for r in buttons:  # still the action button under the finger
                hit = s._hit(r.center)
                assert hit is not None and hit.id != "notice"
            assert text in s.drawn and text not in s.cut


def test_a_tap_on_a_notice_closes_it() -> None:
    from tests.test_ui_seat import tap

    s = SeatScreen(V.seat_to_act())
    s.explain("ui.explain.ML")
    assert tap(s, "notice") == [] and s.notice == ""


def _heights(screen: Screen) -> dict[str, int]:
    screen.draw()
    out: dict[str, int] = {}
    for text, h in screen.rendered:
        out[text] = max(h, out.get(text, 0))
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_large_text_enlarges_everything(lang: str) -> None:
    for make in (V.seat_to_act, V.seat_waiting, V.seat_allin_showdown):
        view = make()
        view["lang"] = lang
        normal, large = SeatScreen(view), SeatScreen(view, large_text=True)
        small_h, large_h = _heights(normal), _heights(large)
        common = set(small_h) & set(large_h)
        assert len(common) > 10
        shrunk = [t for t in common if large_h[t] < small_h[t]]
        assert not shrunk, shrunk
        grown = [t for t in common if large_h[t] > small_h[t]]
        assert len(grown) >= len(common) * 0.6, (len(grown), len(common))
        me = normal.me()
        tile_name = f"{me['seat']} {me['name']}"
        assert large_h[tile_name] > small_h[tile_name]  # the tiles grow
        title = next(t for t in common if t.startswith(normal.t("ui.seat.number", seat=3)))
        assert large_h[title] > small_h[title]  # and the top bar


def test_console_and_technician_text_is_never_under_14_px() -> None:
    """The shared font keeps every page's text readable (targets: the console's)."""
    w = Walk()
    try:
        found: list[str] = []
        for lang in LANGS:
            console = console_view(w.table, lang, w.controller)
            console["staff"] = {"name": "Flor", "role": "floor"}
            screen = ConsoleScreen(console)
            for page in ("main", "floor", "deck", "chiprace", "recall", "game", "login"):
                screen.page = page
                found += problems(screen, f"console-{lang}-{page}", targets=False)
            tech = ConsoleScreen(technician_view(w.controller, lang))
            for tab in ("devices", "where", "link", "report"):
                tech.tech_tab = tab
                found += problems(tech, f"technician-{lang}-{tab}", targets=False)
        assert not found, found[:20]
    finally:
        w.controller.shutdown()
        w.close()
