"""Test mode from the console: a technician runs the diagnostics through the real server.

The controller owns simulated devices (:mod:`hal_sim.fakes`) and runs its loop
on a thread; the real :class:`~firmware.protocol.server.TableServer` serves a
real :class:`~ui.console.ConsoleScreen` (SDL dummy driver) logged in as a
technician through its own keypad. A scripted world plays the technician's
hands: when the screen's prompt asks, it presses the fake button, places a
fake chip, presents a fake card, and taps Yes/No on the screen for the LEDs.

Checked: the report (PASS/FAIL per item) reaches the technician page; the
journal, the meters and the table are unchanged; the devices are back in
play with their outputs restored; table requests during the test are refused;
only a technician may start, answer or cancel, and never during a hand.
Waits use deadlock guards only; nothing asserts how long anything took.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import contextlib
import json
import pathlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pygame
import pytest

from firmware.errors import HardwareError, IllegalAction
from firmware.hal import ButtonPressed, IdCardInserted
from firmware.protocol.auth import StaffDirectory, TerminalSecrets
from firmware.protocol.client import TableClient
from firmware.protocol.server import TableServer
from firmware.service.controller import Controller
from firmware.service.journal import Journal
from firmware.service.meters import Meters
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.views.audience import console_view
from hal_sim.fakes import FakeButtons, FakeReaders, FakeShoe, FakeTrays, default_card_tag
from tests.test_ui_seat import tap
from ui.console import ConsoleScreen

pytestmark = pytest.mark.xdist_group("diag_console")

GUARD = 120.0
"""Deadlock guard for a reply (seconds); nothing asserts how long anything took."""
SECRETS = {f"seat{n}": f"seat{n}-secret-0123456789" for n in (1, 2, 3)}
SECRETS["console"] = "console-secret-0123456789"
BADGES = {
    "technician": ("BADGE-T", "Teo", "3333"),
    "dealer": ("BADGE-D", "Dani", "1111"),
}
SHOTS = pathlib.Path(os.environ.get("UI_SCREENSHOTS", ""))


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


class Rig:
    """A table with simulated devices, journal and meters, its loop, the server."""

    def __init__(self, tmp: pathlib.Path) -> None:
        config = TableConfig("casino-cash", profile_options("casino-cash"), Stakes(1, 2))
        self.table = Table(config, deck_ready=True)
        for seat in (1, 2, 3):
            self.table.apply(te.SitDown(seat, f"P{seat}", 200))
        self.table.apply(te.SetButton(1))
        self.registry = TagRegistry(":memory:")
        self.registry.learn_deck([default_card_tag(c) for c in range(52)], order=list(range(52)))
        self.shoe = FakeShoe("shoe", {"seed": 1})
        self.trays = FakeTrays("trays", {"zones": ["seat1.bet", "seat2.bet"]})
        self.panel = FakeButtons(
            "panel",
            {
                "buttons": ["dealer.next", "dealer.pause"],
                "leds": ["dealer.attention", "seat2.turn"],
            },
        )
        self.readers = FakeReaders("readers", {"readers": ["seat1"]})
        devices = {d.name: d for d in (self.shoe, self.trays, self.panel, self.readers)}
        self.tmp = tmp
        self.journal: Journal | None = None
        self.meters: Meters | None = None
        self.controller = Controller(
            self.table, devices, self.registry, journal=self._journal, tick_seconds=3600
        )
        # Each diagnostic step waits for the technician's hands; on a loaded
        # machine the screen's round trip can take longer than a real person.
        self.controller.diag_timeout = 600.0
        self.controller.fault_listeners.append(lambda event: self._meters().bump("device_faults"))
        staff = StaffDirectory()
        for role, (badge, name, pin) in BADGES.items():
            staff.add(badge, name, role, pin)
        self.socket = str(tmp / "table.sock")
        self.server = TableServer(
            self.controller, TerminalSecrets(SECRETS), staff, unix_path=self.socket
        )
        self.controller.start()
        self.server.start()
        self.thread = threading.Thread(target=self.controller.run, daemon=True)
        self.thread.start()
        self.clients: list[TableClient] = []

    # The journal and the meters are SQLite: opened and used on the loop thread only.
    def _journal(self, event: te.TableEvent) -> None:
        if self.journal is None:
            self.journal = Journal(str(self.tmp / "journal.sqlite"))
        self.journal.append(event)

    def _meters(self) -> Meters:
        if self.meters is None:
            self.meters = Meters(str(self.tmp / "meters.sqlite"))
        return self.meters

    def pause(self) -> None:
        """The dealer pauses the table: the attention LED is lit (an output to restore)."""
        press = ButtonPressed("panel", 0.0, "dealer.pause")
        self.on_loop(lambda: self.controller.handle(press))
        assert self.controller.state.manual_pause and self.panel.led("dealer.attention")

    def on_loop(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the controller loop, wait for it and return its result."""
        done = threading.Event()
        out: list[Any] = []

        def run() -> None:
            try:
                out.append(fn())
            finally:
                done.set()

        self.controller.call_soon(run)
        assert done.wait(GUARD), "the controller loop did not run the call"
        return out[0] if out else None

    def snapshot(self) -> dict[str, Any]:
        """Everything test mode must leave as it was (taken on the loop thread)."""

        def take() -> dict[str, Any]:
            st = self.controller.state
            return {
                "journal": len(self.journal) if self.journal is not None else 0,
                "meters": self._meters().read(),
                "log": len(self.table.log),
                "view": json.dumps(console_view(self.table, "en"), sort_keys=True),
                "manual_pause": st.manual_pause,
                "held": list(st.held),
                "readers": dict(st.readers),
                "zones": dict(st.zones),
                "faults": dict(st.faults),
            }

        result: dict[str, Any] = self.on_loop(take)
        return result

    def connect(self, terminal: str) -> TableClient:
        client = TableClient.unix(self.socket)
        self.clients.append(client)
        client.hello(terminal, SECRETS[terminal], "en")
        return client

    def close(self) -> None:
        for client in self.clients:
            client.close()
        self.server.stop()
        self.controller.stop()
        self.thread.join(GUARD)
        self.controller.shutdown()
        self.registry.close()


