"""The MCP23017 expander backend over a fake I2C bus (only the bus is simulated)."""

from __future__ import annotations

import pytest

from drivers.mcp23017 import GPPUA, IODIRA, IODIRB, ExpanderButtons
from firmware.errors import ConfigError, HardwareError
from firmware.hal import ButtonPressed, DeviceFault, DeviceRecovered, Health
from firmware.hal.backends import backend_class
from hal_sim.i2c import FakeI2CBus

OPTIONS = {
    "address": 0x21,
    "buttons": {"seat1.action": "A0", "seat2.action": "A7", "dealer.next": "B7"},
    "leds": {"seat1.turn": "B0", "seat2.turn": "B1"},
}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def opened(bus: FakeI2CBus, clock: Clock) -> tuple[ExpanderButtons, list[object]]:
    posted: list[object] = []
    device = ExpanderButtons(
        "panel", OPTIONS, bus_factory=lambda n: bus, clock=clock, background=False
    )
    device.open(posted.append)
    return device, posted


def fresh_bus() -> FakeI2CBus:
    from hal_sim.i2c import FakeMcp23017

    return FakeI2CBus({0x21: FakeMcp23017()})


def test_open_sets_directions_and_pull_ups_for_the_buttons_only() -> None:
    bus = fresh_bus()
    device, _ = opened(bus, Clock())
    chip = bus.chips[0x21]
    assert chip.registers[IODIRA] == 0b1000_0001  # A0, A7 inputs
    assert chip.registers[IODIRB] == 0b1000_0000  # B7 input, B0 and B1 outputs
    assert chip.registers[GPPUA] == 0b1000_0001
    assert device.health() is Health.OK
    assert backend_class("buttons", "mcp23017") is ExpanderButtons


def test_a_chattering_press_is_reported_once_after_it_settles() -> None:
    bus, clock = fresh_bus(), Clock()
    device, posted = opened(bus, clock)
    for step, level in enumerate([False, True, False, True, False]):  # contact chatter
        clock.now = step * 0.002
        bus.set_input(0x21, "A7", level)
        device.poll()
    assert posted == []
    clock.now = 0.05
    device.poll()
    assert posted == [ButtonPressed(device="panel", time=0.008, button="seat2.action")]
    clock.now = 0.1
    device.poll()
    assert len(posted) == 1  # held down: one press


def test_leds_drive_their_latch_bits() -> None:
    bus = fresh_bus()
    device, _ = opened(bus, Clock())
    device.set_led("seat2.turn", True)
    assert bus.latch_pin(0x21, "B1") and not bus.latch_pin(0x21, "B0")
    device.set_led("seat2.turn", False)
    assert not bus.latch_pin(0x21, "B1")
    device.set_led("seat1.turn", True)
    device.close()
    assert not bus.latch_pin(0x21, "B0") and bus.closed  # closing turns the LEDs off


def test_a_lost_bus_is_a_fault_and_its_return_a_recovery() -> None:
    bus, clock = fresh_bus(), Clock()
    device, posted = opened(bus, clock)
    bus.fail = True
    device.poll()
    device.poll()
    assert len(posted) == 1 and isinstance(posted[0], DeviceFault)
    assert "stopped answering" in posted[0].detail and device.health() is Health.FAULT
    bus.fail = False
    device.poll()
    assert isinstance(posted[1], DeviceRecovered) and device.health() is Health.OK


def test_no_chip_at_the_address_stops_open_with_a_sentence() -> None:
    bus = FakeI2CBus({})
    device = ExpanderButtons("panel", OPTIONS, bus_factory=lambda n: bus, background=False)
    with pytest.raises(HardwareError, match="No MCP23017 answers at address 0x21"):
        device.open(lambda event: None)
    assert bus.closed


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"address": 0x30, "leds": {"seat1.turn": "A0"}}, "0x20 to 0x27"),
        ({"buttons": {"seat1.action": "C3"}}, "A0 to"),
        ({"buttons": {"seat1.action": "A0"}, "leds": {"seat1.turn": "A0"}}, "twice"),
        ({"buttons": {"seat1.jump": "A0"}}, "unknown button"),
        ({"leds": {"seat1.turn": "A0"}, "speed": 3}, "unknown option"),
        ({}, "no buttons and no LEDs"),
    ],
)
def test_bad_options_are_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ExpanderButtons("panel", options, bus_factory=lambda n: fresh_bus())
