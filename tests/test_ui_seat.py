"""The seat screen, headless: taps at button positions produce the contract's messages."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

import ui.seat
from firmware.i18n import CATALOG, tr
from tests import ui_views as V
from ui.seat import SeatScreen
from ui.widgets import GUARD_SECONDS, Screen


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


def tap(
    screen: Screen, id: str, pos: tuple[int, int] | None = None, *, wait: bool = True
) -> list[dict[str, Any]]:
    """Press and release the mouse on button ``id`` (through the event queue).

    ``wait``: first let the tap guard's time pass on the screen's clock, as a player's
    eye and finger take (a control that has just appeared ignores presses).
    """
    if wait:
        screen.buttons()  # drawn now: what is new appears at this moment
        screen.tick(GUARD_SECONDS)
    rect = screen.button_rect(id)
    assert rect is not None, f"no button {id!r}; shown: {[b.id for b in screen.buttons()]}"
    at = pos or rect.center
    pygame.event.clear()
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=at, button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=at, button=1))
    out: list[dict[str, Any]] = []
    for event in pygame.event.get():
        out += screen.handle(event)
    return out


def ids(screen: Screen) -> set[str]:
    return {b.id for b in screen.buttons()}


# --- acting ------------------------------------------------------------------------------


def test_fold_call_and_min_raise_messages() -> None:
    s = SeatScreen(V.seat_to_act())
    assert tap(s, "fold") == [{"type": "act", "action": "fold"}]
    assert tap(s, "call") == [{"type": "act", "action": "call", "amount": 20}]
    assert tap(s, "raise") == [{"type": "act", "action": "raise", "amount": 40}]
    assert "check" not in ids(s)


def test_presets_set_the_raise_amount() -> None:
    s = SeatScreen(V.seat_to_act())
    assert tap(s, "preset_half_pot") == []
    assert tap(s, "raise") == [{"type": "act", "action": "raise", "amount": 75}]
    tap(s, "preset_pot")
    assert tap(s, "raise") == [{"type": "act", "action": "raise", "amount": 150}]
    tap(s, "preset_all_in")
    assert tap(s, "raise") == []  # all the chips: asked again first
    s.draw()
    assert "allin_confirm" in ids(s)
    assert tap(s, "allin_cancel") == [] and s.allin_pending is None
    s.draw()
    tap(s, "raise")
    s.draw()
    assert tap(s, "allin_confirm") == [{"type": "act", "action": "allin", "amount": 180}]


def test_slider_drag_sets_any_amount_within_the_legal_range() -> None:
    s = SeatScreen(V.seat_to_act())
    slider = s.find_slider("slider")
    assert slider is not None and (slider.low, slider.high) == (40, 180)
    y = slider.rect.centery
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(slider.rect.left, y), button=1)
    )
    pygame.event.post(
        pygame.event.Event(
            pygame.MOUSEMOTION, pos=(slider.x_of(110), y), rel=(0, 0), buttons=(1, 0, 0)
        )
    )
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(slider.x_of(110), y), button=1))
    for event in pygame.event.get():
        assert s.handle(event) == []
    assert s.amount is not None and abs(s.amount - 110) <= 1
    assert tap(s, "raise") == [{"type": "act", "action": "raise", "amount": s.amount}]
    # Dragging past either end clamps to the legal range.
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(slider.rect.right + 9, y), button=1)
    )
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(slider.rect.right + 9, y), button=1)
    )
    for event in pygame.event.get():
        s.handle(event)
    assert s.amount == 180


def test_pot_limit_caps_the_slider_and_hides_all_in() -> None:
    view = V.seat_to_act()
    view["legal"].update(max_raise=150)
    s = SeatScreen(view)
    assert "preset_all_in" not in ids(s)
    labels = {b.id: b.label for b in s.buttons()}
    assert labels["preset_pot"] == tr("ui.preset.pot_max", "en")
    tap(s, "preset_pot")
    assert tap(s, "raise") == [{"type": "act", "action": "raise", "amount": 150}]


def test_unopened_pot_offers_check_and_bet() -> None:
    view = V.seat_to_act()
    for seat in view["table"]["seats"]:
        seat["bet"] = 0
    view["legal"] = {
        "fold": True,
        "check": True,
        "call": 0,
        "min_raise": 20,
        "max_raise": 180,
        "presets": {"min": 20, "half_pot": 65, "pot": 130, "all_in": 180},
    }
    s = SeatScreen(view)
    assert "call" not in ids(s)
    assert tap(s, "check") == [{"type": "act", "action": "check"}]
    assert tap(s, "raise") == [{"type": "act", "action": "bet", "amount": 20}]


def test_call_only_when_no_raise_is_possible() -> None:
    view = V.seat_to_act()
    view["legal"] = {
        "fold": True,
        "check": False,
        "call": 180,
        "min_raise": None,
        "max_raise": None,
    }
    s = SeatScreen(view)
    assert ids(s) >= {"fold", "call"}
    assert not ids(s) & {"raise", "declare_raise", "preset_min"}
    assert s.find_slider("slider") is None


def test_declare_raise() -> None:
    assert tap(SeatScreen(V.seat_to_act()), "declare_raise") == [{"type": "declare_raise"}]


def test_sliding_off_a_button_cancels_the_tap() -> None:
    s = SeatScreen(V.seat_to_act())
    fold, call = s.button_rect("fold"), s.button_rect("call")
    assert fold is not None and call is not None
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=fold.center, button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=call.center, button=1))
    assert [m for e in pygame.event.get() for m in s.handle(e)] == []


def test_finger_events_are_ignored_mouse_only() -> None:
    s = SeatScreen(V.seat_to_act())
    fold = s.button_rect("fold")
    assert fold is not None
    x, y = fold.centerx / 800, fold.centery / 480
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        ev = pygame.event.Event(
            kind, x=x, y=y, dx=0.0, dy=0.0, touch_id=0, finger_id=0, pressure=1.0
        )
        assert s.handle(ev) == []


# --- not to act --------------------------------------------------------------------------


def test_advance_actions_toggle_and_cancel() -> None:
    s = SeatScreen(V.seat_waiting_turn())
    assert not ids(s) & {"fold", "call", "raise"}
    assert tap(s, "advance_check_fold") == [{"type": "advance", "action": "check_fold"}]
    assert tap(s, "advance_call") == [{"type": "advance", "action": "call"}]
    assert tap(s, "advance_call") == [{"type": "advance", "action": "cancel"}]
    assert s.advance is None


def test_advance_action_clears_when_the_turn_comes() -> None:
    s = SeatScreen(V.seat_waiting_turn())
    tap(s, "advance_check")
    assert s.advance == "check"
    s.set_view(V.seat_to_act())
    assert s.advance is None


def test_sit_out_and_sit_in() -> None:
    s = SeatScreen(V.seat_waiting())
    assert tap(s, "sit_out") == [{"type": "sit_out"}]
    view = V.seat_waiting()
    view["table"]["seats"][2]["status"] = "sitting-out"
    s.set_view(view)
    assert "sit_out" not in ids(s)
    assert tap(s, "sit_in") == [{"type": "sit_in"}]


def test_rebuy_needs_a_confirmation() -> None:
    view = V.seat_waiting()
    view["table"]["seats"][2]["stack"] = 0
    s = SeatScreen(view, rebuy_chips=(500, 1000))
    assert tap(s, "rebuy_1000") == []
    assert "fold" not in ids(s)
    assert tap(s, "rebuy_cancel") == []
    assert tap(s, "rebuy_1000") == []
    # The dialog covers the screen: a tap on the language button underneath does nothing.
    lang = s.button_rect("lang")
    assert lang is not None and tap(s, "lang") == []
    assert tap(s, "rebuy_confirm") == [{"type": "rebuy", "chips": 1000}]
    assert "rebuy_confirm" not in ids(s)


def test_clock_counts_down_and_redraws_only_when_the_second_changes() -> None:
    s = SeatScreen(V.seat_waiting_turn())
    s.draw()
    assert s.clock_text() == "8" and s.clock_urgent()
    assert not s.tick(0.5)
    assert s.tick(0.6) and s.clock_text() == "7"
    calm = SeatScreen(V.seat_to_act())
    assert calm.clock_text() == "42" and not calm.clock_urgent()
    calm.tick(32.0)
    assert calm.clock_urgent()


def test_showdown_names_the_winning_hand() -> None:
    s = SeatScreen(V.seat_allin_showdown())
    drawn: list[str] = []
    original = s.text

    def spy(text: str, *args: Any, **kwargs: Any) -> pygame.Rect:
        drawn.append(text)
        return original(text, *args, **kwargs)

    s.text = spy  # type: ignore[method-assign]
    s.draw()
    assert "Trío de reyes" in drawn
    assert tr("ui.wins", "es", name="Gabriela", amount=540) in drawn


# --- only the view, both languages, layout ------------------------------------------------


def _view_cards(view: dict[str, Any]) -> set[str]:
    cards = set(view["table"]["board"])
    for seat in view["table"]["seats"]:
        cards.update(seat.get("cards") or [])
    for entry in view.get("recall") or []:
        cards.update(entry.get("cards") or [])
        cards.update(entry.get("board") or [])
    return cards


@pytest.mark.parametrize(
    "make",
    [V.seat_waiting, V.seat_to_act, V.seat_waiting_turn, V.seat_allin_showdown, V.seat_recall],
)
@pytest.mark.parametrize("page", ["table", "recall"])
def test_never_draws_a_card_not_in_the_view(
    monkeypatch: pytest.MonkeyPatch, make: Any, page: str
) -> None:
    view = make()
    drawn: list[str | None] = []
    real = ui.seat.draw_card
    monkeypatch.setattr(
        ui.seat,
        "draw_card",
        lambda surf, r, code, *a, **k: (drawn.append(code), real(surf, r, code, *a, **k)),
    )
    s = SeatScreen(view)
    s.page = page
    s.draw()
    faces = {c for c in drawn if c not in (None, "??")}
    assert faces <= _view_cards(view)
    if page == "table":
        own = view["table"]["seats"][2]["cards"]
        assert set(own) <= faces  # it does draw what it is given (the check can fail)


def test_face_down_cards_stay_face_down(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str | None] = []
    monkeypatch.setattr(ui.seat, "draw_card", lambda surf, r, code, *a, **k: drawn.append(code))
    view = V.seat_to_act()
    view["table"]["seats"][2]["cards"] = ["??", "??"]
    SeatScreen(view).draw()
    assert not {c for c in drawn if c not in (None, "??")} - set(view["table"]["board"])


def test_language_switch_sends_and_translates() -> None:
    s = SeatScreen(V.seat_to_act())  # an English view
    labels = {b.id: b.label for b in s.buttons()}
    assert labels["fold"] == tr("ui.act.fold", "en") == "Fold"
    assert tap(s, "lang") == [{"type": "language", "lang": "es"}]
    labels = {b.id: b.label for b in s.buttons()}
    assert labels["fold"] == tr("ui.act.fold", "es") == "Retirarse"
    assert labels["call"] == "Igualar 20"
    # The next view (in the new language) keeps Spanish; a later view language wins.
    view = V.seat_to_act()
    view["lang"] = "es"
    s.set_view(view)
    assert s.lang == "es"


def test_large_text_and_four_colour_toggles_are_local() -> None:
    s = SeatScreen(V.seat_to_act())
    assert tap(s, "large_text") == [] and s.large_text
    assert tap(s, "four_colour") == [] and s.four_colour
    assert tap(s, "recall") == [] and s.page == "recall"
    assert tap(s, "back") == [] and s.page == "table"


@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (480, 320), (1280, 800)])
@pytest.mark.parametrize("large", [False, True])
@pytest.mark.parametrize(
    "make",
    [V.seat_waiting, V.seat_to_act, V.seat_waiting_turn, V.seat_allin_showdown, V.seat_recall],
)
def test_buttons_fit_and_do_not_overlap(size: tuple[int, int], large: bool, make: Any) -> None:
    s = SeatScreen(make(), size=size, large_text=large)
    area = s.surface.get_rect()
    buttons = s.buttons()
    assert buttons
    for i, a in enumerate(buttons):
        assert area.contains(a.rect), a.id
        for b in buttons[i + 1 :]:
            assert not a.rect.colliderect(b.rect), (a.id, b.id)


def _record_texts(screen: SeatScreen) -> list[str]:
    """Make ``screen`` note every text it draws; return the list it fills."""
    drawn: list[str] = []
    original = screen.text

    def record(text: str, *args: Any, **kwargs: Any) -> pygame.Rect:
        drawn.append(text)
        return original(text, *args, **kwargs)

    screen.text = record  # type: ignore[method-assign]
    return drawn


def test_every_phase_renders() -> None:
    """Every phase draws its own label (in the view's language) in the clock panel."""
    labels = set()
    for phase in ("dealing", "betting", "board", "showdown", "complete", "idle"):
        view = V.seat_waiting()
        view["table"].update(phase=phase, actor=None, clock=None)
        screen = SeatScreen(view)
        drawn = _record_texts(screen)
        surface = screen.draw()
        label = tr(f"ui.phase.{phase}", screen.lang)
        assert label in drawn, f"{phase}: {label!r} not among {drawn}"
        assert surface.get_bounding_rect().width > 0
        labels.add(label)
    assert len(labels) == 6  # six different labels, none missing from the catalog


def test_ui_keys_exist_in_the_catalog() -> None:
    root = Path(__file__).resolve().parent.parent / "ui"
    used: set[str] = set()
    for path in root.glob("*.py"):
        used.update(re.findall(r'"(ui\.[a-z_.]+[a-z_])"', path.read_text()))
    assert used
    assert not sorted(k for k in used if k not in CATALOG)


SHOTS = {
    "seat-waiting": (V.seat_waiting, "table"),
    "seat-to-act": (V.seat_to_act, "table"),
    "seat-advance-clock": (V.seat_waiting_turn, "table"),
    "seat-allin-showdown": (V.seat_allin_showdown, "table"),
    "seat-recall": (V.seat_recall, "recall"),
    "seat-show-or-muck": (V.seat_show_or_muck, "table"),
}


@pytest.mark.parametrize("name", sorted(SHOTS))
def test_screenshot(name: str, tmp_path: Path) -> None:
    """Render the key seat screens to PNG; UI_SCREENSHOTS=docs/screens writes the docs' copies."""
    make, page = SHOTS[name]
    s = SeatScreen(make())
    s.page = page
    out = Path(os.environ.get("UI_SCREENSHOTS") or tmp_path) / f"{name}.png"
    pygame.image.save(s.draw(), str(out))
    assert out.stat().st_size > 1000


def test_run_loop_shows_views_and_sends_taps() -> None:
    from ui.app import ViewSource, run

    fold = SeatScreen(V.seat_to_act()).button_rect("fold")  # same size, same layout
    assert fold is not None
    ticks = iter(range(1000))
    source = ViewSource([V.seat_to_act()], interval=0.0, clock=lambda: float(next(ticks)))
    pygame.event.clear()
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=fold.center, button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=fold.center, button=1))
    screen = run(source, max_frames=1)
    assert isinstance(screen, SeatScreen) and screen.view["table"]["hand"] == 12
    assert source.sent == [{"type": "act", "action": "fold"}]


