"""The link state machine: handshake, sequence numbers, acks, retransmission, heartbeats.

A :class:`Link` is pure: :meth:`Link.step` takes the bytes read since the
last call and the current time, and returns the frames to write, the
messages delivered in order (each exactly once) and link events (up, down,
incompatible). The caller owns the port, the thread and the clock, so tests
drive it with fake time.

The host sends HELLO until the device answers IDENTITY; then both sides send
sequenced messages in a window of 8, acknowledged cumulatively by the ACK
field of every frame. A frame not acknowledged in ``rto`` seconds is sent
again (go-back-N) with the timeout doubling up to ``rto_max``; after
``max_retries`` resends, or ``link_timeout`` seconds without any valid frame
(heartbeats keep a quiet link alive), the link is down. The host then sends
HELLO again; unacknowledged messages survive the outage and are resent once
the link is back. Session ids in HELLO and IDENTITY tell a reconnect (keep
the receive sequence, so nothing is applied twice) from a restarted peer
(start from the base sequence number it announces).
"""

from __future__ import annotations

import dataclasses
import enum
from collections import deque
from dataclasses import dataclass, field

from firmware.wire.codec import (
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    BadPayload,
    Decoder,
    Frame,
    Hello,
    Identity,
    Message,
    MsgType,
    UnknownType,
    VersionMismatch,
    decode_message,
    encode_frame,
    encode_message,
    is_sequenced,
)


class Role(enum.Enum):
    """Which end of the link this is."""

    HOST = "host"
    DEVICE = "device"


@dataclass(frozen=True)
class LinkConfig:
    """Timers (seconds) and limits of the link; the defaults are the protocol's."""

    heartbeat: float = 0.25
    """Send a HEARTBEAT after this long without sending anything."""
    link_timeout: float = 1.0
    """Declare the link down after this long without a valid frame."""
    hello_interval: float = 0.25
    """The host repeats HELLO this often until IDENTITY arrives."""
    rto: float = 0.1
    """First retransmission timeout."""
    rto_max: float = 0.4
    """The timeout doubles after each resend up to this."""
    max_retries: int = 6
    """Resends of the oldest unacknowledged frame before the link is down."""
    window: int = 8
    """Sequenced frames in flight at most."""


class EventKind(enum.Enum):
    """What happened to the link."""

    UP = "up"
    DOWN = "down"
    INCOMPATIBLE = "incompatible"


@dataclass(frozen=True)
class LinkEvent:
    """A change of the link's state; ``identity`` is the peer's on UP and INCOMPATIBLE."""

    kind: EventKind
    detail: str = ""
    identity: Identity | None = None


@dataclass
class LinkOutput:
    """What one :meth:`Link.step` produced."""

    frames: list[bytes] = field(default_factory=list)
    """Encoded frames to write, in order."""
    messages: list[Message] = field(default_factory=list)
    """Messages received, in sequence order, each once."""
    events: list[LinkEvent] = field(default_factory=list)

    @property
    def data(self) -> bytes:
        """All frames as one write."""
        return b"".join(self.frames)


def _dist(a: int, b: int) -> int:
    """How far ``b`` is ahead of ``a`` modulo 256."""
    return (b - a) & 0xFF


