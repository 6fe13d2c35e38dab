"""RFID chip trays on a serial link (backend ``serial`` of kind ``trays``)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from drivers.serial_device import SerialDevice
from firmware.hal.devices import ChipTrays, Health, Location
from firmware.hal.messages import AntennaFault, ChipsChanged, DeviceEvent
from firmware.wire.codec import AntennaFaultReport, Identity, Message, ZoneState


class SerialTrays(SerialDevice, ChipTrays):
    """Chip trays speaking the serial protocol (``docs/protocols/serial.md``).

    The device names its zones in IDENTITY and sends the full state of every
    zone after each handshake and whenever a zone changes, so a lost update
    is repaired by the next. :class:`~firmware.hal.ChipsChanged` is posted
    only when a zone's set of tags really changed. Options are those of
    :class:`~drivers.serial_device.SerialDevice`.
    """

    NOUN = "chip trays"

    def __init__(self, name: str, options: Mapping[str, Any]) -> None:
        super().__init__(name, options)
        self._zones_lock = threading.Lock()
        self._zones: tuple[str, ...] = ()
        self._present: dict[str, frozenset[str]] = {}
        self._partial: dict[str, list[str]] = {}
        self._faulty: set[str] = set()

    def locations(self) -> dict[str, Location]:
        """The serial port, for the device and each zone's antenna."""
        return {"": {"port": self.port}, **{zone: {"port": self.port} for zone in self.zones()}}

    def zones(self) -> tuple[str, ...]:
        """The zones the trays announced in their handshake."""
        with self._zones_lock:
            return self._zones

    def present(self, zone: str) -> frozenset[str]:
        """The chip tags last read in ``zone``.

        :raises KeyError: for a zone these trays do not have, naming the known ones.
        """
        with self._zones_lock:
            if zone not in self._zones:
                raise KeyError(
                    f"The chip trays '{self.name}' have no zone {zone!r}; they have "
                    f"{', '.join(self._zones) or 'none yet (not opened)'}."
                )
            return self._present.get(zone, frozenset())

    def health(self) -> Health:
        """As :meth:`SerialDevice.health`, and DEGRADED while an antenna is faulty."""
        health = super().health()
        if health is Health.OK and self._faulty:
            return Health.DEGRADED
        return health

    def _on_link_up(self, identity: Identity, now: float) -> None:
        with self._zones_lock:
            self._zones = identity.zones
        self._partial.clear()

    def _handle(self, msg: Message, now: float) -> Iterable[DeviceEvent]:
        if isinstance(msg, ZoneState):
            tags = self._partial.setdefault(msg.zone, [])
            tags.extend(msg.tags)
            if msg.more:
                return ()
            del self._partial[msg.zone]
            new = frozenset(tags)
            self._faulty.discard(msg.zone)
            with self._zones_lock:
                if msg.zone in self._present and self._present[msg.zone] == new:
                    return ()
                self._present[msg.zone] = new
            return (ChipsChanged(self.name, now, msg.zone, new),)
        if isinstance(msg, AntennaFaultReport):
            self._faulty.add(msg.zone)
            what = msg.code.name.lower().replace("_", " ")
            return (AntennaFault(self.name, now, msg.zone, f"{what}: {msg.detail}"),)
        return ()
