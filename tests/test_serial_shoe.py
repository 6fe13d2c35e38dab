"""The serial card shoe driver over a real pty against the shoe emulator."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.shoe import SerialShoe
from firmware.errors import ConfigError, HardwareError
from firmware.hal.devices import Health
from firmware.hal.messages import (
    CardRead,
    DeckScanned,
    DeviceEvent,
    DeviceFault,
    DeviceRecovered,
    ShoeState,
)
from hal_sim.shoe import UNKNOWN_TAG, ShoeEmulator

WAIT = 10.0
"""Generous: a timeout only ends a failing test, it asserts nothing."""


class Events:
    """A thread-safe ``post`` that tests can wait on."""

    def __init__(self) -> None:
        self.items: list[DeviceEvent] = []
        self._cond = threading.Condition()

    def __call__(self, event: DeviceEvent) -> None:
        with self._cond:
            self.items.append(event)
            self._cond.notify_all()

    def of(self, cls: type[DeviceEvent]) -> list[DeviceEvent]:
        with self._cond:
            return [e for e in self.items if isinstance(e, cls)]

    def wait_for(self, pred: Callable[[], bool], what: str) -> None:
        end = time.monotonic() + WAIT
        with self._cond:
            while not pred():
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}; got {self.items}")
                self._cond.wait(left)

    def wait_count(self, cls: type[DeviceEvent], n: int) -> list[DeviceEvent]:
        self.wait_for(lambda: len(self.of(cls)) >= n, f"{n} {cls.__name__}")
        return self.of(cls)


def tag(i: int) -> str:
    return f"04{i:012X}"


def tags_of(events: list[DeviceEvent]) -> list[str]:
    return [e.tag for e in events if isinstance(e, CardRead)]


@pytest.fixture
def emu() -> Iterator[ShoeEmulator]:
    e = ShoeEmulator()
    yield e
    e.stop()


@pytest.fixture
def shoe_on(emu: ShoeEmulator) -> Iterator[Callable[..., tuple[SerialShoe, Events]]]:
    opened: list[SerialShoe] = []

    def make(path: str | None = None, **options: object) -> tuple[SerialShoe, Events]:
        port = path or emu.start()
        shoe = SerialShoe("shoe", {"port": port, **options})
        events = Events()
        opened.append(shoe)
        shoe.open(events)
        return shoe, events

    yield make
    for s in opened:
        s.close()


def test_handshake_and_identity(shoe_on: Callable[..., tuple[SerialShoe, Events]]) -> None:
    shoe, _ = shoe_on()
    ident = shoe.identity()
    assert (ident.model, ident.serial, ident.firmware) == ("RS-52 shoe", "SHOE-0001", "2.1.0")
    assert shoe.health() is Health.OK
    shoe.close()
    shoe.close()
    assert shoe.health() is Health.CLOSED


def test_cards_arrive_in_order_with_their_tags(
    emu: ShoeEmulator, shoe_on: Callable[..., tuple[SerialShoe, Events]]
) -> None:
    shoe, events = shoe_on()
    for i in range(30):
        emu.draw(tag(i))
    reads = events.wait_count(CardRead, 30)
    assert tags_of(reads) == [tag(i) for i in range(30)]
    assert [e.seq for e in reads if isinstance(e, CardRead)] == list(range(1, 31))
    assert shoe.link_stats()["crc_errors"] == 0


def test_garbage_and_crc_errors_are_counted_and_lose_nothing(
    emu: ShoeEmulator, shoe_on: Callable[..., tuple[SerialShoe, Events]]
) -> None:
    shoe, events = shoe_on()
    for i in range(20):
        if i % 4 == 0:
            emu.inject_garbage(b"\x00\xa5\x5a\x07junk\xa5")
        if i % 5 == 0:
            emu.corrupt_next()
        emu.draw(tag(i))
    reads = events.wait_count(CardRead, 20)
    stats = shoe.link_stats()
    assert tags_of(reads) == [tag(i) for i in range(20)]
    assert stats["crc_errors"] >= 4
    assert stats["resyncs"] >= 5 and stats["garbage_bytes"] > 0
    assert shoe.health() is Health.DEGRADED
    time.sleep(0.3)  # nothing more may arrive: no duplicates
    assert len(events.of(CardRead)) == 20


def test_dropped_frame_is_retransmitted(
    emu: ShoeEmulator, shoe_on: Callable[..., tuple[SerialShoe, Events]]
) -> None:
    _shoe, events = shoe_on()
    emu.drop_next(1)
    emu.draw(tag(1))
    emu.draw(tag(2))
    assert tags_of(events.wait_count(CardRead, 2)) == [tag(1), tag(2)]
    assert emu.stats()["retransmissions"] >= 1


def test_duplicated_frame_is_applied_once(
    emu: ShoeEmulator, shoe_on: Callable[..., tuple[SerialShoe, Events]]
) -> None:
    shoe, events = shoe_on()
    emu.duplicate_next(3)
    for i in range(3):
        emu.draw(tag(i))
    emu.set_state("empty")  # a marker after the duplicates
    events.wait_count(ShoeState, 1)
    assert tags_of(events.of(CardRead)) == [tag(0), tag(1), tag(2)]
    assert shoe.link_stats()["duplicates"] == 3


def test_silence_is_a_fault_then_a_recovery_without_losing_or_doubling_cards(
    emu: ShoeEmulator, shoe_on: Callable[..., tuple[SerialShoe, Events]]
) -> None:
    shoe, events = shoe_on()
    emu.draw(tag(0))
    events.wait_count(CardRead, 1)
    emu.drop_next(1)  # in flight when the device hangs
    emu.draw(tag(1))
    emu.go_silent(1.5)
    emu.draw(tag(2))  # drawn during the outage, sent after it
    (fault,) = events.wait_count(DeviceFault, 1)
    assert isinstance(fault, DeviceFault)
    assert fault.detail == (
        "The card shoe stopped answering: check its cable; the hand is paused until it is back."
    )
    assert shoe.health() is Health.FAULT
    events.wait_count(DeviceRecovered, 1)
    emu.draw(tag(3))
    reads = events.wait_count(CardRead, 4)
    assert tags_of(reads) == [tag(0), tag(1), tag(2), tag(3)]
    order = [type(e).__name__ for e in events.items if not isinstance(e, CardRead)]
    assert order == ["DeviceFault", "DeviceRecovered"]


def test_unplug_and_replug_reopens_the_port(
    tmp_path: Path, emu: ShoeEmulator, shoe_on: Callable[..., tuple[SerialShoe, Events]]
) -> None:
    link = str(tmp_path / "pokertable-shoe")
    shoe, events = shoe_on(emu.start(link))
    emu.draw(tag(0))
    events.wait_count(CardRead, 1)
    old = emu.path
    emu.unplug(0.3)
    emu.draw(tag(1))
    events.wait_count(DeviceFault, 1)
    events.wait_count(DeviceRecovered, 1)
    assert emu.path != old or shoe.link_stats()["reopens"] >= 1
    emu.draw(tag(2))
    assert tags_of(events.wait_count(CardRead, 3)) == [tag(0), tag(1), tag(2)]
    assert shoe.link_stats()["reopens"] >= 1


def test_deck_scan_in_chunks(
    emu: ShoeEmulator, shoe_on: Callable[..., tuple[SerialShoe, Events]]
) -> None:
    shoe, events = shoe_on()
    deck = [tag(i) for i in range(52)]
    emu.set_scan(deck)
    shoe.request_scan()
    (scan,) = events.wait_count(DeckScanned, 1)
    assert isinstance(scan, DeckScanned)
    assert scan.tags == tuple(deck)
    assert emu.scans_requested == 1


def test_shoe_states(emu: ShoeEmulator, shoe_on: Callable[..., tuple[SerialShoe, Events]]) -> None:
    _shoe, events = shoe_on()
    for state in ("jam", "cover_open", "empty", "ready"):
        emu.set_state(state)
    states = events.wait_count(ShoeState, 4)
    assert [e.state for e in states if isinstance(e, ShoeState)] == [
        "jam",
        "cover_open",
        "empty",
        "ready",
    ]


def test_a_tag_read_twice_and_an_unknown_tag_reach_the_controller(
    emu: ShoeEmulator, shoe_on: Callable[..., tuple[SerialShoe, Events]]
) -> None:
    # The driver cannot know the deck: it reports both reads (distinct read
    # numbers) and the unknown tag; the controller judges them.
    _shoe, events = shoe_on()
    emu.draw_twice(tag(5))
    emu.draw(UNKNOWN_TAG)
    reads = [e for e in events.wait_count(CardRead, 3) if isinstance(e, CardRead)]
    assert [(r.tag, r.seq) for r in reads] == [(tag(5), 1), (tag(5), 2), (UNKNOWN_TAG, 3)]


def test_device_error_is_a_fault_until_cleared(
    emu: ShoeEmulator, shoe_on: Callable[..., tuple[SerialShoe, Events]]
) -> None:
    shoe, events = shoe_on()
    emu.report_error("overheat", "reader at 85 C")
    (fault,) = events.wait_count(DeviceFault, 1)
    assert isinstance(fault, DeviceFault) and "overheat: reader at 85 C" in fault.detail
    assert shoe.health() is Health.FAULT
    emu.report_error("none", "")
    events.wait_count(DeviceRecovered, 1)
    assert shoe.health() is not Health.FAULT


def test_a_port_that_does_not_exist(tmp_path: Path) -> None:
    shoe = SerialShoe("shoe", {"port": str(tmp_path / "ttyUSB9")})
    with pytest.raises(HardwareError, match=r"The card shoe 'shoe' cannot be opened on .*ttyUSB9"):
        shoe.open(Events())
    shoe.close()


def test_a_silent_port_fails_the_handshake() -> None:
    master, slave = os.openpty()
    try:
        shoe = SerialShoe("shoe", {"port": os.ttyname(slave), "handshake_timeout": 0.3})
        with pytest.raises(HardwareError, match=r"did not answer the handshake within 0\.3 s"):
            shoe.open(Events())
        assert shoe.health() is Health.CLOSED
    finally:
        os.close(master)
        os.close(slave)


def test_an_incompatible_protocol_version_is_refused() -> None:
    emu = ShoeEmulator(major=2)
    try:
        shoe = SerialShoe("shoe", {"port": emu.start()})
        with pytest.raises(HardwareError, match=r"protocol version 2\.0 and this host speaks 1\.0"):
            shoe.open(Events())
    finally:
        emu.stop()


def test_loop_url_reaches_the_link_but_no_device_answers() -> None:
    # loop:// echoes our own HELLO back: the URL works, the handshake does not.
    shoe = SerialShoe("shoe", {"port": "loop://", "handshake_timeout": 0.3})
    with pytest.raises(HardwareError, match="on loop:// did not answer the handshake"):
        shoe.open(Events())


def test_options_are_checked() -> None:
    with pytest.raises(ConfigError, match=r"Unknown option.*baud_rate"):
        SerialShoe("shoe", {"port": "/dev/ttyUSB0", "baud_rate": 9600})
    with pytest.raises(ConfigError, match="needs port"):
        SerialShoe("shoe", {})
    with pytest.raises(ConfigError, match="heartbeat must be a number"):
        SerialShoe("shoe", {"port": "/dev/ttyUSB0", "heartbeat": "fast"})


def test_emulator_as_a_process() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "hal_sim.shoe", "--pty"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        path = proc.stdout.readline().strip()
        shoe = SerialShoe("shoe", {"port": path})
        events = Events()
        shoe.open(events)
        try:
            proc.stdin.write(f"draw {tag(7)}\nfrobnicate\n")
            proc.stdin.flush()
            assert proc.stdout.readline().strip() == "1"
            assert proc.stdout.readline().startswith("error: unknown command 'frobnicate'")
            assert tags_of(events.wait_count(CardRead, 1)) == [tag(7)]
        finally:
            shoe.close()
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(WAIT) == 0
    finally:
        proc.kill()
        proc.wait()
