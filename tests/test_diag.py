"""Technician diagnostics on the simulated devices: pass/fail per item, reports."""

import json

from firmware.hal import Device
from firmware.service.diag import Diagnostics, Technician
from firmware.service.registry import TagRegistry
from hal_sim.fakes import FakeButtons, FakeReaders, FakeShoe, FakeTrays, default_card_tag


class ScriptedTechnician(Technician):
    """Plays each step on the fake devices, except the ones told to skip."""

    def __init__(
        self, skip: set[str] = frozenset(), cross: bool = False, dark: set[str] = frozenset()
    ):  # type: ignore[assignment]
        self.skip, self.cross, self.dark = skip, cross, dark
        self.steps: list[tuple[str, str]] = []

    def ask(self, device: Device, step: str, target: str) -> None:
        self.steps.append((step, target))
        if target in self.skip:
            return
        if step == "press" and isinstance(device, FakeButtons):
            device.press(target)
        elif step == "place" and isinstance(device, FakeTrays):
            chip = f"AA{len(self.steps):02X}"
            device.place(target, [chip])
            if self.cross:  # a neighbouring antenna picks the chip up too
                for other in device.zones():
                    if other != target:
                        device.place(other, [chip])
        elif step == "present" and isinstance(device, FakeReaders):
            device.insert(target, "staff:T-01")

    def confirm(self, device: Device, question: str) -> bool:
        return not any(led in question for led in self.dark)


def registry() -> TagRegistry:
    reg = TagRegistry(":memory:")
    reg.learn_deck([default_card_tag(c) for c in range(52)], order=list(range(52)))
    return reg


def devices(shoe_tags: list[str] | None = None) -> dict[str, Device]:
    shoe_opts = {"tags": shoe_tags} if shoe_tags is not None else {"seed": 1}
    return {
        "shoe": FakeShoe("shoe", shoe_opts),
        "trays": FakeTrays("trays", {"zones": ["seat1.bet", "seat2.bet"]}),
        "panel": FakeButtons(
            "panel", {"buttons": ["seat1.action", "dealer.misdeal"], "leds": ["seat1.turn"]}
        ),
        "readers": FakeReaders("readers", {"readers": ["console"]}),
    }


def test_all_items_pass_and_every_button_and_led_is_visited() -> None:
    tech = ScriptedTechnician()
    report = Diagnostics(devices(), registry(), tech, timeout=0.5).run()
    assert report.passed, report.to_text()
    items = {(i.device, i.item) for i in report.items}
    assert ("panel", "button seat1.action") in items and ("panel", "led seat1.turn") in items
    assert ("trays", "antenna seat2.bet") in items and ("shoe", "deck scan") in items
    assert json.loads(report.to_json())["passed"] is True


def test_failures_are_reported_per_item() -> None:
    tags = [default_card_tag(c) for c in range(51)] + ["DEADBEEF"]  # one card missing, a joker
    tech = ScriptedTechnician(skip={"dealer.misdeal"}, cross=True, dark={"seat1.turn"})
    report = Diagnostics(devices(tags), registry(), tech, timeout=0.3).run()
    failed = {i.item: i.detail for i in report.items if not i.passed}
    assert "missing" in failed["deck scan"] and "DEADBEEF" in failed["deck scan"]
    assert "cross-read" in failed["antenna seat1.bet"]
    assert "no press read" in failed["button dealer.misdeal"]
    assert "not lit" in failed["led seat1.turn"]
    assert "button seat1.action" not in failed
    assert "FAIL" in report.to_text() and not report.passed


def test_diagnostics_leave_every_device_closed() -> None:
    devs = devices()
    Diagnostics(devs, registry(), ScriptedTechnician(), timeout=0.3).run()
    panel = devs["panel"]
    assert isinstance(panel, FakeButtons)
    assert not any(panel.led(led) for led in panel.leds())
    assert all(d.health().value == "closed" for d in devs.values())