def test_refusal_notice_shows_then_clears() -> None:
    s = SeatScreen(V.seat_to_act())
    s.draw()
    s.show_notice(tr("error.action.no_turn", "en"), seconds=2.0)
    assert s.dirty
    s.draw()
    assert not s.tick(0.5)
    assert s.tick(1.6) and s.notice == ""


def test_pot_limit_clamped_presets_from_the_server() -> None:
    view = V.seat_to_act()
    view["legal"].update(max_raise=150, pot_limit=True)
    view["legal"]["presets"] = {"min": 40, "half_pot": 95, "pot": 150, "all_in": 150}
    s = SeatScreen(view)
    assert "preset_all_in" not in ids(s)
    tap(s, "preset_pot")
    assert tap(s, "raise") == [{"type": "act", "action": "raise", "amount": 150}]


def test_recall_in_the_servers_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    import ui.cards

    view = V.seat_waiting()
    view["recall"] = [
        {
            "hand": 7,
            "button": 5,
            "players": {},
            "board": ["Qs", "7c", "2h"],
            "exposed": [],
            "hole": ["Ah", "Kd"],
            "shown": {},
            "actions": [],
            "void": False,
            "pots": [{"amount": 90, "winners": [3], "shares": {"3": 90}}],
            "starting_stacks": {"3": 100},
            "finishing_stacks": {"3": 160},
        },
    ]
    drawn: list[str] = []
    texts: list[str] = []
    monkeypatch.setattr(ui.cards, "draw_card", lambda s, r, code, *a, **k: drawn.append(code))
    s = SeatScreen(view)
    real = s.text
    s.text = lambda text, *a, **k: (texts.append(text), real(text, *a, **k))[1]  # type: ignore[method-assign]
    s.page = "recall"
    s.draw()
    assert drawn == ["Ah", "Kd", "Qs", "7c", "2h"]
    assert "+60" in texts
    assert tr("ui.wins", "es", name="Carla", amount=90) in texts


def test_show_or_muck_on_the_seats_turn_at_showdown() -> None:
    view = V.seat_show_or_muck()
    s = SeatScreen(view)
    assert tap(s, "show") == [{"type": "show", "cards": ["Ah", "Kd"]}]
    assert tap(s, "muck") == [{"type": "muck"}]
    view["table"]["to_show"] = 7  # another seat's turn
    s.set_view(view)
    assert "show" not in ids(s) and "muck" not in ids(s)
    del view["table"]["to_show"]  # a view without the field: allowed with a live hand
    s.set_view(view)
    assert "show" in ids(s)
    for s_ in view["table"]["seats"]:
        if s_["seat"] == 3:
            s_["shown"] = True  # tabled: nothing left to choose
    s.set_view(view)
    assert "show" not in ids(s)
