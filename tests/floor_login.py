"""Logging in to the floor's dashboard from a test, as its login page asks: the form's
CSRF token with the login page's cookie (``firmware.floor.web.loginguard``)."""

from __future__ import annotations

import http.client
import re
from urllib.parse import urlencode


def login_form(port: int, lang: str = "en", cookie: str = "") -> tuple[str, str]:
    """The login page's cookie (``floor_login=...``) and its form's CSRF token."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", f"/login?lang={lang}", headers={"Cookie": cookie} if cookie else {})
    response = conn.getresponse()
    page = response.read().decode()
    conn.close()
    jar = [c.split(";")[0] for c in response.headers.get_all("Set-Cookie") or []]
    found = re.search(r"name='csrf' value='([^']*)'", page)
    assert found is not None and jar, page
    return jar[0], found.group(1)


def post_login(
    port: int,
    badge: str,
    pin: str,
    lang: str = "en",
    headers: dict[str, str] | None = None,
    form: tuple[str, str] | None = None,
) -> tuple[int, str, dict[str, str]]:
    """POST the login form (a fresh one unless ``form`` gives the cookie and token):
    the status, the page and the cookies set (by name)."""
    cookie, token = form or login_form(port, lang)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    sent = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie}
    sent.update(headers or {})
    body = urlencode({"badge": badge, "pin": pin, "csrf": token})
    conn.request("POST", f"/login?lang={lang}", body=body, headers=sent)
    response = conn.getresponse()
    page = response.read().decode()
    conn.close()
    jar = {}
    for header in response.headers.get_all("Set-Cookie") or []:
        name, _, value = header.split(";")[0].partition("=")
        jar[name] = value
    return response.status, page, jar


def session_cookie(port: int, badge: str, pin: str = "1234") -> str:
    """A logged-in session's ``Cookie`` header value."""
    status, page, jar = post_login(port, badge, pin)
    assert status == 303, (status, page)
    return f"floor_session={jar['floor_session']}"
