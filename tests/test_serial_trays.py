"""The serial chip trays driver over a real pty against the trays emulator."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from drivers.trays import SerialTrays
from firmware.hal.devices import Health
from firmware.hal.messages import (
    AntennaFault,
    ChipsChanged,
    DeviceFault,
    DeviceRecovered,
)
from hal_sim.trays import TraysEmulator
from tests.test_serial_shoe import Events

ZONES = ("seat1.bet", "seat1.stack", "pot")
Opener = Callable[[], tuple[SerialTrays, Events]]


@pytest.fixture
def emu() -> Iterator[TraysEmulator]:
    e = TraysEmulator(ZONES)
    yield e
    e.stop()


@pytest.fixture
def trays_on(emu: TraysEmulator) -> Iterator[Opener]:
    opened: list[SerialTrays] = []

    def make() -> tuple[SerialTrays, Events]:
        trays = SerialTrays("trays", {"port": emu.start()})
        events = Events()
        opened.append(trays)
        trays.open(events)
        return trays, events

    yield make
    for t in opened:
        t.close()


def chips(n: int, base: int = 0) -> list[str]:
    return [f"E004{base + i:08X}" for i in range(n)]


def changes(events: Events, zone: str) -> list[frozenset[str]]:
    return [
        e.tags for e in events.of(ChipsChanged) if isinstance(e, ChipsChanged) and e.zone == zone
    ]


def test_zones_come_from_the_handshake(trays_on: Opener) -> None:
    trays, events = trays_on()
    assert trays.zones() == ZONES
    assert trays.identity().model == "CT-10 trays"
    events.wait_count(ChipsChanged, len(ZONES))  # the full state after the handshake
    assert trays.present("pot") == frozenset()
    with pytest.raises(KeyError, match=r"no zone 'seat9\.bet'"):
        trays.present("seat9.bet")


def test_zone_updates_carry_the_full_state(emu: TraysEmulator, trays_on: Opener) -> None:
    trays, events = trays_on()
    events.wait_count(ChipsChanged, len(ZONES))
    emu.set_zone("seat1.bet", chips(3))
    emu.set_zone("seat1.bet", chips(3))  # no change: not posted again
    emu.set_zone("seat1.bet", chips(2))
    emu.set_zone("pot", chips(100, base=1000))  # big: sent in several chunks
    events.wait_count(ChipsChanged, len(ZONES) + 3)
    assert changes(events, "seat1.bet") == [frozenset(), frozenset(chips(3)), frozenset(chips(2))]
    assert trays.present("pot") == frozenset(chips(100, base=1000))
    assert changes(events, "pot")[-1] == frozenset(chips(100, base=1000))


def test_a_lost_update_is_repaired_by_the_next(emu: TraysEmulator, trays_on: Opener) -> None:
    trays, events = trays_on()
    events.wait_count(ChipsChanged, len(ZONES))
    emu.corrupt_next(1)
    emu.set_zone("seat1.stack", chips(5))
    emu.set_zone("seat1.stack", chips(6))
    events.wait_for(lambda: trays.present("seat1.stack") == frozenset(chips(6)), "six chips")
    assert trays.link_stats()["crc_errors"] >= 1


def test_antenna_fault(emu: TraysEmulator, trays_on: Opener) -> None:
    trays, events = trays_on()
    emu.antenna_fault("pot", "antenna_open", "cable to antenna 4 cut")
    (fault,) = events.wait_count(AntennaFault, 1)
    assert isinstance(fault, AntennaFault)
    assert (fault.zone, fault.detail) == ("pot", "antenna open: cable to antenna 4 cut")
    assert trays.health() is Health.DEGRADED


def test_outage_then_full_state_resync(emu: TraysEmulator, trays_on: Opener) -> None:
    trays, events = trays_on()
    events.wait_count(ChipsChanged, len(ZONES))
    emu.go_silent(1.5)
    emu.set_zone("seat1.bet", chips(4))  # changed while the link was down
    events.wait_count(DeviceFault, 1)
    events.wait_count(DeviceRecovered, 1)
    events.wait_for(lambda: trays.present("seat1.bet") == frozenset(chips(4)), "the new bet")
    assert changes(events, "seat1.bet") == [frozenset(), frozenset(chips(4))]
