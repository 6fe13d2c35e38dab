"""The floor's web pages in a real browser: Debian's Chromium, headless, driven by selenium.

``pokertable floor --demo --start-from-dashboard --confirm-moves`` runs as
its own process (its own NATS, PostgreSQL and simulated tables). A floor
person logs in with the demo's badge and PIN, starts the tournament, puts a
player on the waiting list, acknowledges a table's floor call, confirms the
seat moves the director plans, pauses and resumes, browses a hand, and the
public clock shows the level and the pause, in English and Spanish.
``UI_SCREENSHOTS=docs/screens`` writes the documentation's screenshots.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

DEMO = (
    "--demo", "--tables", "3", "--players", "20", "--port", "0", "--pace", "0.1",
    "--start-from-dashboard", "--confirm-moves",
)  # fmt: skip


@pytest.fixture
def demo() -> Iterator[dict[str, str]]:
    """A running demo room waiting for the floor to start; yields its addresses."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware.cli.main", "floor", *DEMO],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    found: dict[str, str] = {}
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if web := re.search(r"Dashboard: (http://[0-9.:]+)/", line):
            found["web"] = web.group(1)
        if nats := re.search(r"NATS \(JetStream\) at (nats://[0-9.:]+);", line):
            found["nats"] = nats.group(1)
        if "start the tournament from the dashboard" in line:
            break
    assert set(found) == {"web", "nats"}, "".join(lines)
    yield found
    proc.send_signal(signal.SIGTERM)
    rest = proc.communicate(timeout=120)[0]
    assert proc.returncode == 0, "".join(lines) + rest


async def _table_calls_the_floor(url: str, call: bool = True) -> None:
    """What table T2's link publishes when seat 4 calls the floor and its shoe fails.

    (The real T2's link keeps sending its own state, with no fault, every ten
    seconds: the checks of the fault send it again before they look.)
    """
    import nats

    nc = await nats.connect(url)
    alert = {"time": 1.0, "text": "Seat 4 calls the floor.", "device": "seat4",
             "key": "alert.call_floor", "params": {"seat": 4}}  # fmt: skip
    body = {
        "table": "T2",
        "faults": {"shoe": "The shoe stopped answering; check its cable."},
        "alerts": [alert] if call else [],
    }
    await nc.publish("floor.notices.T2", msgpack.packb(body))
    await nc.flush()
    await nc.close()


