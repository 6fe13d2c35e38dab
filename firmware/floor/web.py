"""The floor's web pages: the staff dashboard and the public tournament clock.

Served with the standard library's :mod:`http.server` on its own thread,
reading PostgreSQL (psycopg, one short connection per request), so the
pages never slow the ingest. Two pages:

* ``/clock`` (public, for the room's TV): level, blinds and ante, time
  left in the level, the next level, players left, average stack, payouts.
* ``/`` (staff only): every table with its seats and stacks, the hands
  stored, alerts, the tournament's standings and its last decisions.

Staff log in with the badge and PIN accounts of the tables
(:class:`firmware.protocol.auth.StaffDirectory`); only the ``floor`` and
``technician`` roles may see the dashboard. A session is a random cookie
kept in memory. Every sentence comes from the message catalog (``?lang=es``
or ``en``).
"""

from __future__ import annotations

import html
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import psycopg

from firmware.i18n import tr
from firmware.protocol.auth import AuthError, StaffDirectory

STAFF_ROLES = ("floor", "technician")
STYLE = """
body{font-family:sans-serif;background:#0b3d2e;color:#f4f4f4;margin:1.5em}
h1{margin:.2em 0} .grid{display:flex;flex-wrap:wrap;gap:1em}
.card{background:#14543f;border-radius:8px;padding:.8em 1.2em;min-width:14em}
table{border-collapse:collapse} td,th{padding:.15em .6em;text-align:left}
.big{font-size:4em;font-weight:bold} .alert{color:#ffcf70}
input,button{font-size:1.1em;margin:.3em 0}
"""


def level_at(levels: list[dict[str, Any]], elapsed: float) -> tuple[int, dict[str, Any], float]:
    """The level (1-based number and entry) ``elapsed`` seconds into the schedule, and the
    seconds left in it; breaks are entries with ``break_minutes``.

    >>> level_at([{"small_blind": 1, "big_blind": 2, "minutes": 1},
    ...           {"small_blind": 2, "big_blind": 4, "minutes": 1}], 90)
    (2, {'small_blind': 2, 'big_blind': 4, 'minutes': 1}, 30.0)
    """
    number = 0
    for entry in levels:
        length = float(entry.get("minutes", entry.get("break_minutes", 0))) * 60
        if "break_minutes" not in entry:
            number += 1
        if elapsed < length:
            return number, entry, length - elapsed
        elapsed -= length
    return number, levels[-1], 0.0


