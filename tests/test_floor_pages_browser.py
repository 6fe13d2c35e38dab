"""The floor's pages as a card room shows them, in Debian's Chromium (issue 24, item 5).

The dashboard runs in-process on a real PostgreSQL filled with one room: a
tournament 10 minutes into level 1 (21 entries, 17 left, nine places paid),
two tables (one with one hand stored and one free seat), a device fault and
alerts written in English by the tables, a cash game's rebuy notice, and the
director's decisions as the director logs them. Checked:

* the TV clock at 1920x1080 and 1280x720 (and the tablet's 1280x800): no
  scrolling (the document is the viewport's size and every part of the clock
  lies inside it), the countdown at least a fifth of the screen's height,
  Spanish from ``Accept-Language`` and ``?lang``, no English word in Spanish;
  once the tournament has a winner, the final results instead of levels;
* the dashboard on a 1280x800 tablet: no sideways scrolling, designed controls
  (no browser-default buttons or fields), plurals ("1 mano", "1 asiento
  libre"), the tables' English texts and the director's decisions in Spanish,
  the cash game's rebuy alert left out in a tournament, and a new floor call
  appearing without a reload (server-sent events);
* a hand's page lists the blinds and antes posted;
* axe-core (from the npm registry, installed by the test into its own folder;
  skipped only when npm is missing) finds no serious or critical violation.

``UI_SCREENSHOTS=docs/screens`` writes the documentation's screenshots.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from firmware.floor.store import dashboard
from firmware.floor.store.central import create_schema
from firmware.floor.web.app import FloorWeb
from firmware.protocol.auth import StaffDirectory
from tests.floor_kit import run

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

LEVELS = [
    {"small_blind": 25, "big_blind": 50, "minutes": 20},
    {"small_blind": 50, "big_blind": 100, "minutes": 20},
    {"break_minutes": 10},
    {"small_blind": 100, "big_blind": 200, "ante": 200, "minutes": 20},
]
PRIZES = [700, 450, 300, 200, 150, 120, 100, 50, 30]
DECISIONS = [
    "TDA-17: the level clock starts on 2 tables at once.",
    "FLOOR-LATE late registration: Lucía drew seat 4 at table T2; 21 entries, prize pool 2100.",
    "Marta finishes in place 21.",
    "Bruno moves to table T2, seat 1 (TDA-24: table T3 breaks; Bruno drew seat 1 at table T2.).",
    "TDA-24: table T3 broke.",
    "Nora moves to table T1, seat 5 (HG-5 final table draw).",
]
ENGLISH = re.compile(
    r"\b(the|and|of|is|to|in|at|on|with|from|has|was|by|for|left|level|players|table|seat|"
    r"wins|moves|break|next|average|prize|pool|hands?|free|record|must|device)\b",
    re.I,
)
SIZES = [(1920, 1080), (1280, 720), (1280, 800)]


def fill(conninfo: str) -> None:
    """One room, as the floor's store holds it."""

    async def schema() -> None:
        async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as conn:
            await create_schema(conn)  # the migrations make every table

    run(schema())
    dashboard.create_schema(conninfo)
    seats1 = {str(n): {"player": p, "stack": 5000} for n, p in enumerate(
        ["Ana", "Bea", "Ciro", "Dani", "Eva", "Fede", "Gema", "Hugo"], 1)}  # fmt: skip
    seats2 = {str(n): {"player": p, "stack": 6000} for n, p in enumerate(
        ["Bruno", "Inés", "Jon", "Kike", "Lucía", "Nora", "Olga", "Pau", "Rosa"], 1)}  # fmt: skip
    record = {
        "hand": 1,
        "players": {"1": "Ana", "2": "Bea", "3": "Ciro"},
        "posts": {
            "2": {"blind": 25, "ante": 0, "dead": 0},
            "3": {"blind": 50, "ante": 0, "dead": 0},
        },
        "actions": [
            {"seat": 1, "action": "fold", "street": "preflop"},
            {"seat": 2, "action": "check_call", "amount": 25, "street": "preflop"},
            {"seat": 3, "action": "check_call", "amount": 0, "street": "preflop"},
        ],
        "cards": {"hole": {"1": ["Ah", "Kd"]}, "board": "2c7d9h"},
        "pots": [{"amount": 100, "winners": [3], "shares": {"3": 100}}],
        "starting_stacks": {"1": 5000, "2": 5000, "3": 5000},
        "finishing_stacks": {"1": 5000, "2": 4950, "3": 5050},
        "incidents": [],
    }
    state = {
        "room": {"T1": seats1, "T2": seats2},
        "left": 17,
        "entries": 21,
        "prizes": PRIZES,
        "levels": LEVELS,
        "started_at": time.time() - 600,
        "chips": 21 * 5000,
        "winner": "",
        "finished": False,
        "hand_for_hand": False,
        "decisions": DECISIONS,
    }
    with psycopg.connect(conninfo, autocommit=True) as conn:
        for table, seats, hands in (("T1", seats1, 1), ("T2", seats2, 0)):
            status = {"seats": seats, "max_seats": 9, "game": "NLHE 25/50", "playing": True}
            conn.execute(
                "INSERT INTO tables (id, last_seq, status) VALUES (%s, %s, %s)",
                (table, 40 + hands, Jsonb(status)),
            )
        conn.execute(
            "INSERT INTO hands (table_id, seq, hand, finished, record) "
            "VALUES ('T1', 41, 1, %s, %s)",
            (time.time(), Jsonb(record)),
        )
        conn.execute(
            "INSERT INTO table_faults (table_id, faults) VALUES ('T2', %s)",
            (Jsonb({"shoe": "The shoe stopped answering; check its cable."}),),
        )
        conn.execute(
            "INSERT INTO table_notices (table_id, kind, text, key, params) VALUES "
            "('T1', 'call', 'Seat 4 calls the floor.', 'alert.call_floor', %s), "
            "('T1', 'alert', 'Seat 3 (Ciro) is out of chips and must rebuy or leave before the "
            "next hand is dealt (HG-13).', 'error.table.rebuy_pending', '{}')",
            (Jsonb({"seat": 4}),),
        )
        conn.execute(
            "INSERT INTO alerts (table_id, seq, rule, text) VALUES "
            "('T1', 12, 'TDA-3', 'Seat 2 exposed a card during the deal.')"
        )
        conn.execute(
            "INSERT INTO tournaments (id, name, buy_in, starting_chips, state) VALUES "
            "('night', 'Torneo del viernes', 100, 5000, %s)",
            (Jsonb(state),),
        )


