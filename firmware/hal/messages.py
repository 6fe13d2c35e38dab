"""What devices report to the controller: plain frozen records.

Each carries the configured device ``name`` and ``time``, the monotonic time
in seconds at which the backend read it. Tags are hex strings of the RFID
tag's identifier (upper case, no separators).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceEvent:
    """Base class of everything a device reports."""

    device: str
    time: float


@dataclass(frozen=True)
class CardRead(DeviceEvent):
    """The shoe read a card's tag as it left the shoe.

    :param tag: The card tag's identifier.
    :param seq: The device's sequence number of this read, so a read
        retransmitted after a link fault is recognised and applied once.
    """

    tag: str
    seq: int


@dataclass(frozen=True)
class ShoeState(DeviceEvent):
    """The shoe's state changed: ``ready``, ``deck_in``, ``empty``, ``jam``, ``cover_open``."""

    state: str


@dataclass(frozen=True)
class DeckScanned(DeviceEvent):
    """A deck scan finished: every tag seen, in the order seen (PE-1, PE-2)."""

    tags: tuple[str, ...]


@dataclass(frozen=True)
class ChipsChanged(DeviceEvent):
    """The set of chip tags in one zone changed.

    :param zone: ``seatN.bet``, ``seatN.stack``, ``bank``, ``pot`` or ``rake``.
    :param tags: Every chip tag now present in the zone.
    """

    zone: str
    tags: frozenset[str]


@dataclass(frozen=True)
class AntennaFault(DeviceEvent):
    """One zone's antenna failed (its readings cannot be trusted)."""

    zone: str
    detail: str


@dataclass(frozen=True)
class ButtonPressed(DeviceEvent):
    """A physical button was pressed (already debounced).

    :param button: ``seatN.action``, ``seatN.raise``, ``seatN.time``,
        ``seatN.sitout``, ``dealer.next``, ``dealer.misdeal``, ``dealer.pause``
        or ``dealer.exposed``.
    """

    button: str


@dataclass(frozen=True)
class IdCardInserted(DeviceEvent):
    """A player card or staff badge was put on a reader.

    :param reader: The reader's configured name (``seatN`` or ``console``).
    :param identity: The card's identity: a player or staff id read by APDU,
        or ``uid:<hex>`` when only the UID is available.
    """

    reader: str
    identity: str


@dataclass(frozen=True)
class IdCardRemoved(DeviceEvent):
    """The card on ``reader`` was taken away."""

    reader: str


@dataclass(frozen=True)
class DeviceFault(DeviceEvent):
    """The device stopped working: link down, silent past its heartbeat, error.

    ``detail`` is a sentence for the dealer console saying what to do; ``key``
    (a message-catalog key, ``alert.fault.*``) and ``params`` (its values, as
    name/value pairs) let each screen show it in its own language.
    """

    detail: str
    key: str = ""
    params: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class DeviceRecovered(DeviceEvent):
    """The device works again after a fault."""
