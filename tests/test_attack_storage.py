"""A damaged database in the data directory (fresh-eyes review): ``pokertable serve`` and
``pokertable history`` name the file and what to do, instead of SQLite's bare
"file is not a database"."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

POKERTABLE = pathlib.Path(sys.executable).parent / "pokertable"
GUARD = 120.0
"""A bound so a command that hangs fails the test instead of hanging it."""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(POKERTABLE), *args],
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"},
    )


@pytest.mark.parametrize("name", ["history.sqlite", "meters.sqlite", "tags.sqlite"])
def test_serve_names_a_damaged_database(tmp_path: pathlib.Path, name: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    damaged = data / name
    damaged.write_bytes(b"this is no SQLite database, it was overwritten" * 100)
    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\nprofile = "home"\n[devices.deck]\nkind = "shoe"\nbackend = "virtual"\n'
        f'[server]\nsocket = "{tmp_path / "t.sock"}"\n'
        '[terminals]\nseat1 = "seat1-secret-0123456789"\n'
    )
    result = run("serve", "--config", str(config), "--data", str(data))
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert str(damaged) in result.stderr and "move it aside" in result.stderr, result.stderr
    assert damaged.read_bytes().startswith(b"this is no SQLite")  # left as it was


def test_history_names_a_damaged_database(tmp_path: pathlib.Path) -> None:
    damaged = tmp_path / "history.sqlite"
    damaged.write_bytes(b"garbage" * 1000)
    result = run("history", "--db", str(damaged), "list")
    assert result.returncode == 1
    assert str(damaged) in result.stderr and "move it aside" in result.stderr, result.stderr


def test_history_errors_go_to_stderr_not_into_the_export(tmp_path: pathlib.Path) -> None:
    """``history show 7 --format phh > hand.phh`` must not write the error into hand.phh."""
    db = tmp_path / "history.sqlite"
    from firmware.service.history import HandHistory

    HandHistory(str(db)).close()  # an empty history
    for fmt in ("json", "phh", "pokerstars", "script"):
        result = run("history", "--db", str(db), "show", "7", "--format", fmt)
        assert result.returncode == 1
        assert result.stdout == "", (fmt, result.stdout)
        assert "7" in result.stderr, (fmt, result.stderr)


def test_a_full_history_database_does_not_turn_a_journaled_event_into_a_refusal(
    tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The history is written by a hand listener after the event is journaled and applied.
    When its database was full (SQLITE_FULL), the listener's error escaped: the floor's
    void was answered 'refused' (table.internal) although it was journaled and had ended
    the hand. Now the request is answered ok, the error is logged, and the journal (from
    which the history can be rebuilt) holds the hand."""
    import logging
    import time

    from firmware.protocol.limits import Limits
    from firmware.service.history import HandHistory
    from firmware.service.journal import Journal
    from tests.hardening_kit import JournaledRig, answer

    rig = JournaledRig(tmp_path, limits=Limits(rate=1e6, burst=10**6))
    try:
        rig.seat_players(3)
        history = HandHistory(str(tmp_path / "history.sqlite"))
        pages = history._db.execute("PRAGMA page_count").fetchone()[0]
        history._db.execute(f"PRAGMA max_page_count = {pages}")  # full: SQLITE_FULL
        rig.on_loop(lambda: rig.table.hand_listeners.append(history.listener(time.time)))
        console = rig.console("floor")
        for report in ("shuffle", "cut"):
            console.send({"type": "report", "report": report})
            assert answer(console)["type"] == "ok"
        with caplog.at_level(logging.ERROR, logger="firmware.service.history"):
            console.send({"type": "override", "override": "void", "reason": "test"})
            assert answer(console) == {"type": "ok", "request": "override:void"}
        assert rig.table.hand is None
        reader = Journal(rig.journal.path)
        assert [e.kind for e in reader.events()][-1] == "void"
        reader.close()
        assert any("hand history" in r.getMessage() for r in caplog.records)
        history.close()
    finally:
        rig.stop()
