"""The floor's web server: staff sessions, permissions, and the routes of the pages.

Served with the standard library's :mod:`http.server` on its own thread,
reading PostgreSQL with one short connection per request, so the pages
never slow the ingest. Pages (:mod:`firmware.floor.pages`):

* ``/clock`` (public, for the room's TV): level, blinds and ante, time
  left, next level, next break, players left, average stack, payouts.
* ``/`` (staff): tournament control (start, pause, resume, late registration
  and re-entry), every table with its game, seats,
  free seats and devices in fault, floor calls and alerts to acknowledge,
  the waiting list; ``/hands`` and ``/hand`` browse every table's hands;
  ``/confirm`` is the one confirmation of a seat-move plan.

**Staff.** Staff log in with the badge and PIN accounts of the tables
(:class:`firmware.protocol.auth.StaffDirectory`: scrypt hashes, a badge
locked after five wrong PINs). Only the ``floor`` and ``technician`` roles
may log in, and each action names the roles allowed (:data:`ACTIONS`): a
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
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from firmware.errors import IllegalAction, PokerTableError
from firmware.floor import pages, webstore
from firmware.floor.control import TournamentControl
from firmware.i18n import tr
from firmware.protocol.auth import AuthError, StaffDirectory

log = logging.getLogger(__name__)

STAFF_ROLES = ("floor", "technician")
ACTIONS: dict[str, tuple[str, ...]] = {
    "logout": STAFF_ROLES,
    "ack": STAFF_ROLES,
    "wait_add": ("floor",),
    "wait_remove": ("floor",),
    "wait_call": ("floor",),
    "start": ("floor",),
    "pause": ("floor",),
    "resume": ("floor",),
    "apply": ("floor",),
    "enter": ("floor",),
}
"""Each dashboard action and the roles that may take it."""
PAGES: dict[str, tuple[str, ...]] = {"/hands": ("floor",), "/hand": ("floor",)}
"""Staff pages not every role may read: the hands show every player's hole cards, which
a technician may never see (docs/security.md)."""
LOGIN_AT_ONCE = 2
"""Logins checked at the same time: each costs one scrypt hash (about 16 MiB and
tens of milliseconds), so an unauthenticated flood cannot take the floor's
memory or cores; a login beyond them waits briefly, then is asked to try again."""
LOGIN_WAIT_SECONDS = 5.0
LOGIN_PER_ADDRESS = 10
"""Failed logins after which an address must wait out :data:`LOGIN_WINDOW_SECONDS`."""
LOGIN_WINDOW_SECONDS = 60.0
IDLE_SECONDS = 30 * 60.0
MAX_SECONDS = 12 * 3600.0
MAX_FORM = 4096
NAME_LIMIT = 40


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


class Refusal(Exception):
    """A request refused with a status and a sentence for the person."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


