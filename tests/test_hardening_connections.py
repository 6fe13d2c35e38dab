"""Connections cannot hold the table down (issue 11, item 5).

A real server on a Unix socket (loopback only) takes a few thousand idle,
unauthenticated connections and a client that floods requests without
reading its answers, while a legitimate seat and console keep playing: their
requests are answered throughout, idle connections are turned away by the
caps or closed by the hello timeout, the flooder is told why and
disconnected, the log stays short, and the process's memory returns near
where it was (resident size compared, no clock involved).
"""

from __future__ import annotations

import gc
import logging
import pathlib
import resource
import socket
import time
from collections.abc import Iterator

import pytest

from firmware.i18n import tr
from firmware.protocol.client import ClientClosed, TableClient
from firmware.protocol.framing import Decoder, encode
from firmware.protocol.limits import Limits
from tests.hardening_kit import GUARD, JournaledRig, answer

IDLE = 2000
"""Idle connections opened by the attacker (bounded by the file-descriptor limit)."""


def rss_kib() -> int:
    """This process's resident size (the server runs in it)."""
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.fixture
def rig(tmp_path: pathlib.Path) -> Iterator[JournaledRig]:
    r = JournaledRig(tmp_path, limits=Limits(hello_seconds=1.0))
    r.seat_players(3)
    yield r
    r.stop()


def still_plays(seat: TableClient, console: TableClient) -> None:
    """The legitimate terminals' requests are answered."""
    seat.send({"type": "language", "lang": "en"})
    assert answer(seat) == {"type": "ok", "request": "language"}
    console.send({"type": "report", "report": "pause"})
    assert answer(console) == {"type": "ok", "request": "report:pause"}
    console.send({"type": "report", "report": "resume"})
    assert answer(console) == {"type": "ok", "request": "report:resume"}


def waiting(rig: JournaledRig) -> int:
    with rig.server._clients_lock:
        return sum(1 for c in rig.server.clients.values() if c.terminal is None)


def test_thousands_of_idle_connections_and_a_flood_leave_the_table_playing(
    rig: JournaledRig, caplog: pytest.LogCaptureFixture
) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 2 * IDLE + 256  # both ends of every connection live in this process
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            pytest.skip(f"the file-descriptor limit ({hard}) is below the {need} this test needs")
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    caplog.set_level(logging.INFO, logger="firmware.protocol")
    seat = rig.connect("seat1")
    console = rig.console("dealer")
    for _ in range(20):  # warm up every path before the baseline
        still_plays(seat, console)
    gc.collect()
    baseline = rss_kib()

    # Thousands of idle connections that never say hello.
    idle: list[socket.socket] = []
    for number in range(IDLE):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(rig.socket)  # blocking: waits while the listen backlog is full
        sock.settimeout(GUARD)
        idle.append(sock)
        if number % 250 == 0:
            still_plays(seat, console)
    still_plays(seat, console)
    assert waiting(rig) <= rig.server.limits.pending_per_listener
    # Each is turned away by a cap, or closed when its hello does not come.
    turned_away = 0
    for sock in idle:
        data = b""
        try:
            while chunk := sock.recv(4096):
                data += chunk
        except OSError:
            pass
        turned_away += b"protocol.limit.connections" in data
        sock.close()
    assert turned_away >= IDLE - rig.server.limits.pending_per_listener
    deadline = time.monotonic() + GUARD
    while waiting(rig) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert waiting(rig) == 0

    # A seat that floods requests without reading its answers.
    flooder = rig.connect("seat2")
    burst = encode({"type": "sit_out"}) * 1000
    sent = 0
    try:
        for _ in range(200):
            flooder.send_raw(burst)
            sent += 1000
    except OSError:
        pass
    told = []
    try:
        while True:
            message = flooder.recv(GUARD)
            if message["type"] == "refused" and message["key"].startswith("protocol.limit"):
                told.append(message["key"])
    except (ClientClosed, OSError, TimeoutError):
        pass
    assert told, "the flooding client was not told why it was disconnected"
    assert sent < 200_000 or told
    still_plays(seat, console)

    # Memory returns near the baseline, and the log stayed short.
    for client in (flooder,):
        client.close()
    gc.collect()
    after = rss_kib()
    assert after - baseline < 20 * 1024, (baseline, after)
    lines = [r for r in caplog.records if r.name == "firmware.protocol"]
    assert len(lines) < 100, len(lines)
    assert rig.thread.is_alive()


def frames_until_closed(sock: socket.socket) -> list[dict[str, object]]:
    """Every message the server sends ``sock`` until it closes the connection."""
    decoder = Decoder()
    messages: list[dict[str, object]] = []
    while chunk := sock.recv(4096):
        messages.extend(decoder.feed(chunk))
    return messages


def test_a_connection_turned_away_by_a_cap_is_told_why_in_both_languages(
    tmp_path: pathlib.Path,
) -> None:
    r = JournaledRig(tmp_path, limits=Limits(pending_per_listener=1))
    try:
        first = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        first.connect(r.socket)
        deadline = time.monotonic() + GUARD
        while waiting(r) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        second = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        second.settimeout(GUARD)
        second.connect(r.socket)
        (refused,) = frames_until_closed(second)
        assert refused["key"] == "protocol.limit.connections"
        assert refused["reason"] == " / ".join(
            tr("protocol.limit.connections", lang) for lang in ("en", "es")
        )
        first.close()
        second.close()
    finally:
        r.stop()


def test_a_connection_without_hello_is_told_why_before_it_is_closed(
    tmp_path: pathlib.Path,
) -> None:
    r = JournaledRig(tmp_path, limits=Limits(hello_seconds=0.2))
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(GUARD)
        sock.connect(r.socket)
        (refused,) = frames_until_closed(sock)
        assert refused["key"] == "protocol.hello.timeout"
        assert refused["reason"] == " / ".join(
            tr("protocol.hello.timeout", lang, seconds="0.2") for lang in ("en", "es")
        )
        sock.close()
    finally:
        r.stop()
