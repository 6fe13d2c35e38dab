"""Late registration and re-entry from the dashboard, in a real browser (FLOOR-LATE).

The floor's web server and a :class:`StaffDirector` run in this process on
a real PostgreSQL; the tables are a recording stand-in (their side of a
seat command is tested in ``test_floor_link.py``). Debian's Chromium,
headless, is driven by selenium: a floor person registers a player late,
re-enters a player who is out, and is told in one sentence, in English or
Spanish, why an entry is refused (an unknown player, a player still in, the
window closed). A technician may not enter players; a form without the
session's CSRF token changes nothing. ``UI_SCREENSHOTS=docs/screens`` writes
the documentation's screenshots.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest

from firmware.floor.store import dashboard
from firmware.floor.store.central import create_schema
from firmware.floor.store.ingest import Ingested
from firmware.floor.tournament import control
from firmware.floor.tournament.control import StaffDirector, TournamentControl
from firmware.floor.tournament.director import TournamentSpec
from firmware.floor.web.app import FloorWeb
from firmware.protocol.auth import StaffDirectory
from tests.floor_login import session_cookie

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

T = TypeVar("T")
LEVELS = (
    {"small_blind": 25, "big_blind": 50, "minutes": 60},
    {"small_blind": 50, "big_blind": 100, "minutes": 60},
)


class Room:
    """The director on its own event loop (a thread), the tables a recording stand-in."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.director: StaffDirector | None = None
        self.running: Any = None
        self.hold: asyncio.Event | None = None
        """Set: seat commands wait for it (a table that does not answer)."""

    def call(self, make: Callable[[], Awaitable[T]]) -> T:
        """Run a coroutine on the director's loop; its result."""

        async def go() -> T:
            return await make()

        return asyncio.run_coroutine_threadsafe(go(), self.loop).result(120)

    async def command(self, table: str, cmd: dict[str, Any]) -> dict[str, Any]:
        self.sent.append((table, cmd))
        if self.hold is not None and cmd.get("kind") == "seat":
            await self.hold.wait()
        return {"ok": True, "chips": 1000, "playing": False}

    async def open(self, conninfo: str) -> StaffDirector:
        conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
        await create_schema(conn)
        dashboard.create_schema(conninfo)
        spec = TournamentSpec(
            "late1", "Sunday Deepstack", 100, 1000, ("A", "B", "C"), seats_per_table=6,
            levels=LEVELS, late_until_level=1, max_entries=2,
        )  # fmt: skip
        director = StaffDirector(spec, conn, self.command, random.Random(3))
        await director.create()
        for n in range(12):
            await director.register(f"p{n:02d}")
        await director.start_now()
        self.director = director
        self.running = asyncio.ensure_future(director.run())
        return director

    def bust(self, player: str) -> None:
        """The hand in which ``player`` lost every chip reaches the floor."""
        d = self.director
        assert d is not None
        table, seat = next((t, s) for t, seated in d.room.items() for s, p in seated.items()
                           if p == player)  # fmt: skip
        seated = d.room[table]
        winner = next(s for s in seated if s != seat)
        hand = {
            "hand": 7,
            "players": {str(s): p for s, p in seated.items()},
            "starting_stacks": {str(s): 1000 for s in seated},
            "finishing_stacks": {
                str(s): 0 if s == seat else 2000 if s == winner else 1000 for s in seated
            },
        }
        record = Ingested(table, 100, "hand", [hand], {}, time.time())
        self.loop.call_soon_threadsafe(d.on_ingested, record)

    def close(self) -> None:
        async def stop() -> None:
            if self.running is not None:
                self.running.cancel()
            if self.director is not None:
                await self.director.conn.close()

        self.call(stop)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)


@pytest.fixture
def room(pg_conninfo: str) -> Iterator[tuple[Room, FloorWeb]]:
    """A running tournament (12 players on three tables of six) and its web server."""
    room = Room()
    room.call(lambda: room.open(pg_conninfo))
    assert room.director is not None
    staff = StaffDirectory()
    staff.add("floor1", "Ana Floor", "floor", "1234")
    staff.add("tech1", "Teo Tech", "technician", "1234")
    web = FloorWeb(pg_conninfo, staff, control=TournamentControl(room.director, room.loop))
    web.start()
    yield room, web
    web.stop()
    room.close()