@pytest.fixture
def web(pg_conninfo: str) -> Iterator[FloorWeb]:
    fill(pg_conninfo)
    staff = StaffDirectory()
    staff.add("floor1", "Flor", "floor", "1234")
    server = FloorWeb(pg_conninfo, staff, lang="en")  # the browsers below ask for Spanish
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def axe(tmp_path_factory: pytest.TempPathFactory) -> str:
    """axe-core's script, installed from the npm registry into the test's own folder."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed, so axe-core cannot be fetched: apt-get install npm.")
    folder = tmp_path_factory.mktemp("axe")
    subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(folder),
            "--prefer-offline",
            "--no-audit",
            "--no-fund",
            "axe-core@4",
        ],
        check=True,
        capture_output=True,
    )
    return (folder / "node_modules" / "axe-core" / "axe.min.js").read_text()


def viewport(driver: Any, width: int, height: int) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def serious(driver: Any, axe_source: str) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page shown."""
    driver.execute_script(axe_source)
    found = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "axe.run(document).then(function(r){done(JSON.stringify(r.violations))})"
        ".catch(function(e){done(JSON.stringify([{impact:'critical',id:String(e)}]))});"
    )
    return [v for v in json.loads(found) if v.get("impact") in ("serious", "critical")]


def shot(driver: Any, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("UI_SCREENSHOTS") or tmp_path)
    driver.save_screenshot(str(folder / name))
    assert (folder / name).stat().st_size > 5000


def js_text(driver: Any, css: str) -> str:
    """The visible text of the first element matching ``css`` ('' if none), read in one
    step (the live part may be replaced between two WebDriver calls)."""
    return str(
        driver.execute_script(
            "var x=document.querySelector(arguments[0]);return x?x.innerText:''", css
        )
    )


def on_screen(driver: Any, width: int, height: int) -> dict[str, Any]:
    """The clock's geometry, checked: the document is the viewport's size (no scrolling),
    every part lies inside the viewport and every card of the side column inside it."""
    geometry: dict[str, Any] = driver.execute_script(
        "var d=document.documentElement,out=[];"
        "['time','blinds','level','next','break','players','average','pool','payouts']"
        ".forEach(function(i){var r=document.getElementById(i).getBoundingClientRect();"
        "out.push([i,r.left,r.top,r.right,r.bottom])});"
        "var a=document.querySelector('aside').getBoundingClientRect();"
        "return {aside:[a.left,a.top,a.right,a.bottom],sw:d.scrollWidth,sh:d.scrollHeight,"
        "parts:out,font:parseFloat(getComputedStyle(document.getElementById('time')).fontSize)}"
    )
    assert (geometry["sw"], geometry["sh"]) == (width, height), geometry
    left_a, _top, right_a, bottom_a = geometry["aside"]
    for ident, left, top, right, bottom in geometry["parts"]:
        assert left >= 0 and top >= 0 and right <= width and bottom <= height, ident
        if ident in ("next", "break", "players", "average", "pool", "payouts"):
            assert left >= left_a and right <= right_a + 0.5 and bottom <= bottom_a + 0.5, ident
    return geometry


