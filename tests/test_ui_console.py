"""The dealer console, headless: guided incident flows produce the contract's report messages."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

import ui.console
from firmware.i18n import tr
from tests import ui_views as V
from tests.test_ui_seat import ids, tap
from ui.console import FLOWS, OPTIONS, ConsoleScreen


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


def taps(screen: ConsoleScreen, *buttons: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for b in buttons:
        out += tap(screen, b)
    return out


def test_exposed_card_needs_card_then_confirmation() -> None:
    c = ConsoleScreen(V.console_dealing())
    assert taps(c, "incident_exposed", "rank_Q", "suit_h") == []
    assert "flow_confirm" not in ids(c)
    assert taps(c, "flow_next") == []
    assert taps(c, "flow_confirm") == [{"type": "report", "report": "exposed", "card": "Qh"}]
    assert c.flow is None and "incident_exposed" in ids(c)


def test_cancel_sends_nothing() -> None:
    c = ConsoleScreen(V.console_dealing())
    assert taps(c, "incident_marked", "rank_T", "suit_c", "flow_next", "flow_cancel") == []
    assert c.flow is None


@pytest.mark.parametrize(
    ("buttons", "expected"),
    [
        (["incident_premature"], {"report": "premature"}),
        (["incident_burn_error", "option_b"], {"report": "burn_error", "case": "b"}),
        (["incident_empty_seat", "seat_10"], {"report": "empty_seat", "seat": 10}),
        (
            ["incident_face_up", "rank_A", "suit_s", "flow_next"],
            {"report": "face_up", "card": "As"},
        ),
        (["incident_marked", "rank_T", "suit_d", "flow_next"], {"report": "marked", "card": "Td"}),
        (["clock"], {"report": "clock"}),
    ],
)
def test_incident_flows(buttons: list[str], expected: dict[str, Any]) -> None:
    c = ConsoleScreen(V.console_dealing())
    assert taps(c, *buttons) == []
    assert taps(c, "flow_confirm") == [{"type": "report", **expected}]


def test_misdeal_and_kill_carry_a_translated_reason() -> None:
    c = ConsoleScreen(V.console_dealing())
    assert taps(c, "incident_misdeal", "option_two_exposed", "flow_confirm") == [
        {
            "type": "report",
            "report": "misdeal",
            "reason": tr("ui.option.misdeal_reason.two_exposed", "es"),
        }
    ]
    assert taps(c, "incident_kill", "seat_2", "option_unprotected", "flow_confirm") == [
        {
            "type": "report",
            "report": "kill",
            "seat": 2,
            "reason": tr("ui.option.kill_reason.unprotected", "es"),
        }
    ]


def test_back_returns_to_the_previous_step() -> None:
    c = ConsoleScreen(V.console_dealing())
    taps(c, "incident_kill", "seat_2", "flow_back", "seat_4", "option_fouled")
    (msg,) = taps(c, "flow_confirm")
    assert msg["seat"] == 4


def test_penalty_and_overrides_need_a_reason() -> None:
    c = ConsoleScreen(V.console_dealing())
    reason = tr("ui.option.reason.etiquette", "es")
    assert taps(
        c, "floor", "floor_penalty", "seat_5", "option_rounds2", "option_etiquette", "flow_confirm"
    ) == [
        {
            "type": "override",
            "override": "penalty",
            "seat": 5,
            "penalty": "rounds",
            "rounds": 2,
            "reason": reason,
        }
    ]
    assert taps(  # the console stays on the floor page after a confirmation (issue 23)
        c,
        "floor_adjust_stack",
        "seat_3",
        "key_1",
        "key_5",
        "key_0",
        "key_delete",
        "key_2",
        "flow_next",
        "option_etiquette",
        "flow_confirm",
    ) == [
        {"type": "override", "override": "adjust_stack", "seat": 3, "chips": 152, "reason": reason}
    ]
    assert taps(
        c,
        "floor_award_pot",
        "seat_3",
        "seat_7",
        "seat_3",
        "seat_9",
        "flow_next",
        "option_etiquette",
        "flow_confirm",
    ) == [{"type": "override", "override": "award_pot", "seats": [7, 9], "reason": reason}]
    for kind in ("void", "undo"):
        assert taps(c, f"floor_{kind}", "option_dealer_error", "flow_confirm") == [
            {
                "type": "override",
                "override": kind,
                "reason": tr("ui.option.reason.dealer_error", "es"),
            }
        ]


def test_pause_and_resume() -> None:
    c = ConsoleScreen(V.console_dealing())
    assert taps(c, "pause") == [{"type": "report", "report": "pause"}]
    assert "resume" in ids(ConsoleScreen(V.console_fault()))
    assert taps(ConsoleScreen(V.console_fault()), "resume") == [
        {"type": "report", "report": "resume"}
    ]


def test_new_deck_checklist_steps_in_order() -> None:
    view = V.console_dealing()
    view["console"]["deck"] = {
        "ready": False,
        "checklist": ["show", "face_down"],
        "needs_repair": [],
    }
    c = ConsoleScreen(view)
    assert taps(c, "deck", "deck_step") == [
        {"type": "report", "report": "deck_step", "step": "scramble"}
    ]
    view["console"]["deck"] = {"ready": True, "checklist": [], "needs_repair": []}
    c.set_view(view)
    assert "deck_step" not in ids(c)


def test_chip_race_takes_one_card_per_odd_chip_then_confirms() -> None:
    view = V.console_dealing()
    for s in view["table"]["seats"]:
        s["stack"] = 1000
    view["table"]["seats"][0]["stack"] = 1050  # two odd 25s
    view["table"]["seats"][1]["stack"] = 1025  # one odd 25
    c = ConsoleScreen(view)
    assert c.race_cards_needed(25, 100) == 3
    assert taps(c, "chiprace", "race_25_100", "flow_cancel") == []
    assert c.page == "chiprace"  # a cancel leaves the console on its page (issue 23)
    assert taps(c, "race_25_100", "rank_A", "suit_s", "card_add") == []
    assert taps(c, "rank_2", "suit_c", "card_add", "card_drop", "rank_K", "suit_h") == []
    assert "flow_next" not in ids(c)  # two of three cards so far
    assert taps(c, "card_add", "rank_T", "suit_d", "card_add") == []
    assert "rank_A" not in ids(c)  # every odd chip has its card
    assert taps(c, "flow_next", "flow_confirm") == [
        {
            "type": "report",
            "report": "chip_race",
            "old": 25,
            "new": 100,
            "cards": ["As", "Kh", "Td"],
        }
    ]


def test_chip_race_without_odd_chips_sends_no_cards() -> None:
    view = V.console_dealing()
    for s in view["table"]["seats"]:
        s["stack"] = 500  # a multiple of 100: nothing to race
    c = ConsoleScreen(view)
    assert c.race_cards_needed(25, 100) == 0
    assert taps(c, "chiprace", "race_25_100", "flow_next", "flow_confirm") == [
        {"type": "report", "report": "chip_race", "old": 25, "new": 100, "cards": []}
    ]


def test_roles_grey_what_the_login_may_not_do() -> None:
    view = V.console_dealing()
    view["staff"] = None
    c = ConsoleScreen(view)
    enabled = {b.id: b.enabled for b in c.buttons()}
    assert not enabled["incident_exposed"] and not enabled["pause"] and not enabled["clock"]
    assert enabled["floor"] and enabled["recall"] and enabled["login"]
    assert "logout" not in enabled
    assert taps(c, "incident_exposed") == []  # greyed: nothing happens
    view["staff"] = {"name": "Dani", "role": "dealer"}
    c.set_view(view)
    enabled = {b.id: b.enabled for b in c.buttons()}
    assert enabled["incident_exposed"] and enabled["pause"] and "login" not in enabled
    label = {b.id: b.label for b in c.buttons()}["logout"]
    assert "Dani" in label and tr("ui.staff_role.dealer", "es") in label
    taps(c, "floor")
    assert not {b.id: b.enabled for b in c.buttons()}["floor_void"]  # overrides: floor only
    taps(c, "back", "incident_premature")
    assert {b.id: b.enabled for b in c.buttons()}["flow_confirm"]
    assert taps(c, "flow_confirm") == [{"type": "report", "report": "premature"}]
    assert taps(c, "logout") == [{"type": "logout"}]


def test_login_sends_the_pin_typed_on_the_keypad() -> None:
    view = V.console_dealing()
    view["staff"] = None
    c = ConsoleScreen(view)
    assert taps(c, "login", "pin_1", "pin_2", "pin_3") == []
    assert not {b.id: b.enabled for b in c.buttons()}["login_send"]  # 4 digits at least
    assert taps(c, "pin_9", "pin_delete", "pin_4") == []
    assert c.pin == "1234"
    assert taps(c, "login_send") == [{"type": "login", "pin": "1234"}]
    assert c.page == "main" and c.pin == ""
    assert taps(c, "login", "pin_5", "login_cancel") == [] and c.pin == ""
    view["console"]["card_present"] = False  # optional view field: no card, no keypad
    c.set_view(view)
    taps(c, "login")
    assert not {b.id: b.enabled for b in c.buttons()}["pin_1"]


def test_technician_sees_devices_and_can_log_out() -> None:
    view = {
        "type": "view",
        "audience": "technician",
        "lang": "en",
        "devices": V.console_fault()["devices"],
        "staff": {"name": "Teo", "role": "technician"},
    }
    c = ConsoleScreen(view)
    tabs = {"tech_tab_devices", "tech_tab_where", "tech_tab_link"}  # local: they send nothing
    assert {b.id for b in c.buttons()} == {"logout", "lang"} | tabs
    assert all(b.message is None for b in c.buttons() if b.id in tabs)
    assert taps(c, "logout") == [{"type": "logout"}]


def test_deck_show_step_comes_from_the_shoe() -> None:
    view = V.console_dealing()
    view["console"]["deck"] = {"ready": False, "checklist": [], "needs_repair": []}
    c = ConsoleScreen(view)
    taps(c, "deck")
    assert "deck_step" not in ids(c)


def test_next_card_roles_and_level_clock() -> None:
    c = ConsoleScreen(V.console_dealing())
    assert c._role_text({"role": "hole", "seat": 4}) == tr("ui.role.hole", "es", seat=4)
    assert c._role_text({"role": "board", "street": None}) == tr("ui.role.board1", "es")
    assert c._role_text({"role": "burn"}) == tr("ui.role.burn", "es")
    assert c.level_text("console").endswith("09:00")
    assert c.tick(1.0) and c.level_text("console").endswith("08:59")
    # A paused hand (a device fault) does not stop the level clock: only the clock's
    # own pause does, and the header then says so (issue 23).
    fault = ConsoleScreen(V.console_fault())
    fault.tick(5.0)
    assert fault.level_text("console").endswith("08:55")
    view = V.console_dealing()
    view["console"]["level"] = {**view["console"]["level"], "paused": True}
    paused = ConsoleScreen(view)
    paused.tick(5.0)
    assert paused.level_text("console").startswith(tr("ui.clock.paused", "es", what=""))
    assert paused.level_text("console").endswith("09:00")


def test_console_never_draws_a_hole_card(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str | None] = []
    real = ui.console.draw_card
    monkeypatch.setattr(
        ui.console,
        "draw_card",
        lambda s, r, code, *a, **k: (drawn.append(code), real(s, r, code, *a, **k)),
    )
    view = V.console_distribution()
    ConsoleScreen(view).draw()
    assert {c for c in drawn if c} == set(view["table"]["board"])


def test_every_flow_step_renders_in_both_languages() -> None:
    for lang in ("es", "en"):
        c = ConsoleScreen(V.console_dealing(), lang=lang)
        for kind, (_, steps) in FLOWS.items():
            c.start(kind)
            for step in range(len(steps) + 1):
                assert c.flow is not None
                c.flow["step"] = step
                c.flow["fields"] = {
                    "card": "Ah",
                    "seat": 3,
                    "seats": [3],
                    "chips": 10,
                    "case": "a",
                    "penalty": "warning",
                    "reason": "etiquette",
                    "misdeal_reason": "boxed",
                    "kill_reason": "fouled",
                    "old": 25,
                    "new": 100,
                    "cards": ["Ah", "2c"],
                }
                c.draw()
        for page in ("deck", "chiprace", "floor", "recall", "login", "main"):
            c.flow, c.page = None, page
            c.draw()
    assert {o for opts in OPTIONS.values() for o in opts}


def test_language_switch_translates_console() -> None:
    c = ConsoleScreen(V.console_dealing())
    assert {b.id: b.label for b in c.buttons()}["incident_exposed"] == "Carta expuesta"
    assert taps(c, "lang") == [{"type": "language", "lang": "en"}]
    assert {b.id: b.label for b in c.buttons()}["incident_exposed"] == "Exposed card"


@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (1280, 800)])
@pytest.mark.parametrize("make", [V.console_dealing, V.console_distribution, V.console_fault])
@pytest.mark.parametrize("start", [None, "exposed", "penalty", "adjust_stack"])
def test_console_buttons_fit_and_do_not_overlap(
    size: tuple[int, int], make: Any, start: str | None
) -> None:
    c = ConsoleScreen(make(), size=size)
    if start:
        c.start(start)
    buttons = c.buttons()
    area = c.surface.get_rect()
    for i, a in enumerate(buttons):
        assert area.contains(a.rect), a.id
        for b in buttons[i + 1 :]:
            assert not a.rect.colliderect(b.rect), (a.id, b.id)


def _exposed_confirm() -> ConsoleScreen:
    c = ConsoleScreen(V.console_dealing())
    taps(c, "incident_exposed", "rank_Q", "suit_h", "flow_next")
    return c


def _recall() -> ConsoleScreen:
    view = V.console_dealing()
    view["recall"] = V.seat_recall()["recall"]
    for entry in view["recall"]:
        entry["cards"] = []  # the console sees no hole card, not even in recall
    c = ConsoleScreen(view)
    c.page = "recall"
    return c


def _login() -> ConsoleScreen:
    view = V.console_dealing()
    view["staff"] = None
    view["console"]["card_present"] = True
    c = ConsoleScreen(view, lang="en")
    taps(c, "login", "pin_4", "pin_8", "pin_2")
    return c


def _race_cards() -> ConsoleScreen:
    view = V.console_dealing()
    view["lang"] = "en"
    for s in view["table"]["seats"]:
        s["stack"] = 1000
    view["table"]["seats"][0]["stack"] = 1050
    view["table"]["seats"][1]["stack"] = 1025
    c = ConsoleScreen(view)
    taps(c, "chiprace", "race_25_100", "rank_A", "suit_s", "card_add", "rank_Q", "suit_h")
    return c


SHOTS = {
    "console-login": _login,
    "console-chip-race-cards": _race_cards,
    "console-dealing": lambda: ConsoleScreen(V.console_dealing()),
    "console-exposed-confirm": _exposed_confirm,
    "console-pot-distribution": lambda: ConsoleScreen(V.console_distribution()),
    "console-device-fault": lambda: ConsoleScreen(V.console_fault()),
    "console-recall": _recall,
}


@pytest.mark.parametrize("name", sorted(SHOTS))
def test_screenshot(name: str, tmp_path: Path) -> None:
    """Render the key console screens; UI_SCREENSHOTS=docs/screens writes the docs' copies."""
    out = Path(os.environ.get("UI_SCREENSHOTS") or tmp_path) / f"{name}.png"
    pygame.image.save(SHOTS[name]().draw(), str(out))
    assert out.stat().st_size > 1000
