"""The RFID card shoe on a serial link (backend ``serial`` of kind ``shoe``)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from drivers.serial_device import SerialDevice
from firmware.hal.devices import CardShoe
from firmware.hal.messages import CardRead, DeckScanned, DeviceEvent, ShoeState
from firmware.wire.codec import (
    CardDrawn,
    Identity,
    Message,
    ScanRequest,
    ScanResult,
    ShoeStateReport,
)


class SerialShoe(SerialDevice, CardShoe):
    """A card shoe speaking the serial protocol (``docs/protocols/serial.md``).

    Posts :class:`~firmware.hal.CardRead` for each CARD_DRAWN (its ``seq`` is
    the shoe's read number; a read number seen before in the same shoe
    session is not posted again), :class:`~firmware.hal.ShoeState` and
    :class:`~firmware.hal.DeckScanned`. Options are those of
    :class:`~drivers.serial_device.SerialDevice`.

    >>> SerialShoe("shoe", {"port": "/dev/ttyUSB0", "heartbeat": 0.25}).port
    '/dev/ttyUSB0'
    """

    NOUN = "card shoe"

    def __init__(self, name: str, options: Mapping[str, Any]) -> None:
        super().__init__(name, options)
        self._scan_lock = threading.Lock()
        self._next_scan = 1
        self._scan_tags: dict[int, list[str]] = {}
        self._session: int | None = None
        self._reads_seen: set[int] = set()
        self._seq_base = 0
        self._last_seq = 0

    def request_scan(self) -> None:
        """Ask the shoe to scan its deck; the result is posted as DeckScanned."""
        with self._scan_lock:
            scan_id = self._next_scan
            self._next_scan = (scan_id % 0xFFFF) + 1
        self._send(ScanRequest(scan_id))

    def _on_link_up(self, identity: Identity, now: float) -> None:
        if identity.session != self._session:
            # A restarted shoe numbers its reads from 1 again: carry on from the last
            # number posted, so the controller's order and de-duplication hold.
            self._session = identity.session
            self._reads_seen.clear()
            self._seq_base = self._last_seq

    def _handle(self, msg: Message, now: float) -> Iterable[DeviceEvent]:
        if isinstance(msg, CardDrawn):
            if msg.read_no in self._reads_seen:
                self._duplicate_reads += 1
                return ()
            self._reads_seen.add(msg.read_no)
            if len(self._reads_seen) > 4096:
                self._reads_seen = {r for r in self._reads_seen if r > msg.read_no - 1024}
            seq = self._seq_base + msg.read_no
            self._last_seq = max(self._last_seq, seq)
            return (CardRead(self.name, now, msg.tag, seq),)
        if isinstance(msg, ShoeStateReport):
            return (ShoeState(self.name, now, msg.state.name.lower()),)
        if isinstance(msg, ScanResult):
            tags = self._scan_tags.setdefault(msg.scan_id, [])
            tags.extend(msg.tags)
            if msg.more:
                return ()
            del self._scan_tags[msg.scan_id]
            return (DeckScanned(self.name, now, tuple(tags)),)
        return ()
