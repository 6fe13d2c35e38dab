"""The link state machine with fake time: handshake, acks, retransmission, heartbeats."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from firmware.wire.codec import (
    CardDrawn,
    Decoder,
    Frame,
    Identity,
    Message,
    MsgType,
    ScanRequest,
    encode_frame,
    encode_message,
)
from firmware.wire.link import EventKind, Link, LinkConfig, LinkEvent, Role

IDENT = Identity(0, 0, 0, 0, "RS-52", "SN0042", "2.1.0")
Filter = Callable[[bytes], list[bytes]]


def _pass(frame: bytes) -> list[bytes]:
    return [frame]


class Wire:
    """A host and a device link joined by a wire with per-direction frame filters."""

    def __init__(self, device_session: int = 7, host_session: int = 1) -> None:
        self.now = 100.0
        self.host = Link(Role.HOST, host_session)
        self.device = Link(Role.DEVICE, device_session, identity=IDENT)
        self.to_host: Filter = _pass
        self.to_device: Filter = _pass
        self.host_msgs: list[Message] = []
        self.device_msgs: list[Message] = []
        self.host_events: list[LinkEvent] = []
        self.device_events: list[LinkEvent] = []
        self.device_wrote: list[bytes] = []
        self._h2d = b""
        self._d2h = b""
        self.host.start(self.now)

    def run(self, seconds: float, tick: float = 0.01) -> None:
        end = self.now + seconds
        while self.now < end - 1e-9:
            self.now += tick
            out = self.host.step(self._d2h, self.now)
            self._d2h = b""
            self.host_msgs += out.messages
            self.host_events += out.events
            self._h2d += b"".join(g for f in out.frames for g in self.to_device(f))
            out = self.device.step(self._h2d, self.now)
            self._h2d = b""
            self.device_msgs += out.messages
            self.device_events += out.events
            self.device_wrote += out.frames
            self._d2h += b"".join(g for f in out.frames for g in self.to_host(f))

    def kinds(self, events: list[LinkEvent]) -> list[EventKind]:
        return [e.kind for e in events]


def cards(n: int, start: int = 0) -> list[CardDrawn]:
    return [CardDrawn(i, f"04{i:012X}") for i in range(start, start + n)]


def data_frames(frame: bytes) -> bool:
    return frame[6] >= 0x10


def test_handshake_brings_both_ends_up_with_the_identity() -> None:
    w = Wire()
    w.run(0.05)
    assert w.kinds(w.host_events) == [EventKind.UP]
    ident = w.host_events[0].identity
    assert ident is not None
    assert (ident.model, ident.serial, ident.firmware, ident.major) == (
        "RS-52",
        "SN0042",
        "2.1.0",
        1,
    )
    assert ident.session == 7
    assert w.kinds(w.device_events) == [EventKind.UP]
    assert w.host.up and w.device.up


def test_device_sends_nothing_before_the_first_hello() -> None:
    w = Wire()
    w.host.failed = True  # a host that never says HELLO
    w.device.send(CardDrawn(1, "0A"))
    w.run(2.0)
    assert w.device_wrote == []


def test_messages_arrive_in_order_once_both_ways() -> None:
    w = Wire()
    sent = cards(40)
    for m in sent:
        w.device.send(m)
    w.host.send(ScanRequest(3))
    w.run(0.5)
    assert w.host_msgs == sent
    assert w.device_msgs == [ScanRequest(3)]
    assert w.host.link_stats()["retransmissions"] == 0
    assert w.device.in_flight == 0


def test_window_limits_frames_in_flight() -> None:
    w = Wire()
    w.run(0.05)
    w.to_host = lambda f: []  # nothing reaches the host: nothing is acked
    for m in cards(20):
        w.device.send(m)
    w.run(0.02)
    sent = [f for f in w.device_wrote if data_frames(f)]
    assert len(sent) == LinkConfig().window


def test_dropped_frame_is_retransmitted() -> None:
    w = Wire()
    w.run(0.05)
    dropped: list[bytes] = []

    def drop_first_card(f: bytes) -> list[bytes]:
        if data_frames(f) and not dropped:
            dropped.append(f)
            return []
        return [f]

    w.to_host = drop_first_card
    for m in cards(3):
        w.device.send(m)
    w.run(0.5)
    assert w.host_msgs == cards(3)
    assert w.device.link_stats()["retransmissions"] >= 1
    assert w.host.link_stats()["out_of_order"] == 2  # the two after the gap were refused


def test_duplicated_frame_is_applied_once() -> None:
    w = Wire()
    w.run(0.05)
    w.to_host = lambda f: [f, f] if data_frames(f) else [f]
    for m in cards(5):
        w.device.send(m)
    w.run(0.3)
    assert w.host_msgs == cards(5)
    assert w.host.link_stats()["duplicates"] == 5


def test_lost_ack_means_a_resend_that_is_applied_once() -> None:
    w = Wire()
    w.run(0.05)
    w.to_device = lambda f: []  # the host's acks are lost
    w.device.send(CardDrawn(1, "0A"))
    w.run(0.35)
    w.to_device = _pass
    w.run(0.3)
    assert w.host_msgs == [CardDrawn(1, "0A")]
    assert w.device.link_stats()["retransmissions"] >= 2
    assert w.host.link_stats()["duplicates"] >= 2


def test_retransmission_backs_off() -> None:
    w = Wire()
    w.run(0.05)
    w.to_host = lambda f: []
    times: list[float] = []
    w.device.send(CardDrawn(1, "0A"))
    for _ in range(90):
        before = w.device.link_stats()["retransmissions"]
        w.run(0.01)
        if w.device.link_stats()["retransmissions"] > before:
            times.append(w.now)
    gaps = [round(b - a, 2) for a, b in itertools.pairwise(times)]
    assert gaps[:2] == [0.2, 0.4]


def test_heartbeats_keep_an_idle_link_up_cheaply() -> None:
    w = Wire()
    w.run(10.0)
    assert w.kinds(w.host_events) == [EventKind.UP]
    assert w.kinds(w.device_events) == [EventKind.UP]
    beats = [f for f in w.device_wrote if f[6] == MsgType.HEARTBEAT]
    assert 35 <= len(beats) <= 41  # one per 250 ms


def test_silence_takes_the_link_down_and_nothing_is_lost_or_doubled_across_it() -> None:
    w = Wire()
    for m in cards(3):
        w.device.send(m)
    w.run(0.2)
    w.to_host = lambda f: []
    w.to_device = lambda f: []
    for m in cards(4, start=3):
        w.device.send(m)
    w.run(1.2)
    assert w.kinds(w.host_events) == [EventKind.UP, EventKind.DOWN]
    assert EventKind.DOWN in w.kinds(w.device_events)
    assert w.host_events[-1].detail == "nothing was received for 1 s"
    w.to_host = _pass
    w.to_device = _pass
    w.run(5.0)  # the device may stay silent for longer than the retry budget
    assert w.kinds(w.host_events) == [EventKind.UP, EventKind.DOWN, EventKind.UP]
    assert w.host_msgs == cards(7)


def test_link_down_is_noticed_within_one_second() -> None:
    w = Wire()
    w.run(0.2)
    w.to_host = lambda f: []
    start = w.now
    while not any(e.kind is EventKind.DOWN for e in w.host_events):
        w.run(0.01)
    assert w.now - start <= 1.0 + 0.02


def test_unacked_frames_take_the_link_down_after_bounded_retries() -> None:
    w = Wire()
    w.run(0.05)
    # The host hears heartbeats but nothing of the host reaches the device.
    w.to_device = lambda f: []
    w.host.send(ScanRequest(1))
    w.run(3.0)
    assert EventKind.DOWN in w.kinds(w.host_events)
    assert w.host.link_stats()["retransmissions"] >= 2


def test_restarted_device_is_followed_from_its_new_sequence() -> None:
    w = Wire()
    for m in cards(5):
        w.device.send(m)
    w.run(0.3)
    w.device = Link(Role.DEVICE, 99, identity=IDENT)  # power cycle: new session, seq 0
    w.device.send(CardDrawn(100, "0A"))
    w.run(3.0)
    assert w.host_msgs == [*cards(5), CardDrawn(100, "0A")]
    assert w.host.peer is not None and w.host.peer.session == 99


def test_restarted_host_is_followed_by_the_device() -> None:
    w = Wire()
    w.host.send(ScanRequest(1))
    w.run(0.3)
    w.host = Link(Role.HOST, 2)
    w.host.start(w.now)
    w.host.send(ScanRequest(2))
    w.run(0.5)
    assert w.device_msgs == [ScanRequest(1), ScanRequest(2)]


def test_incompatible_major_version_is_reported_not_retried() -> None:
    host = Link(Role.HOST, 1)
    host.start(0.0)
    out = host.step(b"", 0.0)
    assert [Decoder().feed(f)[0].type for f in out.frames] == [MsgType.HELLO]
    t, p = encode_message(Identity(2, 1, 5, 0, "RS-99", "SN1", "9.0"))
    out = host.step(encode_frame(Frame(t, payload=p, version=2)), 0.01)
    assert [e.kind for e in out.events] == [EventKind.INCOMPATIBLE]
    assert "version 2.1" in out.events[0].detail
    assert host.step(b"", 5.0).frames == []
    assert not host.up


def test_unknown_type_is_acked_and_skipped_without_stalling() -> None:
    w = Wire()
    w.run(0.05)
    seq = w.device._next_seq
    w.device._next_seq = (seq + 1) & 0xFF  # the unknown frame takes this seq
    unknown = encode_frame(Frame(0x7E, seq=seq, payload=b"x"))
    w._d2h += unknown
    w.device.send(CardDrawn(1, "0A"))
    w.run(0.3)
    assert w.host_msgs == [CardDrawn(1, "0A")]
    assert w.host.link_stats()["unknown_types"] == 1
    assert w.device.link_stats()["retransmissions"] == 0


def test_frames_of_another_version_are_dropped_and_counted() -> None:
    w = Wire()
    w.run(0.05)
    t, p = encode_message(CardDrawn(1, "0A"))
    w._d2h += encode_frame(Frame(t, seq=w.device._next_seq, payload=p, version=3))
    w.run(0.05)
    assert w.host_msgs == []
    assert w.host.link_stats()["version_errors"] == 1


def test_garbage_and_crc_errors_on_the_wire_lose_nothing() -> None:
    w = Wire()
    w.run(0.05)
    n = 0

    def mangle(f: bytes) -> list[bytes]:
        nonlocal n
        n += 1
        if n % 3 == 0:
            bad = bytearray(f)
            bad[-1] ^= 0x55
            return [b"\x00\xa5garbage", bytes(bad)]
        return [f]

    w.to_host = mangle
    for m in cards(30):
        w.device.send(m)
    w.run(3.0)
    assert w.host_msgs == cards(30)
    stats = w.host.link_stats()
    assert stats["crc_errors"] > 0 and stats["resyncs"] > 0


def test_heartbeats_missed_are_counted_once_per_silent_interval() -> None:
    """A quiet but healthy link misses no heartbeat; a silent peer's missed intervals are
    counted once each (the technician page shows them), and counting stops at the next frame."""
    w = Wire()
    w.run(2.0)
    assert w.host.link_stats()["heartbeats_missed"] == 0
    frames = w.host.link_stats()["frames"]
    while w.host.link_stats()["frames"] == frames:  # cut the wire just after a frame arrived
        w.run(0.01)
    silent = True
    w.to_host = lambda frame: [] if silent else [frame]
    w.run(0.8)  # 0.8 s of silence, below the 1 s link timeout: intervals 2 and 3 missed
    assert w.host.up
    assert w.host.link_stats()["heartbeats_missed"] == 2
    silent = False
    w.run(1.0)
    assert w.host.link_stats()["heartbeats_missed"] == 2
    assert w.device.link_stats()["heartbeats_missed"] == 0
