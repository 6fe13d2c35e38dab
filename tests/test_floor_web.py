"""The floor's web pages in a real browser: Debian's Chromium, headless, driven by selenium.

``pokertable floor --demo`` runs as its own process (its own NATS,
PostgreSQL and simulated tables); the browser logs in with the demo's badge
and PIN, sees every table with its players, and opens the public clock.
``UI_SCREENSHOTS=docs/screens`` writes the documentation's screenshots.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"


@pytest.fixture
def demo() -> Iterator[str]:
    """A running demo room; yields the web address."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "firmware.cli.main",
            "floor",
            "--demo",
            "--tables",
            "3",
            "--players",
            "20",
            "--port",
            "0",
            "--pace",
            "0.2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    url = ""
    lines = []
    for line in proc.stdout:
        lines.append(line)
        found = re.search(r"Dashboard: (http://[0-9.:]+)/", line)
        if found:
            url = found.group(1)
        if "the tournament is on" in line:
            break
    assert url, "".join(lines)
    yield url
    proc.send_signal(signal.SIGTERM)
    rest = proc.communicate(timeout=120)[0]
    assert proc.returncode == 0, "".join(lines) + rest


@pytest.fixture
def browser() -> Iterator[Any]:
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.fail("Install chromium and chromium-driver (apt-get) for the browser test.")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1280,800",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def test_staff_log_in_see_every_table_and_the_public_clock(
    demo: str, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser
    shots = Path(os.environ.get("UI_SCREENSHOTS") or tmp_path)
    wait = WebDriverWait(driver, 120)
    driver.get(demo + "/")
    # Not logged in: the dashboard sends the browser to the login form.
    assert "/login" in driver.current_url
    driver.find_element(By.ID, "badge").send_keys("floor1")
    driver.find_element(By.ID, "pin").send_keys("9999")
    driver.find_element(By.ID, "login").click()
    # The answer page may not be loaded yet right after the click (a loaded machine).
    error = wait.until(lambda d: d.find_elements(By.ID, "error"))[0].text
    assert "Wrong badge or PIN" in error
    driver.find_element(By.ID, "badge").send_keys("floor1")
    driver.find_element(By.ID, "pin").send_keys("1234")
    driver.find_element(By.ID, "login").click()
    wait.until(lambda d: d.find_elements(By.ID, "user"))
    assert "Demo Floor" in driver.find_element(By.ID, "user").text

    def three_tables_with_players(d: Any) -> bool:
        cards = d.find_elements(By.CSS_SELECTOR, ".table")
        return len(cards) == 3 and all("Player" in c.text for c in cards)

    wait.until(three_tables_with_players)
    text = driver.find_element(By.TAG_NAME, "body").text
    assert re.search(r"Table T1: \d+ hands", text)
    driver.save_screenshot(str(shots / "floor-dashboard.png"))

    driver.get(demo + "/clock?lang=es")
    wait.until(lambda d: d.find_elements(By.ID, "level"))
    level = driver.find_element(By.ID, "level").text
    assert re.fullmatch(r"Nivel \d+: ciegas \d+/\d+, ante \d+|Descanso", level), level
    assert re.fullmatch(r"\d\d:\d\d", driver.find_element(By.ID, "time").text)
    assert "de 20" in driver.find_element(By.ID, "players").text
    payouts = driver.find_elements(By.CSS_SELECTOR, "#payouts tr")
    assert len(payouts) == 5  # 20 entries: five places paid (FLOOR-PAY)
    driver.save_screenshot(str(shots / "floor-clock.png"))
    assert (shots / "floor-clock.png").stat().st_size > 5000