def no_english(text: str) -> None:
    words = ENGLISH.findall(text)
    assert not words, (words, text)


def test_the_tv_clock_fills_the_screen_without_scrolling(
    web: FloorWeb, browser: Any, axe: str, tmp_path: Path
) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser
    driver.set_script_timeout(60)
    for width, height in SIZES:
        viewport(driver, width, height)
        for lang in ("es", "en"):
            driver.get(f"{web.url}/clock?lang={lang}")
            WebDriverWait(driver, 60).until(
                lambda d: re.fullmatch(r"\d\d:\d\d", js_text(d, "#time"))
            )
            geometry = on_screen(driver, width, height)
            assert geometry["font"] >= height / 5, geometry["font"]
            text = js_text(driver, "body")
            if lang == "es":
                no_english(text)
                assert "Nivel 1" in text and "Ciegas 25/50 · Sin ante" in text and "17/21" in text
                assert "y 1 puesto más pagado" in text
                assert "Cambio de fichas: las fichas de 25" in text  # level 2 needs no 25s
            else:
                assert "Level 1" in text and "Prize pool" in text
            rows = driver.execute_script("return document.querySelectorAll('#payouts tr').length")
            assert rows == 9  # eight places and "and 1 more place paid"
            shot(driver, f"floor-clock-{width}x{height}-{lang}.png", tmp_path)
    assert not serious(driver, axe)


def test_the_clock_speaks_the_browsers_language_and_ends_with_the_results(
    web: FloorWeb, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=60)
    conn.request("GET", "/clock", headers={"Accept-Language": "es-PE,es;q=0.9,en;q=0.5"})
    page = conn.getresponse().read().decode()
    assert "<html lang='es'>" in page and "Jugadores" in page
    conn.request("GET", "/clock")  # no preference: the floor's own --lang (here English)
    assert "Players" in conn.getresponse().read().decode()
    driver = browser
    viewport(driver, 1280, 720)
    driver.get(f"{web.url}/clock?lang=es")
    # 45 minutes in: the break after level 2, then the floor pauses the clock.
    with psycopg.connect(web.conninfo, autocommit=True) as db:
        db.execute(
            "UPDATE tournaments SET state = state || %s",
            (Jsonb({"started_at": time.time() - 2700}),),
        )
    WebDriverWait(driver, 60).until(lambda d: js_text(d, "#level") == "Descanso")
    on_screen(driver, 1280, 720)
    text = js_text(driver, "body")
    assert "quedan de descanso" in text and "100/200 · Ante 200" in text, text
    assert not js_text(driver, "#paused")
    with psycopg.connect(web.conninfo, autocommit=True) as db:
        db.execute(
            "INSERT INTO clock_pauses (tournament_id, paused_at, paused_seconds) "
            "VALUES ('night', %s, 0)",
            (time.time(),),
        )
    WebDriverWait(driver, 60).until(lambda d: js_text(d, "#paused") == "El reloj está en pausa.")
    no_english(js_text(driver, "body"))
    shot(driver, "floor-clock-break-paused-es.png", tmp_path)
    with psycopg.connect(web.conninfo, autocommit=True) as db:
        for place, (name, prize) in enumerate(
            zip(["Nora", "Bruno", "Ana"], PRIZES[:3], strict=True), 1
        ):
            db.execute("INSERT INTO players (id, name) VALUES (%s, %s)", (name, name))
            db.execute(
                "INSERT INTO registrations (tournament_id, player_id, entry, place, prize) "
                "VALUES ('night', %s, 1, %s, %s)",
                (name, place, prize),
            )
        db.execute(
            "UPDATE tournaments SET state = state || %s",
            (Jsonb({"winner": "Nora", "finished": True, "left": 1}),),
        )
    # The open page changes by itself (server-sent events): no reload here.
    WebDriverWait(driver, 60).until(lambda d: js_text(d, "#winner"))
    assert js_text(driver, "#winner") == "Ganador: Nora"
    rows = js_text(driver, "#results").splitlines()
    assert rows[0].split() == ["1.º", "Nora", "700"] and len(rows) == 3, rows
    text = js_text(driver, "body")
    assert "Nivel" not in text and "Descanso" not in text and not re.search(r"\d\d:\d\d", text)
    no_english(text)
    shot(driver, "floor-clock-final-es.png", tmp_path)