def test_floor_late_registration_and_re_entry_from_the_dashboard_in_a_browser(
    room: tuple[Room, FloorWeb], browser: Any, pg_conninfo: str, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    r, web = room
    d = r.director
    assert d is not None
    driver = browser
    base = web.url
    shots = Path(os.environ.get("UI_SCREENSHOTS") or tmp_path)

    def shot(name: str) -> None:
        driver.save_screenshot(str(shots / name))
        assert (shots / name).stat().st_size > 5000

    def type_into(ident: str, words: str) -> None:
        """Type into a field of the live part (replaced when the room changes, until a
        field holds text: then it waits), again if it was replaced meanwhile."""
        from selenium.common.exceptions import (
            ElementNotInteractableException,
            StaleElementReferenceException,
        )
        from selenium.webdriver.support import expected_conditions
        from selenium.webdriver.support.ui import WebDriverWait

        for _ in range(10):
            try:
                # The live part may be mid-replacement: wait (hang guard only) until the
                # field is there and can take keys.
                field = WebDriverWait(driver, 120).until(
                    expected_conditions.element_to_be_clickable((By.ID, ident))
                )
                field.clear()
                field.send_keys(words)
                if field.get_attribute("value") == words:
                    return
            except (StaleElementReferenceException, ElementNotInteractableException):
                continue
        raise AssertionError(f"could not type into #{ident}")

    def text(ident: str) -> str:
        """An element's text, read in one step (the live part may be replaced)."""
        found = driver.execute_script(
            "var x=document.getElementById(arguments[0]);return x?x.innerText:null", ident
        )
        assert found is not None, f"the page has no #{ident}"
        return str(found).strip()

    def login(badge: str, lang: str) -> None:
        driver.delete_all_cookies()
        driver.get(f"{base}/login?lang={lang}")
        driver.find_element(By.ID, "badge").send_keys(badge)
        driver.find_element(By.ID, "pin").send_keys("1234")
        submit("login")
        driver.get(f"{base}/?refresh=0&lang={lang}")

    def submit(ident: str) -> None:
        """Click a button and wait for the next page."""
        from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

        old = driver.find_element(By.TAG_NAME, "html")
        for _ in range(10):  # the live part may be replaced between finding and clicking
            try:
                driver.find_element(By.ID, ident).click()
                break
            except StaleElementReferenceException:
                continue

        def left(_: Any) -> bool:
            try:
                old.is_enabled()  # raises once the old page is gone
            except WebDriverException:
                return True
            return False

        WebDriverWait(driver, 120).until(left)

    def refused() -> bool:
        """The sentence shown is a refusal (an alert), not a change made."""
        return bool(driver.find_element(By.ID, "flash").get_attribute("class") == "alert")

    def enter(name: str, kind: str) -> str:
        """Type a name, press one of the two buttons; the sentence shown after it."""
        type_into("entry-player", name)
        submit(f"entry-{kind}")
        return text("flash")

    login("floor1", "en")
    status = text("entries-status")
    assert status == "Open until the end of level 1. Up to 2 entries per player."

    # A late registration: a seat drawn at a shortest table, the seat command sent.
    before = sum(len(s) for s in d.room.values())
    flash = enter("Zoe Late", "late")
    seat = r.call(lambda: _seat_of(d, "Zoe Late"))
    assert flash == f"Late registration: Zoe Late drew table {seat[0]}, seat {seat[1]}."
    assert not refused()
    assert sum(len(s) for s in d.room.values()) == before + 1
    r.call(d.orders.settle)  # the seat command is sent
    seated = [c for t, c in r.sent if c.get("kind") == "seat" and c.get("player") == "Zoe Late"]
    assert [(c["seat"], c["chips"]) for c in seated] == [(seat[1], 1000)]
    shot("floor-late-entry.png")

    # Refusals, one sentence each; nothing entered.
    entries = dict(d.entries)
    assert enter("Nobody", "reentry") == (
        "Nobody has not entered this tournament; check the name, or register the player "
        "late instead."
    )
    assert enter("p01", "late") == "p01 has entered this tournament already; use re-entry instead."
    assert enter("p01", "reentry") == "A player re-enters only after his last entry is eliminated."
    assert enter("   ", "late") == "Give the player's name (1 to 40 characters)."
    assert refused()
    assert d.entries == entries

    # p01 busts: his re-entry is a second entry with its own seat.
    r.bust("p01")
    WebDriverWait(driver, 120, poll_frequency=0.2).until(lambda _: "p01" not in d.live)
    flash = enter("p01", "reentry")
    seat = r.call(lambda: _seat_of(d, "p01"))
    assert flash == f"Re-entry: p01 #2 drew table {seat[0]}, seat {seat[1]}."
    assert d.entries["p01"] == 2 and d.standings is not None and d.standings.entries == 14

    # Level 2: the window is closed, in English and in Spanish.
    r.call(lambda: _to_level_2(d))
    driver.get(f"{base}/?refresh=0")
    assert text("entries-status") == "Closed. Up to 2 entries per player."
    assert enter("Late Larry", "late") == (
        "Late registration and re-entry closed at the end of level 1."
    )
    driver.get(f"{base}/?refresh=0&lang=es")
    assert text("entries-status") == "Cerradas. Hasta 2 entradas por jugador."
    assert enter("Nadie", "reentry") == (
        "Nadie no ha entrado en este torneo; compruebe el nombre o haga una inscripción tardía."
    )
    assert enter("Luis Tarde", "late") == (
        "La inscripción tardía y la reentrada cerraron al final del nivel 1."
    )
    assert refused()
    shot("floor-late-entry-es.png")
    assert "Late Larry" not in d.entries and "Luis Tarde" not in d.entries

    # Every entry is in the store and in the staff log, with who took it.
    with psycopg.connect(pg_conninfo) as conn:
        rows = conn.execute(
            "SELECT player_id, entry FROM registrations WHERE tournament_id = 'late1' "
            "AND (entry > 1 OR player_id = 'Zoe Late') ORDER BY player_id"
        ).fetchall()
        assert rows == [("Zoe Late", 1), ("p01", 2)]
        logged = conn.execute(
            "SELECT staff, detail FROM staff_actions WHERE action = 'enter' ORDER BY id"
        ).fetchall()
    assert [who for who, _ in logged] == ["Ana Floor", "Ana Floor"]
    assert logged[0][1].startswith("late registration: Zoe Late at table ")
    assert logged[1][1].startswith("re-entry: p01 #2 at table ")

    # A technician sees the form but may not enter anyone.
    login("tech1", "en")
    type_into("entry-player", "Tina")
    submit("entry-late")
    assert text("error").startswith("Your role (technician) may not")
    assert "Tina" not in d.entries


def test_an_entry_without_the_session_token_changes_nothing(
    room: tuple[Room, FloorWeb],
) -> None:
    """A forged form (no CSRF token, or another site's origin) is refused with 403."""
    r, web = room
    d = r.director
    assert d is not None
    cookie = _login(web.url, "floor1")
    for headers, body in (
        ({}, b"player=Mallory&kind=late"),
        ({"Origin": "http://evil.example"}, b"player=Mallory&kind=late&csrf=x"),
    ):
        request = urllib.request.Request(
            f"{web.url}/do/enter", data=body, headers={"Cookie": cookie, **headers}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request)
        assert refused.value.code == 403
    assert "Mallory" not in d.entries


def _login(base: str, badge: str) -> str:
    return session_cookie(int(base.rsplit(":", 1)[1]), badge)


async def _seat_of(d: StaffDirector, player: str) -> tuple[str, int]:
    return next((t, s) for t, seated in d.room.items() for s, p in seated.items() if p == player)


async def _to_level_2(d: StaffDirector) -> None:
    assert d.started_at is not None
    d.started_at -= 60 * 60  # an hour of level 1 has gone by


def test_an_entry_whose_table_does_not_answer_is_said_to_be_under_way(
    room: tuple[Room, FloorWeb], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page does not hang on a table that is slow to answer: it says the entry is
    still under way (in the page's language), and the entry completes once the table
    answers."""
    r, web = room
    d = r.director
    assert d is not None
    monkeypatch.setattr(control, "ANSWER_SECONDS", 0.5)  # the product's wait, made short

    async def hold() -> None:
        r.hold = asyncio.Event()

    r.call(hold)
    cookie = _login(web.url, "floor1")
    page = _get(f"{web.url}/?refresh=0&lang=es", cookie)
    token = re.search(r"name='csrf' value='([^']+)'", page)
    assert token is not None
    body = urllib.parse.urlencode({"csrf": token.group(1), "player": "Zed", "kind": "late"})
    request = urllib.request.Request(
        f"{web.url}/do/enter?lang=es", data=body.encode(), headers={"Cookie": cookie}
    )
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.build_opener(_Keep).open(request)
    assert answer.value.code == 303
    page = _get(f"{web.url}/?refresh=0&lang=es", cookie)
    assert (
        "<p class='alert' id='flash' role='alert'>La sala todavía lo está llevando a cabo: una "
        "mesa aún no "
        "ha respondido." in page
    )

    async def answer_now() -> None:
        assert r.hold is not None
        r.hold.set()
        await d.orders.settle()

    r.call(answer_now)
    assert d.entries.get("Zed") == 1 and any("Zed" in seated.values() for seated in d.room.values())


class _Keep(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:
        return None  # keep the 303 (and its cookie) as the answer


def _get(url: str, cookie: str) -> str:
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": cookie})) as page:
        return str(page.read().decode())
