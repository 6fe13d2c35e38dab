"""The floor's web server under slowloris (issue 27, item 6).

The attack that took a floor to 1,024 of 1,024 file descriptors and 1,014
threads, bounded in count and on loopback: hundreds of POSTs that send their
headers and part of their body, then nothing. The dashboard runs on the real
PostgreSQL; the attackers come from other loopback addresses (127.0.0.2 and
up) than the room's TV (127.0.0.1).

* From one address, the per-address cap turns the flood away at once and the
  TV's ``/clock`` answers meanwhile.
* From many addresses (more connections than the overall cap), the excess is
  turned away; the held connections are closed by the server at the request
  deadline (the test waits for each to be closed, no clock in the test); then
  ``/clock`` answers.
* Threads and file descriptors stay bounded by the cap, and nothing is logged
  as a traceback, on the logger or on stderr.
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import os
import select
import socket
import threading
from collections.abc import Iterator

import psycopg
import pytest

from firmware.floor.store.central import create_schema
from firmware.floor.web import app as floor_web
from firmware.floor.web import httpserver
from firmware.floor.web.app import FloorWeb
from firmware.protocol.auth import StaffDirectory
from tests.floor_kit import run

pytestmark = [pytest.mark.xdist_group("floor")]

CAP = 40
PER_ADDRESS = 8
HALF_SENT = (
    b"POST /login HTTP/1.1\r\nHost: floor\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    b"Content-Length: 1000\r\n\r\nbadge=B"
)


@pytest.fixture(params=[600.0])
def web(pg_conninfo: str, request: pytest.FixtureRequest) -> Iterator[FloorWeb]:
    """The dashboard with small caps; its request deadline is the test's parameter."""
    staff = StaffDirectory()
    staff.add("B-FLOOR", "Flor", "floor", "4821")
    server = FloorWeb(
        pg_conninfo,
        staff,
        max_connections=CAP,
        per_address=PER_ADDRESS,
        request_seconds=request.param,
    )

    async def schema() -> None:
        async with await psycopg.AsyncConnection.connect(pg_conninfo, autocommit=True) as conn:
            await create_schema(conn)

    run(schema())
    server.start()
    yield server
    server.stop()


def attack(port: int, sources: list[str], each: int) -> list[socket.socket]:
    """Open ``each`` half-sent POSTs from every source address; the sockets."""
    held = []
    for source in sources:
        for _ in range(each):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((source, 0))
            sock.connect(("127.0.0.1", port))
            with contextlib.suppress(OSError):  # already turned away
                sock.sendall(HALF_SENT)
            held.append(sock)
    return held


def closed_by_server(sock: socket.socket) -> bool:
    """Block until the server closes ``sock`` (a read returns the end, or a 503 then end)."""
    while True:
        select.select([sock], [], [])
        try:
            if not sock.recv(4096):
                return True
        except ConnectionResetError:
            return True


def clock_status(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/clock?lang=es")
    response = conn.getresponse()
    response.read()
    return response.status


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_one_address_flooding_cannot_take_the_clock(
    web: FloorWeb, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    threads, files = threading.active_count(), fds()
    held = attack(web.port, ["127.0.0.2"], 300)
    try:
        # The TV's clock answers while the flood is held.
        assert clock_status(web.port) == 200
        assert web.server.refused == 300 - PER_ADDRESS
        assert threading.active_count() <= threads + PER_ADDRESS + 2
        assert fds() <= files + 300 + PER_ADDRESS + 10  # the test's own 300 sockets
    finally:
        for sock in held:
            sock.close()
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


@pytest.mark.parametrize("web", [2.0], indirect=True)
def test_a_spread_flood_is_capped_and_timed_out_then_the_clock_answers(
    web: FloorWeb, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    threads = threading.active_count()
    sources = [f"127.0.0.{n}" for n in range(2, 32)]
    held = attack(web.port, sources, 10)  # 300 connections from 30 addresses
    try:
        assert web.server.refused > 0  # how many depends on how fast the deadline comes
        assert web.server.active <= CAP
        assert threading.active_count() <= threads + CAP + 2
        # The server closes every held connection at its deadline (nothing from the test).
        for sock in held:
            assert closed_by_server(sock)
        assert clock_status(web.port) == 200
    finally:
        for sock in held:
            sock.close()
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    ended = [r for r in caplog.records if r.name == httpserver.__name__]
    assert ended and all("\n" not in r.getMessage() for r in ended)


def test_live_streams_are_capped_and_end_with_the_server(
    pg_conninfo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Server-sent events hold a thread each: beyond the cap a stream is refused (503),
    and stopping the server ends the streams open."""
    monkeypatch.setattr(floor_web, "MAX_STREAMS", 1)

    async def schema() -> None:
        async with await psycopg.AsyncConnection.connect(pg_conninfo, autocommit=True) as conn:
            await create_schema(conn)

    run(schema())
    server = FloorWeb(pg_conninfo, StaffDirectory())
    server.start()
    first = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    first.request("GET", "/events?page=clock&lang=es")
    stream = first.getresponse()
    assert stream.status == 200 and stream.getheader("Content-Type", "").startswith(
        "text/event-stream"
    )
    assert stream.fp is not None and stream.fp.readline().startswith(b"data: ")
    assert clock_status_of(server.port, "/events?page=clock") == 503
    assert clock_status_of(server.port, "/events?page=dashboard") == 403  # needs a session
    server.stop()
    while stream.fp.readline():  # the stream ends: the server closed it
        pass


def clock_status_of(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    return response.status
