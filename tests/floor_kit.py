"""Real servers for the floor's tests: a throw-away NATS (JetStream) and PostgreSQL.

Each test module that imports these fixtures starts its own servers in a
temporary folder (``firmware.floor.servers``), the way the PC/SC tests start
their own pcscd. PostgreSQL is started once per module; every test gets a
fresh database in it.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from firmware.floor.servers import NatsServer, PostgresServer

_databases = itertools.count(1)


@pytest.fixture
def nats_server(tmp_path: Path) -> Iterator[NatsServer]:
    """A NATS server with JetStream, its store in the test's folder."""
    server = NatsServer(tmp_path / "nats").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def pg_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for the module (socket only)."""
    server = PostgresServer.temporary().start()
    yield server
    server.stop()


@pytest.fixture
def pg_conninfo(pg_server: PostgresServer) -> str:
    """A fresh, empty database on the module's server."""
    name = f"floor_test_{next(_databases)}"
    with psycopg.connect(pg_server.conninfo, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return pg_server.conninfo.replace("dbname=postgres", f"dbname={name}")


def wait_until(check: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Wait (on events where the code offers them, here by polling) until ``check()``."""
    done = threading.Event()
    deadline = 0.0
    while not check():
        deadline += 0.02
        if deadline > timeout:
            return False
        done.wait(0.02)
    return True


def run(coro: Any) -> Any:
    """Run a coroutine to its end on a fresh event loop."""
    return asyncio.run(coro)


TOURNAMENT_LEVELS: list[dict[str, Any]] = [
    {"small_blind": sb, "big_blind": 2 * sb, "minutes": 0.1} for sb in (10, 25, 50, 100, 200, 500)
] + [{"small_blind": 2000, "big_blind": 4000, "minutes": 600}]
"""Six 6-second levels, then one that lasts: a small tournament ends within the
fast levels, and the last level keeps it from running out of structure."""

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"


@pytest.fixture
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by selenium (the dashboard's tests)."""
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
        "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1280,1000",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


async def ingest_bodies(conninfo: str, bodies: list[bytes]) -> list[Any]:
    """Ingest journal bodies through the floor's real ingest, in batches of 200 as the
    stream delivers them; what each changed (``Ingested``) or why not (a string)."""
    from firmware.floor.store.ingest import Ingestor
    from firmware.floor.store.intake import Incoming

    conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    try:
        ingestor = Ingestor(conn)
        outcomes: list[Any] = []
        for start in range(0, len(bodies), 200):
            batch = [Incoming.trusted(b) for b in bodies[start : start + 200]]
            outcomes.extend(await ingestor.ingest_batch(batch))
        return outcomes
    finally:
        await conn.close()
