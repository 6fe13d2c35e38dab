"""The controller loop: device events to table events, pauses on faults, outputs."""

import threading

import pytest

from firmware.engine.cards import parse_card
from firmware.errors import HardwareError
from firmware.hal import (
    ButtonPressed,
    Buttons,
    CardRead,
    DeviceFault,
    DeviceIdentity,
    DeviceRecovered,
    Post,
)
from firmware.service.controller import Controller
from firmware.service.controller_state import KEEP_ALERTS
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table


class PanelStub(Buttons):
    """A minimal Buttons device recording LED changes (the real fakes live in hal_sim)."""

    def __init__(self, name: str, fail_open: bool = False, fail_close: bool = False) -> None:
        super().__init__(name)
        self.lit: dict[str, bool] = {}
        self.closed = 0
        self.fail_open, self.fail_close = fail_open, fail_close

    def open(self, post: Post) -> None:
        if self.fail_open:
            raise HardwareError(f"The device '{self.name}' is not connected: check its cable.")

    def close(self) -> None:
        self.closed += 1
        self.lit = {k: False for k in self.lit}
        if self.fail_close:
            raise OSError("bus error")

    def identity(self) -> DeviceIdentity:
        return DeviceIdentity("stub", "0", "0")

    def buttons(self) -> tuple[str, ...]:
        return ("dealer.misdeal",)

    def leds(self) -> tuple[str, ...]:
        return tuple(f"seat{i}.{w}" for i in (1, 2, 3) for w in ("turn", "button"))

    def set_led(self, led: str, on: bool) -> None:
        self.lit[led] = on


def tag(card: str) -> str:
    return f"C0DE{parse_card(card):02X}"


@pytest.fixture
def ctl(tmp_path) -> Controller:  # type: ignore[no-untyped-def]
    registry = TagRegistry(str(tmp_path / "tags.sqlite"))
    registry.learn_deck([f"C0DE{c:02X}" for c in range(52)], order=list(range(52)))
    table = Table(
        TableConfig("casino-cash", profile_options("casino-cash"), Stakes()), deck_ready=True
    )
    for seat in (1, 2, 3):
        table.apply(te.SitDown(seat, f"P{seat}", 200))
    table.apply(te.SetButton(1))
    controller = Controller(table, {"panel": PanelStub("panel")}, registry)
    controller.start()
    controller.apply(te.Shuffle())
    controller.apply(te.Cut())
    return controller


def read(ctl: Controller, *cards: str, start: int = 1) -> None:
    for i, card in enumerate(cards):
        ctl.post(CardRead("shoe", 0.0, tag(card), start + i))
    ctl.run_pending()


def test_tag_reads_become_cards_drawn_with_their_roles(ctl: Controller) -> None:
    read(ctl, "Ah", "Kd", "7c", "As", "Kh", "2d")
    hand = ctl.table.hand
    assert hand is not None
    assert hand.hand.hole[0] == [parse_card("Ah"), parse_card("As")]  # seat 2, small blind


def test_unknown_tag_is_an_alert_not_a_card(ctl: Controller) -> None:
    ctl.post(CardRead("shoe", 0.0, "DEADBEEF", 1))
    ctl.run_pending()
    assert "unknown tag DEADBEEF" in ctl.alerts[-1].text
    assert ctl.table.hand is not None and ctl.table.hand.draws == []


def test_card_read_twice_in_a_hand_is_an_alert(ctl: Controller) -> None:
    read(ctl, "Ah")
    read(ctl, "Ah", start=2)
    assert "read twice" in ctl.alerts[-1].text
    assert len(ctl.table.hand.draws) == 1  # type: ignore[union-attr]


def test_repeated_sequence_number_is_applied_once(ctl: Controller) -> None:
    read(ctl, "Ah", "Kd", start=1)
    read(ctl, "Kd", "7c", start=2)  # seq 2 again (after a reconnection), then 3
    assert [d.card for d in ctl.table.hand.draws] == [  # type: ignore[union-attr]
        parse_card("Ah"),
        parse_card("Kd"),
        parse_card("7c"),
    ]


