"""Abstract device classes. A backend subclasses one and overrides the
abstract methods; the others have working defaults it may override."""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from firmware.hal.messages import DeviceEvent

Location = dict[str, str | int]
"""Where one part of a device is wired (see :meth:`Device.locations`)."""

HEADER_PIN = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29, 6: 31,
    13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26,
    1: 28, 12: 32, 16: 36, 20: 38, 21: 40,
}  # fmt: skip
"""The physical pin (1-40) of each BCM GPIO number on the Raspberry Pi's 40-pin header."""

Post = Callable[[DeviceEvent], None]
"""How a backend hands an event to the controller (thread-safe, never blocks)."""


@dataclass(frozen=True)
class DeviceIdentity:
    """What a device says it is (from its handshake)."""

    model: str
    serial: str
    firmware: str


class Health(enum.Enum):
    """A device's health as the controller sees it."""

    OK = "ok"
    DEGRADED = "degraded"
    """Working, with errors (CRC errors, retransmissions, a faulty antenna)."""
    FAULT = "fault"
    """Not usable: the hand pauses until it recovers."""
    CLOSED = "closed"


class Device(ABC):
    """One configured device.

    Must override: :meth:`open`, :meth:`close`, :meth:`identity`.
    May override: :meth:`health`, :meth:`link_stats`, :meth:`locations`.

    :param name: The device's name in the table configuration.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    @abstractmethod
    def open(self, post: Post) -> None:
        """Connect, handshake and start reading; report through ``post``.

        :raises firmware.errors.HardwareError: with a sentence naming the
            device and why it cannot be opened (startup stops).
        """

    @abstractmethod
    def close(self) -> None:
        """Stop reading, put every output in its safe state and release the port.

        Safe to call more than once and on a device that never opened.
        """

    @abstractmethod
    def identity(self) -> DeviceIdentity:
        """Model, serial number and firmware version (after :meth:`open`)."""

    def health(self) -> Health:
        """Current health; the default says OK."""
        return Health.OK

    def link_stats(self) -> dict[str, int]:
        """Counters of the link (frames, CRC errors, retransmissions...)."""
        return {}

    def locations(self) -> dict[str, Location]:
        """Where each part of the device is wired, for the technician.

        By item (a button, LED, zone or reader name; ``""`` for the device
        itself) a plain record of one kind: ``{"gpio": 17}`` (a BCM GPIO on the
        Pi's header), ``{"expander": "A3", "bus": 1, "address": 32}`` (an
        MCP23017 pin), ``{"port": "/dev/ttyUSB0"}`` (a serial port),
        ``{"reader": "ACS ACR122U 00 00"}`` (a PC/SC reader) or
        ``{"simulated": 1}``. The default knows nothing.
        """
        return {}


class CardShoe(Device):
    """The RFID card shoe: reports each card drawn (:class:`~firmware.hal.CardRead`),
    its state (:class:`~firmware.hal.ShoeState`) and deck scans.

    Must also override: :meth:`request_scan`.
    """

    @abstractmethod
    def request_scan(self) -> None:
        """Ask the shoe to scan the whole deck; it reports :class:`~firmware.hal.DeckScanned`."""


class ChipTrays(Device):
    """RFID chip trays: the chip tags present in each zone, changes reported
    as :class:`~firmware.hal.ChipsChanged`, antenna faults as
    :class:`~firmware.hal.AntennaFault`.

    Must also override: :meth:`zones`, :meth:`present`.
    """

    @abstractmethod
    def zones(self) -> tuple[str, ...]:
        """The zones this device reads (``seatN.bet``, ``seatN.stack``, ``bank``, ``pot``,
        ``rake``)."""

    @abstractmethod
    def present(self, zone: str) -> frozenset[str]:
        """The chip tags last read in ``zone``."""


class Buttons(Device):
    """Buttons and LEDs at the seats and the dealer's place.

    Must also override: :meth:`buttons`, :meth:`leds`, :meth:`set_led`.
    Presses are reported as :class:`~firmware.hal.ButtonPressed`, debounced.
    LED names: ``seatN.turn`` (whose turn), ``seatN.button`` (dealer button
    position), ``dealer.attention``. On :meth:`close` every LED goes off.
    """

    @abstractmethod
    def buttons(self) -> tuple[str, ...]:
        """Names of the buttons this device reads."""

    @abstractmethod
    def leds(self) -> tuple[str, ...]:
        """Names of the LEDs this device drives."""

    @abstractmethod
    def set_led(self, led: str, on: bool) -> None:
        """Light or clear ``led``."""


class IdReaders(Device):
    """Smart-card readers (PC/SC) for player cards at the seats and staff badges
    at the console; reports :class:`~firmware.hal.IdCardInserted` and
    :class:`~firmware.hal.IdCardRemoved`.

    Must also override: :meth:`readers`.
    """

    @abstractmethod
    def readers(self) -> tuple[str, ...]:
        """The configured reader names (``seatN``, ``console``)."""
