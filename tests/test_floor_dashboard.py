"""The floor dashboard over HTTP against real servers: notices, waiting list, roles, CSRF.

A simulated table (real controller, journal and floor link) on a real
nats-server reports a seat's floor call and a device fault; the floor
stores them in a real PostgreSQL and the dashboard shows them until
someone acknowledges them. Staff act only through POSTs that carry their
session's CSRF token, from the page's own origin, within their role.
The browser test (``tests/test_floor_web.py``) drives the same pages in
Chromium; this one checks what a browser would not let us forge.
"""

from __future__ import annotations

import asyncio
import html
import http.client
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import msgpack
import psycopg
import pytest

from firmware.floor.servers import NatsServer
from firmware.floor.service import Floor
from firmware.floor.simroom import SimTable
from firmware.floor.store.dashboard import NoticeListener, parse_notice
from firmware.floor.web.app import IDLE_SECONDS, FloorWeb
from firmware.hal.messages import DeviceFault
from firmware.protocol.auth import StaffDirectory
from firmware.service.controller_state import Alert
from firmware.service.floorwire import NOTICES, FloorConfig
from tests.floor_kit import wait_until
from tests.floor_login import post_login

pytestmark = pytest.mark.xdist_group("floor")


class Browser:
    """A minimal HTTP client that keeps its cookie and never follows redirects."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""

    def request(
        self, method: str, path: str, form: dict[str, str] | None = None, **headers: str
    ) -> tuple[int, str, dict[str, str]]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        body = urlencode(form or {}) if method == "POST" else None
        sent = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
        if self.cookie:
            sent["Cookie"] = self.cookie
        sent.update({k.replace("_", "-"): v for k, v in headers.items()})
        conn.request(method, path, body=body, headers=sent)
        response = conn.getresponse()
        text = response.read().decode()
        got = {k.lower(): v for k, v in response.getheaders()}
        if "set-cookie" in got:
            self.cookie = got["set-cookie"].split(";")[0]
        conn.close()
        return response.status, text, got

    def login(self, badge: str, pin: str = "1234") -> int:
        status, _page, jar = post_login(self.port, badge, pin)
        if "floor_session" in jar:
            self.cookie = f"floor_session={jar['floor_session']}"
        return status

    def page(self, path: str = "/?refresh=0") -> str:
        status, text, _ = self.request("GET", path)
        assert status == 200, (status, text)
        return text

    def csrf(self) -> str:
        found = re.search(r"name='csrf' value='([^']+)'", self.page())
        assert found is not None
        return found.group(1)


def visible(page: str) -> str:
    """The text a person sees."""
    body = page[page.index("</style>") :]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


class FloorThread:
    """The floor (ingest and notices) on an event loop of its own."""

    def __init__(self, conninfo: str, url: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.floor = Floor(conninfo, url)
        self.notices = NoticeListener(conninfo)
        self.call(self.floor.open())
        self.call(self.notices.start(self.floor.nc))
        self.ingest = asyncio.run_coroutine_threadsafe(self.floor.ingest_forever(), self.loop)

    def call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)

    def close(self) -> None:
        self.floor.stopping.set()
        self.ingest.result(60)
        self.call(self.notices.stop())
        self.call(self.floor.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)


@pytest.fixture
def room(tmp_path: Path, nats_server: NatsServer, pg_conninfo: str) -> Iterator[dict[str, Any]]:
    floor = FloorThread(pg_conninfo, nats_server.url)
    sim = SimTable("T1", str(tmp_path / "T1"), FloorConfig(nats_server.url, "T1"), seats=6)
    sim.seat({1: ("ana", 200), 2: ("beto", 200)})
    sim.hands_to_play = 1
    sim.start()
    staff = StaffDirectory()
    staff.add("floor1", "Fiona Floor", "floor", "1234")
    staff.add("tech1", "Tomas Tech", "technician", "1234")
    staff.add("deal1", "Dana Dealer", "dealer", "1234")
    web = FloorWeb(pg_conninfo, staff, lang="en")
    web.start()
    yield {"web": web, "sim": sim, "conninfo": pg_conninfo, "floor": floor}
    web.stop()
    sim.stop()
    floor.close()


def test_floor_calls_and_faults_from_a_table_are_shown_until_acknowledged(
    room: dict[str, Any],
) -> None:
    sim: SimTable = room["sim"]
    tech = Browser(room["web"].port)
    assert tech.login("tech1") == 303
    assert wait_until(lambda: "Table T1 1 hand, " in visible(tech.page()))
    ctl = sim.controller

    def seat_two_calls() -> None:
        alert = Alert(
            ctl.table_time(), "Seat 2 calls the floor.", "seat2", "alert.call_floor", {"seat": 2}
        )
        ctl.call_soon(lambda: ctl.alerts.append(alert))

    seat_two_calls()
    seat_two_calls()  # pressed twice: one open call on the dashboard
    ctl.post(DeviceFault("shoe", time.time(), "The shoe stopped answering; check its cable."))

    def shown(page: str) -> bool:
        return "Seat 2 calls the floor" in page and "Device in fault: shoe" in page

    assert wait_until(lambda: shown(visible(tech.page())))
    spanish = visible(tech.page("/?lang=es&refresh=0"))
    assert "Mesa T1: El asiento 2 llama al encargado de sala." in spanish, spanish
    assert "Dispositivo averiado: shoe" in spanish
    page = tech.page()
    ident = re.search(r"name='notice' value='(\d+)'><button type='submit' id='ack-n\d+'", page)
    assert ident is not None
    # The technician acknowledges the call: it leaves the list; the fault stays.
    status, _, headers = tech.request(
        "POST", "/do/ack", {"csrf": tech.csrf(), "notice": ident.group(1)}
    )
    assert status == 303 and headers["location"].startswith("/")
    after = visible(tech.page())
    assert "Seat 2 calls the floor" not in after and "Device in fault: shoe" in after
    with psycopg.connect(room["conninfo"]) as conn:
        acked = conn.execute(
            "SELECT acked_by FROM table_notices WHERE id = %s", (int(ident.group(1)),)
        ).fetchone()
        actions = conn.execute("SELECT staff, role, action FROM staff_actions").fetchall()
        calls = conn.execute("SELECT count(*) FROM table_notices WHERE kind = 'call'").fetchone()
    assert acked == ("Tomas Tech",) and calls == (1,)
    assert ("Tomas Tech", "technician", "ack") in actions
    seat_two_calls()  # a new call after the first was answered is shown again
    assert wait_until(lambda: "Seat 2 calls the floor" in visible(tech.page()))


def test_waiting_list_roles_and_forged_requests(room: dict[str, Any]) -> None:
    web: FloorWeb = room["web"]
    floor = Browser(web.port)
    tech = Browser(web.port)
    dealer = Browser(web.port)
    stranger = Browser(web.port)
    assert floor.login("floor1") == 303 and tech.login("tech1") == 303
    assert dealer.login("deal1") == 403  # the dealer role may not open the dashboard
    assert stranger.request("GET", "/")[2]["location"].startswith("/login")
    assert wait_until(lambda: "NL 1/2" in visible(floor.page()))
    token = floor.csrf()
    add = {"game": "NL 1/2", "player": "Marta <b>"}
    # No token, a wrong token, a foreign origin, no session: refused, nothing stored.
    assert floor.request("POST", "/do/wait_add", add)[0] == 403
    assert floor.request("POST", "/do/wait_add", {**add, "csrf": "x" * len(token)})[0] == 403
    forged = floor.request(
        "POST", "/do/wait_add", {**add, "csrf": token}, Origin="http://evil.example"
    )
    assert forged[0] == 403 and "nothing was changed" in visible(forged[1])
    assert stranger.request("POST", "/do/wait_add", {**add, "csrf": token})[0] == 403
    # Another person's token does not work with my session.
    assert tech.request("POST", "/do/ack", {"csrf": token, "alert": "1"})[0] == 403
    # A technician may not run the waiting list.
    status, text, _ = tech.request("POST", "/do/wait_add", {**add, "csrf": tech.csrf()})
    assert status == 403 and "Your role (technician) may not do this" in visible(text)
    with psycopg.connect(room["conninfo"]) as conn:
        assert conn.execute("SELECT count(*) FROM waiting_list").fetchone() == (0,)
    # The floor person adds, calls and removes; the name is shown escaped.
    assert floor.request("POST", "/do/wait_add", {**add, "csrf": token}, Origin=web.url)[0] == 303
    page = floor.page()
    assert "Marta &lt;b&gt;" in page and "Marta is waiting" not in page
    assert "Marta <b> is waiting for NL 1/2." in visible(page)
    entry = re.search(r"id='wait-(\d+)'", page)
    assert entry is not None
    call = {"csrf": token, "entry": entry.group(1), "table": "T1"}
    assert floor.request("POST", "/do/wait_call", call)[0] == 303
    assert "called to table T1" in visible(floor.page())
    spanish = visible(floor.page("/?lang=es&refresh=0"))
    assert "llamado a la mesa T1" in spanish and "Lista de espera" in spanish
    bad = floor.request("POST", "/do/wait_call", {**call, "table": "T9"})
    assert bad[0] == 303 and "There is no table T9." in visible(floor.page())
    assert floor.request("POST", "/do/wait_remove", {**call})[0] == 303
    assert "Marta" not in visible(floor.page())
    # The session ends after the idle time.
    web.clock = lambda: time.monotonic() + IDLE_SECONDS + 1
    assert floor.request("GET", "/")[2]["location"].startswith("/login")


def test_a_notice_names_its_table_by_subject_and_is_cut_to_size() -> None:
    body = msgpack.packb(
        {
            "table": "T2",  # the body's claim is ignored: the subject names the table
            "faults": {"shoe": "x" * 5000},
            "alerts": [
                {
                    "text": "Seat 1 calls the floor.",
                    "key": "alert.call_floor",
                    "params": {"seat": 1, "bad key": 2},
                },
                "junk",
            ],
        }
    )
    table, faults, alerts = parse_notice(f"{NOTICES}.T1", body)
    assert table == "T1" and len(faults["shoe"]) == 300
    assert alerts == [
        {"text": "Seat 1 calls the floor.", "key": "alert.call_floor", "params": {"seat": 1},
         "device": None, "kind": "call"}
    ]  # fmt: skip
    with pytest.raises(ValueError, match="names no table"):
        parse_notice(f"{NOTICES}.T1.x", body)
    with pytest.raises(ValueError, match="a notice is a map"):
        parse_notice(f"{NOTICES}.T1", msgpack.packb([1]))
