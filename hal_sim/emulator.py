"""The common part of the serial device emulators: a device on a pty.

An :class:`Emulator` owns the device end of a :class:`~firmware.wire.link.Link`
and a pseudo-terminal; the driver opens the pty's slave path as it would open
``/dev/ttyUSB0``. A thread (``select`` on the master, no busy polling)
steps the link. Like a real device it sends nothing until the driver's first
HELLO. Fault injection works on whole frames written by the device:
corrupted, dropped or duplicated frames, garbage bytes, silence and unplug.

Run one as its own process with ``python -m hal_sim.shoe --pty`` (or
``hal_sim.trays``): the first line on stdout is the path to open, then one
command per stdin line (see :data:`COMMON_HELP` and each emulator's help),
each answered ``ok`` or ``error: ...``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import sys
import threading
import time
import tty
from collections.abc import Callable, Mapping

from firmware.wire.codec import Identity, Message, is_sequenced
from firmware.wire.link import EventKind, Link, LinkConfig, Role

COMMON_HELP = """\
garbage N|HEX      write N random bytes (or these hex bytes) on the wire
corrupt [N]        send the next N data frames with a bad CRC
drop [N]           do not write the next N data frames (the link resends them)
dup [N]            write the next N data frames twice
silent SECONDS     stop reading and writing (a dead device) for SECONDS
unplug SECONDS     close the pty and open a new one after SECONDS (updates --link)
stats              print the device's link counters
quit               stop"""


PTY_TRIES = 20
"""New pseudo-terminals tried before giving up (each refused one is held meanwhile)."""


def open_free_pty() -> tuple[int, int]:
    """A new pseudo-terminal pair (master, slave) that nobody else has opened and locked.

    A pty's number is reused as soon as the last one with it is closed, so a process
    that still opens an old path (``/dev/pts/0``: a driver reopening the device it
    lost) can open and lock the new pty in the instant after it was made; the
    driver given it would then find it locked (serial ports are opened
    ``exclusive``). Each new pty's path is opened and locked here once: a pty
    someone else holds is kept aside (so its number is not handed out again) and
    another one opened, then the refused ones are closed.

    :raises OSError: if :data:`PTY_TRIES` new ptys in a row were all taken.
    """
    refused: list[tuple[int, int]] = []
    try:
        for _ in range(PTY_TRIES):
            master, slave = os.openpty()
            if _nobody_holds(os.ttyname(slave)):
                return master, slave
            refused.append((master, slave))
        raise OSError(f"{PTY_TRIES} new pseudo-terminals in a row were locked by another program.")
    finally:
        for pair in refused:
            for fd in pair:
                with contextlib.suppress(OSError):
                    os.close(fd)


def _nobody_holds(path: str) -> bool:
    """Whether the tty at ``path`` can be locked now (the lock is let go at once)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)


