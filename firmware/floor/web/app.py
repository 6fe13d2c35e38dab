"""The floor's web server: staff sessions, permissions, and the routes of the pages.

Served with the standard library's :mod:`http.server` on its own thread,
reading PostgreSQL with one short connection per request, so the pages
never slow the ingest. Pages (:mod:`firmware.floor.web.pages`):

* ``/clock`` (public, for the room's TV): level, blinds and ante, time
  left, next level, next break, players left, average stack, payouts.
* ``/`` (staff): tournament control (start, pause, resume, late registration
  and re-entry), every table with its game, seats,
  free seats and devices in fault, floor calls and alerts to acknowledge,
  the waiting list; ``/hands`` and ``/hand`` browse every table's hands;
  ``/confirm`` is the one confirmation of a seat-move plan; ``/sessions``,
  ``/jackpot`` and ``/shifts.csv`` are the money pages (:mod:`firmware.floor.web.bookpages`).

**Staff.** Staff log in with the badge and PIN accounts of the tables
(:class:`firmware.protocol.auth.StaffDirectory`: scrypt hashes, a badge
locked after five wrong PINs). Only the ``floor`` and ``technician`` roles
may log in, and each action names the roles allowed
(:data:`firmware.floor.web.actions.ACTIONS`, which also carries them out): a
technician acknowledges alerts and faults but neither runs the tournament
nor the waiting list. A session is a random token in an ``HttpOnly``,
``SameSite=Strict`` cookie, kept in memory, ended by logging out, after
:data:`IDLE_SECONDS` without a request or :data:`MAX_SECONDS` in all.

**Forged requests.** Every change is a POST carrying the session's own
random CSRF token (compared in constant time) and, when the browser sends
one, an ``Origin`` equal to the page's; anything else is refused (403) and
changes nothing. Pages forbid framing and scripts other than their own
(``Content-Security-Policy`` with a per-response nonce). Every change is
recorded in ``staff_actions`` with the person and role.
"""

from __future__ import annotations

import hmac
import logging
import math
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlparse

import psycopg

from firmware.errors import PokerTableError
from firmware.floor.store import dashboard
from firmware.floor.tournament.control import TournamentControl
from firmware.floor.web import bookpages, clockpage, pages
from firmware.floor.web.actions import ACTIONS, NAME_LIMIT, STAFF_ROLES, Refusal, do_action
from firmware.floor.web.httpserver import GuardedHandler, GuardedServer, StreamSlots
from firmware.floor.web.loginguard import LoginGuard, client_address
from firmware.floor.web.texts import page_lang, plural
from firmware.i18n import tr
from firmware.protocol.auth import StaffDirectory

log = logging.getLogger(__name__)

PAGES: dict[str, tuple[str, ...]] = {"/hands": ("floor",), "/hand": ("floor",), **bookpages.ROLES}
"""Staff pages not every role may read: the hands show every player's hole cards, which
a technician may never see (docs/security.md)."""
LOGIN_AT_ONCE = 2
"""Logins checked at the same time: each costs one scrypt hash (about 16 MiB and
tens of milliseconds), so an unauthenticated flood cannot take the floor's
memory or cores; a login beyond them waits briefly, then is asked to try again."""
LOGIN_WAIT_SECONDS = 5.0
IDLE_SECONDS = 30 * 60.0
MAX_SECONDS = 12 * 3600.0
MAX_FORM = 4096
STREAM_SECONDS = 300.0
"""A live page's event stream ends after this long (the browser opens it again)."""
MAX_STREAMS = 32
"""Live pages streamed at once (each holds a thread and a connection)."""
STREAMS_PER_CLIENT = 4
"""Live pages one client streams at once (a TV needs one; the clock page is public)."""
DEVICE_DAYS = 30
"""How long a browser remembers that a badge logged in on it (:mod:`loginguard`)."""