def test_the_dashboard_on_a_tablet_in_spanish_updates_itself(
    web: FloorWeb, browser: Any, axe: str, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser
    driver.set_script_timeout(60)
    viewport(driver, 1280, 800)
    driver.get(f"{web.url}/login?lang=es")
    assert not serious(driver, axe)
    driver.find_element(By.ID, "badge").send_keys("floor1")
    driver.find_element(By.ID, "pin").send_keys("1234")
    driver.find_element(By.ID, "login").click()
    WebDriverWait(driver, 60).until(lambda d: js_text(d, "#alerts"))
    text = js_text(driver, "body")
    no_english(text)
    assert "1 mano" in text and "1 manos" not in text and "0 manos" in text
    assert "1 asiento libre" in text and "1 asientos libres" not in text
    assert "Dispositivo averiado: shoe" in text  # the fault's English detail is left out
    assert "HG-13" not in text and "recompra" not in text  # a cash game's alert, in a tournament
    assert "Mesa T1: El asiento 4 llama a la sala" in text or "Mesa T1:" in text
    assert "TDA-17: el reloj de niveles arranca a la vez en 2 mesas." in text
    assert "Nora pasa a la mesa T1, asiento 5 (sorteo de la mesa final, HG-5)." in text
    # A tall dashboard scrolls down like any page, never sideways.
    size = driver.execute_script(
        "var d=document.documentElement;return [d.scrollWidth, d.clientWidth, innerWidth]"
    )
    assert size[0] == size[1] and size[2] == 1280, size
    styles = driver.execute_script(
        "var b=getComputedStyle(document.querySelector('button')),"
        "i=getComputedStyle(document.getElementById('wait-player'));"
        "return [b.appearance,b.borderRadius,i.appearance,i.borderRadius,b.minHeight]"
    )
    assert styles[0] == "none" and styles[2] == "none" and styles[1] != "0px", styles
    assert float(styles[4].rstrip("px")) >= 44
    shot(driver, "floor-dashboard-1280x800-es.png", tmp_path)
    assert not serious(driver, axe)
    # A new call reaches the open page by itself, and the page is not reloaded.
    page = driver.find_element(By.TAG_NAME, "html")
    with psycopg.connect(web.conninfo, autocommit=True) as db:
        db.execute(
            "INSERT INTO table_notices (table_id, kind, text, key, params) VALUES "
            "('T2', 'call', 'Seat 7 calls the floor.', 'alert.call_floor', %s)",
            (Jsonb({"seat": 7}),),
        )
    WebDriverWait(driver, 60).until(lambda d: "Mesa T2" in js_text(d, "#alerts"))
    assert page.is_enabled()  # the same document: not reloaded
    # The hand's page shows the blinds posted before the first action.
    driver.get(f"{web.url}/hand?table=T1&seq=41&lang=es")
    actions = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#actions li")]
    assert actions[:2] == ["Bea pone 25", "Ciro pone 50"], actions
    assert not serious(driver, axe)
    driver.get(f"{web.url}/?lang=en")
    WebDriverWait(driver, 60).until(lambda d: js_text(d, "#alerts"))
    text = js_text(driver, "body")
    assert "1 hand," in text and "1 free seat," in text
    assert "Device in fault: shoe: The shoe stopped answering; check its cable." in text
    shot(driver, "floor-dashboard-1280x800-en.png", tmp_path)


def test_the_demo_in_spanish_speaks_spanish_and_serves_spanish_pages() -> None:
    """``pokertable floor --demo --lang es``: its lines and (with no browser preference)
    its pages are Spanish."""
    import signal
    import sys

    argv = ["--demo", "--lang", "es", "--tables", "2", "--players", "4", "--port", "0",
            "--start-from-dashboard"]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware.cli.main", "floor", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "empiece el torneo desde el panel" in line:
            break
    try:
        said = "".join(lines)
        assert "Panel: http://" in said and "Reloj:" in said, said
        assert not re.search(r"\b(at|Dashboard|Clock|players|registered|start)\b", said), said
        found = re.search(r"Panel: http://127\.0\.0\.1:(\d+)/", said)
        assert found is not None
        conn = http.client.HTTPConnection("127.0.0.1", int(found.group(1)), timeout=60)
        conn.request("GET", "/clock")
        page = conn.getresponse().read().decode()
        assert "<html lang='es'>" in page and "Reloj del torneo" in page
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=120)
