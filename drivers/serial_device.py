"""The common base of the serial devices (card shoe, chip trays).

It owns the port (``serial.serial_for_url``, so a path, ``socket://`` or
``loop://`` all work), a reader thread and the host end of the
:class:`~firmware.wire.link.Link`. The thread blocks in ``read`` with a short
timeout, feeds what it read to the link, writes what the link wants sent and
hands the device's messages to the subclass, which turns them into HAL events
posted to the controller. A lost link is posted as
:class:`~firmware.hal.DeviceFault`; the thread keeps reopening the port and
saying HELLO, and posts :class:`~firmware.hal.DeviceRecovered` when the
device answers again.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

import serial  # type: ignore[import-untyped, unused-ignore]

from firmware.errors import ConfigError, HardwareError
from firmware.hal.devices import Device, DeviceIdentity, Health, Location, Post
from firmware.hal.messages import DeviceEvent, DeviceFault, DeviceRecovered
from firmware.wire.codec import (
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    DeviceError,
    ErrorCode,
    Identity,
    Message,
)
from firmware.wire.link import EventKind, Link, LinkConfig, LinkOutput, Role

READ_TIMEOUT = 0.05
"""Seconds a read blocks: the granularity of the link's timers."""
REOPEN_BACKOFF = (0.05, 1.0)
"""First and longest wait between attempts to reopen a lost port."""
DEGRADED_FOR = 60.0
"""Seconds a device stays DEGRADED after a link error."""
_ERROR_COUNTERS = ("crc_errors", "length_errors", "truncated", "retransmissions", "out_of_order")


