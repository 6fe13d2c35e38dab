"""The console's bank page (TABLE-BANK): float, fill, credit and shift count proposed on a
keypad, a proposal waiting for its second badge with Confirm and Cancel; readable and
touchable in both languages and both text sizes, and Spanish with no English."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from collections.abc import Iterator
from typing import Any

import pygame
import pytest

from tests import ui_views as V
from tests.test_ui_console import taps
from tests.test_ui_readable import LANGS, problems
from tests.test_ui_seat import ids
from tests.test_ui_spanish import english_in
from ui.console import ConsoleScreen
from ui.console_bank import BANK_ACTIONS

OPEN = {"open": True, "tray": 5000, "seats": 600, "expected": 5600, "pending": None}


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


def _view(lang: str, bank: dict[str, Any] | None, role: str | None = "floor") -> dict[str, Any]:
    view = V.console_dealing()
    view["lang"] = lang
    view["staff"] = {"name": "Flor", "role": role} if role else None
    if bank is not None:
        view["bank"] = bank
    return view


def bank_states(lang: str, large: bool) -> Iterator[tuple[str, ConsoleScreen]]:
    banks: list[tuple[str, dict[str, Any] | None]] = [("none", None), ("open", OPEN)]
    banks += [
        (f"pending-{a}", {**OPEN, "pending": {"action": a, "amount": 123456, "name": "Ana Pérez"}})
        for a in BANK_ACTIONS
    ]
    for name, bank in banks:
        for role in ("floor", "dealer", None):
            screen = ConsoleScreen(_view(lang, bank, role), large_text=large)
            screen.page = "bank"
            for action in BANK_ACTIONS:
                screen.bank_action, screen.bank_amount = action, "987654321"
                yield f"{lang}-{name}-{role}-{action}-{large}", screen


@pytest.mark.parametrize("large", [False, True])
@pytest.mark.parametrize("lang", LANGS)
def test_the_bank_page_is_readable_touchable_and_spanish(lang: str, large: bool) -> None:
    found: list[str] = []
    for where, screen in bank_states(lang, large):
        found += problems(screen, where)
        if lang == "es":
            found += [
                f"{where}: English {f!r}" for _, f in english_in([t for t, _ in screen.rendered])
            ]
    assert not found, "\n".join(sorted(set(found))[:40])


def test_a_fill_is_typed_and_proposed_then_confirmed_or_cancelled() -> None:
    screen = ConsoleScreen(_view("en", OPEN))
    assert taps(screen, "bank") == []
    assert screen.page == "bank"
    sent = taps(screen, "bank_credit", "bank_digit_1", "bank_digit_5", "bank_digit_0")
    sent += taps(screen, "bank_digit_0", "bank_digit_delete", "bank_digit_0", "bank_propose")
    assert sent == [{"type": "bank", "action": "credit", "amount": 1500}]
    screen.set_view(
        _view("en", {**OPEN, "pending": {"action": "credit", "amount": 1500, "name": "Flor"}})
    )
    assert "bank_propose" not in ids(screen)
    assert taps(screen, "bank_confirm") == [{"type": "bank_confirm"}]
    assert taps(screen, "bank_cancel") == [{"type": "bank_cancel"}]


def test_nobody_logged_in_cannot_propose_and_an_empty_amount_is_not_sent() -> None:
    screen = ConsoleScreen(_view("es", OPEN, role=None))
    screen.page = "bank"
    assert taps(screen, "bank_digit_5", "bank_propose") == []
    logged = ConsoleScreen(_view("es", OPEN))
    logged.page = "bank"
    assert taps(logged, "bank_fill", "bank_digit_0", "bank_propose") == []  # no leading zero
    assert taps(logged, "bank_count", "bank_propose") == [
        {"type": "bank", "action": "count", "amount": 0}
    ]
