"""The floor's unauthenticated login cannot be used to exhaust the floor.

Review: every login costs one scrypt hash (about 16 MiB) on a thread per
request, and every made-up badge string was remembered for ever. Now at most
:data:`LOGIN_AT_ONCE` logins are checked at once, an address with too many
failed logins waits, and the badges no account has are forgotten.
"""

from __future__ import annotations

import hashlib
import http.client
import threading
import urllib.parse
from collections.abc import Iterator

import pytest

from firmware.floor import web as floor_web
from firmware.floor.web import LOGIN_PER_ADDRESS, FloorWeb
from firmware.protocol import auth
from firmware.protocol.auth import StaffDirectory

PIN = "4821"


@pytest.fixture
def web() -> Iterator[FloorWeb]:
    staff = StaffDirectory()
    staff.add("B-FLOOR", "Flor", "floor", PIN)
    server = FloorWeb("postgresql://nobody@127.0.0.1:1/none", staff)
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.stop()


def login(web: FloorWeb, badge: str, pin: str, lang: str = "en") -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
    form = urllib.parse.urlencode({"badge": badge, "pin": pin})
    conn.request(
        "POST",
        f"/login?lang={lang}",
        body=form,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    response = conn.getresponse()
    return response.status, response.read().decode()


def test_an_address_with_too_many_failed_logins_waits(web: FloorWeb) -> None:
    for n in range(LOGIN_PER_ADDRESS):
        assert login(web, f"guess-{n}", "0000")[0] == 403
    status, page = login(web, "B-FLOOR", PIN, "es")
    assert status == 429 and "Demasiados ingresos fallidos" in page
    # The window passes: the right PIN gets in again.
    start = web.clock()
    web.clock = lambda: start + floor_web.LOGIN_WINDOW_SECONDS + 1
    assert login(web, "B-FLOOR", PIN)[0] == 303


def test_a_good_login_is_not_counted(web: FloorWeb) -> None:
    for _ in range(LOGIN_PER_ADDRESS + 2):
        assert login(web, "B-FLOOR", PIN)[0] == 303


def test_logins_beyond_the_limit_at_once_are_asked_to_try_again(
    web: FloorWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every login slot held, a login is answered 503 in both languages."""
    monkeypatch.setattr(floor_web, "LOGIN_WAIT_SECONDS", 0.01)
    held = [web._logins.acquire(timeout=1) for _ in range(floor_web.LOGIN_AT_ONCE)]
    assert all(held)
    try:
        status, page = login(web, "B-FLOOR", PIN, "es")
        assert status == 503 and "inténtelo de nuevo en un momento" in page
    finally:
        for _ in held:
            web._logins.release()
    assert login(web, "B-FLOOR", PIN)[0] == 303


def test_made_up_badges_are_forgotten_but_a_real_badges_lock_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(auth, "MAX_TRACKED", 50)

    def fast(pin: str, salt: bytes | None = None) -> tuple[bytes, bytes]:
        return salt or b"s" * 16, hashlib.sha256(pin.encode()).digest()

    monkeypatch.setattr(auth, "_scrypt", fast)  # the test is about memory, not the hash
    staff = StaffDirectory(max_failures=3)
    staff.add("B-FLOOR", "Flor", "floor", PIN)
    for _ in range(3):
        with pytest.raises(auth.AuthError):
            staff.login("B-FLOOR", "0000")
    for n in range(500):
        with pytest.raises(auth.AuthError):
            staff.login(f"made-up-{n}", "0000")
    assert len(staff._attempts) <= 51 + 1
    with pytest.raises(auth.AuthError) as locked:
        staff.login("B-FLOOR", PIN)
    assert locked.value.key == "protocol.login.locked"