def test_floor_person_runs_the_room_from_the_browser(
    demo: dict[str, str], browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser
    base = demo["web"]
    shots = Path(os.environ.get("UI_SCREENSHOTS") or tmp_path)

    def shot(name: str) -> None:
        driver.save_screenshot(str(shots / name))
        assert (shots / name).stat().st_size > 5000

    def until(path: str, check: Callable[[Any], Any], patience: float = 600) -> None:
        """Reload ``path`` until ``check(driver)`` holds (the room plays meanwhile)."""

        def again(d: Any) -> Any:
            d.get(base + path)
            return check(d)

        WebDriverWait(driver, patience, poll_frequency=1).until(again)

    def click(target: Any) -> None:
        """Click a button or link by id, CSS selector (``css:...``) or the element, and wait
        for the next page. The dashboard's live part is replaced when the room changes
        (server-sent events): an element found just before is looked up again, and a click
        that landed while the live part was being replaced (the page stayed, the button is
        gone) is made again on the new button."""
        from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

        def gone(element: Any) -> bool:
            try:
                element.is_enabled()  # raises once the element is stale or detached
            except WebDriverException:
                return True
            return False

        old = driver.find_element(By.TAG_NAME, "html")
        for _ in range(20):
            if isinstance(target, str) and target.startswith("css:"):
                element = driver.find_element(By.CSS_SELECTOR, target[4:])
            else:
                element = driver.find_element(By.ID, target) if isinstance(target, str) else target
            try:
                element.click()
            except StaleElementReferenceException:
                continue
            # The next page (the old document is gone), or the live part replaced under the
            # click (the document stays, the button does not): then click the new one.
            clicked = element
            WebDriverWait(driver, 600).until(lambda _, e=clicked: gone(old) or gone(e))
            if gone(old) or not isinstance(target, str):
                return
        raise AssertionError(f"the click on {target} never led to the next page")

    def type_into(ident: str, words: str) -> None:
        """Type into a field of the live part (replaced when the room changes, until a
        field holds text: then it waits), again if it was replaced meanwhile."""
        from selenium.common.exceptions import StaleElementReferenceException

        for _ in range(10):
            try:
                field = driver.find_element(By.ID, ident)
                field.clear()
                field.send_keys(words)
                if field.get_attribute("value") == words:
                    return
            except StaleElementReferenceException:
                continue
        raise AssertionError(f"could not type into #{ident}")

    def text(ident: str) -> str:
        """An element's text, read in one step (live parts are replaced every second)."""
        found = driver.execute_script(
            "var x=document.getElementById(arguments[0]);return x?x.innerText:null", ident
        )
        assert found is not None, f"the page has no #{ident}"
        return str(found).strip()

    def body() -> str:
        return str(driver.find_element(By.TAG_NAME, "body").text)

    driver.get(base + "/")
    assert "/login" in driver.current_url  # not logged in: sent to the login form
    driver.get(base + "/login?lang=es")
    driver.find_element(By.ID, "badge").send_keys("floor1")
    driver.find_element(By.ID, "pin").send_keys("9999")
    click("login")
    assert text("error") == "Tarjeta o PIN incorrectos; inténtelo de nuevo."
    driver.get(base + "/login?lang=en")
    driver.find_element(By.ID, "badge").send_keys("floor1")
    driver.find_element(By.ID, "pin").send_keys("1234")
    click("login")
    assert "Demo Floor" in text("user")
    driver.get(base + "/?refresh=0")
    assert text("t-status") == "Not started: 20 players registered."
    click("t-start")
    assert text("flash") == "The tournament has started: seats drawn and clocks running."

    # A late registration (FLOOR-LATE, open for the demo's first two one-minute levels):
    # the player sits down at the table drawn.
    assert text("entries-status") == "Open until the end of level 2. Up to 2 entries per player."
    type_into("entry-player", "Late Lucas")
    click("entry-late")
    late = re.fullmatch(
        r"Late registration: Late Lucas drew table (T\d), seat (\d+)\.", text("flash")
    )
    assert late, text("flash")
    drawn = f"table-{late.group(1)}"
    until("/?refresh=0", lambda d: "Late Lucas" in text(drawn))

    def three_tables_playing(d: Any) -> bool:
        cards = d.find_elements(By.CSS_SELECTOR, ".table")
        return len(cards) == 3 and all("Player" in c.text for c in cards)

    until("/?refresh=0", three_tables_playing)
    assert re.search(r"Table T1\n\d+ hands?, \d+ free seats?, record \d+", body())

    # Table T2 calls the floor and reports its shoe: both appear, the call first.
    asyncio.run(_table_calls_the_floor(demo["nats"]))
    until("/?refresh=0", lambda d: "Seat 4 calls the floor." in body())

    def fault_shown(words: str) -> Callable[[Any], bool]:
        def check(d: Any) -> bool:
            if words in text("table-T2"):
                return True
            asyncio.run(_table_calls_the_floor(demo["nats"], call=False))
            return False

        return check

    until("/?refresh=0", fault_shown("Device in fault: shoe: The shoe stopped answering"))
    # The waiting list: a player for the game the tables run.
    type_into("wait-game", "MTT")
    type_into("wait-player", "Lucía Pérez")
    click("wait-add")
    assert text("flash") == "Lucía Pérez is waiting for MTT."
    assert "Lucía Pérez" in text("waiting")

    # Players bust; the director plans the moves and waits for the floor.
    fault = fault_shown("Device in fault: shoe")
    until("/?refresh=0", lambda d: d.find_elements(By.ID, "plan-apply") and fault(d))
    driver.set_window_size(1280, 1700)  # the whole dashboard in the screenshot
    shot("floor-dashboard.png")
    driver.set_window_size(1280, 1000)
    for _ in range(50):
        until("/?refresh=0", lambda d: d.find_elements(By.ID, "plan-apply"))
        planned = text("plan")
        assert re.search(r"TDA-25: move|TDA-24: break table|HG-5: final table", planned)
        click("plan-apply")
        if driver.find_elements(By.ID, "confirm-steps"):
            break
        # A hand ended between the two pages and changed the plan: look again.
        assert text("error").startswith("The room changed since the plan was shown")
    steps = text("confirm-steps")
    assert steps and steps in planned
    shot("floor-confirm.png")
    click("confirm")
    flash = text("flash")
    assert re.fullmatch(r"Applied: \d+ step\(s\)\.|The room changed since .*", flash), flash

    # Acknowledge the floor call.
    click("css:li.call button")
    assert text("flash") == "Acknowledged."
    assert "Seat 4 calls the floor." not in body()

    # Pause: the public clock stops and says so, in Spanish too.
    click("t-pause")
    assert text("flash").startswith("The tournament is paused")
    driver.get(base + "/clock?lang=es")
    assert text("paused") == "El reloj está en pausa."
    level = text("level")
    assert re.fullmatch(r"Nivel \d+|Descanso", level), level
    assert re.fullmatch(r"\d\d:\d\d", text("time"))
    assert "/21" in text("players")  # 20 registered and one late
    # FLOOR-PAY: 21 entries (20 and the late one) pay nine places (up to 20: five).
    assert len(driver.find_elements(By.CSS_SELECTOR, "#payouts tr")) == 9
    shot("floor-clock-es.png")
    driver.get(base + "/?refresh=0")
    click("t-resume")
    assert text("flash") == "The tournament goes on."
    driver.get(base + "/clock")
    assert not driver.find_elements(By.ID, "paused")
    assert text("players").startswith("Players")
    shot("floor-clock.png")

    # Every table's hands: the list, then one hand as the table recorded it.
    driver.get(base + "/hands?table=T1")
    links = driver.find_elements(By.CSS_SELECTOR, "#hands a")
    assert links and re.match(r"Hand \d+: pot \d+, won by ", links[0].text)
    click(links[0])
    assert re.fullmatch(r"Table T1, hand \d+", text("hand-title"))
    actions = driver.find_element(By.ID, "actions").text
    assert re.search(r"folds|checks|calls|bets|raises", actions), actions
    shot("floor-hand.png")
    driver.get(driver.current_url.replace("lang=en", "lang=es"))
    assert re.fullmatch(r"Mesa T1, mano \d+", text("hand-title"))
    actions = driver.find_element(By.ID, "actions").text
    assert re.search(r"se retira|pasa|iguala|apuesta|sube", actions), actions
    assert not re.search(r"\b(show|muck|fold|check)\b", actions), actions
    shot("floor-hand-es.png")
    until("/?lang=es&refresh=0", fault_shown("Dispositivo averiado: shoe"))
    assert "Lista de espera" in body() and "Lucía Pérez" in text("waiting")
    driver.set_window_size(1280, 1700)
    shot("floor-dashboard-es.png")
