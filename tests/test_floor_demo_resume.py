"""A demo stopped with Ctrl-C and started again on the same data goes on where it was.

``pokertable floor --demo --data DIR`` keeps NATS's store, PostgreSQL's data
and every simulated table's journal in ``DIR``. The first run is stopped (the
terminal's Ctrl-C) once the store shows a player out; the
second run on the same folder rebuilds the tables from their journals and the
director from the store, says so, and plays the same tournament to its end:
the players already out keep their places, nobody is registered twice, every
player is placed once (players out in one hand with equal stacks share a
place), the pool is paid exactly and every table's hands are stored once. A
third start on the finished tournament says it is over instead of dealing a
new one.

The waits are on the demo's own lines and on the store's rows, never on the
clock: a demo that exits early ends the wait with what it printed, and a
resumed room in which nothing is stored for :data:`PATIENCE` looks in a row is
stopped and fails the test with what it printed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from firmware.floor.servers import PostgresServer

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

PLAYERS = 8
BUY_IN = 100  # the demo's tournament
POLL = 0.1
"""Seconds between two looks at the store."""
PATIENCE = 1200
"""Looks in a row with nothing stored before a resumed room counts as standing still
(two minutes: a playing room stores a hand every second or so)."""
COMMAND = ["floor", "--demo", "--tables", "2", "--players", str(PLAYERS), "--seats", "5",
           "--port", "0", "--pace", "0.01"]  # fmt: skip


@pytest.fixture
def data() -> Iterator[Path]:
    """The demo's kept folder (in the system's temporary directory: as root, PostgreSQL
    runs as ``nobody``, who cannot enter pytest's private folders)."""
    top = Path(tempfile.mkdtemp(prefix="pokertable-demo-"))
    os.chmod(top, 0o755)
    yield top / "room"
    shutil.rmtree(top, ignore_errors=True)


def _demo(data: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "firmware.cli.main", *COMMAND, "--data", str(data), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, like a shell's foreground job
    )


def _store(data: Path) -> str:
    """The running demo's PostgreSQL (its socket in the kept folder)."""
    sockets = [p for p in (data / "pg").glob(".s.PGSQL.*") if not p.name.endswith(".lock")]
    assert len(sockets) == 1, sockets
    port = sockets[0].name.rsplit(".", 1)[1]
    return f"host={data / 'pg'} port={port} user=postgres dbname=postgres"


def _covered(places: list[int]) -> list[int]:
    """The finishing positions the places cover: a place shared by k players (busted in
    one hand with equal stacks) covers it and the k - 1 below it."""
    covered: list[int] = []
    for place in sorted(set(places)):
        covered.extend(range(place, place + places.count(place)))
    return sorted(covered)


def _first_out(conninfo: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(conninfo) as conn:
        return conn.execute(
            "SELECT player_id, place FROM registrations WHERE place IS NOT NULL"
        ).fetchall()


def _progress(conninfo: str) -> tuple[int, ...]:
    """Counters that grow while the room plays: hands stored, players placed."""
    with psycopg.connect(conninfo) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM hands), "
            "(SELECT count(*) FROM registrations WHERE place IS NOT NULL)"
        ).fetchone()
    assert row is not None
    return tuple(int(v) for v in row)


def _to_the_end(proc: subprocess.Popen[str], data: Path) -> str:
    """Wait for the demo to exit; a demo whose room stands still (no hand stored, nobody
    placed) for :data:`PATIENCE` looks in a row is stopped and the test fails with what
    it printed, instead of waiting for ever."""
    last: tuple[int, ...] = ()
    quiet = 0
    while proc.poll() is None:
        time.sleep(POLL)
        try:
            now = _progress(_store(data))
        except (psycopg.Error, AssertionError):  # starting or stopping: no store to ask
            continue
        quiet = quiet + 1 if now == last else 0
        last = now
        if quiet >= PATIENCE:
            os.killpg(proc.pid, signal.SIGINT)
            said = proc.communicate()[0]
            raise AssertionError(f"The resumed room stood still at {now}:\n{said}")
    return proc.communicate()[0]


def _stop_when_someone_is_out(
    proc: subprocess.Popen[str], data: Path
) -> tuple[str, dict[Any, Any]]:
    """Read the demo's lines until the tournament is on; then watch the store until a
    player is out; Ctrl-C. Returns everything printed and the places stored then."""
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "the tournament is on" in line:
            break
    assert lines and "the tournament is on" in lines[-1], "".join(lines)
    conninfo = _store(data)
    out: list[tuple[Any, ...]] = []
    while not out and proc.poll() is None:
        time.sleep(POLL)  # between two looks at the store
        out = _first_out(conninfo)
    places = dict(_first_out(conninfo)) if proc.poll() is None else {}
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in the terminal does
    rest = proc.communicate()[0]
    return "".join(lines) + rest, places


def test_a_demo_started_again_on_its_data_resumes_its_tournament(data: Path) -> None:
    first = _demo(data)
    said, places_before = _stop_when_someone_is_out(first, data)
    assert first.returncode in (0, 130), said
    assert places_before, f"no player was out when the first run stopped:\n{said}"
    assert "Traceback" not in said, said

    second = _demo(data, "--exit-when-done")
    said = _to_the_end(second, data)
    assert second.returncode == 0, said
    assert "Traceback" not in said, said
    assert "The tournament goes on where it was" in said, said
    assert "drawn over" not in said, "the second run drew a new tournament:\n" + said
    assert "wins the tournament" in said, said

    pg = PostgresServer(data / "pg").start()  # the demo's store, to read what it kept
    try:
        with psycopg.connect(pg.conninfo) as conn:
            rows = conn.execute(
                "SELECT player_id, entry, place, prize FROM registrations "
                "WHERE tournament_id = 'demo'"
            ).fetchall()
            hands = conn.execute(
                "SELECT table_id, count(*), count(DISTINCT hand), min(hand), max(hand) "
                "FROM hands GROUP BY table_id"
            ).fetchall()
            state = conn.execute("SELECT state FROM tournaments WHERE id = 'demo'").fetchone()
            tournaments = conn.execute("SELECT count(*) FROM tournaments").fetchone()
    finally:
        pg.stop()
    assert len(rows) == PLAYERS and all(entry == 1 for _, entry, _, _ in rows), rows
    covered = _covered([place for _, _, place, _ in rows])
    assert covered == list(range(1, PLAYERS + 1)), (sorted(rows, key=lambda r: r[2]), said)
    assert sum(prize or 0 for _, _, _, prize in rows) == PLAYERS * BUY_IN, rows
    final = {player: place for player, _, place, _ in rows}
    assert all(final[player] == place for player, place in places_before.items()), (
        places_before,
        final,
    )
    assert hands, "no hand stored"
    for table, count, distinct, _low, _high in hands:
        assert count == distinct, (table, count, distinct)  # each hand stored once
    assert state is not None and state[0]["finished"] is True and state[0]["left"] == 0
    assert tournaments == (1,)

    third = _demo(data, "--exit-when-done")
    said = third.communicate()[0]
    assert third.returncode == 0, said
    assert "is over" in said and "drawn over" not in said, said
