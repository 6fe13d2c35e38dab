"""The floor's money pages in Debian's Chromium (issue 25): the players' sessions of a day
and the jackpot board, in Spanish and English, for the floor staff only where they show
players' money, with no serious or critical axe-core violation; and the room's shift
report downloaded as CSV with the figures of the accountant's view.

The store holds the night of ``tests/test_floor_accounting.py`` (two cash tables played
by the real table, ingested through the floor's ingest, with the money records of
MONEY.md), so the pages show what the views compute from real records.
"""

from __future__ import annotations

import csv
import http.client
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from firmware.floor.store import books, dashboard
from firmware.floor.store.ingest import Ingested
from firmware.floor.web.app import FloorWeb
from firmware.protocol.auth import StaffDirectory
from tests.floor_kit import ingest_bodies, pg_conninfo, pg_server, run
from tests.floor_login import session_cookie
from tests.test_floor_accounting import ZONE, _play_t1, _play_t2
from tests.test_floor_pages_browser import axe, js_text, no_english, serious, viewport

__all__ = ["axe", "pg_conninfo", "pg_server"]

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

NIGHT_DAY = "2026-03-09"
"""The Lima day the night's tables opened on (23:00, 9 March)."""


@pytest.fixture
def web(pg_conninfo: str, tmp_path: Path) -> Iterator[FloorWeb]:
    dashboard.create_schema(pg_conninfo)  # the migrations make every table
    books.set_room_zone(pg_conninfo, ZONE)
    for night in (_play_t1(tmp_path / "T1"), _play_t2(tmp_path / "T2")):
        done = run(ingest_bodies(pg_conninfo, night.bodies()))
        assert all(isinstance(o, Ingested) for o in done)
    staff = StaffDirectory()
    staff.add("floor1", "Flor", "floor", "1234")
    staff.add("tech1", "Teo", "technician", "1234")
    server = FloorWeb(pg_conninfo, staff, lang="en")
    server.start()
    yield server
    server.stop()


