"""The debouncer and the gpiozero buttons driver, on gpiozero's own MockFactory.

Time is a fake clock throughout: the driver runs without its helper thread
(``background=False``) and the tests call ``poll()`` after advancing the clock.
Buttons are wired with the pull-up, so ``drive_low()`` is a press.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero import Device  # type: ignore[import-untyped]
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from drivers import gpio
from drivers.debounce import Change, Debouncer
from drivers.gpio import GpioButtons
from firmware.errors import ConfigError, HardwareError
from firmware.hal import ButtonPressed, DeviceEvent, Health

BOUNCE = 0.02


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


# -- the debouncer ------------------------------------------------------------


def test_clean_press_counts_after_the_bounce_time(clock: FakeClock) -> None:
    d = Debouncer(BOUNCE, clock=clock)
    assert d.edge(True) is None
    clock.advance(BOUNCE - 0.001)
    assert d.poll() is None
    assert not d.pressed
    clock.advance(0.002)
    assert d.poll() == Change(pressed=True, time=1000.0)
    assert d.pressed
    assert d.poll() is None


def test_chatter_gives_one_press_and_one_release(clock: FakeClock) -> None:
    d = Debouncer(BOUNCE, clock=clock)
    changes: list[Change | None] = []
    for level in (True, False, True, False, True):
        changes.append(d.edge(level))
        clock.advance(0.002)
    changes.append(d.poll())  # only 2 ms since the last edge
    clock.advance(BOUNCE + 0.001)
    changes.append(d.poll())
    for level in (False, True, False):
        changes.append(d.edge(level))
        clock.advance(0.003)
    clock.advance(BOUNCE + 0.001)
    changes.append(d.poll())
    changes.append(d.poll())
    reported = [(c.pressed, round(c.time, 9)) for c in changes if c is not None]
    assert reported == [(True, 1000.008), (False, 1000.037)]


def test_glitch_back_to_the_settled_level_reports_nothing(clock: FakeClock) -> None:
    d = Debouncer(BOUNCE, clock=clock)
    d.edge(True)
    clock.advance(0.001)
    d.edge(False)
    assert d.deadline() is None
    clock.advance(1.0)
    assert d.poll() is None
    assert not d.pressed


def test_a_settled_change_is_reported_by_the_next_edge(clock: FakeClock) -> None:
    d = Debouncer(BOUNCE, clock=clock)
    d.edge(True)
    assert d.deadline() == pytest.approx(1000.0 + BOUNCE)
    clock.advance(0.5)
    assert d.edge(False) == Change(pressed=True, time=1000.0)
    assert d.deadline() == pytest.approx(1000.5 + BOUNCE)


def test_zero_bounce_time_reports_at_once_and_negative_is_refused(clock: FakeClock) -> None:
    d = Debouncer(0, clock=clock)
    d.edge(True)
    assert d.poll() == Change(pressed=True, time=1000.0)
    with pytest.raises(ValueError, match="bounce time"):
        Debouncer(-0.01, clock=clock)


# -- the gpio driver ------------------------------------------------------------

OPTIONS: dict[str, Any] = {
    "pin_factory": "mock",
    "bounce_ms": 20,
    "buttons": {"seat1.action": 17, "dealer.next": 27},
    "leds": {"seat1.turn": 5, "dealer.attention": 6},
}


@pytest.fixture
def events() -> list[DeviceEvent]:
    return []


@pytest.fixture
def buttons(clock: FakeClock, events: list[DeviceEvent]) -> Iterator[GpioButtons]:
    device = GpioButtons("buttons", OPTIONS, clock=clock, background=False)
    device.open(events.append)
    yield device
    device.close()


def _pin(device: GpioButtons, number: int) -> Any:
    return device.pin_factory.pin(number)


def test_press_and_release_post_one_press_after_the_bounce_time(
    buttons: GpioButtons, clock: FakeClock, events: list[DeviceEvent]
) -> None:
    pin = _pin(buttons, 17)
    pin.drive_low()
    clock.advance(BOUNCE - 0.001)
    buttons.poll()
    assert events == []
    clock.advance(0.002)
    buttons.poll()
    assert events == [ButtonPressed(device="buttons", time=1000.0, button="seat1.action")]
    clock.advance(0.1)
    pin.drive_high()
    clock.advance(0.1)
    buttons.poll()
    assert len(events) == 1  # a release is not a press


def test_chatter_within_the_bounce_time_is_one_press(
    buttons: GpioButtons, clock: FakeClock, events: list[DeviceEvent]
) -> None:
    pin = _pin(buttons, 27)
    for _ in range(4):
        pin.drive_low()
        clock.advance(0.002)
        pin.drive_high()
        clock.advance(0.002)
    pin.drive_low()
    buttons.poll()
    assert events == []
    clock.advance(BOUNCE + 0.001)
    buttons.poll()
    buttons.poll()
    assert [
        (e.device, e.button, round(e.time, 9)) for e in events if isinstance(e, ButtonPressed)
    ] == [("buttons", "dealer.next", 1000.016)]
    assert len(events) == 1
    # Release chatter, then a second clean press: exactly one more event.
    for _ in range(3):
        pin.drive_high()
        clock.advance(0.001)
        pin.drive_low()
        clock.advance(0.001)
    pin.drive_high()
    clock.advance(BOUNCE + 0.001)
    pin.drive_low()
    clock.advance(BOUNCE + 0.001)
    buttons.poll()
    assert [e.button for e in events if isinstance(e, ButtonPressed)] == [
        "dealer.next",
        "dealer.next",
    ]


def test_mock_factory_alone_does_not_debounce() -> None:
    """Why debouncing lives in our code: the mock fires on every edge."""
    factory = MockFactory()
    presses: list[int] = []
    from gpiozero import Button

    button = Button(5, bounce_time=0.05, pin_factory=factory)
    button.when_pressed = lambda: presses.append(1)
    for _ in range(3):
        factory.pin(5).drive_low()
        factory.pin(5).drive_high()
    assert len(presses) == 3
    button.close()
    factory.close()


def test_leds_lit_and_cleared_show_on_the_pins(buttons: GpioButtons) -> None:
    turn, attention = _pin(buttons, 5), _pin(buttons, 6)
    assert (turn.state, attention.state) == (False, False)
    buttons.set_led("seat1.turn", True)
    assert (turn.state, attention.state) == (True, False)
    buttons.set_led("dealer.attention", True)
    buttons.set_led("seat1.turn", False)
    assert (turn.state, attention.state) == (False, True)
    assert [s.state for s in turn.states] == [False, True, False]
    with pytest.raises(ConfigError, match=r"no LED 'seat9\.turn'"):
        buttons.set_led("seat9.turn", True)


def test_close_turns_every_led_off_and_is_idempotent(
    clock: FakeClock, events: list[DeviceEvent]
) -> None:
    factory = MockFactory()
    device = GpioButtons("buttons", {**OPTIONS, "pin_factory": factory}, clock=clock)
    device.open(events.append)
    assert device.health() is Health.OK
    device.set_led("seat1.turn", True)
    device.set_led("dealer.attention", True)
    turn, attention = factory.pin(5), factory.pin(6)
    device.close()
    assert (turn.state, attention.state) == (False, False)
    assert [s.state for s in turn.states] == [False, True, False]
    assert device.health() is Health.CLOSED
    device.close()
    with pytest.raises(HardwareError, match="not open"):
        device.set_led("seat1.turn", True)
    # The pins were released: a new device can claim them.
    again = GpioButtons("buttons", {**OPTIONS, "pin_factory": factory}, clock=clock)
    again.open(events.append)
    again.close()
    factory.close()


def test_no_press_is_posted_after_close(clock: FakeClock, events: list[DeviceEvent]) -> None:
    factory = MockFactory()
    device = GpioButtons(
        "buttons", {**OPTIONS, "pin_factory": factory}, clock=clock, background=False
    )
    device.open(events.append)
    pin = factory.pin(17)
    pin.drive_low()
    device.close()
    clock.advance(1)
    device.poll()
    assert events == []
    factory.close()


def test_identity_names_the_factory_and_gpiozero_version(buttons: GpioButtons) -> None:
    import importlib.metadata

    identity = buttons.identity()
    assert (identity.model, identity.serial) == ("gpio", "mock")
    assert identity.firmware == importlib.metadata.version("gpiozero")
    assert buttons.buttons() == ("seat1.action", "dealer.next")
    assert buttons.leds() == ("seat1.turn", "dealer.attention")


def test_the_global_pin_factory_is_never_set(buttons: GpioButtons) -> None:
    assert Device.pin_factory is None
    assert isinstance(buttons.pin_factory, MockFactory)


@pytest.mark.parametrize(
    ("buttons_map", "leds_map", "message"),
    [
        ({"seat1.action": 17, "seat2.action": 17}, {}, r"GPIO17 twice.*seat1\.action.*seat2"),
        ({"seat1.action": 17}, {"seat1.turn": 17}, r"GPIO17 twice.*button seat1\.action.*LED"),
    ],
)
def test_a_pin_used_twice_is_a_config_error(
    buttons_map: dict[str, int], leds_map: dict[str, int], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        GpioButtons("buttons", {"pin_factory": "mock", "buttons": buttons_map, "leds": leds_map})


def test_a_pin_claimed_by_another_device_is_a_hardware_error(clock: FakeClock) -> None:
    factory = MockFactory()
    first = GpioButtons("one", {"pin_factory": factory, "buttons": {"seat1.action": 17}})
    second = GpioButtons(
        "two",
        {"pin_factory": factory, "leds": {"seat2.turn": 5}, "buttons": {"seat2.action": 17}},
    )
    first.open(lambda event: None)
    with pytest.raises(HardwareError, match="'two' could not claim"):
        second.open(lambda event: None)
    first.close()
    second.open(lambda event: None)  # the failed open left nothing claimed
    second.close()
    factory.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pin_factory": "mock", "buttons": {"seat1.action": 17}, "bounce": 5}, "bounce"),
        ({"pin_factory": "mock", "pins": {}, "leds": {"seat1.turn": 5}}, "pins"),
        ({"buttons": {"seat1.action": 17}}, "pin_factory = None"),
        ({"pin_factory": "pigpio2", "buttons": {"seat1.action": 17}}, "'pigpio2'.*lgpio"),
        ({"pin_factory": "mock", "buttons": {"seat1.acton": 17}}, "unknown button 'seat1.acton'"),
        ({"pin_factory": "mock", "leds": {"seat1.turn": 40}}, "use a BCM number"),
        ({"pin_factory": "mock", "leds": {"seat1.turn": True}}, "not a GPIO number"),
        ({"pin_factory": "mock", "leds": [5]}, "must be a table"),
        ({"pin_factory": "mock", "leds": {"seat1.turn": 5}, "bounce_ms": -1}, "out of range"),
        ({"pin_factory": "mock", "leds": {"seat1.turn": 5}, "bounce_ms": "5"}, "milliseconds"),
        ({"pin_factory": "mock", "leds": {"seat1.turn": 5}, "pull_up": "yes"}, "true or false"),
        ({"pin_factory": "mock"}, "no buttons and no LEDs"),
    ],
)
def test_bad_options_are_config_errors_naming_them(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        GpioButtons("buttons", options)


class _Unavailable:
    def __init__(self) -> None:
        raise RuntimeError("This module can only be run on a Raspberry Pi!")


def test_an_unavailable_factory_is_a_hardware_error_without_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gpio, "_Unavailable", _Unavailable, raising=False)
    monkeypatch.setitem(gpio.FACTORIES, "rpigpio", "drivers.gpio:_Unavailable")
    device = GpioButtons("buttons", {"pin_factory": "rpigpio", "leds": {"seat1.turn": 5}})
    with pytest.raises(HardwareError) as info:
        device.open(lambda event: None)
    message = str(info.value)
    assert "'buttons'" in message and "rpigpio pin factory" in message
    assert "pokertable[pi]" in message and "No other pin factory is tried" in message
    assert device.pin_factory is None and Device.pin_factory is None
    assert device.health() is Health.CLOSED
    device.close()


def test_lgpio_off_a_pi_is_a_hardware_error() -> None:
    if pathlib.Path("/dev/gpiochip0").exists():
        pytest.skip("this machine has a GPIO chip; lgpio may load here")
    device = GpioButtons("buttons", {"pin_factory": "lgpio", "buttons": {"seat1.action": 17}})
    with pytest.raises(HardwareError, match=r"lgpio pin factory.*table's own environment"):
        device.open(lambda event: None)
    assert Device.pin_factory is None


def test_the_background_thread_reports_presses_with_the_real_clock() -> None:
    """The helper thread: waits for the edge, then the deadline, then posts."""
    import queue

    factory = MockFactory()
    posted: queue.Queue[DeviceEvent] = queue.Queue()
    device = GpioButtons(
        "buttons",
        {"pin_factory": factory, "bounce_ms": 1, "buttons": {"seat1.raise": 22}},
    )
    device.open(posted.put)
    try:
        factory.pin(22).drive_low()
        event = posted.get(timeout=60)  # a guard against a hang, not a timing check
        assert isinstance(event, ButtonPressed) and event.button == "seat1.raise"
    finally:
        device.close()
        factory.close()
    assert posted.empty()


def test_the_debounce_module_examples_run() -> None:
    import doctest

    from drivers import debounce

    assert doctest.testmod(debounce).failed == 0