def _number(name: str, key: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ConfigError(
            f"[devices.{name}] {key} must be a number from {low:g} to {high:g}, not {value!r}.",
            key="config.serial.number",
            name=name,
            option=key,
            low=f"{low:g}",
            high=f"{high:g}",
            value=repr(value),
        )
    return float(value)


class SerialDevice(Device):
    """A device on a serial link speaking the protocol of ``docs/protocols/serial.md``.

    Subclasses set :attr:`NOUN` and override :meth:`_handle` (and may
    override :meth:`_on_link_up`).

    Options: ``port`` (required: a path or a pyserial URL), ``baudrate``
    (115200), ``handshake_timeout`` (2 s), ``heartbeat`` (0.25 s),
    ``link_timeout`` (1 s), ``exclusive`` (true: lock the port).

    :raises ConfigError: for a missing port, a bad value or an unknown option.
    """

    NOUN = "serial device"
    """How the dealer console names this kind of device ("card shoe")."""

    def __init__(self, name: str, options: Mapping[str, Any]) -> None:
        super().__init__(name)
        opts = dict(options)
        port = opts.pop("port", None)
        if not isinstance(port, str) or not port:
            raise ConfigError(
                f'[devices.{name}] needs port = "/dev/..." (a serial port path or a pyserial '
                "URL such as socket://host:port).",
                key="config.serial.port",
                name=name,
            )
        self.port = port
        self.baudrate = int(_number(name, "baudrate", opts.pop("baudrate", 115200), 1200, 4e6))
        self.handshake_timeout = _number(
            name, "handshake_timeout", opts.pop("handshake_timeout", 2.0), 0.1, 60
        )
        heartbeat = _number(name, "heartbeat", opts.pop("heartbeat", 0.25), 0.05, 10)
        link_timeout = _number(name, "link_timeout", opts.pop("link_timeout", 1.0), 0.2, 60)
        if link_timeout < 2 * heartbeat:
            raise ConfigError(
                f"[devices.{name}] link_timeout must be at least twice the heartbeat.",
                key="config.serial.link_timeout",
                name=name,
            )
        exclusive = opts.pop("exclusive", True)
        if not isinstance(exclusive, bool):
            raise ConfigError(
                f"[devices.{name}] exclusive must be true or false.",
                key="config.serial.exclusive",
                name=name,
            )
        self.exclusive = exclusive
        if opts:
            raise ConfigError(
                f"Unknown option(s) {', '.join(sorted(opts))} for [devices.{name}]; the serial "
                "backend reads port, baudrate, handshake_timeout, heartbeat, link_timeout and "
                "exclusive.",
                key="config.serial.unknown",
                name=name,
                unknown=", ".join(sorted(opts)),
            )
        self._config = LinkConfig(
            heartbeat=heartbeat, link_timeout=link_timeout, hello_interval=heartbeat
        )
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._handshaken = threading.Event()
        self._thread: threading.Thread | None = None
        self._port: Any = None
        self._link: Link | None = None
        self._post: Post | None = None
        self._identity: DeviceIdentity | None = None
        self._incompatible = ""
        self._faulted = False
        self._device_fault = False
        self._last_error_time = -1e9
        self._error_total = 0
        self._reopens = 0
        self._duplicate_reads = 0

    # -- Device ---------------------------------------------------------------

    def open(self, post: Post) -> None:
        """Open the port, handshake within ``handshake_timeout`` and start reading.

        :raises HardwareError: if the port cannot be opened, the device does
            not answer, or it speaks an incompatible protocol version.
        """
        if self._thread is not None:
            return
        self._post = post
        self._stop.clear()
        self._handshaken.clear()
        self._incompatible = ""
        self._port = self._open_port()
        self._link = Link(Role.HOST, int.from_bytes(os.urandom(4), "big"), self._config)
        self._link.start(time.monotonic())
        self._thread = threading.Thread(target=self._run, name=f"serial-{self.name}", daemon=True)
        self._thread.start()
        self._handshaken.wait(self.handshake_timeout)
        if self._incompatible:
            detail = self._incompatible
            self.close()
            raise HardwareError(
                f"The {self.NOUN} on {self.port} cannot be used: {detail}; update the "
                f"{self.NOUN}'s firmware or this host's so their major versions match."
            )
        if self._identity is None:
            self.close()
            raise HardwareError(
                f"The {self.NOUN} on {self.port} did not answer the handshake within "
                f"{self.handshake_timeout:g} s: check the cable and power."
            )

    def close(self) -> None:
        """Stop the reader thread and release the port (idempotent)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        with self._lock:
            port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(OSError, serial.SerialException):
                port.close()

    def identity(self) -> DeviceIdentity:
        """The identity the device gave in its handshake.

        :raises HardwareError: before a successful :meth:`open`.
        """
        if self._identity is None:
            raise HardwareError(f"The {self.NOUN} '{self.name}' has not been opened yet.")
        return self._identity

    def health(self) -> Health:
        """CLOSED, FAULT while the link is down, DEGRADED for a minute after link errors."""
        link = self._link
        if self._thread is None or link is None:
            return Health.CLOSED
        if not link.up or self._faulted or self._device_fault:
            return Health.FAULT
        if time.monotonic() - self._last_error_time < DEGRADED_FOR:
            return Health.DEGRADED
        return Health.OK

    def link_stats(self) -> dict[str, int]:
        """frames, crc_errors, retransmissions, resyncs, duplicates and more."""
        link = self._link
        stats = link.link_stats() if link is not None else {}
        stats["reopens"] = self._reopens
        stats["duplicate_reads"] = self._duplicate_reads
        return stats

    def locations(self) -> dict[str, Location]:
        """The serial port (a path or a pyserial URL) the device is on."""
        return {"": {"port": self.port}}

    @property
    def protocol_version(self) -> tuple[int, int]:
        """The protocol version this host speaks."""
        return PROTOCOL_MAJOR, PROTOCOL_MINOR

    # -- for subclasses -------------------------------------------------------

    def _handle(self, msg: Message, now: float) -> Iterable[DeviceEvent]:
        """Turn one device message into HAL events (called on the reader thread)."""
        return ()

    def _on_link_up(self, identity: Identity, now: float) -> None:
        """Called on the reader thread each time the device answers HELLO."""

    def _send(self, msg: Message) -> None:
        """Queue a message to the device; the reader thread sends it within 50 ms."""
        with self._lock:
            if self._link is None:
                raise HardwareError(
                    f"The {self.NOUN} '{self.name}' is not open.",
                    key="hw.not_open",
                    device=self.name,
                )
            self._link.send(msg)

    # -- the reader thread ----------------------------------------------------

    def _open_port(self) -> Any:
        try:
            return serial.serial_for_url(
                self.port,
                baudrate=self.baudrate,
                timeout=READ_TIMEOUT,
                write_timeout=1.0,
                exclusive=self.exclusive,
            )
        except (OSError, ValueError, serial.SerialException) as exc:
            raise HardwareError(
                f"The {self.NOUN} '{self.name}' cannot be opened on {self.port} ({exc}): check "
                "that it is plugged in and that the port in the table configuration is right."
            ) from exc

    def _run(self) -> None:
        backoff = REOPEN_BACKOFF[0]
        next_reopen = 0.0
        while not self._stop.is_set():
            data = b""
            port = self._port
            if port is None:
                now = time.monotonic()
                if now >= next_reopen:
                    try:
                        port = self._open_port()
                    except HardwareError:
                        next_reopen = now + backoff
                        backoff = min(backoff * 2, REOPEN_BACKOFF[1])
                    else:
                        with self._lock:
                            self._port = port
                        self._reopens += 1
                        backoff = REOPEN_BACKOFF[0]
                if port is None:
                    self._stop.wait(min(READ_TIMEOUT, max(0.0, next_reopen - now)))
            else:
                try:
                    data = port.read(1)
                    if data:
                        waiting = port.in_waiting
                        if waiting:
                            data += port.read(waiting)
                except (OSError, serial.SerialException):
                    self._drop_port()
            self._step(data)

    def _drop_port(self) -> None:
        now = time.monotonic()
        with self._lock:
            port, self._port = self._port, None
            link = self._link
            out = link.drop(now) if link is not None else None
        if port is not None:
            with contextlib.suppress(OSError, serial.SerialException):
                port.close()
        if out is not None:
            self._dispatch(out, now)

    def _step(self, data: bytes) -> None:
        now = time.monotonic()
        lost = False
        with self._lock:
            link = self._link
            if link is None:
                return
            out = link.step(data, now)
            port = self._port
            if out.frames and port is not None:
                try:
                    port.write(out.data)
                except (OSError, serial.SerialException):
                    lost = True
        self._dispatch(out, now)
        if lost:
            self._drop_port()
        stats = link.link_stats()
        total = sum(stats[k] for k in _ERROR_COUNTERS)
        if total != self._error_total:
            self._error_total = total
            self._last_error_time = now

    def _dispatch(self, out: LinkOutput, now: float) -> None:
        for event in out.events:
            self._on_event(event.kind, event.detail, event.identity, now)
        for msg in out.messages:
            if isinstance(msg, DeviceError):
                self._on_device_error(msg, now)
                continue
            for ev in self._handle(msg, now):
                self._emit(ev)

    def _on_event(self, kind: EventKind, detail: str, ident: Identity | None, now: float) -> None:
        if kind is EventKind.UP:
            assert ident is not None
            first = self._identity is None
            self._identity = DeviceIdentity(ident.model, ident.serial, ident.firmware)
            self._on_link_up(ident, now)
            if first:
                self._handshaken.set()
            elif self._faulted:
                self._faulted = False
                self._emit(DeviceRecovered(self.name, now))
        elif kind is EventKind.DOWN:
            if self._identity is not None and not self._faulted:
                self._faulted = True
                self._emit(
                    DeviceFault(
                        self.name,
                        now,
                        f"The {self.NOUN} stopped answering: check its cable; the hand is "
                        "paused until it is back.",
                        "alert.fault.silent",
                        (("device", self.name),),
                    )
                )
        elif kind is EventKind.INCOMPATIBLE:
            self._incompatible = detail
            if self._identity is None:
                self._handshaken.set()
            else:
                self._faulted = True
                theirs = f"{ident.major}.{ident.minor}" if ident is not None else "?"
                ours = f"{PROTOCOL_MAJOR}.{PROTOCOL_MINOR}"
                self._emit(
                    DeviceFault(
                        self.name,
                        now,
                        f"The {self.NOUN} was replaced by one that speaks another protocol "
                        f"version ({detail}): put back a compatible {self.NOUN}.",
                        "alert.fault.incompatible",
                        (("device", self.name), ("theirs", theirs), ("ours", ours)),
                    )
                )

    def _on_device_error(self, err: DeviceError, now: float) -> None:
        if err.code is ErrorCode.NONE:
            if self._device_fault:
                self._device_fault = False
                self._emit(DeviceRecovered(self.name, now))
            return
        self._device_fault = True
        what = err.code.name.lower().replace("_", " ")
        self._emit(
            DeviceFault(
                self.name,
                now,
                f"The {self.NOUN} reports a fault ({what}: {err.detail}): check it and call a "
                "technician if it does not clear; the hand is paused.",
                "alert.fault.reported",
                (("device", self.name), ("code", what), ("detail", err.detail)),
            )
        )

    def _emit(self, event: DeviceEvent) -> None:
        if self._post is not None:
            self._post(event)
