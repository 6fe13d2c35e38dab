"""The physical world behind a device, the same for its fake and its real driver.

The contract tests (``tests/test_contract.py``) run one set of assertions
against each HAL implementation: the in-process fake of ``hal_sim.fakes`` and
the real driver on its emulator (a pty for the serial devices, vpcd behind a
real pcscd for the card readers). Each *world* here plays the same physical
actions (a card leaves the shoe, chips are put in a zone, a badge is put on a
reader, the device goes silent...) on whichever side is under test, so a test
never knows which one it drives.

The fakes post at once in the caller's thread; the real drivers post later
from their own thread. Tests therefore always wait for events (with a
timeout) and never assert how long anything took.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar, Protocol, TypeVar

from firmware.hal.devices import Device
from firmware.hal.messages import DeviceEvent
from firmware.wire.link import LinkConfig
from hal_sim.fakes import FakeReaders, FakeShoe, FakeTrays
from hal_sim.shoe import ShoeEmulator
from hal_sim.trays import TraysEmulator
from tests.test_serial_shoe import Events

__all__ = [
    "ACTION_WORDS",
    "DECK",
    "FAST_LINK",
    "SERIAL_OPTIONS",
    "UNKNOWN",
    "Events",
    "FakeReadersWorld",
    "FakeShoeWorld",
    "FakeTraysWorld",
    "ReadersWorld",
    "SerialShoeWorld",
    "SerialTraysWorld",
    "ShoeWorld",
    "TraysWorld",
    "of",
]

DECK: tuple[str, ...] = tuple(f"04{0xA000 + i:012X}" for i in range(52))
"""The card tags both shoes play with (upper-case hex, as the HAL requires)."""
UNKNOWN = "FFFFFFFFFFFFFF"
"""A tag that is in no deck (the emulator's ``unknown`` card)."""

E = TypeVar("E", bound=DeviceEvent)

FAST_LINK = LinkConfig(heartbeat=0.1, link_timeout=0.75, hello_interval=0.1)
"""Shorter link timers than the protocol's, so an outage is noticed sooner."""
SERIAL_OPTIONS = {"heartbeat": 0.1, "link_timeout": 0.75, "handshake_timeout": 5.0}
"""The driver's side of :data:`FAST_LINK`."""

ACTION_WORDS = re.compile(
    r"\b(check|start|restart|plug|put|call|clear|replace|remove|take)\b", re.IGNORECASE
)
"""A fault's detail must tell the dealer what to do: one of these verbs."""


def of(events: Events, kind: type[E]) -> list[E]:
    """The events of ``kind`` received so far, typed."""
    return [e for e in events.of(kind) if isinstance(e, kind)]


class _Outage(Protocol):
    def go_down(self) -> None: ...
    def come_back(self) -> None: ...


# -- the shoe ------------------------------------------------------------------------


class ShoeWorld(_Outage, Protocol):
    """What happens at a card shoe."""

    device: Device

    def draw(self, tag: str) -> None:
        """A card with ``tag`` leaves the shoe."""

    def set_state(self, state: str) -> None:
        """The shoe's state changes (ready, deck_in, empty, jam, cover_open)."""

    def deck_for_scan(self, tags: Sequence[str]) -> None:
        """The deck now in the shoe, as the next scan will see it (in this order)."""

    def read_twice(self, tag: str) -> None:
        """A card with ``tag`` leaves and the reader reports it twice (two reads)."""

    def retransmitted(self, tag: str) -> None:
        """A card with ``tag`` leaves and its report reaches the host twice."""

    def unknown(self, tag: str) -> None:
        """A card whose tag is in no deck (a joker, a foreign card) leaves the shoe."""


class FakeShoeWorld:
    """The world of :class:`~hal_sim.fakes.FakeShoe`, configured with :data:`DECK`."""

    def __init__(self, device: FakeShoe) -> None:
        self.device = device

    def draw(self, tag: str) -> None:
        deck = self.device.deck()
        assert deck and deck[0] == tag, f"the fake's next card is {deck[:1]}, not {tag}"
        self.device.draw(1)

    def set_state(self, state: str) -> None:
        self.device.set_state(state)

    def deck_for_scan(self, tags: Sequence[str]) -> None:
        self.device.load(tags)

    def read_twice(self, tag: str) -> None:
        self.draw(tag)
        # The fake has no control for "the reader reported one card twice"; a
        # second read of the same tag with its own seq is what unknown_tag posts.
        self.device.unknown_tag(tag)

    def retransmitted(self, tag: str) -> None:
        self.draw(tag)
        self.device.tag_read_twice()

    def unknown(self, tag: str) -> None:
        self.device.unknown_tag(tag)

    def go_down(self) -> None:
        self.device.fail()

    def come_back(self) -> None:
        self.device.recover()


class SerialShoeWorld:
    """The world of :class:`~drivers.shoe.SerialShoe`: a :class:`ShoeEmulator` on a pty."""

    def __init__(self, device: Device, emulator: ShoeEmulator) -> None:
        self.device = device
        self.emu = emulator

    def draw(self, tag: str) -> None:
        self.emu.draw(tag)

    def set_state(self, state: str) -> None:
        self.emu.set_state(state)

    def deck_for_scan(self, tags: Sequence[str]) -> None:
        self.emu.set_scan(tags)

    def read_twice(self, tag: str) -> None:
        self.emu.draw_twice(tag)

    def retransmitted(self, tag: str) -> None:
        self.emu.duplicate_next(1)
        self.emu.draw(tag)

    def unknown(self, tag: str) -> None:
        self.emu.draw(tag)

    def go_down(self) -> None:
        self.emu.go_silent(60.0)

    def come_back(self) -> None:
        self.emu.go_silent(0.0)  # silence ends at the emulator's next step


# -- the trays -----------------------------------------------------------------------


class TraysWorld(_Outage, Protocol):
    """What happens at the chip trays."""

    device: Device

    def set_zone(self, zone: str, tags: Iterable[str]) -> None:
        """Exactly these chips are now in ``zone``."""

    def antenna_fault(self, zone: str) -> None:
        """The antenna of ``zone`` fails."""


class FakeTraysWorld:
    def __init__(self, device: FakeTrays) -> None:
        self.device = device

    def set_zone(self, zone: str, tags: Iterable[str]) -> None:
        want = frozenset(tags)
        now = self.device.present(zone)
        if now - want:
            self.device.remove(zone, now - want)
        if want - now:
            self.device.place(zone, want - now)

    def antenna_fault(self, zone: str) -> None:
        self.device.antenna_fault(zone, "The antenna does not answer.")

    def go_down(self) -> None:
        self.device.fail()

    def come_back(self) -> None:
        self.device.recover()


class SerialTraysWorld:
    def __init__(self, device: Device, emulator: TraysEmulator) -> None:
        self.device = device
        self.emu = emulator

    def set_zone(self, zone: str, tags: Iterable[str]) -> None:
        self.emu.set_zone(zone, sorted(tags))

    def antenna_fault(self, zone: str) -> None:
        self.emu.antenna_fault(zone, "antenna_open", "cable cut")

    def go_down(self) -> None:
        self.emu.go_silent(60.0)

    def come_back(self) -> None:
        self.emu.go_silent(0.0)


# -- the card readers ------------------------------------------------------------------


class ReadersWorld(_Outage, Protocol):
    """What happens at the smart-card readers (``seat1`` and ``console``)."""

    device: Device

    def insert(self, reader: str, kind: str, value: str) -> str:
        """Put a card on ``reader``: ``kind`` is player, staff or uid (``value`` in hex).

        Returns the identity the HAL must report for it.
        """

    def remove(self, reader: str) -> None:
        """Take the card off ``reader``."""


class FakeReadersWorld:
    def __init__(self, device: FakeReaders) -> None:
        self.device = device

    def insert(self, reader: str, kind: str, value: str) -> str:
        identity = f"uid:{value.upper()}" if kind == "uid" else f"{kind}:{value}"
        self.device.insert(reader, identity)
        return identity

    def remove(self, reader: str) -> None:
        self.device.remove(reader)

    def go_down(self) -> None:
        self.device.fail()

    def come_back(self) -> None:
        self.device.recover()


class PcscReadersWorld:
    """Virtual cards on vpcd's slots (seat1 is slot 0, console slot 1) behind our pcscd."""

    SLOTS: ClassVar[dict[str, int]] = {"seat1": 0, "console": 1}

    def __init__(
        self, device: Device, stop_daemon: Callable[[], None], start_daemon: Callable[[], None]
    ) -> None:
        from hal_sim.pcsc import FakeCard

        self.device = device
        self.cards: dict[str, FakeCard] = {}
        self._stop = stop_daemon
        self._start = start_daemon

    def insert(self, reader: str, kind: str, value: str) -> str:
        from hal_sim.pcsc import plain_card, player_card, staff_badge

        slot = self.SLOTS[reader]
        if kind == "player":
            card = player_card(value, slot=slot)
        elif kind == "staff":
            card = staff_badge(value, slot=slot)
        else:
            card = plain_card(slot=slot, uid=bytes.fromhex(value))
        self.cards[reader] = card
        card.insert()
        return f"uid:{value.upper()}" if kind == "uid" else f"{kind}:{value}"

    def remove(self, reader: str) -> None:
        self.cards.pop(reader).remove()

    def remove_all(self) -> None:
        for reader in list(self.cards):
            self.remove(reader)

    def go_down(self) -> None:
        self._stop()

    def come_back(self) -> None:
        self._start()
