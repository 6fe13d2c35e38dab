"""One contract, two implementations: every HAL fake against its real driver.

Each test takes a ``*_case`` fixture parametrized over ``fake`` (the
in-process fake of :mod:`hal_sim.fakes`) and the real driver on its emulator
(``serial``: :class:`~drivers.shoe.SerialShoe` / :class:`~drivers.trays.SerialTrays`
on a pty; ``pcsc``: :class:`~drivers.pcsc.PcscReaders` behind a real pcscd
with vpcd and :class:`hal_sim.pcsc.FakeCard`). The fixture yields the opened
device, a *world* (``tests/contract_kit.py``) playing the same physical
actions on either side, and the events posted. What the controller relies on
is asserted here once, so the fake and the driver cannot drift apart.

Where they legitimately differ (a real link takes time; the fake posts at
once) the tests wait with timeouts and never assert durations. Genuine
disagreements are ``xfail(strict=True)`` naming the file to fix.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from drivers.shoe import SerialShoe
from drivers.trays import SerialTrays
from firmware.errors import ConfigError
from firmware.hal import (
    AntennaFault,
    CardRead,
    CardShoe,
    ChipsChanged,
    ChipTrays,
    DeckScanned,
    Device,
    DeviceFault,
    DeviceRecovered,
    Health,
    IdCardInserted,
    IdCardRemoved,
    IdReaders,
    ShoeState,
)
from hal_sim.fakes import FakeReaders, FakeShoe, FakeTrays
from hal_sim.shoe import ShoeEmulator
from hal_sim.trays import TraysEmulator
from tests.contract_kit import (
    ACTION_WORDS,
    DECK,
    FAST_LINK,
    SERIAL_OPTIONS,
    UNKNOWN,
    Events,
    FakeReadersWorld,
    FakeShoeWorld,
    FakeTraysWorld,
    PcscReadersWorld,
    ReadersWorld,
    SerialShoeWorld,
    SerialTraysWorld,
    ShoeWorld,
    TraysWorld,
    of,
)
from tests.test_pcsc import (  # the private pcscd is test_pcsc's own
    CONSOLE_READER,
    SEAT_READER,
    Pcscd,
    _wait_readers,
    needs_pcscd,
    pcscd,  # noqa: F401 -- a fixture, requested by name below
)

ZONES = ("seat1.bet", "seat1.stack", "pot")
SHOE_NAME, TRAYS_NAME, READERS_NAME = "shoe-east", "trays-east", "ids-east"
"""Configured names that are not the defaults, so a hard-coded name would show."""


@dataclass
class Case:
    """An opened device, its world and what it posted (``opened_at``: before open)."""

    impl: str
    device: Any
    world: Any
    events: Events
    opened_at: float


def _common_contract(case: Case, name: str) -> None:
    """identity, health, names and times of what was posted: every device, every backend."""
    ident = case.device.identity()
    for field in (ident.model, ident.serial, ident.firmware):
        assert isinstance(field, str) and field.strip()
    assert case.device.name == name
    assert case.device.health() is Health.OK
    times = [e.time for e in case.events.items]
    assert all(e.device == name for e in case.events.items)
    assert times == sorted(times)
    assert all(case.opened_at <= t <= time.monotonic() for t in times)


def _close_contract(device: Device) -> None:
    device.close()
    assert device.health() is Health.CLOSED
    device.close()  # idempotent
    assert device.health() is Health.CLOSED


def _fault_detail_says_what_to_do(request: pytest.FixtureRequest, case: Case, detail: str) -> None:
    assert ACTION_WORDS.search(detail), detail


# -- fixtures ---------------------------------------------------------------------------


@pytest.fixture(params=["fake", "serial"])
def shoe_case(request: pytest.FixtureRequest) -> Iterator[Case]:
    events = Events()
    before = time.monotonic()
    if request.param == "fake":
        fake = FakeShoe(SHOE_NAME, {"tags": list(DECK)})
        fake.open(events)
        yield Case("fake", fake, FakeShoeWorld(fake), events, before)
        fake.close()
        return
    emu = ShoeEmulator(config=FAST_LINK)
    shoe = SerialShoe(SHOE_NAME, {"port": emu.start(), **SERIAL_OPTIONS})
    try:
        shoe.open(events)
        yield Case("serial", shoe, SerialShoeWorld(shoe, emu), events, before)
    finally:
        shoe.close()
        emu.stop()


@pytest.fixture(params=["fake", "serial"])
def trays_case(request: pytest.FixtureRequest) -> Iterator[Case]:
    events = Events()
    before = time.monotonic()
    if request.param == "fake":
        fake = FakeTrays(TRAYS_NAME, {"zones": list(ZONES)})
        fake.open(events)
        yield Case("fake", fake, FakeTraysWorld(fake), events, before)
        fake.close()
        return
    emu = TraysEmulator(ZONES, config=FAST_LINK)
    trays = SerialTrays(TRAYS_NAME, {"port": emu.start(), **SERIAL_OPTIONS})
    try:
        trays.open(events)
        yield Case("serial", trays, SerialTraysWorld(trays, emu), events, before)
    finally:
        trays.close()
        emu.stop()


@pytest.fixture(params=["fake", pytest.param("pcsc", marks=needs_pcscd)])
def readers_case(request: pytest.FixtureRequest) -> Iterator[Case]:
    events = Events()
    before = time.monotonic()
    if request.param == "fake":
        fake = FakeReaders(READERS_NAME, {"readers": ["seat1", "console"]})
        fake.open(events)
        yield Case("fake", fake, FakeReadersWorld(fake), events, before)
        fake.close()
        return
    from smartcard import scard  # type: ignore[import-untyped]

    from drivers.pcsc import PcscReaders

    daemon: Pcscd = request.getfixturevalue("pcscd")
    daemon.ensure_running()
    device = PcscReaders(
        READERS_NAME,
        {"readers": {"seat1": SEAT_READER, "console": CONSOLE_READER}, "retry_interval": 0.1},
    )
    world = PcscReadersWorld(device, daemon.stop, daemon.start)
    try:
        device.open(events)
        yield Case("pcsc", device, world, events, before)
    finally:
        device.close()
        world.remove_all()
        daemon.ensure_running()
        _wait_readers(lambda state: bool(state & scard.SCARD_STATE_EMPTY))  # clean for the next


def reads(events: Events) -> list[CardRead]:
    return of(events, CardRead)


def _settle_shoe(case: Case, marker: str = "ready") -> None:
    """Post a state after everything else and wait for it: what came before has arrived."""
    n = len(of(case.events, ShoeState))
    case.world.set_state(marker)
    case.events.wait_count(ShoeState, n + 1)


# -- the card shoe ------------------------------------------------------------------------


def test_shoe_identity_health_and_close(shoe_case: Case) -> None:
    assert isinstance(shoe_case.device, CardShoe)
    _common_contract(shoe_case, SHOE_NAME)
    _close_contract(shoe_case.device)


def test_cards_drawn_arrive_in_order_with_their_tags_and_increasing_seq(shoe_case: Case) -> None:
    world: ShoeWorld = shoe_case.world
    for tag in DECK[:10]:
        world.draw(tag)
    got = shoe_case.events.wait_count(CardRead, 10)
    got_reads = [e for e in got if isinstance(e, CardRead)]
    assert [r.tag for r in got_reads] == list(DECK[:10])
    seqs = [r.seq for r in got_reads]
    assert all(b > a for a, b in itertools.pairwise(seqs))
    _common_contract(shoe_case, SHOE_NAME)


def test_states_map_to_shoe_state(shoe_case: Case) -> None:
    names = ["deck_in", "ready", "jam", "cover_open", "empty"]
    for state in names:
        shoe_case.world.set_state(state)
    states = shoe_case.events.wait_count(ShoeState, len(names))
    assert [s.state for s in states if isinstance(s, ShoeState)] == names
    _common_contract(shoe_case, SHOE_NAME)


def test_a_scan_reports_every_tag(shoe_case: Case) -> None:
    deck = list(reversed(DECK))
    shoe_case.world.deck_for_scan(deck)
    shoe_case.device.request_scan()
    (scan,) = shoe_case.events.wait_count(DeckScanned, 1)
    assert isinstance(scan, DeckScanned)
    assert sorted(scan.tags) == sorted(deck) and len(scan.tags) == 52
    _common_contract(shoe_case, SHOE_NAME)


def test_a_scan_reports_the_tags_in_the_order_seen(
    request: pytest.FixtureRequest, shoe_case: Case
) -> None:
    deck = list(reversed(DECK))
    shoe_case.world.deck_for_scan(deck)
    shoe_case.device.request_scan()
    (scan,) = shoe_case.events.wait_count(DeckScanned, 1)
    assert isinstance(scan, DeckScanned)
    assert list(scan.tags) == deck


def test_a_card_reported_twice_gives_two_reads_with_two_seqs(shoe_case: Case) -> None:
    # The reader saw one card twice: the HAL reports both, the controller judges.
    shoe_case.world.draw(DECK[0])
    shoe_case.world.read_twice(DECK[1])
    got = [e for e in shoe_case.events.wait_count(CardRead, 3) if isinstance(e, CardRead)]
    assert [r.tag for r in got] == [DECK[0], DECK[1], DECK[1]]
    assert got[0].seq < got[1].seq < got[2].seq


def test_a_retransmitted_read_keeps_its_seq(shoe_case: Case) -> None:
    # The same read reaching the host twice must be recognisable by its seq:
    # the driver drops it, the fake posts it again with the same seq; either
    # way the controller applies it once.
    shoe_case.world.draw(DECK[0])
    shoe_case.world.retransmitted(DECK[1])
    shoe_case.world.draw(DECK[2])
    _settle_shoe(shoe_case)
    got = reads(shoe_case.events)
    by_seq: dict[int, set[str]] = {}
    for r in got:
        by_seq.setdefault(r.seq, set()).add(r.tag)
    assert all(len(tags) == 1 for tags in by_seq.values()), by_seq
    distinct = sorted(by_seq)
    assert [next(iter(by_seq[s])) for s in distinct] == list(DECK[:3])


def test_an_unknown_tag_is_reported_as_read(shoe_case: Case) -> None:
    # Neither the fake nor the driver knows the deck: an unknown tag is posted
    # like any other, never dropped, for the controller to alert on.
    shoe_case.world.draw(DECK[0])
    shoe_case.world.unknown(UNKNOWN)
    got = [e for e in shoe_case.events.wait_count(CardRead, 2) if isinstance(e, CardRead)]
    assert [r.tag for r in got] == [DECK[0], UNKNOWN]
    assert got[0].seq < got[1].seq


def test_shoe_outage_is_a_fault_then_a_recovery_losing_and_doubling_nothing(
    request: pytest.FixtureRequest, shoe_case: Case
) -> None:
    world: ShoeWorld = shoe_case.world
    events = shoe_case.events
    world.draw(DECK[0])
    events.wait_count(CardRead, 1)
    world.go_down()
    (fault,) = events.wait_count(DeviceFault, 1)
    assert isinstance(fault, DeviceFault) and fault.device == SHOE_NAME
    assert fault.detail.strip().endswith(".")
    assert shoe_case.device.health() is Health.FAULT
    world.draw(DECK[1])  # drawn during the outage: the serial shoe sends it when back
    world.come_back()
    events.wait_count(DeviceRecovered, 1)
    assert shoe_case.device.health() is not Health.FAULT
    world.draw(DECK[2])
    events.wait_count(CardRead, 3)
    _settle_shoe(shoe_case)
    got = reads(events)
    assert [r.tag for r in got] == list(DECK[:3])
    assert [r.seq for r in got] == sorted({r.seq for r in got})  # increasing, none twice
    kinds = [type(e).__name__ for e in events.items if isinstance(e, DeviceFault | DeviceRecovered)]
    assert kinds == ["DeviceFault", "DeviceRecovered"]
    _common_contract(shoe_case, SHOE_NAME)
    _fault_detail_says_what_to_do(request, shoe_case, fault.detail)


# -- the chip trays ---------------------------------------------------------------------


def chips(n: int, base: int = 0) -> set[str]:
    return {f"E004{base + i:08X}" for i in range(n)}


def zone_changes(events: Events, zone: str) -> list[frozenset[str]]:
    return [e.tags for e in of(events, ChipsChanged) if e.zone == zone]


def wait_zone(case: Case, zone: str, tags: set[str]) -> None:
    case.events.wait_for(
        lambda: any(c == frozenset(tags) for c in zone_changes(case.events, zone)),
        f"ChipsChanged({zone}, {sorted(tags)})",
    )


def test_trays_identity_health_zones_and_close(trays_case: Case) -> None:
    assert isinstance(trays_case.device, ChipTrays)
    assert trays_case.device.zones() == ZONES
    assert all(trays_case.device.present(z) == frozenset() for z in ZONES)
    _common_contract(trays_case, TRAYS_NAME)
    _close_contract(trays_case.device)


def test_zone_changes_carry_the_full_set(trays_case: Case) -> None:
    world: TraysWorld = trays_case.world
    world.set_zone("seat1.bet", chips(3))
    wait_zone(trays_case, "seat1.bet", chips(3))
    world.set_zone("seat1.bet", chips(5))  # two more chips: the event has all five
    wait_zone(trays_case, "seat1.bet", chips(5))
    world.set_zone("seat1.bet", chips(5) - chips(1))  # one taken
    wait_zone(trays_case, "seat1.bet", chips(5) - chips(1))
    world.set_zone("pot", chips(80, base=1000))
    wait_zone(trays_case, "pot", chips(80, base=1000))
    assert trays_case.device.present("seat1.bet") == frozenset(chips(5) - chips(1))
    assert trays_case.device.present("pot") == frozenset(chips(80, base=1000))
    nonempty = [c for c in zone_changes(trays_case.events, "seat1.bet") if c]
    assert nonempty == [chips(3), chips(5), chips(5) - chips(1)]
    _common_contract(trays_case, TRAYS_NAME)


def test_antenna_fault_is_reported_and_degrades(trays_case: Case) -> None:
    trays_case.world.antenna_fault("pot")
    (fault,) = trays_case.events.wait_count(AntennaFault, 1)
    assert isinstance(fault, AntennaFault)
    assert fault.zone == "pot" and fault.detail.strip()
    assert trays_case.device.health() is Health.DEGRADED
    assert not of(trays_case.events, DeviceFault)  # one antenna does not stop the hand


def test_trays_outage_is_a_fault_then_a_recovery(
    request: pytest.FixtureRequest, trays_case: Case
) -> None:
    world: TraysWorld = trays_case.world
    events = trays_case.events
    world.go_down()
    (fault,) = events.wait_count(DeviceFault, 1)
    assert isinstance(fault, DeviceFault) and fault.device == TRAYS_NAME
    assert trays_case.device.health() is Health.FAULT
    world.set_zone("seat1.stack", chips(4))  # moved while the trays were down
    world.come_back()
    events.wait_count(DeviceRecovered, 1)
    wait_zone(trays_case, "seat1.stack", chips(4))
    assert trays_case.device.present("seat1.stack") == frozenset(chips(4))
    assert trays_case.device.health() is not Health.FAULT
    _fault_detail_says_what_to_do(request, trays_case, fault.detail)


# -- configuration shapes (no device needed) ------------------------------------------------


def test_the_sim_readers_accept_the_pcsc_readers_table() -> None:
    table = {"seat1": "Virtual PCD 00 00", "console": "Virtual PCD 00 01"}
    assert FakeReaders("ids", {"readers": table}).readers() == ("seat1", "console")


def test_every_backend_refuses_an_unknown_option() -> None:
    from drivers.pcsc import PcscReaders

    builders: list[tuple[type[Device], dict[str, Any]]] = [
        (FakeShoe, {}),
        (SerialShoe, {"port": "/dev/null"}),
        (FakeTrays, {"zones": list(ZONES)}),
        (SerialTrays, {"port": "/dev/null"}),
        (FakeReaders, {"readers": ["seat1"]}),
        (PcscReaders, {"readers": {"seat1": SEAT_READER}}),
    ]
    for cls, options in builders:
        with pytest.raises(ConfigError, match="frobnicate"):
            cls("dev", {**options, "frobnicate": 1})  # type: ignore[call-arg]


# -- the card readers (the pcsc half runs our private pcscd) ------------------------------


def wait_inserted(case: Case, n: int) -> list[IdCardInserted]:
    case.events.wait_count(IdCardInserted, n)
    return of(case.events, IdCardInserted)


def test_readers_identity_health_and_close(readers_case: Case) -> None:
    assert isinstance(readers_case.device, IdReaders)
    assert readers_case.device.readers() == ("seat1", "console")
    _common_contract(readers_case, READERS_NAME)
    _close_contract(readers_case.device)


def test_player_card_and_staff_badge_in_and_out(readers_case: Case) -> None:
    world: ReadersWorld = readers_case.world
    player = world.insert("seat1", "player", "P-000123")
    assert player == "player:P-000123"
    (ins,) = wait_inserted(readers_case, 1)
    assert (ins.reader, ins.identity) == ("seat1", "player:P-000123")
    badge = world.insert("console", "staff", "S-0042")
    assert badge == "staff:S-0042"
    ins2 = wait_inserted(readers_case, 2)[-1]
    assert (ins2.reader, ins2.identity) == ("console", "staff:S-0042")
    world.remove("seat1")
    (out,) = readers_case.events.wait_count(IdCardRemoved, 1)
    assert isinstance(out, IdCardRemoved) and out.reader == "seat1"
    world.remove("console")
    out2 = readers_case.events.wait_count(IdCardRemoved, 2)[-1]
    assert isinstance(out2, IdCardRemoved) and out2.reader == "console"
    _common_contract(readers_case, READERS_NAME)


def test_a_card_without_the_application_is_known_by_its_uid(readers_case: Case) -> None:
    assert readers_case.world.insert("seat1", "uid", "04a1b2c3d4e5f6") == "uid:04A1B2C3D4E5F6"
    (ins,) = wait_inserted(readers_case, 1)
    assert (ins.reader, ins.identity) == ("seat1", "uid:04A1B2C3D4E5F6")


def test_readers_outage_is_a_fault_then_a_recovery(
    request: pytest.FixtureRequest, readers_case: Case
) -> None:
    world: ReadersWorld = readers_case.world
    events = readers_case.events
    world.go_down()
    (fault,) = events.wait_count(DeviceFault, 1)
    assert isinstance(fault, DeviceFault) and fault.device == READERS_NAME
    assert readers_case.device.health() is Health.FAULT
    world.come_back()
    events.wait_count(DeviceRecovered, 1)
    assert readers_case.device.health() is Health.OK
    world.insert("seat1", "player", "P-9")  # and it watches again
    (ins,) = wait_inserted(readers_case, 1)
    assert ins.identity == "player:P-9"
    _fault_detail_says_what_to_do(request, readers_case, fault.detail)
