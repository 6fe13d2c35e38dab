"""The live pages' event streams are shared fairly (issue 27, item 9): the clock page
is public and each stream holds a thread, so one machine (behind the room's reverse
proxy or not) may hold only :data:`~firmware.floor.web.app.STREAMS_PER_CLIENT` of them,
and the TVs still get their clock. The real web server on loopback; no store is
needed (a stream without its store keeps its last page and says it is still here).
"""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator

import pytest

from firmware.floor.web import app as floor_web
from firmware.floor.web.app import FloorWeb
from firmware.protocol.auth import StaffDirectory

PROXY = "127.0.0.1"


@pytest.fixture
def web() -> Iterator[FloorWeb]:
    server = FloorWeb("postgresql://nobody@127.0.0.1:1/none", StaffDirectory())
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.stop()


def open_stream(web: FloorWeb, client: str) -> tuple[int, http.client.HTTPConnection]:
    """The clock page's stream asked for by ``client`` (through the proxy): its status
    and the connection (left open: the stream holds its slot)."""
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=60)
    conn.request("GET", "/events?page=clock&lang=es", headers={"X-Forwarded-For": client})
    return conn.getresponse().status, conn


@pytest.mark.parametrize("proxy", [True, False])
def test_one_machine_cannot_take_every_live_stream(web: FloorWeb, proxy: bool) -> None:
    if proxy:
        web.trusted = web.server.trusted = frozenset({PROXY})
    held = []
    try:
        for _ in range(floor_web.STREAMS_PER_CLIENT):
            status, conn = open_stream(web, "192.168.1.66")
            held.append(conn)
            assert status == 200
        status, conn = open_stream(web, "192.168.1.66")
        held.append(conn)
        if proxy:  # that machine has its share; the TV behind the same proxy gets one
            assert status == 503
            status, conn = open_stream(web, "192.168.1.20")
            held.append(conn)
            assert status == 200
        else:  # without a configured proxy every connection is the loopback's own
            assert status == 503
    finally:
        for conn in held:
            conn.close()
