"""Buttons and LEDs on an MCP23017 I/O expander (16 lines over I2C), through smbus2.

The Pi's header has 22 free GPIO lines; a 9-10 seat table needs about 60
buttons and LEDs. Each MCP23017 adds 16 lines on the I2C bus (header pins 3
and 5), eight chips at addresses 0x20-0x27. One ``[devices.<name>]`` section
drives one chip::

    [devices.seats_1_4]
    kind = "buttons"
    backend = "mcp23017"
    bus = 1                 # /dev/i2c-1, the header's I2C
    address = 0x20          # A2 A1 A0 strapped low
    bounce_ms = 20
    poll_ms = 10            # how often the inputs are read
    buttons = { "seat1.action" = "A0", "seat2.action" = "A1" }
    leds = { "seat1.turn" = "B0", "seat2.turn" = "B1" }

Pins are named ``A0``-``A7`` and ``B0``-``B7`` (the chip's GPA and GPB
ports). Buttons are inputs with the chip's pull-ups: a button pulls its pin
to ground when pressed. LEDs are push-pull outputs, lit when high. The inputs
are polled (two bytes per read: about 0.5 ms of a 100 kHz bus) and debounced
here (:mod:`drivers.debounce`) with the same clock injection as the GPIO
driver. A bus error marks the device faulty (the hand pauses); the reads go
on and the device recovers on its own when the chip answers again.

Registers used (IOCON.BANK = 0, the chip's reset state): IODIRA/B (0x00/0x01,
1 = input), GPPUA/B (0x0C/0x0D, pull-ups), GPIOA/B (0x12/0x13, read) and
OLATA/B (0x14/0x15, output latches).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

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
from firmware.hal.messages import ButtonPressed, DeviceFault, DeviceRecovered

IODIRA, IODIRB = 0x00, 0x01
GPPUA, GPPUB = 0x0C, 0x0D
GPIOA = 0x12
OLATA, OLATB = 0x14, 0x15

PIN = re.compile(r"([AB])([0-7])")
ADDRESSES = range(0x20, 0x28)


class Bus(Protocol):
    """The part of :class:`smbus2.SMBus` this driver uses (tests pass a fake bus)."""

    def read_byte_data(self, i2c_addr: int, register: int) -> int: ...

    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None: ...

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int) -> list[int]: ...

    def close(self) -> None: ...


def _smbus(number: int) -> Bus:
    try:
        from smbus2 import SMBus
    except ImportError as exc:
        raise HardwareError(
            f"The mcp23017 backend needs smbus2 ({exc}); install the firmware with its "
            "hardware dependencies (pip install 'pokertable[hardware]')."
        ) from exc
    bus: Bus = SMBus(number)
    return bus


def _expander_pin(value: object) -> int | None:
    """``"A0"``-``"B7"`` as a bit number 0-15 (A0-A7 are 0-7, B0-B7 are 8-15)."""
    found = PIN.fullmatch(value) if isinstance(value, str) else None
    if found is None:
        return None
    return (0 if found.group(1) == "A" else 8) + int(found.group(2))


EXPANDER = PinScheme(
    parse=_expander_pin,
    said=lambda bit: f"{'AB'[bit // 8]}{bit % 8}",
    key="expander",
    table='name = "A0".."B7", for example {option} = {{ "{example}" = "A0" }}.',
    wrong="is not an expander pin; use A0 to A7 or B0 to B7.",
)
"""Pins on the chip: ``A0``-``B7``."""


class ExpanderButtons(PinButtons):
    """Buttons and LEDs on one MCP23017.

    :param name: The device's name in the table configuration.
    :param options: ``bus`` (default 1), ``address`` (0x20-0x27, default 0x20),
        ``buttons``, ``leds``, ``bounce_ms`` (20), ``poll_ms`` (10).
    :param bus_factory: Opens the I2C bus by number (default :class:`smbus2.SMBus`).
    :param clock: Time of reads and presses (default ``time.monotonic``).
    :param background: Start the polling thread; tests pass ``False`` and call :meth:`poll`.
    :raises ConfigError: for a missing, unknown or invalid option, or a pin used twice.
    """

    def __init__(
        self,
        name: str,
        options: Mapping[str, Any],
        *,
        bus_factory: Callable[[int], Bus] = _smbus,
        clock: Clock = time.monotonic,
        background: bool = True,
    ) -> None:
        super().__init__(name)
        opts = dict(options)
        self.bus_number = opts.pop("bus", 1)
        self.address = opts.pop("address", 0x20)
        bounce_ms = opts.pop("bounce_ms", 20)
        poll_ms = opts.pop("poll_ms", 10)
        self._buttons = pin_map(name, "buttons", opts.pop("buttons", {}), BUTTON_NAME, EXPANDER)
        self._leds = pin_map(name, "leds", opts.pop("leds", {}), LED_NAME, EXPANDER)
        if opts:
            known = "bus, address, buttons, leds, bounce_ms, poll_ms"
            raise unknown_options(name, "mcp23017", opts, known)
        if isinstance(self.bus_number, bool) or not isinstance(self.bus_number, int):
            raise ConfigError(
                f"[devices.{name}] bus must be the I2C bus number, such as 1.",
                key="config.expander.bus",
                name=name,
            )
        if self.address not in ADDRESSES or isinstance(self.address, bool):
            raise ConfigError(
                f"[devices.{name}] address = {self.address!r} is not an MCP23017 address; "
                "use 0x20 to 0x27 (set by its A0-A2 pins).",
                key="config.expander.address",
                name=name,
                value=repr(self.address),
            )
        for option, value, low, high in (
            ("bounce_ms", bounce_ms, 0, 1000),
            ("poll_ms", poll_ms, 1, 1000),
        ):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not (low <= value <= high)
            ):
                raise ConfigError(
                    f"[devices.{name}] {option} must be from {low} to {high}.",
                    key="config.expander.range",
                    name=name,
                    option=option,
                    low=low,
                    high=high,
                )
        self._check_pins(EXPANDER)
        self._bounce = bounce_ms / 1000
        self._poll = poll_ms / 1000
        self._bus_factory = bus_factory
        self._clock = clock
        self._background = background
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bus: Bus | None = None
        self._post: Post | None = None
        self._latch = 0
        self._fault: str | None = None
        self._debouncers: dict[str, Debouncer] = {}

    # -- the Device interface -------------------------------------------------

    def open(self, post: Post) -> None:
        """Set the chip's directions and pull-ups, turn the LEDs off, start polling.

        :raises HardwareError: if no MCP23017 answers at the address.
        """
        if self._post is not None:
            raise HardwareError(f"The buttons device '{self.name}' is already open.")
        inputs = sum(1 << bit for bit in self._buttons.values())
        where = f"address 0x{self.address:02x} of /dev/i2c-{self.bus_number}"
        try:
            bus = self._bus_factory(self.bus_number)
        except OSError as exc:
            raise HardwareError(
                f"The I2C bus /dev/i2c-{self.bus_number} for '{self.name}' cannot be opened "
                f"({exc.strerror or exc}); enable I2C (raspi-config, dtparam=i2c_arm=on) and "
                "let the service user use it (group i2c)."
            ) from exc
        try:
            bus.write_byte_data(self.address, OLATA, 0)
            bus.write_byte_data(self.address, OLATB, 0)
            bus.write_byte_data(self.address, IODIRA, inputs & 0xFF)
            bus.write_byte_data(self.address, IODIRB, inputs >> 8)
            bus.write_byte_data(self.address, GPPUA, inputs & 0xFF)
            bus.write_byte_data(self.address, GPPUB, inputs >> 8)
            back = bus.read_byte_data(self.address, IODIRA) | (
                bus.read_byte_data(self.address, IODIRB) << 8
            )
            levels = self._read(bus)
        except OSError as exc:
            bus.close()
            raise HardwareError(
                f"No MCP23017 answers at {where} for '{self.name}' ({exc.strerror or exc}); "
                "check its power, wiring and address pins (i2cdetect -y 1 lists the chips)."
            ) from exc
        if back != inputs:
            bus.close()
            raise HardwareError(
                f"The chip at {where} for '{self.name}' is not an MCP23017 in its reset "
                "state (its direction registers did not keep what was written)."
            )
        with self._lock:
            self._bus, self._post, self._latch, self._fault = bus, post, 0, None
            self._debouncers = {
                button: Debouncer(self._bounce, clock=self._clock, pressed=not levels >> bit & 1)
                for button, bit in self._buttons.items()
            }
        self._stop.clear()
        if self._background:
            self._thread = threading.Thread(target=self._run, name=f"i2c-{self.name}", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Turn every LED off, stop polling and close the bus (idempotent)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._thread = None
        with self._lock:
            bus, self._bus, self._post = self._bus, None, None
            self._debouncers.clear()
        if bus is None:
            return
        try:
            bus.write_byte_data(self.address, OLATA, 0)
            bus.write_byte_data(self.address, OLATB, 0)
        except OSError as exc:
            raise HardwareError(
                f"The LEDs of '{self.name}' could not be turned off ({exc}); check the expander."
            ) from exc
        finally:
            bus.close()

    def identity(self) -> DeviceIdentity:
        """Model ``mcp23017``, serial = bus and address."""
        return DeviceIdentity("mcp23017", f"i2c-{self.bus_number}@0x{self.address:02x}", "-")

    def health(self) -> Health:
        """OK while open and answering, FAULT after a bus error, CLOSED otherwise."""
        if self._bus is None:
            return Health.CLOSED
        return Health.FAULT if self._fault else Health.OK

    def locations(self) -> dict[str, Location]:
        """Each button's and LED's expander pin (``A0``-``B7``), with the chip's bus and address."""
        return {
            name: {"expander": f"{'AB'[bit // 8]}{bit % 8}", "bus": self.bus_number,
                   "address": self.address}
            for name, bit in {**self._buttons, **self._leds}.items()
        }  # fmt: skip

    def set_led(self, led: str, on: bool) -> None:
        """Light or clear ``led`` (one latch register written).

        :raises ConfigError: if no such LED is configured.
        :raises HardwareError: if the device is not open or the bus fails.
        """
        self._check_led(led)
        bit = self._leds[led]
        with self._lock:
            if self._bus is None:
                raise HardwareError(
                    f"The buttons device '{self.name}' is not open.",
                    key="hw.not_open",
                    device=self.name,
                )
            latch = self._latch | (1 << bit) if on else self._latch & ~(1 << bit)
            register, value = (OLATA, latch & 0xFF) if bit < 8 else (OLATB, latch >> 8)
            try:
                self._bus.write_byte_data(self.address, register, value)
            except OSError as exc:
                raise HardwareError(
                    f"The LED {led} on '{self.name}' could not be set ({exc.strerror or exc}).",
                    key="hw.led_bus",
                    device=self.name,
                    led=led,
                ) from exc
            self._latch = latch

    # -- polling ----------------------------------------------------------------

    def _read(self, bus: Bus) -> int:
        low, high = bus.read_i2c_block_data(self.address, GPIOA, 2)
        return int(low) | int(high) << 8

    def poll(self) -> None:
        """Read the inputs once, feed the debouncers, post settled presses and faults."""
        with self._lock:
            bus, post = self._bus, self._post
            if bus is None or post is None:
                return
            try:
                levels = self._read(bus)
            except OSError as exc:
                if self._fault is None:
                    self._fault = (
                        f"The I/O expander '{self.name}' stopped answering on the I2C bus "
                        f"({exc.strerror or exc}): its buttons do not work; check its cable."
                    )
                    post(
                        DeviceFault(
                            device=self.name,
                            time=self._clock(),
                            detail=self._fault,
                            key="alert.fault.expander",
                            params=(("device", self.name), ("error", str(exc.strerror or exc))),
                        )
                    )
                return
            if self._fault is not None:
                self._fault = None
                post(DeviceRecovered(device=self.name, time=self._clock()))
            for button, bit in self._buttons.items():
                change = self._debouncers[button].edge(not levels >> bit & 1)  # low = pressed
                if change is None:
                    change = self._debouncers[button].poll()
                if change is not None and change.pressed:
                    post(ButtonPressed(device=self.name, time=change.time, button=button))

    def _run(self) -> None:
        while not self._stop.wait(self._poll):
            self.poll()
