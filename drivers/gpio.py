"""Seat and dealer buttons and LEDs on the Pi's GPIO header, through gpiozero.

Configuration (``[devices.<name>]`` with ``kind = "buttons"``, ``backend = "gpio"``)::

    [devices.buttons]
    kind = "buttons"
    backend = "gpio"
    pin_factory = "lgpio"            # Pi 5 (and any Pi); "rpigpio" on a Pi 4 or older; "mock"
    bounce_ms = 20                   # optional, default 20
    pull_up = true                   # optional, default true: pressed pulls the pin low
    buttons = { "seat1.action" = 17, "dealer.next" = 27 }
    leds = { "seat1.turn" = 5, "dealer.attention" = 6 }

Pins are BCM GPIO numbers (0-27). The pin factory is chosen explicitly and
passed to every gpiozero device; the global ``Device.pin_factory`` is never
read or set, and a factory that cannot be loaded stops startup with a
:class:`~firmware.errors.HardwareError` instead of falling back to another.

Debouncing is done here (:mod:`drivers.debounce`), not by gpiozero, because
gpiozero's ``MockFactory`` ignores ``bounce_time``: gpiozero callbacks feed
raw edges to a :class:`~drivers.debounce.Debouncer` per button, timestamped
by the injected clock, and a helper thread reports each press once it has
settled. See ``docs/protocols/gpio.md``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import math
import threading
import time
from collections.abc import Mapping
from typing import Any

from gpiozero import LED, DigitalInputDevice  # type: ignore[import-untyped]
from gpiozero.pins import Factory  # type: ignore[import-untyped]

from drivers.debounce import Clock, Debouncer
from drivers.pin_buttons import (
    BUTTON_NAME,
    LED_NAME,
    PinButtons,
    PinScheme,
    pin_map,
    unknown_options,
)
from firmware.errors import ConfigError, HardwareError
from firmware.hal.devices import DeviceIdentity, Health, Location, Post
from firmware.hal.messages import ButtonPressed

FACTORIES: dict[str, str] = {
    "lgpio": "gpiozero.pins.lgpio:LGPIOFactory",
    "rpigpio": "gpiozero.pins.rpigpio:RPiGPIOFactory",
    "mock": "gpiozero.pins.mock:MockFactory",
}
"""The pin factories this driver accepts: ``module:Class`` by configured name."""

_FACTORY_ADVICE = {
    "lgpio": (
        "on a Raspberry Pi the installer puts lgpio in the table's own environment "
        "(systemd/install.sh, or pip install 'pokertable[pi5]' in it) and the service user "
        "must open /dev/gpiochip* (group gpio); off a Pi use the sim buttons backend"
    ),
    "rpigpio": (
        "on a Pi 4 or older install RPi.GPIO in the table's environment (pip install "
        "'pokertable[pi]'); on a Pi 5 set "
        'pin_factory = "lgpio"'
    ),
    "mock": "reinstall gpiozero (pip install 'gpiozero>=2.0.1.post3')",
}

GPIO_PINS = range(28)
"""BCM GPIO numbers on the 40-pin header."""

DEFAULT_BOUNCE_MS = 20


def _gpio_number(value: object) -> int | None:
    """A configured BCM number, or ``None`` when the value is not one."""
    if isinstance(value, bool) or not isinstance(value, int) or value not in GPIO_PINS:
        return None
    return value


GPIO = PinScheme(
    parse=_gpio_number,
    said=lambda pin: f"GPIO{pin}",
    key="gpio",
    table='name = GPIO number, for example {option} = {{ "{example}" = 17 }}.',
    wrong="is not a GPIO number; use a BCM number from 0 to 27.",
)
"""Pins on the header: BCM numbers, said ``GPIO17``."""


class GpioButtons(PinButtons):
    """Buttons and LEDs on GPIO pins through gpiozero.

    :param name: The device's name in the table configuration.
    :param options: ``pin_factory`` (required: ``"lgpio"``, ``"rpigpio"``,
        ``"mock"``, or from code a gpiozero ``Factory`` object, which the
        caller keeps and closes), ``buttons`` and ``leds`` (name -> BCM
        pin), ``bounce_ms`` (default 20) and ``pull_up`` (default true).
    :param clock: Timestamps of edges and events (default ``time.monotonic``).
    :param background: Start a thread that reports presses as they settle;
        tests pass ``False`` and call :meth:`poll` after advancing their clock.
    :raises ConfigError: for a missing, unknown or invalid option, or a pin
        used twice.
    """

    def __init__(
        self,
        name: str,
        options: Mapping[str, Any],
        *,
        clock: Clock = time.monotonic,
        background: bool = True,
    ) -> None:
        super().__init__(name)
        opts = dict(options)
        factory = opts.pop("pin_factory", None)
        buttons = opts.pop("buttons", {})
        leds = opts.pop("leds", {})
        bounce_ms = opts.pop("bounce_ms", DEFAULT_BOUNCE_MS)
        pull_up = opts.pop("pull_up", True)
        if opts:
            raise unknown_options(
                name, "gpio", opts, "pin_factory, buttons, leds, bounce_ms, pull_up"
            )
        self._factory_given: Any = None
        if isinstance(factory, Factory):
            self._factory_given = factory
            self._factory_name = next(
                (k for k, v in FACTORIES.items() if v.endswith(":" + type(factory).__name__)),
                type(factory).__name__,
            )
        elif isinstance(factory, str) and factory in FACTORIES:
            self._factory_name = factory
        else:
            raise ConfigError(
                f"[devices.{name}] pin_factory = {factory!r} is not a pin factory; set it to "
                '"lgpio" on a Pi 5, "rpigpio" on a Pi 4 or older, or "mock" for tests.',
                key="config.gpio.factory",
                name=name,
                value=repr(factory),
            )
        if isinstance(bounce_ms, bool) or not isinstance(bounce_ms, int | float):
            raise ConfigError(
                f"[devices.{name}] bounce_ms = {bounce_ms!r} must be a number of milliseconds.",
                key="config.gpio.bounce_type",
                name=name,
                value=repr(bounce_ms),
            )
        if not (math.isfinite(bounce_ms) and 0 <= bounce_ms <= 1000):
            raise ConfigError(
                f"[devices.{name}] bounce_ms = {bounce_ms!r} is out of range; use 0 to 1000 "
                "(20 suits most push buttons).",
                key="config.gpio.bounce_range",
                name=name,
                value=repr(bounce_ms),
            )
        if not isinstance(pull_up, bool):
            raise ConfigError(
                f"[devices.{name}] pull_up must be true or false.",
                key="config.gpio.pull_up",
                name=name,
            )
        self._buttons = pin_map(name, "buttons", buttons, BUTTON_NAME, GPIO)
        self._leds = pin_map(name, "leds", leds, LED_NAME, GPIO)
        self._check_pins(GPIO)
        self._bounce = bounce_ms / 1000
        self._pull_up = pull_up
        self._clock = clock
        self._background = background
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._post: Post | None = None
        self._factory: Any = None
        self._inputs: dict[str, Any] = {}
        self._outputs: dict[str, Any] = {}
        self._debouncers: dict[str, Debouncer] = {}

    # -- the Device interface -------------------------------------------------

    def open(self, post: Post) -> None:
        """Load the pin factory, claim every pin and start reporting presses.

        :raises HardwareError: if the pin factory cannot be loaded or a pin
            cannot be claimed; nothing is left claimed.
        """
        if self._post is not None:
            raise HardwareError(f"The buttons device '{self.name}' is already open.")
        self._factory = self._factory_given or self._load_factory()
        with self._lock:
            self._post = post
        try:
            for led, pin in self._leds.items():
                self._outputs[led] = LED(
                    pin, active_high=True, initial_value=False, pin_factory=self._factory
                )
            for button, pin in self._buttons.items():
                # DigitalInputDevice, not Button: no hold thread to wait for on close.
                device = DigitalInputDevice(
                    pin, pull_up=self._pull_up, bounce_time=None, pin_factory=self._factory
                )
                self._inputs[button] = device  # keep a reference, or gpiozero closes it
                self._debouncers[button] = Debouncer(
                    self._bounce, clock=self._clock, pressed=bool(device.is_active)
                )
                device.when_activated = self._edge_callback(button, True)
                device.when_deactivated = self._edge_callback(button, False)
        except Exception as exc:
            with self._lock:
                self._post = None
            self._release()
            raise HardwareError(
                f"The buttons device '{self.name}' could not claim its GPIO pins with the "
                f"{self._factory_name} pin factory ({exc}); check that no other program or "
                "device uses them."
            ) from exc
        self._stop.clear()
        if self._background:
            self._thread = threading.Thread(target=self._run, name=f"gpio-{self.name}", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Turn every LED off, stop the helper thread and release the pins (idempotent)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._thread = None
        with self._lock:
            self._post = None
        self._release()

    def identity(self) -> DeviceIdentity:
        """Model ``gpio``, serial = the pin factory's name, firmware = gpiozero's version."""
        return DeviceIdentity(
            model="gpio",
            serial=self._factory_name,
            firmware=importlib.metadata.version("gpiozero"),
        )

    def health(self) -> Health:
        """OK while open, CLOSED otherwise."""
        return Health.OK if self._post is not None else Health.CLOSED

    def locations(self) -> dict[str, Location]:
        """Each button's and LED's BCM GPIO number."""
        return {name: {"gpio": pin} for name, pin in {**self._buttons, **self._leds}.items()}

    def set_led(self, led: str, on: bool) -> None:
        """Light or clear ``led``.

        :raises ConfigError: if no such LED is configured.
        :raises HardwareError: if the device is not open.
        """
        self._check_led(led)
        device = self._outputs.get(led)
        if device is None:
            raise HardwareError(
                f"The buttons device '{self.name}' is not open; open it before setting LEDs.",
                key="hw.not_open",
                device=self.name,
            )
        if on:
            device.on()
        else:
            device.off()

    # -- debouncing -----------------------------------------------------------

    @property
    def pin_factory(self) -> Any:
        """The gpiozero pin factory in use (``None`` before :meth:`open`); tests
        reach a ``MockFactory``'s pins through it."""
        return self._factory

    def poll(self) -> None:
        """Post every press that has settled by now (the helper thread calls this)."""
        with self._lock:
            for button, debouncer in self._debouncers.items():
                self._report(button, debouncer.poll())

    def _edge_callback(self, button: str, pressed: bool) -> Any:
        def callback() -> None:
            with self._lock:
                debouncer = self._debouncers.get(button)
                if debouncer is not None:
                    self._report(button, debouncer.edge(pressed))
            self._wake.set()

        return callback

    def _report(self, button: str, change: Any) -> None:
        # Called with the lock held.
        if change is not None and change.pressed and self._post is not None:
            self._post(ButtonPressed(device=self.name, time=change.time, button=button))

    def _next_deadline(self) -> float | None:
        with self._lock:
            deadlines = [
                d for d in (db.deadline() for db in self._debouncers.values()) if d is not None
            ]
        return min(deadlines, default=None)

    def _run(self) -> None:
        while not self._stop.is_set():
            deadline = self._next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self._clock())
            self._wake.wait(timeout)
            self._wake.clear()
            if not self._stop.is_set():
                self.poll()

    # -- pin factory and teardown -----------------------------------------------

    def _load_factory(self) -> Any:
        module_name, _, class_name = FACTORIES[self._factory_name].partition(":")
        try:
            module = importlib.import_module(module_name)
            return getattr(module, class_name)()
        except Exception as exc:
            raise HardwareError(
                f"The buttons device '{self.name}' cannot load the {self._factory_name} pin "
                f"factory ({type(exc).__name__}: {exc}); {_FACTORY_ADVICE[self._factory_name]}. "
                "No other pin factory is tried."
            ) from exc

    def _release(self) -> None:
        """Every LED off first, then close every device; try them all, then report."""
        with self._lock:
            self._debouncers.clear()
        errors: list[str] = []
        for led, device in self._outputs.items():
            try:
                device.off()
            except Exception as exc:
                errors.append(f"LED {led} could not be turned off ({exc})")
        devices = [*self._outputs.values(), *self._inputs.values()]
        if self._factory is not None and self._factory is not self._factory_given:
            devices.append(self._factory)
        for device in devices:
            try:
                device.close()
            except Exception as exc:
                errors.append(f"{device!r} could not be closed ({exc})")
        self._outputs.clear()
        self._inputs.clear()
        self._factory = None
        if errors:
            raise HardwareError(
                f"The buttons device '{self.name}' did not close cleanly: {'; '.join(errors)}. "
                "Check the wiring of those pins."
            )
