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