class Emulator:
    """A serial device on a pty; subclasses add the device's own controls.

    :param identity: What the device answers to HELLO.
    :param config: Link timers (the protocol's by default).
    """

    def __init__(self, identity: Identity, config: LinkConfig | None = None) -> None:
        self.link = Link(Role.DEVICE, int.from_bytes(os.urandom(4), "big"), config, identity)
        self.lock = threading.RLock()
        self.path = ""
        self.link_path: str | None = None
        self._master = -1
        self._slave = -1
        self._wake_r, self._wake_w = os.pipe()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._corrupt = 0
        self._drop = 0
        self._dup = 0
        self._garbage = b""
        self._silent_until = 0.0
        self._replug_at = 0.0
        self.on_write: Callable[[bytes, float], None] | None = None
        """Called with each data frame and the monotonic time it was written (benchmarks)."""

    # -- lifecycle ------------------------------------------------------------

    def start(self, link_path: str | None = None) -> str:
        """Open a pty, start the thread and return the path the driver opens.

        :param link_path: Also keep a symlink here to the current slave (like a
            udev name), so a driver finds the device again after :meth:`unplug`.
        """
        self.link_path = link_path
        self._open_pty()
        self._thread = threading.Thread(target=self._run, name="emulator", daemon=True)
        self._thread.start()
        return link_path or self.path

    def stop(self) -> None:
        """Stop the thread and close the pty (idempotent)."""
        if self._wake_r < 0:
            return
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._close_pty()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wake_r = self._wake_w = -1
        if self.link_path:
            with contextlib.suppress(OSError):
                os.unlink(self.link_path)

    def _open_pty(self) -> None:
        self._master, self._slave = open_free_pty()
        tty.setraw(self._master)
        os.set_blocking(self._master, False)
        self.path = os.ttyname(self._slave)
        if self.link_path:
            tmp = self.link_path + ".new"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(self.path, tmp)
            os.replace(tmp, self.link_path)

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = -1
        if self.link_path:
            # The device is gone, and so is its name (as udev removes a by-id link). A
            # link left behind would name the pty's number, which the system gives to
            # the next pty opened anywhere: a driver still trying to reopen it would
            # open (and lock) another program's device.
            with contextlib.suppress(OSError):
                os.unlink(self.link_path)

    # -- controls (any thread) ------------------------------------------------

    def send(self, msg: Message) -> None:
        """Queue a sequenced message to the host."""
        with self.lock:
            self.link.send(msg)
        self._wake()

    def inject_garbage(self, data: bytes) -> None:
        """Write these bytes on the wire as they are."""
        with self.lock:
            self._garbage += data
        self._wake()

    def corrupt_next(self, n: int = 1) -> None:
        """Send the next ``n`` data frames with a bad CRC."""
        with self.lock:
            self._corrupt += n

    def drop_next(self, n: int = 1) -> None:
        """Do not write the next ``n`` data frames."""
        with self.lock:
            self._drop += n

    def duplicate_next(self, n: int = 1) -> None:
        """Write the next ``n`` data frames twice."""
        with self.lock:
            self._dup += n

    def go_silent(self, seconds: float) -> None:
        """Neither read nor write for ``seconds`` (what a hung device looks like)."""
        with self.lock:
            self._silent_until = time.monotonic() + seconds
        self._wake()

    def unplug(self, seconds: float) -> None:
        """Close the pty now and open a new one after ``seconds`` (cable pulled)."""
        with self.lock:
            self._replug_at = time.monotonic() + seconds
            self._close_pty()
        self._wake()

    def stats(self) -> dict[str, int]:
        """The device end's link counters."""
        with self.lock:
            return self.link.link_stats()

    # -- for subclasses -------------------------------------------------------

    def handle(self, msg: Message) -> None:
        """A message from the host (called with :attr:`lock` held)."""

    def on_link_up(self) -> None:
        """The host said HELLO (called with :attr:`lock` held)."""

    # -- the thread -----------------------------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _run(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                deadline = self.link.next_deadline()
                master = self._master
                if self._replug_at:
                    deadline = min(deadline, self._replug_at)
                if self._silent_until:
                    deadline = min(deadline, self._silent_until)
            timeout = max(0.0, min(deadline - time.monotonic(), 0.5))
            fds = [self._wake_r] + ([master] if master >= 0 else [])
            readable, _, _ = select.select(fds, [], [], timeout)
            if self._wake_r in readable:
                os.read(self._wake_r, 4096)
            data = b""
            if master >= 0 and master in readable:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    data = b""
            self._step(data)

    def _step(self, data: bytes) -> None:
        now = time.monotonic()
        with self.lock:
            if self._replug_at and now >= self._replug_at:
                self._replug_at = 0.0
                self._open_pty()
            if self._master < 0:
                return
            if self._silent_until:
                if now < self._silent_until:
                    return
                self._silent_until = 0.0
            out = self.link.step(data, now)
            for ev in out.events:
                if ev.kind is EventKind.UP:
                    self.on_link_up()
            for msg in out.messages:
                self.handle(msg)
            if out.messages or out.events:
                out.frames += self.link.step(b"", now).frames
            wire = [self._garbage] if self._garbage else []
            self._garbage = b""
            for frame in out.frames:
                wire += self._faults(frame)
            self._write(b"".join(wire), out.frames, now)

    def _faults(self, frame: bytes) -> list[bytes]:
        if not is_sequenced(frame[6]):
            return [frame]
        if self._drop:
            self._drop -= 1
            return []
        if self._corrupt:
            self._corrupt -= 1
            bad = bytearray(frame)
            bad[-1] ^= 0xA5
            return [bytes(bad)]
        if self._dup:
            self._dup -= 1
            return [frame, frame]
        return [frame]

    def _write(self, data: bytes, frames: list[bytes], now: float) -> None:
        while data:
            try:
                n = os.write(self._master, data)
            except BlockingIOError:
                return  # nobody reads the port: a UART drops what overflows
            except OSError:
                return
            data = data[n:]
        if self.on_write is not None:
            for frame in frames:
                if is_sequenced(frame[6]):
                    self.on_write(frame, time.monotonic())


Command = Callable[[list[str]], object]
"""A control command: its arguments → None (prints ``ok``) or a value to print."""


def run_cli(emulator: Emulator, commands: Mapping[str, Command], help_: str) -> int:
    """Run ``emulator`` as a process: print the path, then obey stdin lines."""
    import argparse
    import random

    parser = argparse.ArgumentParser(description=help_)
    parser.add_argument("--pty", action="store_true", required=True, help="serve on a new pty")
    parser.add_argument("--link", help="keep a symlink to the pty here (survives unplug)")
    args = parser.parse_args()
    print(emulator.start(args.link), flush=True)

    def n_arg(a: list[str]) -> int:
        return int(a[0]) if a else 1

    common: dict[str, Command] = {
        "garbage": lambda a: emulator.inject_garbage(
            bytes(random.randrange(256) for _ in range(int(a[0])))
            if a[0].isdigit()
            else bytes.fromhex(a[0])
        ),
        "corrupt": lambda a: emulator.corrupt_next(n_arg(a)),
        "drop": lambda a: emulator.drop_next(n_arg(a)),
        "dup": lambda a: emulator.duplicate_next(n_arg(a)),
        "silent": lambda a: emulator.go_silent(float(a[0])),
        "unplug": lambda a: emulator.unplug(float(a[0])),
        "stats": lambda a: " ".join(f"{k}={v}" for k, v in emulator.stats().items()),
    }
    common.update(commands)
    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "quit":
                break
            action = common.get(words[0])
            if action is None:
                print(f"error: unknown command {words[0]!r}; use {', '.join(common)}", flush=True)
                continue
            try:
                result = action(words[1:])
                print("ok" if result is None else result, flush=True)
            except (ValueError, IndexError) as exc:
                print(f"error: {words[0]}: {exc or 'missing argument'}", flush=True)
    finally:
        emulator.stop()
    return 0