@dataclass
class Session:
    """A logged-in person."""

    name: str
    role: str
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    created: float = field(default_factory=time.monotonic)
    seen: float = field(default_factory=time.monotonic)
    flash: str = ""
    """The sentence the next dashboard page shows: what the last action did, or why not."""
    refused: bool = False
    """The flash says why an action was refused (shown as an alert, not as done)."""


class FloorWeb:
    """The web server.

    :param conninfo: PostgreSQL.
    :param staff: The staff accounts.
    :param host: Address to listen on (``port`` 0 picks a free port).
    :param control: The running tournament's control, if the floor runs one.
    :param lang: The pages' language when neither the address nor the browser names one.
    :param trusted_proxies: Reverse proxies' addresses: their ``X-Forwarded-For`` names
        the client (login limits), and they are held to the overall connection cap only.
    :param limits: Keyword arguments of :class:`~firmware.floor.web.httpserver.GuardedServer`
        (``max_connections``, ``per_address``, ``request_seconds``, ``write_seconds``).
    """

    def __init__(
        self,
        conninfo: str,
        staff: StaffDirectory,
        host: str = "127.0.0.1",
        port: int = 0,
        control: TournamentControl | None = None,
        lang: str = "es",
        trusted_proxies: frozenset[str] = frozenset(),
        **limits: Any,
    ) -> None:
        self.conninfo = conninfo
        self.staff = staff
        self.control = control
        self.lang = lang
        self.trusted = trusted_proxies
        self.sessions: dict[str, Session] = {}
        self.clock = time.monotonic
        self.guard = LoginGuard(lambda: self.clock())
        self._lock = threading.Lock()
        self._logins = threading.BoundedSemaphore(LOGIN_AT_ONCE)
        self._streams = StreamSlots(MAX_STREAMS, STREAMS_PER_CLIENT)
        self.stopping = threading.Event()
        web = self

        class Handler(GuardedHandler):
            def do_GET(self) -> None:
                web.handle(self, "GET")

            def do_POST(self) -> None:
                web.handle(self, "POST")

        self.server = GuardedServer((host, port), Handler, trusted_proxies, **limits)
        self.port = int(self.server.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base address."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Create the dashboard's tables and serve on a thread of its own."""
        dashboard.create_schema(self.conninfo)
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving (the live pages' streams end too)."""
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------ plumbing

    def _send(
        self,
        request: BaseHTTPRequestHandler,
        status: int,
        body: str,
        nonce: str = "",
        content_type: str = bookpages.HTML,
        **headers: str,
    ) -> None:
        data = body.encode()
        if isinstance(request, GuardedHandler):
            request.answer_mode()
        request.send_response(status)
        request.send_header("Content-Type", content_type)
        request.send_header("Content-Length", str(len(data)))
        script = f"'nonce-{nonce}'" if nonce else "'none'"
        request.send_header(
            "Content-Security-Policy",
            f"default-src 'none'; style-src 'unsafe-inline'; script-src {script}; "
            "connect-src 'self'; "
            "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        )
        request.send_header("X-Frame-Options", "DENY")
        request.send_header("X-Content-Type-Options", "nosniff")
        request.send_header("Referrer-Policy", "same-origin")  # Origin sent on own POSTs
        request.send_header("Cache-Control", "no-store")
        for name, value in headers.items():
            request.send_header(name.replace("_", "-"), value)
        request.end_headers()
        request.wfile.write(data)

    def _session(self, request: BaseHTTPRequestHandler) -> tuple[str, Session] | None:
        cookie = request.headers.get("Cookie", "")
        for part in cookie.split(";"):
            name, _, value = part.strip().partition("=")
            if name != "floor_session":
                continue
            now = self.clock()
            with self._lock:
                session = self.sessions.get(value)
                if session is None:
                    return None
                if now - session.seen > IDLE_SECONDS or now - session.created > MAX_SECONDS:
                    del self.sessions[value]
                    return None
                session.seen = now
                return value, session
        return None

    def handle(self, request: BaseHTTPRequestHandler, method: str) -> None:
        """Route one request; refusals become pages with their status."""
        url = urlparse(request.path)
        query = parse_qs(url.query)
        asked = query.get("lang", [""])[0]
        lang = page_lang(asked, request.headers.get("Accept-Language"), self.lang)
        try:
            if method == "GET" and url.path == "/events":
                self._events(request, query, lang)
            elif method == "GET":
                self._get(request, url.path, query, lang)
            elif url.path == "/login":
                self._login(request, lang)
            elif url.path.startswith("/do/"):
                self._action(request, url.path[4:], lang)
            else:
                raise Refusal(404, tr("floor.web.not_found", lang))
        except Refusal as refusal:
            self._send(request, refusal.status, pages.message_page(lang, refusal.text))
        except psycopg.Error as exc:  # the store is down or restarting: one line, a 503 page
            log.warning("A page could not read the store: %s", str(exc).strip().splitlines()[0])
            self._send(request, 503, pages.message_page(lang, tr("floor.web.store_down", lang)))

    # ------------------------------------------------------------ GET

    def _get(
        self, request: BaseHTTPRequestHandler, path: str, query: dict[str, list[str]], lang: str
    ) -> None:
        if path == "/clock":
            nonce = secrets.token_urlsafe(12)
            self._send(request, 200, clockpage.clock_page(self.conninfo, lang, nonce), nonce=nonce)
            return
        if path == "/login":
            self._login_form(request, lang, 200, "")
            return
        if path not in ("/", "/hands", "/hand", "/confirm", *bookpages.ROUTES):
            raise Refusal(404, tr("floor.web.not_found", lang))
        found = self._session(request)
        if found is None:
            self._send(request, 303, "", Location=f"/login?lang={lang}")
            return
        _, session = found
        if session.role not in PAGES.get(path, STAFF_ROLES):
            role = tr(f"floor.role.{session.role}", lang)
            raise Refusal(403, tr("floor.web.forbidden", lang, role=role))
        one = {k: v[0] for k, v in query.items()}
        if path in bookpages.ROUTES:  # the money pages: sessions, jackpot board, shift CSV
            text, kind, extra = bookpages.ROUTES[path](self.conninfo, lang, one)
            self._send(request, 200, text, content_type=kind, **extra)
        elif path == "/hands":
            before = one.get("before")
            table = one.get("table", "")
            before_seq = int(before) if before and before.isdigit() else None
            self._send(request, 200, pages.hands_page(self.conninfo, lang, table, before_seq))
        elif path == "/hand":
            seq = one.get("seq", "")
            body = pages.hand_page(
                self.conninfo, lang, one.get("table", ""), int(seq) if seq.isdigit() else -1
            )
            if body is None:
                raise Refusal(404, tr("floor.web.not_found", lang))
            self._send(request, 200, body)
        elif path == "/confirm":
            self._allowed(session, "apply", lang)
            if self.control is None:
                raise Refusal(404, tr("floor.web.not_found", lang))
            plan = self.control.plan()
            body = pages.confirm_page(lang, session.csrf, plan, one.get("token", ""))
            self._send(request, 200, body)
        else:
            nonce = secrets.token_urlsafe(12)
            state = plan = None
            if self.control is not None:
                state = self.control.state()
                plan = self.control.plan()
            flash, session.flash = session.flash, ""
            refused, session.refused = session.refused, False
            refresh = 0 if one.get("refresh") == "0" else 1
            body = pages.dashboard_page(
                self.conninfo,
                lang,
                (session.name, session.role),
                session.csrf,
                nonce,
                (flash, refused),
                state,
                plan,
                refresh,
            )
            self._send(request, 200, body, nonce=nonce)

    # ------------------------------------------------------------ POST

    def _form(self, request: BaseHTTPRequestHandler, lang: str) -> dict[str, str]:
        try:
            length = int(request.headers.get("Content-Length", "0") or 0)
        except ValueError:
            length = 0
        wanted = min(max(length, 0), MAX_FORM)
        data = request.rfile.read(wanted)
        if len(data) < wanted:  # the client stopped sending: nothing is done with half a form
            raise Refusal(400, tr("floor.web.bad_form", lang))
        form = parse_qs(data.decode(errors="replace"), keep_blank_values=True)
        return {k: v[0] for k, v in form.items()}

    def _cookie(self, request: BaseHTTPRequestHandler, name: str) -> str:
        for part in request.headers.get("Cookie", "").split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value
        return ""

    def _login_form(
        self, request: BaseHTTPRequestHandler, lang: str, status: int, error: str
    ) -> None:
        """The login form with its CSRF token, bound to a cookie of the login page."""
        cookie = self._cookie(request, "floor_login") or secrets.token_urlsafe(24)
        body = pages.login_page(lang, error, self.guard.login_token(cookie))
        self._send(
            request, status, body,
            Set_Cookie=f"floor_login={cookie}; HttpOnly; SameSite=Strict; Path=/login",
        )  # fmt: skip

    def _origin_ok(self, request: BaseHTTPRequestHandler) -> bool:
        """No ``Origin`` (an old browser: the token decides), or this page's own."""
        origin = request.headers.get("Origin")
        return origin is None or urlparse(origin).netloc == request.headers.get("Host", "")

    def _client(self, request: BaseHTTPRequestHandler) -> str:
        """The client's address (behind a trusted proxy, from ``X-Forwarded-For``: every
        line, in order; a proxy may add its own after the client's made-up one)."""
        forwarded = ", ".join(request.headers.get_all("X-Forwarded-For") or []) or None
        return client_address(str(request.client_address[0]), forwarded, self.trusted)

    def _login(self, request: BaseHTTPRequestHandler, lang: str) -> None:
        form = self._form(request, lang)
        cookie = self._cookie(request, "floor_login")
        if not self._origin_ok(request) or not self.guard.token_ok(cookie, form.get("csrf", "")):
            self._login_form(request, lang, 403, tr("floor.web.login_csrf", lang))
            return
        client = self._client(request)
        badge = form.get("badge", "")[: NAME_LIMIT * 2]
        known = self.guard.knows(badge, self._cookie(request, "floor_known"))
        why, seconds = self.guard.wait(client, badge, known)
        if why:
            key = "floor.web.login_rate" if why == "client" else "floor.web.login_backoff"
            wait = plural(key, max(1, math.ceil(seconds)), lang)  # "1 second", "2 seconds"
            self._login_form(request, lang, 429, wait)
            return
        if not self._logins.acquire(timeout=LOGIN_WAIT_SECONDS):
            self._login_form(request, lang, 503, tr("floor.web.login_busy", lang))
            return
        try:
            account = self.staff.verify(badge, form.get("pin", ""))
        finally:
            self._logins.release()
        if account is None:
            self.guard.failed(client, badge, known)
            self._login_form(request, lang, 403, tr("protocol.login.failed", lang))
            return
        self.guard.succeeded(client, badge)
        if account.role not in STAFF_ROLES:
            self._login_form(request, lang, 403, tr("floor.web.role", lang))
            return
        token = secrets.token_urlsafe(24)
        with self._lock:
            self.sessions[token] = Session(account.name, account.role)
        request.send_response(303)
        request.send_header("Location", f"/?lang={lang}")
        request.send_header(
            "Set-Cookie", f"floor_session={token}; HttpOnly; SameSite=Strict; Path=/"
        )
        request.send_header(
            "Set-Cookie",
            f"floor_known={self.guard.device_mark(badge)}; HttpOnly; SameSite=Strict; "
            f"Path=/login; Max-Age={DEVICE_DAYS * 86400}",
        )
        request.send_header("Content-Length", "0")
        request.send_header("Cache-Control", "no-store")
        request.end_headers()

    # ------------------------------------------------------------ live pages

    def _events(
        self, request: BaseHTTPRequestHandler, query: dict[str, list[str]], lang: str
    ) -> None:
        """Server-sent events: the live part of the clock or the dashboard, again each time
        it changes (checked every second), until :data:`STREAM_SECONDS` or the server stops."""
        which = query.get("page", [""])[0]
        csrf = ""
        user = ("", "")
        if which == "dashboard":
            found = self._session(request)
            if found is None:
                raise Refusal(403, tr("floor.web.session", lang))
            session = found[1]
            user, csrf = (session.name, session.role), session.csrf
        elif which != "clock":
            raise Refusal(404, tr("floor.web.not_found", lang))
        client = self._client(request)
        if not self._streams.take(client):
            raise Refusal(503, tr("floor.web.streams_busy", lang))
        try:
            if isinstance(request, GuardedHandler):
                request.answer_mode()
            request.send_response(200)
            request.send_header("Content-Type", "text/event-stream; charset=utf-8")
            request.send_header("Cache-Control", "no-store")
            request.send_header("X-Content-Type-Options", "nosniff")
            request.end_headers()
            last, began = "", time.monotonic()
            while not self.stopping.is_set() and time.monotonic() - began < STREAM_SECONDS:
                if which == "dashboard" and self._session(request) is None:
                    break  # logged out or expired: the page's next load asks to log in
                try:
                    if which == "clock":
                        html = clockpage.clock_main(self.conninfo, lang)
                    else:
                        html = self._dashboard_main(lang, user, csrf)
                except psycopg.Error as exc:  # the store restarting: the page keeps its last view
                    log.debug("A live page could not read the store: %s", exc)
                    html = last
                if html != last:
                    data = "".join(f"data: {line}\n" for line in html.split("\n"))
                    request.wfile.write(f"{data}\n".encode())
                    request.wfile.flush()
                    last = html
                else:
                    request.wfile.write(b": still here\n\n")
                    request.wfile.flush()
                self.stopping.wait(1.0)
        finally:
            self._streams.give(client)

    def _dashboard_main(self, lang: str, user: tuple[str, str], csrf: str) -> str:
        state = plan = None
        if self.control is not None:
            state = self.control.state()
            plan = self.control.plan()
        return pages.dashboard_main(self.conninfo, lang, user, csrf, ("", False), state, plan)

    def _allowed(self, session: Session, action: str, lang: str) -> None:
        if session.role not in ACTIONS.get(action, ()):
            role = tr(f"floor.role.{session.role}", lang)
            raise Refusal(403, tr("floor.web.forbidden", lang, role=role))

    def _action(self, request: BaseHTTPRequestHandler, action: str, lang: str) -> None:
        found = self._session(request)
        form = self._form(request, lang)
        if found is None:
            raise Refusal(403, tr("floor.web.session", lang))
        token, session = found
        origin = request.headers.get("Origin")
        host = request.headers.get("Host", "")
        if origin is not None and urlparse(origin).netloc != host:
            raise Refusal(403, tr("floor.web.csrf", lang))
        if not hmac.compare_digest(form.get("csrf", "").encode(), session.csrf.encode()):
            raise Refusal(403, tr("floor.web.csrf", lang))
        if action not in ACTIONS:
            raise Refusal(404, tr("floor.web.not_found", lang))
        self._allowed(session, action, lang)
        staff = (session.name, session.role)
        refused = False
        try:
            done = do_action(self.conninfo, self.control, action, form, staff, lang)
        except PokerTableError as exc:
            done, refused = pages.text_of(exc.key, exc.params, str(exc), lang), True
        if action == "logout":
            with self._lock:
                self.sessions.pop(token, None)
            self._send(request, 303, "", Location=f"/login?lang={lang}",
                       Set_Cookie="floor_session=; Max-Age=0; Path=/")  # fmt: skip
            return
        session.flash, session.refused = done, refused
        self._send(request, 303, "", Location=f"/?lang={lang}")