def _login(driver: Any, web: FloorWeb, badge: str, lang: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(f"{web.url}/login?lang={lang}")
    driver.find_element(By.ID, "badge").send_keys(badge)
    driver.find_element(By.ID, "pin").send_keys("1234")
    driver.find_element(By.ID, "login").click()
    WebDriverWait(driver, 60).until(lambda d: js_text(d, "#jackpot-link"))


def _view(conninfo: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(conninfo) as conn:
        return list(conn.execute(sql).fetchall())


def test_the_sessions_page_lists_the_days_stays_for_the_floor_only(
    web: FloorWeb, browser: Any, axe: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser
    driver.set_script_timeout(60)
    viewport(driver, 1280, 800)
    _login(driver, web, "floor1", "es")
    driver.find_element(By.ID, "sessions-link").click()
    WebDriverWait(driver, 60).until(lambda d: js_text(d, "h1") == "Sesiones de jugadores")
    day = driver.find_element(By.ID, "day")
    driver.execute_script("arguments[0].value = arguments[1]", day, NIGHT_DAY)
    driver.find_element(By.ID, "show").click()
    WebDriverWait(driver, 60).until(lambda d: js_text(d, "#sessions caption"))
    expected = _view(
        web.conninfo,
        f"SELECT player, card, table_id, buy_in, rebuys, cash_out, hands FROM player_sessions "
        f"WHERE day = '{NIGHT_DAY}' ORDER BY sat_at, table_id, seat",
    )
    assert len(expected) >= 4  # the night's tables opened before midnight
    rows = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in driver.find_elements(By.CSS_SELECTOR, "#sessions tbody tr")
    ]
    shown = [(r[0], r[1], r[2], r[6], r[7], r[8], r[9]) for r in rows]
    assert shown == [
        (p, c or "—", t, str(b), str(rb), "—" if co is None else str(co), str(h))
        for p, c, t, b, rb, co, h in expected
    ]
    text = js_text(driver, "body")
    no_english(text.replace("Fede", ""))
    assert f"Sesiones del {NIGHT_DAY}: {len(expected)}" in text and "Compra inicial" in text
    assert "♠" not in text and "hole" not in driver.page_source
    assert not serious(driver, axe)
    driver.get(f"{web.url}/sessions?lang=en&day=2026-03-01")
    assert js_text(driver, "#none") == "Nobody sat at a cash table on 2026-03-01."
    assert not serious(driver, axe)
    # A technician sees neither the link nor the page (players' money is the floor's).
    driver.delete_all_cookies()
    _login(driver, web, "tech1", "en")
    assert not driver.find_elements(By.ID, "sessions-link")
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=60)
    conn.request("GET", "/sessions", headers={"Cookie": session_cookie(web.port, "tech1")})
    assert conn.getresponse().status == 403


def test_the_jackpot_board_shows_the_fund_and_the_last_awards(
    web: FloorWeb, browser: Any, axe: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser
    driver.set_script_timeout(60)
    viewport(driver, 1280, 800)
    _login(driver, web, "tech1", "es")  # any staff reads the board
    driver.find_element(By.ID, "jackpot-link").click()
    WebDriverWait(driver, 60).until(lambda d: js_text(d, "#balance"))
    ((dropped, paid, promotions, balance),) = _view(
        web.conninfo, "SELECT dropped, bad_beat_paid, promotions_paid, balance FROM jackpot_fund"
    )
    assert (paid, promotions) == (900, 250)  # the reserve share stays in the fund
    assert js_text(driver, "#balance") == str(balance)
    assert js_text(driver, "#dropped") == str(dropped)
    assert js_text(driver, "#paid") == "900" and js_text(driver, "#promotions") == "250"
    rows = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in driver.find_elements(By.CSS_SELECTOR, "#awards tbody tr")
    ]
    assert [(r[1], r[2], r[3], r[5], r[6], r[7]) for r in rows] == [
        ("T2", "Mano alta", "10", "C-ANA", "mano alta", "250"),
        ("T2", "Jackpot de mala racha", "9", "C-EVA", "mano perdedora", "600"),
        ("T2", "Jackpot de mala racha", "9", "C-ANA", "mano ganadora", "300"),
        ("T2", "Jackpot de mala racha", "9", "—", "reserva", "100"),
    ]
    assert rows[0][0].startswith("2026-03-")  # the room's clock, not UTC's
    no_english(js_text(driver, "body"))
    assert not serious(driver, axe)
    driver.get(f"{web.url}/jackpot?lang=en")
    text = js_text(driver, "body")
    assert "Bad-beat jackpot" in text and "losing hand" in text and "The fund now" in text
    assert not serious(driver, axe)


def test_the_room_shift_report_downloads_as_csv_with_the_views_figures(web: FloorWeb) -> None:
    cookie = session_cookie(web.port, "floor1")
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=60)
    for query, view in (("", "room_shift_report"), ("?by=table", "table_shifts")):
        conn.request("GET", f"/shifts.csv{query}", headers={"Cookie": cookie})
        response = conn.getresponse()
        body = response.read().decode()
        assert response.status == 200
        assert response.getheader("Content-Type") == "text/csv; charset=utf-8"
        assert "attachment" in (response.getheader("Content-Disposition") or "")
        lines = list(csv.DictReader(io.StringIO(body)))
        expected = _view(web.conninfo, f"SELECT rake, cash_drop, difference FROM {view}")
        got = [(r["rake"], r["cash_drop"], r["difference"]) for r in lines]
        assert sorted(got) == sorted(
            (str(a), str(b), "" if c is None else str(c)) for a, b, c in expected
        )
    room = next(csv.DictReader(io.StringIO(body.replace("\r\n", "\n"))))
    assert room["table_id"] in ("T1", "T2")
    conn.request("GET", "/shifts.csv", headers={"Cookie": session_cookie(web.port, "tech1")})
    assert conn.getresponse().status == 403
