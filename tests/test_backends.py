"""Building and opening devices from a ``[devices]`` configuration section."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from gpiozero import Device as GpioDevice  # type: ignore[import-untyped]

from drivers.gpio import GpioButtons
from firmware.errors import ConfigError, HardwareError
from firmware.hal import Device, DeviceEvent, Health, backends
from firmware.hal.backends import build_devices, open_devices
from hal_sim.fakes import FakeButtons, FakeReaders, FakeShoe, FakeTrays

SIM: dict[str, Any] = {
    "shoe": {"kind": "shoe", "backend": "sim", "seed": 4},
    "trays": {"kind": "trays", "backend": "sim", "zones": ["seat1.bet", "pot"]},
    "buttons": {"kind": "buttons", "backend": "sim", "buttons": ["dealer.next"]},
    "readers": {"kind": "readers", "backend": "sim", "readers": ["console"]},
}


def test_every_sim_backend_is_built_from_config() -> None:
    devices = build_devices(SIM)
    assert {name: type(device) for name, device in devices.items()} == {
        "shoe": FakeShoe,
        "trays": FakeTrays,
        "buttons": FakeButtons,
        "readers": FakeReaders,
    }
    events: list[DeviceEvent] = []
    open_devices(devices, events.append)
    assert all(device.health() is Health.OK for device in devices.values())
    trays = devices["trays"]
    assert isinstance(trays, FakeTrays) and trays.zones() == ("seat1.bet", "pot")
    for device in devices.values():
        device.close()


def test_the_gpio_backend_is_built_with_the_mock_factory() -> None:
    section = {
        "table-buttons": {
            "kind": "buttons",
            "backend": "gpio",
            "pin_factory": "mock",
            "buttons": {"seat1.action": 17},
            "leds": {"seat1.turn": 5},
        }
    }
    devices = build_devices(section)
    device = devices["table-buttons"]
    assert isinstance(device, GpioButtons)
    open_devices(devices, lambda event: None)
    try:
        device.set_led("seat1.turn", True)
        assert device.pin_factory.pin(5).state
        assert device.identity().serial == "mock"
    finally:
        device.close()
    assert GpioDevice.pin_factory is None


def test_a_backend_option_typo_stops_the_build() -> None:
    section = {"shoe": {"kind": "shoe", "backend": "sim", "sead": 4}}
    with pytest.raises(ConfigError, match=r"unknown option.*sead"):
        build_devices(section)


def test_an_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"'dice'.*shoe, trays, buttons, readers"):
        build_devices({"dice": {"kind": "dice", "backend": "sim"}})


def test_an_unknown_backend_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="'usb' for a buttons; use one of gpio, mcp23017, sim"):
        build_devices({"buttons": {"kind": "buttons", "backend": "usb"}})


def test_a_backend_whose_module_cannot_be_imported_is_a_hardware_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(backends.BACKENDS, ("readers", "nfc"), "drivers.no_such_module:Nfc")
    with pytest.raises(HardwareError, match="nfc backend for the readers cannot be loaded"):
        build_devices({"readers": {"kind": "readers", "backend": "nfc", "readers": ["console"]}})


class _Broken(FakeReaders):
    """A reader backend whose open fails the way a missing driver would."""

    def open(self, post: Any) -> None:
        raise RuntimeError("pcscd is not running")


def test_open_devices_closes_the_opened_ones_and_names_the_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(backends.BACKENDS, ("readers", "broken"), "tests.test_backends:_Broken")
    section = {
        **SIM,
        "readers": {"kind": "readers", "backend": "broken", "readers": ["console"]},
    }
    devices = build_devices(section)
    buttons = devices["buttons"]
    assert isinstance(buttons, FakeButtons)
    with pytest.raises(HardwareError, match="device 'readers' could not be opened: pcscd"):
        open_devices(devices, lambda event: None)
    closed = [devices[name].health() for name in ("shoe", "trays", "buttons")]
    assert closed == [Health.CLOSED] * 3
    with pytest.raises(HardwareError, match="not open"):
        buttons.press("dealer.next")


def test_a_gpio_factory_that_fails_to_open_stops_startup() -> None:
    if importlib.util.find_spec("RPi") is not None:
        pytest.skip("RPi.GPIO is installed here, so the rpigpio factory may load")
    section: dict[str, Any] = {
        "shoe": SIM["shoe"],
        "buttons": {
            "kind": "buttons",
            "backend": "gpio",
            "pin_factory": "rpigpio",
            "buttons": {"seat1.action": 17},
        },
    }
    devices: dict[str, Device] = build_devices(section)
    with pytest.raises(HardwareError, match="'buttons' cannot load the rpigpio pin factory"):
        open_devices(devices, lambda event: None)
    assert devices["shoe"].health() is Health.CLOSED
    assert GpioDevice.pin_factory is None


def test_the_gpio_doc_example_builds_and_opens_on_the_mock_factory() -> None:
    import pathlib
    import re
    import tomllib

    doc = pathlib.Path(__file__).resolve().parent.parent / "docs" / "protocols" / "gpio.md"
    (block,) = re.findall(r"^```toml\n(.*?)^```", doc.read_text(), flags=re.M | re.S)
    section = tomllib.loads(block)["devices"]
    assert section["buttons"]["pin_factory"] == "lgpio"
    section["buttons"]["pin_factory"] = "mock"
    devices = build_devices(section)
    open_devices(devices, lambda event: None)
    device = devices["buttons"]
    assert device.health() is Health.OK
    device.close()


@pytest.mark.parametrize("backend", ["sim", "gpio"])
def test_buttons_contract_holds_for_the_driver_and_its_sim(backend: str) -> None:
    """What the controller relies on, for both buttons backends."""
    options: dict[str, Any] = (
        {"buttons": ["dealer.next"], "leds": ["seat1.turn", "dealer.attention"]}
        if backend == "sim"
        else {
            "pin_factory": "mock",
            "buttons": {"dealer.next": 27},
            "leds": {"seat1.turn": 5, "dealer.attention": 6},
        }
    )
    device = build_devices({"b": {"kind": "buttons", "backend": backend, **options}})["b"]
    assert isinstance(device, FakeButtons | GpioButtons)
    assert device.health() is Health.CLOSED
    device.close()  # closing a device that never opened is allowed
    open_devices({"b": device}, lambda event: None)
    assert device.health() is Health.OK
    assert device.buttons() == ("dealer.next",)
    assert device.leds() == ("seat1.turn", "dealer.attention")
    device.set_led("seat1.turn", True)
    with pytest.raises(ConfigError, match=r"no LED 'seat2\.turn'"):
        device.set_led("seat2.turn", True)
    device.close()
    device.close()
    assert device.health() is Health.CLOSED
    with pytest.raises(HardwareError, match="not open"):
        device.set_led("seat1.turn", False)
