"""The emulators' pseudo-terminals: a test's driver never meets another program's lock.

Serial ports are opened ``exclusive`` (an ``flock``), and a pty's number
(``/dev/pts/N``) is given to the next pty opened anywhere on the machine as
soon as its last holder closes it. Two ways another program could hold the
lock of the pty a test's driver is given, both closed here:

- a pty locked by someone the moment it is made: the emulator takes another;
- the link of an unplugged device (``/dev/serial/by-id``-like) left naming the
  pty it had: a driver still reopening it (another test, another run) would
  lock whatever pty got that number next. The link goes with the device.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.trays import SerialTrays
from firmware.hal.messages import ChipsChanged
from hal_sim import emulator
from hal_sim.shoe import ShoeEmulator
from hal_sim.trays import TraysEmulator
from tests.test_serial_shoe import Events

ZONES = ("seat1.bet", "pot")
HOLD = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
)


@pytest.fixture
def locked_pty() -> Iterator[tuple[int, int]]:
    """A real new pty whose path another process has opened and locked."""
    master, slave = os.openpty()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, os.ttyname(slave)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    yield master, slave
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait()


def test_a_pty_another_process_locked_is_never_handed_to_the_driver(
    locked_pty: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = os.ttyname(locked_pty[1])
    real = os.openpty
    pairs = iter([locked_pty])
    # The system hands out the locked pty first (as when another program grabbed it).
    monkeypatch.setattr(emulator.os, "openpty", lambda: next(pairs, None) or real())
    emu = TraysEmulator(ZONES)
    try:
        path = emu.start()
        monkeypatch.undo()
        assert path != taken
        trays = SerialTrays("trays", {"port": path})
        events = Events()
        trays.open(events)  # takes the port's exclusive lock
        try:
            assert trays.zones() == ZONES
            events.wait_count(ChipsChanged, len(ZONES))
        finally:
            trays.close()
    finally:
        emu.stop()


def test_an_unplugged_device_leaves_no_name_for_the_next_pty(tmp_path: Path) -> None:
    link = str(tmp_path / "pokertable-shoe")
    first = ShoeEmulator()
    second = TraysEmulator(ZONES)
    try:
        first.start(link)
        assert os.path.realpath(link) == first.path
        first.unplug(3600.0)  # the cable is out
        assert not os.path.lexists(link)
        path = second.start()  # another program's pty (often the same number)
        assert not os.path.lexists(link)
        # A driver still reopening the old name finds nothing: the new pty stays free.
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    finally:
        second.stop()
        first.stop()