class FloorWeb:
    """The web server.

    :param conninfo: PostgreSQL.
    :param staff: The staff accounts.
    :param host: Address to listen on (``port`` 0 picks a free port).
    :param control: The running tournament's control, if the floor runs one.
    """

    def __init__(
        self,
        conninfo: str,
        staff: StaffDirectory,
        host: str = "127.0.0.1",
        port: int = 0,
        control: TournamentControl | None = None,
    ) -> None:
        self.conninfo = conninfo
        self.staff = staff
        self.control = control
        self.sessions: dict[str, Session] = {}
        self.clock = time.monotonic
        self._lock = threading.Lock()
        self._logins = threading.BoundedSemaphore(LOGIN_AT_ONCE)
        self._tries: dict[str, list[float]] = {}
        web = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                web.handle(self, "GET")

            def do_POST(self) -> None:
                web.handle(self, "POST")

            def log_message(self, format: str, *args: Any) -> None:
                pass  # requests are not logged; staff actions are recorded

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base address."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Create the dashboard's tables and serve on a thread of its own."""
        webstore.create_schema(self.conninfo)
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------ plumbing

    def _send(
        self,
        request: BaseHTTPRequestHandler,
        status: int,
        body: str,
        nonce: str = "",
        **headers: str,
    ) -> None:
        data = body.encode()
        request.send_response(status)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.send_header("Content-Length", str(len(data)))
        script = f"'nonce-{nonce}'" if nonce else "'none'"
        request.send_header(
            "Content-Security-Policy",
            f"default-src 'none'; style-src 'unsafe-inline'; script-src {script}; "
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
        lang = query.get("lang", ["en"])[0]
        lang = lang if lang in ("en", "es") else "en"
        try:
            if method == "GET":
                self._get(request, url.path, query, lang)
            elif url.path == "/login":
                self._login(request, lang)
            elif url.path.startswith("/do/"):
                self._action(request, url.path[4:], lang)
            else:
                raise Refusal(404, tr("floor.web.not_found", lang))
        except Refusal as refusal:
            self._send(request, refusal.status, pages.message_page(lang, refusal.text))

    # ------------------------------------------------------------ GET

    def _get(
        self, request: BaseHTTPRequestHandler, path: str, query: dict[str, list[str]], lang: str
    ) -> None:
        if path == "/clock":
            self._send(request, 200, pages.clock_page(self.conninfo, lang))
            return
        if path == "/login":
            self._send(request, 200, pages.login_page(lang, ""))
            return
        if path not in ("/", "/hands", "/hand", "/confirm"):
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
        if path == "/hands":
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
            refresh = 0 if one.get("refresh") == "0" else 5
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

    def _form(self, request: BaseHTTPRequestHandler) -> dict[str, str]:
        try:
            length = int(request.headers.get("Content-Length", "0") or 0)
        except ValueError:
            length = 0
        data = request.rfile.read(min(max(length, 0), MAX_FORM))
        form = parse_qs(data.decode(errors="replace"), keep_blank_values=True)
        return {k: v[0] for k, v in form.items()}

    def _recent_failures(self, address: str, failed: bool = False) -> int:
        """Failed logins from ``address`` in the last :data:`LOGIN_WINDOW_SECONDS`
        (counting one more when ``failed``)."""
        now = self.clock()
        with self._lock:
            if failed and len(self._tries) > 4096:  # forget addresses whose window passed
                for key in [
                    k for k, v in self._tries.items() if now - v[-1] > LOGIN_WINDOW_SECONDS
                ]:
                    del self._tries[key]
            recent = [t for t in self._tries.get(address, []) if now - t < LOGIN_WINDOW_SECONDS]
            if failed:
                recent.append(now)
            if recent:
                self._tries[address] = recent
            else:
                self._tries.pop(address, None)
            return len(recent)

    def _login(self, request: BaseHTTPRequestHandler, lang: str) -> None:
        form = self._form(request)
        address = str(request.client_address[0])
        if self._recent_failures(address) >= LOGIN_PER_ADDRESS:
            text = tr("floor.web.login_rate", lang, seconds=round(LOGIN_WINDOW_SECONDS))
            self._send(request, 429, pages.login_page(lang, text))
            return
        if not self._logins.acquire(timeout=LOGIN_WAIT_SECONDS):
            self._send(request, 503, pages.login_page(lang, tr("floor.web.login_busy", lang)))
            return
        try:
            account = self.staff.login(form.get("badge", ""), form.get("pin", ""))
        except AuthError as exc:
            self._recent_failures(address, failed=True)
            text = pages.text_of(exc.key, exc.params, str(exc), lang)
            self._send(request, 403, pages.login_page(lang, text))
            return
        finally:
            self._logins.release()
        if account.role not in STAFF_ROLES:
            self._send(request, 403, pages.login_page(lang, tr("floor.web.role", lang)))
            return
        token = secrets.token_urlsafe(24)
        with self._lock:
            self.sessions[token] = Session(account.name, account.role)
        self._send(
            request,
            303,
            "",
            Location=f"/?lang={lang}",
            Set_Cookie=f"floor_session={token}; HttpOnly; SameSite=Strict; Path=/",
        )

    def _allowed(self, session: Session, action: str, lang: str) -> None:
        if session.role not in ACTIONS.get(action, ()):
            role = tr(f"floor.role.{session.role}", lang)
            raise Refusal(403, tr("floor.web.forbidden", lang, role=role))

    def _action(self, request: BaseHTTPRequestHandler, action: str, lang: str) -> None:
        found = self._session(request)
        form = self._form(request)
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
            done = self._do(action, form, staff, lang)
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

    def _do(self, action: str, form: dict[str, str], staff: tuple[str, str], lang: str) -> str:
        """Carry out one allowed action; the sentence shown after it."""
        db = self.conninfo
        if action == "logout":
            webstore.write(db, staff, "logout", "", "SELECT 1", ())
            return ""
        if action == "ack":
            if form.get("notice", "").isdigit():
                n = int(form["notice"])
                webstore.write(
                    db, staff, "ack", f"notice {n}",
                    "UPDATE table_notices SET acked_by = %s, acked_at = now() "
                    "WHERE id = %s AND acked_at IS NULL", (staff[0], n),
                )  # fmt: skip
            elif form.get("alert", "").isdigit():
                n = int(form["alert"])
                webstore.write(
                    db, staff, "ack", f"alert {n}",
                    "UPDATE alerts SET resolved = true WHERE id = %s", (n,),
                )  # fmt: skip
            else:
                raise Refusal(400, tr("floor.web.bad_form", lang))
            return tr("floor.web.acked", lang)
        if action == "wait_add":
            game = " ".join(form.get("game", "").split())
            player = " ".join(form.get("player", "").split())
            if not (0 < len(game) <= NAME_LIMIT and 0 < len(player) <= NAME_LIMIT):
                return tr("floor.wait.bad", lang, limit=NAME_LIMIT)
            webstore.write(
                db, staff, "wait_add", f"{player} for {game}",
                "INSERT INTO waiting_list (game, player, added_by) VALUES (%s, %s, %s)",
                (game, player, staff[0]),
            )  # fmt: skip
            return tr("floor.wait.added", lang, player=player, game=game)
        if action in ("wait_remove", "wait_call"):
            entry = form.get("entry", "")
            if not entry.isdigit():
                raise Refusal(400, tr("floor.web.bad_form", lang))
            if action == "wait_remove":
                changed = webstore.write(
                    db, staff, action, f"entry {entry}",
                    "UPDATE waiting_list SET removed_at = now() WHERE id = %s "
                    "AND removed_at IS NULL", (int(entry),),
                )  # fmt: skip
                return tr("floor.wait.removed" if changed else "floor.wait.gone", lang)
            table = form.get("table", "")
            known = webstore.query(db, "SELECT 1 FROM tables WHERE id = %s", (table,))
            if not known:
                return tr("floor.wait.no_table", lang, table=table)
            changed = webstore.write(
                db, staff, action, f"entry {entry} to {table}",
                "UPDATE waiting_list SET called_table = %s, called_at = now() WHERE id = %s "
                "AND removed_at IS NULL", (table, int(entry)),
            )  # fmt: skip
            return tr("floor.wait.call_done" if changed else "floor.wait.gone", lang, table=table)
        control = self.control
        if control is None:
            raise Refusal(404, tr("floor.web.not_found", lang))
        if action == "start":
            control.start()
        elif action == "pause":
            control.pause()
        elif action == "resume":
            control.resume()
        elif action == "enter":
            return self._enter(control, form, staff, lang)
        else:
            plan = control.apply(form.get("token", ""))
            webstore.write(
                db, staff, "apply", "; ".join(pages.plan_lines(plan, "en")), "SELECT 1", ()
            )
            return tr("floor.plan.applied", lang, steps=len(plan.steps))
        webstore.write(db, staff, action, "", "SELECT 1", ())
        return tr(f"floor.t.{action}_done", lang)

    def _enter(
        self,
        control: TournamentControl,
        form: dict[str, str],
        staff: tuple[str, str],
        lang: str,
    ) -> str:
        """A late registration or a re-entry (FLOOR-LATE); the sentence shown after it.

        :raises IllegalAction: why the entry is refused (a catalog key: shown as one
            sentence in the page's language).
        """
        player = " ".join(form.get("player", "").split())
        kind = form.get("kind", "")
        if kind not in ("late", "reentry"):
            raise Refusal(400, tr("floor.web.bad_form", lang))
        if not 0 < len(player) <= NAME_LIMIT:
            raise IllegalAction(
                f"Give the player's name (1 to {NAME_LIMIT} characters).",
                key="floor.entry.bad_name",
                limit=NAME_LIMIT,
            )
        seat, name = control.enter(player, kind == "reentry")
        what = "re-entry" if kind == "reentry" else "late registration"
        webstore.write(
            self.conninfo, staff, "enter",
            f"{what}: {name} at table {seat.table} seat {seat.seat}", "SELECT 1", (),
        )  # fmt: skip
        return tr(f"floor.entry.done_{kind}", lang, player=name, table=seat.table, seat=seat.seat)
