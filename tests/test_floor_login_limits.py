"""The floor's login: bounded for attackers, never turned against staff (issue 27, item 9).

Each attack of the review, against the real web server on loopback:

* a flood of logins cannot take the floor's memory or cores (at most
  :data:`LOGIN_AT_ONCE` scrypt hashes at once; made-up badges forgotten);
* someone who knows a badge cannot keep its owner out: wrong PINs slow down
  only the client that typed them (exponential backoff per badge and client),
  and a browser where the badge logged in before is not held back even by a
  guess spread over many addresses;
* behind the recommended reverse proxy, one person's failures do not lock out
  the others: the client is read from ``X-Forwarded-For``, but only when the
  connection comes from a configured proxy (a client's own header is ignored);
* a login posted from another site (login CSRF: the attacker logs the victim's
  browser into the attacker's account) is refused: the ``Origin`` must be the
  page's and the form's token must match the login page's cookie.

The clock of the limits is injected (``web.clock``): no test waits.
"""

from __future__ import annotations

import hashlib
import html
import http.client
import threading
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from firmware.floor.web import app as floor_web
from firmware.floor.web import loginguard
from firmware.floor.web.app import FloorWeb
from firmware.protocol import auth
from firmware.protocol.auth import StaffDirectory
from tests.floor_login import login_form, post_login

PIN = "4821"
PROXY = "127.0.0.1"


@pytest.fixture
def web(monkeypatch: pytest.MonkeyPatch) -> Iterator[FloorWeb]:
    def fast(pin: str, salt: bytes | None = None) -> tuple[bytes, bytes]:
        salt = salt or b"s" * 16
        return salt, hashlib.sha256(salt + pin.encode()).digest()

    monkeypatch.setattr(auth, "_scrypt", fast)  # the limits are under test, not the hash
    staff = StaffDirectory()
    staff.add("B-FLOOR", "Flor", "floor", PIN)
    staff.add("B-ANA", "Ana", "floor", PIN)
    server = FloorWeb("postgresql://nobody@127.0.0.1:1/none", staff)
    now = [1000.0]
    server.clock = lambda: now[0]
    server.now = now  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.stop()


def later(web: FloorWeb, seconds: float) -> None:
    web.now[0] += seconds  # type: ignore[attr-defined]


def login(web: FloorWeb, badge: str, pin: str, lang: str = "en", **headers: str) -> int:
    return post_login(
        web.port, badge, pin, lang, {k.replace("_", "-"): v for k, v in headers.items()}
    )[0]


def test_wrong_pins_back_off_exponentially_for_that_client_only(web: FloorWeb) -> None:
    web.trusted = frozenset({PROXY})
    mallory = {"X_Forwarded_For": "192.168.1.66"}
    flor = {"X_Forwarded_For": "192.168.1.20"}
    waits = []
    for _ in range(6):
        status = login(web, "B-FLOOR", "0000", **mallory)
        while status == 429:  # wait out exactly the backoff, then try again
            later(web, 1)
            waits.append(1)
            status = login(web, "B-FLOOR", "0000", **mallory)
        assert status == 403
    # Two free failures, then waits of 2, 4 and 8 seconds before the next tries ...
    assert len(waits) == 2 + 4 + 8
    # ... and 16 after the sixth.
    assert login(web, "B-FLOOR", "0000", **mallory) == 429
    later(web, 15)
    assert login(web, "B-FLOOR", "0000", **mallory) == 429
    status, page, _ = post_login(
        web.port, "B-FLOOR", "0000", "es", {"X-Forwarded-For": "192.168.1.66"}
    )
    assert status == 429 and "Demasiados PIN erróneos para esta tarjeta" in page
    # The badge's owner, at another tablet behind the same proxy, is not held back.
    assert login(web, "B-FLOOR", PIN, **flor) == 303


@pytest.mark.parametrize(
    ("lang", "one", "many"),
    [("en", "wait 1 second and", "seconds"), ("es", "espere 1 segundo e", "segundos")],
)
def test_the_last_second_of_a_wait_is_said_in_the_singular(
    web: FloorWeb, lang: str, one: str, many: str
) -> None:
    for _ in range(loginguard.FREE_FAILURES + 1):  # the next try waits BACKOFF_BASE seconds
        assert login(web, "B-FLOOR", "0000", lang) == 403
    status, page, _ = post_login(web.port, "B-FLOOR", PIN, lang)
    assert status == 429 and f" 2 {many}" in html.unescape(page)
    later(web, loginguard.BACKOFF_BASE - 1)
    status, page, _ = post_login(web.port, "B-FLOOR", PIN, lang)
    assert status == 429 and one in html.unescape(page), page
    assert f" 1 {many}" not in html.unescape(page)
    web.trusted = frozenset({PROXY})  # then another client's own limit, to its end
    other = {"X-Forwarded-For": "192.168.1.77"}
    for n in range(loginguard.CLIENT_FAILURES):
        assert post_login(web.port, f"guess-{n}", "0000", lang, other)[0] == 403
    later(web, loginguard.CLIENT_WINDOW - 1)
    status, page, _ = post_login(web.port, "B-ANA", PIN, lang, other)
    assert status == 429 and one in html.unescape(page), page


def test_behind_the_proxy_one_persons_failures_do_not_lock_out_the_others(web: FloorWeb) -> None:
    web.trusted = frozenset({PROXY})
    for n in range(loginguard.CLIENT_FAILURES):
        assert login(web, f"guess-{n}", "0000", X_Forwarded_For="192.168.1.66") == 403
    assert login(web, "B-ANA", PIN, X_Forwarded_For="192.168.1.66") == 429  # that client waits
    assert login(web, "B-ANA", PIN, X_Forwarded_For="192.168.1.21") == 303  # the others do not
    later(web, loginguard.CLIENT_WINDOW + 1)
    assert login(web, "B-ANA", PIN, X_Forwarded_For="192.168.1.66") == 303


