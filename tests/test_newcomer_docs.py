"""Commands a newcomer copies from the docs work as written (fresh-eyes review)."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

POKERTABLE = pathlib.Path(sys.executable).parent / "pokertable"
ROOT = pathlib.Path(__file__).resolve().parent.parent
GUARD = 120.0
"""A bound so a command that hangs fails the test instead of hanging it."""


def run(*args: str, cwd: pathlib.Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(POKERTABLE), *args],
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
        cwd=cwd,
        env={k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"},
    )


def walkthrough_files(folder: pathlib.Path) -> pathlib.Path:
    """docs/run-the-game.md's two files, written into ``folder``; the table's path."""
    doc = (ROOT / "docs" / "run-the-game.md").read_text(encoding="utf-8")
    levels, table = re.findall(r"^```toml\n(.*?)^```", doc, flags=re.M | re.S)[:2]
    (folder / "levels.toml").write_text(levels)
    (folder / "table.toml").write_text(table)
    return folder / "table.toml"


def test_diag_tests_the_walkthroughs_devices(tmp_path: pathlib.Path) -> None:
    """The walkthrough's devices have display names; diag used to refuse them ("the
    virtual shoe takes no options, not display_name") where config check and serve
    accept them."""
    config = walkthrough_files(tmp_path)
    assert run("config", "check", str(config)).returncode == 0
    result = run("diag", "--config", str(config), "--data", str(tmp_path / "data"), "--json")
    assert "display_name" not in result.stderr, result.stderr
    report = json.loads(result.stdout)
    tested = {item["device"] for item in report["items"]}
    assert {"deck", "readers"} <= tested, report
    one = run("diag", "--config", str(config), "--device", "deck", "--data", str(tmp_path))
    assert "display_name" not in one.stderr, one.stderr


def test_diag_names_a_configuration_that_is_not_text(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "table.toml"
    config.write_bytes(b"\xff\xfe[devices]\n")
    result = run("diag", "--config", str(config))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and str(config) in result.stderr, result.stderr


def test_status_without_a_status_file_says_how_to_get_one(tmp_path: pathlib.Path) -> None:
    """'pokertable status' said only "not running" about a running table. A serve started
    by hand now writes its status in its data folder and status finds it
    (tests/test_serve_lock.py); where none is found, the sentence names the file looked
    at and says how to start the controller or point status at another's folder."""
    missing = tmp_path / "status.json"
    result = run("status", "--file", str(missing))
    assert result.returncode == 3
    assert str(missing) in result.stderr and "--data" in result.stderr, result.stderr
    assert "systemctl start pokertable" in result.stderr, result.stderr
