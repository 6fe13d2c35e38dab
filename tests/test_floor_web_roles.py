"""The floor's hand pages are for the floor role only: a technician never sees a card.

The hands (``/hands``, ``/hand``) show every player's hole cards; the threat model
(docs/security.md) lets a technician test devices but never see a card, on the table
or on the floor. The pages' PostgreSQL reads are replaced by stubs here: what is
tested is the session and role check in front of them (the pages themselves are
tested with PostgreSQL in ``tests/test_floor_dashboard.py``).
"""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator

import pytest

from firmware.floor.web import pages
from firmware.floor.web.app import FloorWeb
from firmware.protocol.auth import StaffDirectory
from tests.floor_login import session_cookie

PIN = "4821"


@pytest.fixture
def web(monkeypatch: pytest.MonkeyPatch) -> Iterator[FloorWeb]:
    monkeypatch.setattr(pages, "hands_page", lambda *args: "<p id='stub'>hands Ah Kd</p>")
    monkeypatch.setattr(pages, "hand_page", lambda *args: "<p id='stub'>hand Ah Kd</p>")
    staff = StaffDirectory()
    staff.add("B-FLOOR", "Flor", "floor", PIN)
    staff.add("B-TECH", "Tomás", "technician", PIN)
    server = FloorWeb("postgresql://nobody@127.0.0.1:1/none", staff)
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.stop()


def _request(
    web: FloorWeb, method: str, path: str, body: str = "", cookie: str = ""
) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=10)
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if cookie:
        headers["Cookie"] = cookie
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    return response


def _login(web: FloorWeb, badge: str) -> str:
    return session_cookie(web.port, badge, PIN)


@pytest.mark.parametrize("path", ["/hands?table=T1", "/hand?table=T1&seq=1"])
def test_a_technician_cannot_read_the_hands_and_their_cards(web: FloorWeb, path: str) -> None:
    """Refused with 403 before any hand is read; the floor role reads the same page."""
    technician = _login(web, "B-TECH")
    assert _request(web, "GET", path, cookie=technician).status == 403
    floor = _login(web, "B-FLOOR")
    assert _request(web, "GET", path, cookie=floor).status == 200


def test_without_a_session_the_hands_send_to_the_login(web: FloorWeb) -> None:
    response = _request(web, "GET", "/hand?table=T1&seq=1")
    assert response.status == 303
    assert response.getheader("Location", "").startswith("/login")