def test_a_forwarded_header_from_an_untrusted_peer_is_ignored(web: FloorWeb) -> None:
    """Without the proxy configured, a client cannot escape its limit by naming others."""
    for n in range(loginguard.CLIENT_FAILURES):
        assert login(web, f"guess-{n}", "0000", X_Forwarded_For=f"10.9.9.{n}") == 403
    assert login(web, "B-ANA", PIN, X_Forwarded_For="10.9.9.200") == 429


def post_through_a_proxy_adding_a_line(web: FloorWeb, forged: str, badge: str) -> int:
    """A login through a proxy that adds its own ``X-Forwarded-For`` line (HAProxy's
    ``option forwardfor``) after the one the client wrote: two header lines."""
    cookie, token = login_form(web.port)
    body = urlencode({"badge": badge, "pin": "0000", "csrf": token}).encode()
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=60)
    conn.putrequest("POST", "/login?lang=en")
    conn.putheader("Content-Type", "application/x-www-form-urlencoded")
    conn.putheader("Content-Length", str(len(body)))
    conn.putheader("Cookie", cookie)
    conn.putheader("X-Forwarded-For", forged)  # the client's own, made up
    conn.putheader("X-Forwarded-For", "192.168.1.66")  # the proxy's: who really sent it
    conn.endheaders(body)
    status = conn.getresponse().status
    conn.close()
    return status


def test_a_forged_line_before_the_proxys_own_does_not_escape_the_limit(web: FloorWeb) -> None:
    web.trusted = frozenset({PROXY})
    for n in range(loginguard.CLIENT_FAILURES):
        assert post_through_a_proxy_adding_a_line(web, f"10.9.9.{n}", f"guess-{n}") == 403
    assert post_through_a_proxy_adding_a_line(web, "10.9.9.200", "guess-x") == 429
    assert login(web, "B-ANA", PIN, X_Forwarded_For="192.168.1.21") == 303  # others go on


def test_a_guess_spread_over_many_addresses_does_not_keep_a_known_browser_out(
    web: FloorWeb,
) -> None:
    web.trusted = frozenset({PROXY})
    # Flor logged in on her tablet before: it carries the badge's signed mark.
    form = login_form(web.port)
    status, _page, jar = post_login(web.port, "B-FLOOR", PIN, form=form)
    assert status == 303 and jar.get("floor_known")
    mark = f"floor_known={jar['floor_known']}"
    for n in range(loginguard.BADGE_FAILURES):
        assert login(web, "B-FLOOR", "0000", X_Forwarded_For=f"203.0.113.{n + 1}") == 403
    # A new address is held back on that badge now ...
    assert login(web, "B-FLOOR", PIN, X_Forwarded_For="203.0.113.200") == 429
    # ... but not Flor's tablet, which the badge logged in on before.
    cookie, token = login_form(web.port, cookie=mark)
    status, _page, _jar = post_login(
        web.port, "B-FLOOR", PIN, headers={"X-Forwarded-For": "192.168.1.20"},
        form=(f"{cookie}; {mark}", token),
    )  # fmt: skip
    assert status == 303


def test_a_login_posted_from_another_site_is_refused(web: FloorWeb) -> None:
    # A foreign Origin, even with a valid cookie and token.
    status, page, jar = post_login(
        web.port, "B-FLOOR", PIN, headers={"Origin": "http://evil.example"}
    )
    assert status == 403 and "floor_session" not in jar
    assert "did not come from the floor's own login page" in html.unescape(page)
    # No token, or a token that is not the one of the cookie sent.
    cookie, token = login_form(web.port)
    other_cookie, _ = login_form(web.port)
    for form in ((cookie, ""), (other_cookie, token), ("", token)):
        status, _page, jar = post_login(web.port, "B-FLOOR", PIN, form=form)
        assert status == 403 and "floor_session" not in jar
    # The page's own form from its own origin gets in.
    host = f"127.0.0.1:{web.port}"
    status, _page, jar = post_login(web.port, "B-FLOOR", PIN, headers={"Origin": f"http://{host}"})
    assert status == 303 and jar.get("floor_session")


def test_logins_beyond_the_limit_at_once_are_asked_to_try_again(
    web: FloorWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every login slot held, a login is answered 503 in both languages."""
    monkeypatch.setattr(floor_web, "LOGIN_WAIT_SECONDS", 0.01)
    held = [web._logins.acquire(timeout=1) for _ in range(floor_web.LOGIN_AT_ONCE)]
    assert all(held)
    try:
        status, page, _ = post_login(web.port, "B-FLOOR", PIN, "es")
        assert status == 503 and "inténtelo de nuevo en un momento" in page
    finally:
        for _ in held:
            web._logins.release()
    assert login(web, "B-FLOOR", PIN) == 303


def test_the_limits_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loginguard, "MAX_TRACKED", 50)
    now = [0.0]
    guard = loginguard.LoginGuard(lambda: now[0])
    for n in range(2000):
        now[0] += 61  # each client's window and backoff pass
        guard.failed(f"10.0.{n // 250}.{n % 250}", f"made-up-{n}", False)
    assert guard.tracked <= 3 * 51 + 3


def test_made_up_badges_are_forgotten_but_a_real_badges_lock_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The console's directory (the tables' logins) keeps its lock and its memory bound."""
    monkeypatch.setattr(auth, "MAX_TRACKED", 50)

    def fast(pin: str, salt: bytes | None = None) -> tuple[bytes, bytes]:
        return salt or b"s" * 16, hashlib.sha256(pin.encode()).digest()

    monkeypatch.setattr(auth, "_scrypt", fast)
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