@pytest.fixture
def rig(tmp_path: pathlib.Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.close()


def is_view(m: dict[str, Any]) -> bool:
    return m["type"] == "view"


def login(rig: Rig, role: str) -> tuple[TableClient, ConsoleScreen]:
    """The console, logged in through its own keypad with the badge in the reader."""
    client = rig.connect("console")
    screen = ConsoleScreen(client.wait_for(is_view, GUARD))
    badge, _, pin = BADGES[role]
    rig.controller.post(IdCardInserted("console-reader", 0.0, "console", badge))
    screen.set_view(
        client.wait_for(lambda m: is_view(m) and m["console"].get("card_present"), GUARD)
    )
    out: list[dict[str, Any]] = []
    for id in ("login", *(f"pin_{d}" for d in pin), "login_send"):
        out += tap(screen, id)
    assert out == [{"type": "login", "pin": pin}]
    client.send(out[0])
    audience = "technician" if role == "technician" else "console"
    screen.set_view(
        client.wait_for(
            lambda m: is_view(m) and m["audience"] == audience and m.get("staff") is not None,
            GUARD,
        )
    )
    return client, screen


def send(client: TableClient, screen: ConsoleScreen, *ids: str) -> None:
    """Tap ``ids`` on the screen and send what they produced."""
    for id in ids:
        for message in tap(screen, id):
            client.send(message)


class World:
    """The technician's hands: does what the prompt on the screen asks, once per step."""

    def __init__(self, rig: Rig, client: TableClient, screen: ConsoleScreen) -> None:
        self.rig, self.client, self.screen = rig, client, screen
        self.dark = {"seat2.turn"}  # the technician answers "no" for this LED
        self.done: set[tuple[str, str, bool]] = set()
        self.chips = 0
        self.prompts: list[dict[str, Any]] = []
        self.refusals: list[dict[str, Any]] = []
        self.on_prompt: Callable[[dict[str, Any]], None] | None = None

    def play(self, shot: str | None = None) -> dict[str, Any]:
        """Answer every prompt until the report arrives; return the last view."""
        while True:
            m = self.client.recv(GUARD)
            if m["type"] == "refused":
                self.refusals.append(m)
                continue
            if not is_view(m):
                continue
            self.screen.set_view(m)
            self.screen.draw()
            diag = m["diag"]
            if diag["state"] == "done":
                return m
            prompt = diag["prompt"]
            if diag["state"] != "running" or prompt is None:
                continue
            key = (prompt["step"], prompt["target"], prompt["question"] is not None)
            if key in self.done:
                continue
            self.done.add(key)
            self.prompts.append(prompt)
            if self.on_prompt is not None:
                self.on_prompt(prompt)
            self.act(prompt, shot)

    def act(self, prompt: dict[str, Any], shot: str | None) -> None:
        step, target = prompt["step"], prompt["target"]
        if prompt["question"] is not None:
            if shot and target in self.dark:
                save(self.screen, f"{shot}-prompt")
            send(self.client, self.screen, "diag_no" if target in self.dark else "diag_yes")
        elif step == "press":
            self.rig.panel.press(target)
        elif step == "place":
            self.chips += 1
            self.rig.trays.place(target, [f"AA{self.chips:02X}"])
            # ...and takes it back; the test may already have read it and closed the
            # trays (it was the last step): then there is nothing to take back from.
            with contextlib.suppress(HardwareError):
                self.rig.trays.remove(target, [f"AA{self.chips:02X}"])
        elif step == "present":
            self.rig.readers.insert(target, "staff:T-01")
            with contextlib.suppress(HardwareError):  # likewise
                self.rig.readers.remove(target)


def save(screen: ConsoleScreen, name: str) -> None:
    if str(SHOTS) not in ("", "."):
        pygame.image.save(screen.draw(), str(SHOTS / f"{name}.png"))


def test_technician_runs_every_test_from_the_console_and_the_table_is_unchanged(
    rig: Rig, tmp_path: pathlib.Path
) -> None:
    rig.pause()
    rig.on_loop(lambda: rig.controller.submit(te.SitOut(3, True)))  # something journaled
    rig.on_loop(lambda: rig._meters().bump("power_ups"))  # and a meter counted
    client, screen = login(rig, "technician")
    before = rig.snapshot()
    # The sit-out and, before it, the wall-clock anchor of this start (issue 23).
    assert before["journal"] == 2 and before["meters"]["power_ups"] == 1
    history_before = len(rig.panel.led_history)
    seat = rig.connect("seat1")
    seat.wait_for(is_view, GUARD)
    world = World(rig, client, screen)

    def during(prompt: dict[str, Any]) -> None:
        if len(world.prompts) == 1:  # the test runs: the table takes nothing
            assert rig.controller.testing and rig.controller.paused
            seat.send({"type": "sit_out"})
            refused = seat.wait_for(lambda m: m["type"] == "refused", GUARD)
            assert refused["key"] == "diag.busy"
            assert "testing" in refused["reason"]

    world.on_prompt = during
    assert "diag_all" in {b.id for b in screen.buttons()}
    send(client, screen, "diag_all")
    view = world.play(shot="console-technician-diag")
    save(screen, "console-technician-diag")

    # Every step needing the technician's hands was asked on the screen, in order, and
    # played (the scan needs none: the fake shoe answers at once, and a newer view may
    # replace its prompt before the screen gets it).
    asked = list(dict.fromkeys((p["step"], p["target"]) for p in world.prompts))
    assert [a for a in asked if a[0] != "scan"] == [
        ("place", "seat1.bet"),
        ("place", "seat2.bet"),
        ("press", "dealer.next"),
        ("press", "dealer.pause"),
        ("look", "dealer.attention"),
        ("look", "seat2.turn"),
        ("present", "seat1"),
    ]
    questions = [p["question"] for p in world.prompts if p["question"]]
    assert questions == ["Is the LED dealer.attention lit?", "Is the LED seat2.turn lit?"]
    place = next(p for p in world.prompts if p["step"] == "place")
    assert place["text"] == "Place one test chip in seat1.bet, and nowhere else."
    assert world.refusals == []

    # The report: PASS/FAIL per item with its sentence; the LED answered "no" fails.
    report = view["diag"]["report"]
    verdicts = {(i["device"], i["item"]): (i["passed"], i["detail"]) for i in report["items"]}
    assert verdicts[("panel", "led seat2.turn")] == (False, "not lit: check the LED")
    assert verdicts[("panel", "button dealer.next")] == (True, "pressed and read")
    assert verdicts[("trays", "antenna seat2.bet")] == (True, "read in this zone only")
    assert verdicts[("readers", "reader seat1")] == (True, "read staff:T-01")
    assert verdicts[("shoe", "deck scan")][0] is True
    assert [k for k, (ok, _) in verdicts.items() if not ok] == [("panel", "led seat2.turn")]
    assert report["passed"] is False and report["failed"] == 1
    parsed = json.loads(view["diag"]["json"])
    assert len(parsed["items"]) == len(report["items"]) and parsed["passed"] is False

    # The technician page shows it: the verdict and FAIL on the failed item.
    assert "diag_all" in {b.id for b in screen.buttons()}  # ready for another test

    # The table is exactly as it was; the devices are back in play, outputs restored.
    assert rig.snapshot() == before
    assert not rig.controller.testing
    assert rig.controller.paused and rig.controller.state.manual_pause  # the dealer's pause
    assert all(d.health().value == "ok" for d in rig.controller.devices.values())
    during_test = rig.panel.led_history[history_before:]
    assert ("dealer.attention", False) in during_test  # out of play: outputs safe
    assert ("seat2.turn", True) in during_test  # lit for the technician to look at
    assert rig.panel.led("dealer.attention") and not rig.panel.led("seat2.turn")

    # Back in play: the dealer's pause button reaches the table again.
    rig.panel.press("dealer.pause")
    assert rig.on_loop(lambda: rig.controller.state.manual_pause) is False

    # Spanish: the same report, translated.
    client.send({"type": "language", "lang": "es"})
    es = client.wait_for(lambda m: is_view(m) and m["lang"] == "es", GUARD)
    items = {(i["device"], i["item"]): i for i in es["diag"]["report"]["items"]}
    assert items[("panel", "led seat2.turn")]["detail"] == "no se enciende: revise el LED"
    assert items[("panel", "led seat2.turn")]["label"] == "LED seat2.turn"
    assert items[("panel", "button dealer.next")]["label"] == "Botón dealer.next"


def test_one_device_then_cancel_leaves_the_table_as_it_was(rig: Rig) -> None:
    rig.pause()
    client, screen = login(rig, "technician")
    before = rig.snapshot()
    world = World(rig, client, screen)

    def cancel(prompt: dict[str, Any]) -> None:
        if prompt["target"] == "dealer.pause":  # cancel instead of pressing the second button
            world.done.add(("press", "dealer.pause", False))
            send(client, screen, "diag_cancel")

    def act(prompt: dict[str, Any], shot: str | None) -> None:
        if prompt["target"] != "dealer.pause":
            World.act(world, prompt, shot)

    world.on_prompt = cancel
    world.act = act  # type: ignore[method-assign]
    send(client, screen, "diag_panel")
    view = world.play()
    items = view["diag"]["report"]["items"]
    assert {i["device"] for i in items} == {"panel"}  # one device only
    assert items[-1]["item"] == "test" and items[-1]["detail"] == "cancelled by the technician"
    assert [p["target"] for p in world.prompts] == ["dealer.next", "dealer.pause"]
    assert rig.snapshot() == before
    assert rig.panel.led("dealer.attention") and rig.panel.health().value == "ok"


def test_refused_during_a_hand_with_a_sentence(rig: Rig) -> None:
    client, screen = login(rig, "technician")
    rig.on_loop(lambda: (rig.table.apply(te.Shuffle()), rig.table.apply(te.Cut())))
    client.send({"type": "language", "lang": "en"})
    view = client.wait_for(lambda m: is_view(m) and m["diag"]["blocked"], GUARD)
    screen.set_view(view)
    assert not {b.id: b.enabled for b in screen.buttons()}["diag_all"]  # greyed, with why
    assert view["diag"]["blocked"].startswith("Diagnostics run between hands only")
    client.send({"type": "diag_start"})
    refused = client.wait_for(lambda m: m["type"] == "refused", GUARD)
    assert refused["key"] == "diag.refused.hand"
    assert (
        refused["reason"] == "Diagnostics run between hands only: finish or void this hand first."
    )
    assert not rig.controller.testing
    assert all(d.health().value == "ok" for d in rig.controller.devices.values())


@pytest.mark.parametrize(
    "message",
    [
        {"type": "diag_start"},
        {"type": "diag_answer", "yes": True},
        {"type": "diag_cancel"},
        {"type": "diag_export"},
    ],
)
def test_only_a_technician_may_run_diagnostics(rig: Rig, message: dict[str, Any]) -> None:
    dealer, _ = login(rig, "dealer")
    seat = rig.connect("seat2")
    seat.wait_for(is_view, GUARD)
    for client in (dealer, seat):
        client.send(message)
        refused = client.wait_for(lambda m: m["type"] == "refused", GUARD)
        assert refused["key"] == "protocol.permission.technician"
    assert not rig.controller.testing


def test_technician_requests_checked_on_shape_and_state(rig: Rig) -> None:
    client, _ = login(rig, "technician")
    for message, key in (
        ({"type": "diag_answer", "yes": True}, "diag.refused.no_question"),
        ({"type": "diag_cancel"}, "diag.refused.idle"),
        ({"type": "diag_answer", "yes": "si"}, "protocol.fields"),
        ({"type": "diag_start", "device": "toaster"}, "diag.refused.device"),
        ({"type": "diag_start", "device": 3}, "protocol.fields"),
        ({"type": "diag_start", "everything": True}, "protocol.fields"),
        ({"type": "diag_export", "folder": "/tmp"}, "protocol.fields"),  # the config names it
    ):
        client.send(message)
        assert client.wait_for(lambda m: m["type"] == "refused", GUARD)["key"] == key, message
    assert not rig.controller.testing


def test_controller_refuses_table_events_in_test_mode_without_journaling(rig: Rig) -> None:
    before = rig.snapshot()
    rig.on_loop(lambda: rig.controller.start_diagnostics("readers", "Teo"))

    def try_submit() -> str:
        try:
            rig.controller.submit(te.SitOut(1, True))
        except IllegalAction as exc:
            return str(exc.key)
        return "applied"

    assert rig.on_loop(try_submit) == "diag.busy"
    rig.on_loop(rig.controller.cancel_diagnostics)
    guard = threading.Event()
    while rig.on_loop(lambda: rig.controller.testing):
        guard.wait(0.01)
    assert rig.snapshot() == before


def test_export_from_the_console_writes_the_report_where_the_configuration_says(
    rig: Rig, tmp_path: pathlib.Path
) -> None:
    """The technician taps Export report: the report is written in the console's language,
    the view says where; a folder that cannot be written is refused with its reason."""
    rig.controller.export_dir = str(tmp_path / "usb")
    client, screen = login(rig, "technician")
    client.send({"type": "language", "lang": "es"})
    screen.set_view(client.wait_for(lambda m: is_view(m) and m["lang"] == "es", GUARD))
    send(client, screen, "diag_export")
    assert client.wait_for(lambda m: m["type"] in ("ok", "refused"), GUARD) == {
        "type": "ok",
        "request": "diag_export",
    }
    view = client.wait_for(lambda m: is_view(m) and m["diag"]["export"], GUARD)
    export = view["diag"]["export"]
    written = sorted((tmp_path / "usb").glob("pokertable-diag-*.txt"))
    assert [str(p) for p in written] == [export["path"]]
    assert export["text"].startswith(f"Informe guardado en {export['path']} (")
    text = written[0].read_text(encoding="utf-8")
    assert text.startswith("Informe técnico de la mesa, ")
    assert "Botón dealer.next (Crupier): simulado (sin cableado)" in text
    (tmp_path / "full").write_text("not a folder")
    rig.controller.export_dir = str(tmp_path / "full")
    send(client, screen, "diag_export")
    refused = client.wait_for(lambda m: m["type"] == "refused", GUARD)
    assert refused["key"] == "tech.export.failed"
    assert refused["params"]["folder"] == str(tmp_path / "full")
    assert screen.refusal_text(refused).startswith("No se pudo guardar el informe en")
