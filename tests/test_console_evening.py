"""The dealer console through an evening (issue 23, item 8).

Alerts close and can be dismissed (a call for the floor closes when it is
answered; the dealer dismisses any other with "Seen", through the real
server); the cash-out's confirmation states the chips the player takes; the
seat picker shows every seat in its place, the ones the step cannot take
greyed; the name keyboard types accented letters; and the console stays on
the page the dealer was using after a confirmation or a cancel.
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

from firmware.i18n import tr
from firmware.service.controller_state import Alert, AlertLog
from firmware.table import events as te
from tests import ui_views as V
from tests.test_ui_seat import tap
from tests.test_ui_server_contract import Rig, console, exchange, seat
from ui.console import ConsoleScreen

pytestmark = pytest.mark.xdist_group("ui_server_contract")


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


@pytest.fixture
def rig(tmp_path: pathlib.Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.close()


def taps(screen: ConsoleScreen, *ids: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for id in ids:
        screen.draw()
        out += tap(screen, id)
    return out


def between_hands(free: tuple[int, ...] = (2, 4)) -> dict[str, Any]:
    """The console between hands, 10 seats, the seats ``free`` empty, logged in as floor."""
    view = V.console_dealing()
    view["table"]["hand"] = None
    view["table"]["seats"] = [s for s in view["table"]["seats"] if s["seat"] not in free]
    view["console"]["max_seats"] = 10
    view["staff"] = {"name": "Flor", "role": "floor"}
    return view


# --- alerts -------------------------------------------------------------------------------


def alert_texts(view: dict[str, Any]) -> list[str]:
    return [a["text"] for a in view["console"]["alerts"]]


def test_an_answered_floor_call_closes_its_alert(rig: Rig) -> None:
    """Seat 2 calls the floor: the alert shows until the floor answers, then it is gone; a
    second call of the same seat opens a new alert."""
    seat_client, _ = seat(rig, 2)
    client, screen = console(rig, "floor")
    calling = tr("alert.call_floor", "en", seat=2)
    exchange(seat_client, {"type": "call_floor"})
    _, view = exchange(client, {"type": "language", "lang": "en"})
    assert calling in alert_texts(view)
    refusals, view = exchange(client, {"type": "report", "report": "answer_floor", "seat": 2})
    assert not refusals
    assert calling not in alert_texts(view)
    screen.set_view(view)
    screen.draw()
    assert calling not in screen.drawn
    exchange(seat_client, {"type": "call_floor"})
    _, view = exchange(client, {"type": "language", "lang": "en"})
    assert alert_texts(view).count(calling) == 1


def test_a_dealer_dismisses_an_alert_with_seen(rig: Rig) -> None:
    """The newest alert has a "Seen" button; its message takes it off the console (the log
    keeps it), and the alert before it shows. An alert no longer kept is refused."""
    rig.on_loop(lambda: rig.controller.alerts.append(Alert(0.0, "first", key="alert.recovered")))
    rig.on_loop(lambda: rig.controller.alerts.append(Alert(1.0, "second", None)))
    client, screen = console(rig, "dealer")
    _, view = exchange(client, {"type": "language", "lang": "es"})
    recovered = tr("alert.recovered", "es")
    assert alert_texts(view)[-2:] == [recovered, "second"]
    screen.set_view(view)
    screen.page = "main"
    screen.draw()
    assert tr("ui.console.more_alerts", "es", count=1) in screen.drawn
    out = taps(screen, "dismiss_alert")
    second = view["console"]["alerts"][-1]["id"]
    assert out == [{"type": "report", "report": "dismiss_alert", "id": second}]
    refusals, view = exchange(client, out[0], "es")
    assert not refusals
    assert alert_texts(view)[-1] == recovered and "second" not in alert_texts(view)
    assert [a.text for a in rig.controller.alerts][-1] == "second"  # the log keeps it
    screen.set_view(view)
    out = taps(screen, "dismiss_alert")
    refusals, view = exchange(client, out[0], "es")
    assert not refusals and recovered not in alert_texts(view)
    screen.set_view(view)
    screen.draw()
    assert screen.button_rect("dismiss_alert") is None  # nothing left to dismiss
    refusals, _ = exchange(client, {"type": "report", "report": "dismiss_alert", "id": 999})
    assert [r["key"] for r in refusals] == ["error.alert.gone"]
    refusals, _ = exchange(client, {"type": "report", "report": "dismiss_alert", "id": "1"})
    assert [r["key"] for r in refusals] == ["protocol.fields"]


def test_dismissing_needs_a_login(rig: Rig) -> None:
    rig.on_loop(lambda: rig.controller.alerts.append(Alert(0.0, "an alert")))
    client, _ = console(rig, None)
    refusals, view = exchange(client, {"type": "report", "report": "dismiss_alert", "id": 1})
    assert [r["key"][:20] for r in refusals] == ["protocol.permission."]
    assert "an alert" in alert_texts(view)


def test_the_alert_log_numbers_alerts_and_forgets_dismissals_it_dropped() -> None:
    log = AlertLog({}, limit=2)
    for n in range(3):
        log.append(Alert(float(n), f"alert {n}"))
    assert [a.id for a in log] == [2, 3]
    assert not log.dismiss(1) and log.dismiss(2)
    assert [a.text for a in log.showing()] == ["alert 2"]
    log.append(Alert(3.0, "alert 3"))
    assert log.dismissed == set()  # alert 2 dropped: its dismissal goes with it


# --- flows and pages ----------------------------------------------------------------------


def test_cash_out_confirmation_states_the_amount() -> None:
    screen = ConsoleScreen(between_hands())
    screen.page = "game"
    taps(screen, "game_cash_out", "seat_3")
    stack = next(s["stack"] for s in screen.table["seats"] if s["seat"] == 3)
    summary = screen._summary()
    assert stack == 880 and "880" in summary
    assert tr("ui.consequence.cash_out", "es", seat="Asiento 3 (Carla)", amount=880) in summary


@pytest.mark.parametrize("kind", ["sit", "rebuy"])
def test_the_seat_picker_keeps_every_seat_in_its_place(kind: str) -> None:
    """Ten seats in seat order, five to a row, whatever is taken: seating greys the taken
    seats, a rebuy the empty ones; a greyed seat does nothing."""
    screen = ConsoleScreen(between_hands())
    screen.page = "game"
    taps(screen, f"game_{kind}")
    screen.draw()
    buttons = {b.id: b for b in screen.buttons() if b.id.startswith("seat_")}
    assert list(buttons) == [f"seat_{n}" for n in range(1, 11)]
    rects = [buttons[f"seat_{n}"].rect for n in range(1, 11)]
    assert all(
        rects[i].left < rects[i + 1].left and rects[i].top == rects[i + 1].top for i in range(4)
    )
    assert rects[5].top > rects[0].top and rects[5].left == rects[0].left
    enabled = {int(id[5:]) for id, b in buttons.items() if b.enabled}
    empty = {2, 4, 10}
    assert enabled == (empty if kind == "sit" else set(range(1, 11)) - empty)
    greyed = 3 if kind == "sit" else 4
    assert tap(screen, f"seat_{greyed}") == [] and screen.flow is not None
    assert screen.flow["step"] == 0
    tap(screen, f"seat_{min(enabled)}")
    assert screen.flow["fields"]["seat" if kind == "rebuy" else "free_seat"] == min(enabled)


def test_the_name_keyboard_types_accented_letters() -> None:
    screen = ConsoleScreen(between_hands())
    screen.page = "game"
    taps(screen, "game_sit", "seat_2")
    letters = [*"INÉS", "space", *"PÉREZ", "space", *"GÜE"]
    taps(screen, *(f"letter_{c}" for c in letters))
    assert screen.flow is not None
    assert screen.flow["pick"]["player"] == "Inés Pérez Güe"
    taps(screen, *["letter_delete"] * 14, *(f"letter_{c}" for c in "ÁÉÍÓÚÜÑ"))
    assert screen.flow["pick"]["player"] == "Áéíóúüñ"
    screen.draw()
    for b in screen.buttons():
        if b.id.startswith("letter_"):
            assert b.rect.height >= 44 and b.rect.width >= 44, b


@pytest.mark.parametrize("page", ["game", "floor", "main"])
def test_the_console_stays_on_its_page_after_a_confirmation_or_a_cancel(page: str) -> None:
    screen = ConsoleScreen(between_hands())
    screen.page = page
    start = {"game": "game_set_button", "floor": "floor_void", "main": "incident_premature"}
    taps(screen, start[page])
    steps = {"game": ["seat_3"], "floor": ["option_dealer_error"], "main": []}[page]
    out = taps(screen, *steps, "flow_confirm")
    assert len(out) == 1 and screen.flow is None and screen.page == page
    taps(screen, start[page], "flow_cancel")
    assert screen.flow is None and screen.page == page


def test_a_real_sit_then_stays_on_the_game_page(rig: Rig) -> None:
    """Through the server: seat a player on seat 5 with an accented name; the console is
    still on the game page, with seat 5 now greyed in the next seating."""
    client, screen = console(rig, "floor")
    screen._set_page("game")
    letters = ["letter_" + c for c in "JOSÉ"]
    out = taps(screen, "game_sit", "seat_5", *letters, "flow_next", "key_5", "key_0", "flow_next")
    out += taps(screen, "flow_confirm")
    assert out == [{"type": "report", "report": "sit", "seat": 5, "player": "José", "chips": 50}]
    refusals, view = exchange(client, out[0])
    assert not refusals and te.SitDown(5, "José", 50) in rig.table.log
    screen.set_view(view)
    assert screen.page == "game"
    taps(screen, "game_sit")
    screen.draw()
    assert not next(b for b in screen.buttons() if b.id == "seat_5").enabled