class FloorWeb:
    """The web server.

    :param conninfo: PostgreSQL.
    :param staff: The staff accounts.
    :param host: Address to listen on (``port`` 0 picks a free port).
    """

    def __init__(
        self, conninfo: str, staff: StaffDirectory, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.conninfo = conninfo
        self.staff = staff
        self.sessions: dict[str, str] = {}
        self._lock = threading.Lock()
        web = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                web.get(self)

            def do_POST(self) -> None:
                web.post(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # requests are not logged

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base address."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Serve on a thread of its own."""
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------ requests

    def _lang(self, request: BaseHTTPRequestHandler) -> str:
        query = parse_qs(urlparse(request.path).query)
        lang = query.get("lang", ["en"])[0]
        return lang if lang in ("en", "es") else "en"

    def _send(
        self, request: BaseHTTPRequestHandler, status: int, body: str, **headers: str
    ) -> None:
        data = body.encode()
        request.send_response(status)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            request.send_header(name.replace("_", "-"), value)
        request.end_headers()
        request.wfile.write(data)

    def _user(self, request: BaseHTTPRequestHandler) -> str | None:
        cookie = request.headers.get("Cookie", "")
        for part in cookie.split(";"):
            name, _, value = part.strip().partition("=")
            if name == "floor_session":
                with self._lock:
                    return self.sessions.get(value)
        return None

    def get(self, request: BaseHTTPRequestHandler) -> None:
        """Route a GET."""
        path = urlparse(request.path).path
        lang = self._lang(request)
        if path == "/clock":
            self._send(request, 200, self.clock_page(lang))
        elif path == "/login":
            self._send(request, 200, self.login_page(lang, ""))
        elif path == "/":
            user = self._user(request)
            if user is None:
                self._send(request, 303, "", Location=f"/login?lang={lang}")
            else:
                self._send(request, 200, self.dashboard_page(lang, user))
        else:
            self._send(request, 404, html.escape(tr("floor.web.not_found", lang)))

    def post(self, request: BaseHTTPRequestHandler) -> None:
        """Route a POST (the login form)."""
        lang = self._lang(request)
        if urlparse(request.path).path != "/login":
            self._send(request, 404, html.escape(tr("floor.web.not_found", lang)))
            return
        length = min(int(request.headers.get("Content-Length", "0") or 0), 4096)
        form = parse_qs(request.rfile.read(length).decode(errors="replace"))
        badge = form.get("badge", [""])[0]
        pin = form.get("pin", [""])[0]
        try:
            account = self.staff.login(badge, pin)
        except AuthError as exc:
            self._send(request, 403, self.login_page(lang, str(exc)))
            return
        if account.role not in STAFF_ROLES:
            self._send(request, 403, self.login_page(lang, tr("floor.web.role", lang)))
            return
        token = secrets.token_urlsafe(24)
        with self._lock:
            self.sessions[token] = account.name
        self._send(
            request,
            303,
            "",
            Location=f"/?lang={lang}",
            Set_Cookie=f"floor_session={token}; HttpOnly; SameSite=Strict; Path=/",
        )

    # ------------------------------------------------------------ pages

    def _page(self, title: str, body: str, refresh: int = 0) -> str:
        meta = f'<meta http-equiv="refresh" content="{refresh}">' if refresh else ""
        return (
            f"<!doctype html><html><head><meta charset='utf-8'>{meta}"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
            f"<body>{body}</body></html>"
        )

    def login_page(self, lang: str, error: str) -> str:
        """The staff login form."""
        e = html.escape
        problem = f"<p class='alert' id='error'>{e(error)}</p>" if error else ""
        body = (
            f"<h1>{e(tr('floor.web.login_title', lang))}</h1>{problem}"
            f"<form method='post' action='/login?lang={lang}'>"
            f"<label>{e(tr('floor.web.badge', lang))}<br>"
            "<input name='badge' id='badge'></label><br>"
            f"<label>{e(tr('floor.web.pin', lang))}<br>"
            "<input name='pin' id='pin' type='password' inputmode='numeric'></label><br>"
            f"<button id='login' type='submit'>{e(tr('floor.web.login', lang))}</button></form>"
        )
        return self._page(tr("floor.web.login_title", lang), body)

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.conninfo, connect_timeout=5) as conn:
            return list(conn.execute(sql, args).fetchall())

    def clock_page(self, lang: str) -> str:
        """The public clock of the newest tournament."""
        e = html.escape
        rows = self._query("SELECT name, state FROM tournaments ORDER BY created DESC LIMIT 1")
        if not rows:
            body = f"<h1>{e(tr('floor.clock.none', lang))}</h1>"
            return self._page(tr("floor.clock.title", lang), body, refresh=5)
        name, state = rows[0]
        levels = state.get("levels") or []
        started = state.get("started_at")
        parts = [f"<h1 id='name'>{e(name)}</h1>"]
        if levels and started is not None:
            number, entry, left = level_at(levels, time.time() - float(started))
            if "break_minutes" in entry:
                parts.append(f"<p class='big' id='level'>{e(tr('floor.clock.break', lang))}</p>")
            else:
                blinds = f"{entry['small_blind']}/{entry['big_blind']}"
                ante = entry.get("ante", 0)
                text = tr("floor.clock.level", lang, number=number, blinds=blinds, ante=ante)
                parts.append(f"<p class='big' id='level'>{e(text)}</p>")
            minutes, seconds = divmod(int(left), 60)
            parts.append(
                f"<p class='big' id='time'>{minutes:02d}:{seconds:02d}</p>"
                f"<p>{e(tr('floor.clock.time_left', lang))}</p>"
            )
            upcoming = [x for x in levels if "break_minutes" not in x][number:]
            if upcoming:
                nxt = upcoming[0]
                text = tr(
                    "floor.clock.next",
                    lang,
                    blinds=f"{nxt['small_blind']}/{nxt['big_blind']}",
                    ante=nxt.get("ante", 0),
                )
                parts.append(f"<p id='next'>{e(text)}</p>")
        left_players = int(state.get("left", 0))
        entries = int(state.get("entries", 0))
        chips = int(state.get("chips", 0))
        average = chips // left_players if left_players else 0
        players = tr("floor.clock.players", lang, left=left_players, entries=entries)
        stack = tr("floor.clock.average", lang, chips=average)
        parts.append(
            f"<div class='grid'><div class='card' id='players'>{e(players)}</div>"
            f"<div class='card' id='average'>{e(stack)}</div></div>"
        )
        if state.get("winner"):
            winner = tr("floor.clock.finished", lang, name=state["winner"])
            parts.append(f"<p class='big' id='winner'>{e(winner)}</p>")
        prizes = state.get("prizes") or []
        if prizes:
            cells = "".join(
                f"<tr><td>{place}</td><td>{amount}</td></tr>"
                for place, amount in enumerate(prizes, 1)
            )
            parts.append(
                f"<h2>{e(tr('floor.clock.payouts', lang))}</h2><table id='payouts'>{cells}</table>"
            )
        return self._page(tr("floor.clock.title", lang), "".join(parts), refresh=2)

    def dashboard_page(self, lang: str, user: str) -> str:
        """Every table, the alerts and the tournament, for the floor staff."""
        e = html.escape
        tables = self._query(
            "SELECT t.id, t.last_seq, t.status, (SELECT count(*) FROM hands h WHERE "
            "h.table_id = t.id) FROM tables t ORDER BY t.id"
        )
        alerts = self._query(
            "SELECT table_id, rule, text FROM alerts WHERE NOT resolved ORDER BY id DESC LIMIT 20"
        )
        tournaments = self._query("SELECT name, state FROM tournaments ORDER BY created DESC")
        parts = [
            f"<h1>{e(tr('floor.web.title', lang))}</h1>"
            f"<p id='user'>{e(tr('floor.web.logged_in', lang, name=user))}</p><div class='grid'>"
        ]
        for table_id, last_seq, status, hands in tables:
            seats = status.get("seats", {})
            rows = "".join(
                f"<tr><td>{e(n)}</td><td>{e(s['player'])}</td><td>{s['stack']}</td></tr>"
                for n, s in sorted(seats.items(), key=lambda item: int(item[0]))
            )
            free = int(status.get("max_seats", 10)) - len(seats)
            summary = tr(
                "floor.web.table", lang, table=table_id, hands=hands, free=free, seq=last_seq
            )
            parts.append(
                f"<div class='card table' id='table-{e(table_id)}'><h3>{e(summary)}</h3>"
                f"<table>{rows}</table></div>"
            )
        parts.append("</div>")
        parts.append(f"<h2>{e(tr('floor.web.alerts', lang))}</h2><ul id='alerts'>")
        for table_id, rule, text in alerts:
            parts.append(f"<li class='alert'>{e(table_id or '')} {e(rule)}: {e(text)}</li>")
        parts.append("</ul>")
        for name, state in tournaments:
            decisions = "".join(f"<li>{e(d)}</li>" for d in state.get("decisions", []))
            left = tr(
                "floor.clock.players",
                lang,
                left=state.get("left", 0),
                entries=state.get("entries", 0),
            )
            parts.append(
                f"<h2>{e(name)}</h2><p>{e(left)}</p><ul class='decisions'>{decisions}</ul>"
            )
        return self._page(tr("floor.web.title", lang), "".join(parts), refresh=3)


def dumps(value: Any) -> str:
    """JSON for the pages' data (kept for the API the dashboard will grow)."""
    return json.dumps(value, separators=(",", ":"))