class Link:
    """One end of the link.

    :param role: host or device.
    :param session: This end's session id (u32, random at start), so the
        peer can tell a reconnect from a restart.
    :param identity: What a device answers to HELLO (its ``session``,
        ``base_seq`` and version fields are filled in by the link).
    """

    def __init__(
        self,
        role: Role,
        session: int,
        config: LinkConfig | None = None,
        identity: Identity | None = None,
    ) -> None:
        if role is Role.DEVICE and identity is None:
            raise ValueError("A device link needs the identity it answers HELLO with.")
        self.role = role
        self.session = session & 0xFFFFFFFF
        self.config = config or LinkConfig()
        self._identity = identity
        self.major = PROTOCOL_MAJOR
        """The major version a device announces (an emulator may pretend another)."""
        self.decoder = Decoder()
        self.up = False
        self.failed = False
        self.peer: Identity | None = None
        self._peer_session: int | None = None
        self._started = role is Role.DEVICE
        self._next_hello = 0.0
        self._next_seq = 0
        self._unacked: deque[tuple[int, bytes]] = deque()
        self._pending: deque[tuple[int, bytes]] = deque()
        self._rto = self.config.rto
        self._rto_deadline = 0.0
        self._retries = 0
        self._expected = 0
        self._need_ack = False
        self._last_rx = 0.0
        self._last_tx = 0.0
        self.stats = {
            "frames_out": 0,
            "retransmissions": 0,
            "duplicates": 0,
            "out_of_order": 0,
            "unknown_types": 0,
            "bad_payloads": 0,
            "version_errors": 0,
            "link_downs": 0,
            "heartbeats_missed": 0,
        }
        self._gap_from = 0.0
        """The last reception time the missed-heartbeat count below refers to."""
        self._gap_missed = 0
        """Heartbeat intervals missed since ``_gap_from`` (already counted in ``stats``)."""

    # -- inputs ---------------------------------------------------------------

    def start(self, now: float) -> None:
        """Host: start sending HELLO at ``now``."""
        self._started = True
        self._next_hello = now

    def send(self, msg: Message) -> None:
        """Queue a sequenced message; it goes out in order once the link is up."""
        msg_type, payload = encode_message(msg)
        self._pending.append((msg_type, payload))

    def step(self, data: bytes, now: float) -> LinkOutput:
        """Feed bytes read since the last step and run the timers at ``now``."""
        out = LinkOutput()
        if data:
            for frame in self.decoder.feed(data):
                self._receive(frame, now, out)
        self._timers(now, out)
        return out

    def next_deadline(self) -> float:
        """The latest time at which :meth:`step` must be called again."""
        c = self.config
        times = []
        if self.up:
            times.append(self._last_rx + c.link_timeout)
            times.append(self._last_tx + c.heartbeat)
            if self._unacked:
                times.append(self._rto_deadline)
        elif self.role is Role.HOST and self._started and not self.failed:
            times.append(self._next_hello)
        return min(times) if times else float("inf")

    def drop(self, now: float) -> LinkOutput:
        """The transport is gone (port closed, cable pulled): go down at once.

        Unacknowledged messages are kept and resent after the next handshake.
        """
        out = LinkOutput()
        self.decoder.reset()
        if self.up:
            self._go_down(now, out, "the port was lost")
        return out

    def link_stats(self) -> dict[str, int]:
        """Counters of this end (decoder and link)."""
        d = self.decoder
        return {
            "frames": d.frames,
            "crc_errors": d.crc_errors,
            "length_errors": d.length_errors,
            "truncated": d.truncated,
            "resyncs": d.resyncs,
            "garbage_bytes": d.garbage_bytes,
            **self.stats,
        }

    @property
    def in_flight(self) -> int:
        """Sequenced messages sent or queued but not acknowledged yet."""
        return len(self._unacked) + len(self._pending)

    # -- receiving ------------------------------------------------------------

    def _receive(self, frame: Frame, now: float, out: LinkOutput) -> None:
        try:
            msg = decode_message(frame)
        except VersionMismatch:
            self.stats["version_errors"] += 1
            return
        except UnknownType:
            msg = None
            self.stats["unknown_types"] += 1
        except BadPayload:
            msg = None
            self.stats["bad_payloads"] += 1
        if frame.type == MsgType.HELLO and self.role is Role.DEVICE:
            if isinstance(msg, Hello):
                self._on_hello(msg, now, out)
            return
        if frame.type == MsgType.IDENTITY and self.role is Role.HOST:
            if isinstance(msg, Identity):
                self._on_identity(msg, now, out)
            return
        if not self.up:
            return
        self._last_rx = now
        self._on_ack(frame.ack, now)
        if not is_sequenced(frame.type):
            return
        ahead = _dist(self._expected, frame.seq)
        if ahead == 0:
            self._expected = (self._expected + 1) & 0xFF
            if msg is not None:
                out.messages.append(msg)
        elif ahead >= 128:
            self.stats["duplicates"] += 1
        else:
            self.stats["out_of_order"] += 1
        self._need_ack = True

    def _on_hello(self, hello: Hello, now: float, out: LinkOutput) -> None:
        assert self._identity is not None
        compatible = hello.major == self.major
        if compatible and hello.session != self._peer_session:
            # A new host (not a reconnect): receive from the sequence it announces.
            self._peer_session = hello.session
            self._expected = hello.base_seq
        base = self._unacked[0][0] if self._unacked else self._next_seq
        answer = dataclasses.replace(
            self._identity,
            major=self.major,
            minor=PROTOCOL_MINOR,
            session=self.session,
            base_seq=base,
        )
        ident = Frame(MsgType.IDENTITY, base, self._expected, version=self.major)
        self._emit(out, ident, answer, now)
        if not compatible:
            return
        self._last_rx = now
        if not self.up:
            self._come_up(now, out, None)

    def _on_identity(self, ident: Identity, now: float, out: LinkOutput) -> None:
        if ident.major != PROTOCOL_MAJOR:
            if not self.failed:
                self.failed = True
                out.events.append(
                    LinkEvent(
                        EventKind.INCOMPATIBLE,
                        f"the device speaks protocol version {ident.major}.{ident.minor} and "
                        f"this host speaks {PROTOCOL_MAJOR}.{PROTOCOL_MINOR}",
                        ident,
                    )
                )
            return
        self._last_rx = now
        if self.up:
            return
        if ident.session != self._peer_session:
            self._peer_session = ident.session
            self._expected = ident.base_seq
        self.peer = ident
        self._come_up(now, out, ident)

    def _come_up(self, now: float, out: LinkOutput, ident: Identity | None) -> None:
        self.up = True
        self._last_rx = now
        self._retries = 0
        self._rto = self.config.rto
        self._rto_deadline = now  # resend anything unacknowledged at once
        out.events.append(LinkEvent(EventKind.UP, "", ident))

    def _on_ack(self, ack: int, now: float) -> None:
        base = self._unacked[0][0] if self._unacked else self._next_seq
        n = _dist(base, ack)
        if n == 0 or n > len(self._unacked):
            return
        for _ in range(n):
            self._unacked.popleft()
        self._retries = 0
        self._rto = self.config.rto
        self._rto_deadline = now + self._rto

    # -- sending --------------------------------------------------------------

    def _emit(
        self, out: LinkOutput, frame: Frame, msg: Message | None = None, now: float = 0.0
    ) -> bytes:
        if msg is not None:
            _, payload = encode_message(msg)
            frame = dataclasses.replace(frame, payload=payload)
        data = encode_frame(frame)
        out.frames.append(data)
        self.stats["frames_out"] += 1
        self._last_tx = now
        return data

    def _go_down(self, now: float, out: LinkOutput, detail: str) -> None:
        self.up = False
        self.stats["link_downs"] += 1
        self._next_hello = now
        self._need_ack = False
        out.events.append(LinkEvent(EventKind.DOWN, detail))

    def _count_missed(self, now: float) -> None:
        """Count the peer's heartbeats missed in the current silence.

        The peer sends something at least every ``heartbeat`` seconds; each
        whole interval past the first without a valid frame is one missed
        heartbeat, counted once.
        """
        if self._last_rx != self._gap_from:
            self._gap_from, self._gap_missed = self._last_rx, 0
        missed = int((now - self._last_rx) / self.config.heartbeat + 1e-9) - 1
        if missed > self._gap_missed:
            self.stats["heartbeats_missed"] += missed - self._gap_missed
            self._gap_missed = missed

    def _timers(self, now: float, out: LinkOutput) -> None:
        c = self.config
        if self.up:
            self._count_missed(now)
        if self.up and now - self._last_rx >= c.link_timeout:
            self._go_down(now, out, f"nothing was received for {c.link_timeout:g} s")
        if not self.up:
            hosting = self.role is Role.HOST and self._started and not self.failed
            if hosting and now >= self._next_hello:
                base = self._unacked[0][0] if self._unacked else self._next_seq
                hello = Hello(PROTOCOL_MAJOR, PROTOCOL_MINOR, self.session, base)
                self._emit(out, Frame(MsgType.HELLO, base, self._expected), hello, now)
                self._next_hello = now + c.hello_interval
            return
        if self._unacked and now >= self._rto_deadline:
            if self._retries >= c.max_retries:
                detail = f"a frame was not acknowledged after {c.max_retries} resends"
                self._go_down(now, out, detail)
                return
            for seq, data in self._unacked:
                self._emit_raw(out, seq, data, now)
                self.stats["retransmissions"] += 1
            self._retries += 1
            self._rto = min(self._rto * 2, c.rto_max)
            self._rto_deadline = now + self._rto
        while self._pending and len(self._unacked) < c.window:
            msg_type, payload = self._pending.popleft()
            seq = self._next_seq
            self._next_seq = (seq + 1) & 0xFF
            if not self._unacked:
                self._rto_deadline = now + self._rto
            self._unacked.append((seq, bytes((msg_type,)) + payload))
            self._emit_raw(out, seq, self._unacked[-1][1], now)
        if self._need_ack:
            self._emit(out, Frame(MsgType.ACK, self._next_seq, self._expected), None, now)
        elif now - self._last_tx >= c.heartbeat:
            self._emit(out, Frame(MsgType.HEARTBEAT, self._next_seq, self._expected), None, now)

    def _emit_raw(self, out: LinkOutput, seq: int, typed_payload: bytes, now: float) -> None:
        frame = Frame(typed_payload[0], seq, self._expected, typed_payload[1:])
        self._emit(out, frame, None, now)
        self._need_ack = False