def test_an_alert_flood_is_bounded_and_keeps_the_open_device_fault(ctl: Controller) -> None:
    ctl.post(DeviceFault("trays", 0.0, "The chip trays stopped answering: check the cable."))
    ctl.run_pending()
    limit = KEEP_ALERTS
    for _ in range(limit + 50):  # a seat asking for the clock again and again
        ctl.post(ButtonPressed("panel", 0.0, "seat2.time"))
    ctl.run_pending()
    assert len(ctl.alerts) == limit
    assert ctl.alerts[0].device == "trays" and "chip trays" in ctl.alerts[0].text
    assert ctl.alerts[-1].key == "alert.ask_clock"
    assert ctl.alerts.added == limit + 51


def test_device_fault_pauses_and_recovery_applies_held_reads_in_order(ctl: Controller) -> None:
    ctl.post(DeviceFault("trays", 0.0, "The chip trays stopped answering: check the cable."))
    ctl.run_pending()
    assert ctl.paused and "paused" in ctl.alerts[-1].text
    read(ctl, "Ah", "Kd")
    assert ctl.table.hand.draws == []  # type: ignore[union-attr]
    ctl.post(DeviceRecovered("trays", 1.0))
    ctl.run_pending()
    assert not ctl.paused
    assert [d.card for d in ctl.table.hand.draws] == [parse_card("Ah"), parse_card("Kd")]  # type: ignore[union-attr]


def test_misdeal_button_voids_the_hand(ctl: Controller) -> None:
    read(ctl, "Ah", "Kd")
    ctl.post(ButtonPressed("panel", 0.0, "dealer.misdeal"))
    ctl.run_pending()
    assert ctl.table.hand is None and ctl.table.records[-1]["void"]


def test_turn_and_button_leds_follow_the_hand(ctl: Controller) -> None:
    panel = ctl.devices["panel"]
    assert isinstance(panel, PanelStub)
    read(ctl, "Ah", "Kd", "7c", "As", "Kh", "2d")
    assert panel.lit["seat1.turn"] and panel.lit["seat1.button"]  # button acts first 3-handed
    ctl.apply(te.Act(1, "call"))
    assert panel.lit["seat2.turn"] and not panel.lit["seat1.turn"]


def test_shutdown_closes_every_device_even_if_one_fails(tmp_path) -> None:  # type: ignore[no-untyped-def]
    a, b = PanelStub("a", fail_close=True), PanelStub("b")
    table = Table(TableConfig("home", profile_options("home"), Stakes()), deck_ready=True)
    ctl = Controller(table, {"a": a, "b": b}, TagRegistry(":memory:"))
    ctl.start()
    ctl.shutdown()
    ctl.shutdown()
    assert (a.closed, b.closed) == (1, 1)
    assert "did not close cleanly" in ctl.alerts[-1].text


def test_a_device_that_cannot_open_stops_startup_and_closes_the_others() -> None:
    good, bad = PanelStub("good"), PanelStub("bad", fail_open=True)
    table = Table(TableConfig("home", profile_options("home"), Stakes()), deck_ready=True)
    ctl = Controller(table, {"good": good, "bad": bad}, TagRegistry(":memory:"))
    with pytest.raises(HardwareError, match="'bad' is not connected"):
        ctl.start()
    assert good.closed == 1


def test_loop_runs_ticks_and_stops_from_another_thread() -> None:
    times = iter(float(x) for x in range(10_000))
    table = Table(TableConfig("home", profile_options("home"), Stakes()), deck_ready=True)
    ctl = Controller(
        table, {}, TagRegistry(":memory:"), clock=lambda: next(times), tick_seconds=1.0
    )
    ticks: list[float] = []
    ctl.listeners.append(lambda c: ticks.append(c.table.now))
    stopper = threading.Timer(0.05, ctl.stop)
    stopper.start()
    ctl.run(until=lambda: table.now >= 5)
    stopper.cancel()
    assert table.now >= 5
