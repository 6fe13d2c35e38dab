"""``pokertable replay`` on bad input: an error line per bad hand or path, the rest replayed.

Each case is input a user could really give the command: too many players
for a deck, absurd stacks, bytes that are not UTF-8, huge numbers in an
action, symbolic-link loops, missing paths, empty files and folders.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from firmware.cli.replay import main_replay, replay_paths
from firmware.engine.histories.amounts import MAX_CHIPS

GOOD = """variant = "NT"
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [100, 100]
actions = ["d dh p1 AcKd", "d dh p2 2c3d", "p2 f"]
finishing_stacks = [101, 99]
"""


def _players(n: int) -> str:
    deal = ", ".join(f'"d dh p{i + 1} ????"' for i in range(n))
    return (
        f'variant = "NT"\nantes = {[0] * n}\nblinds_or_straddles = {[1, 2] + [0] * (n - 2)}\n'
        f"min_bet = 2\nstarting_stacks = {[100] * n}\nactions = [{deal}]\n"
    )


CASES = {
    "eleven_players.phh": (_players(11).encode(), "at most 10 players"),
    "thirty_players.phh": (_players(30).encode(), "at most 10 players"),
    "huge_stack.phh": (
        GOOD.replace("[100, 100]", f"[{10**30}, 100]").encode(),
        f"from 0 to {MAX_CHIPS}",
    ),
    "not_utf8.phh": (GOOD.encode().replace(b"AcKd", b"Ac\xffd"), "not UTF-8"),
    "huge_bet.phh": (GOOD.replace("p2 f", "p2 cbr " + "9" * 5000).encode(), "action 2"),
    "empty.phh": (b"", "empty"),
    "nested.phh": (b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n", "cannot hold"),
    "float_nan.phh": (GOOD.replace("min_bet = 2", "min_bet = nan").encode(), "min_bet"),
    "negative_stack.phh": (GOOD.replace("[100, 100]", "[100, -1]").encode(), "from 0"),
    "long_line.phh": (GOOD.replace("p2 f", "p2 " + "f" * 1_000_000).encode(), "action 2"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_file_is_an_error_line_and_the_good_one_still_replays(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, what = CASES[name]
    (tmp_path / name).write_bytes(data)
    (tmp_path / "good.phh").write_text(GOOD)
    status = main_replay([str(tmp_path / name), str(tmp_path / "good.phh")])
    out, err = capsys.readouterr()
    assert status == 1
    assert "Traceback" not in err
    lines = [json.loads(line) for line in out.splitlines()]
    bad = [line for line in lines if not line["ok"]]
    assert len(bad) == 1 and bad[0]["file"].endswith(name), lines
    assert what in bad[0]["error"] and name in bad[0]["error"]
    assert [line["file"] for line in lines if line["ok"]] == [str(tmp_path / "good.phh")]
    assert len(err.strip().splitlines()) == 1


def test_missing_path_first_does_not_stop_the_good_ones(tmp_path: Path) -> None:
    (tmp_path / "good.phh").write_text(GOOD)
    lines = list(replay_paths([str(tmp_path / "missing.phh"), str(tmp_path / "good.phh")]))
    assert [line["ok"] for line in lines] == [False, True]
    assert "does not exist" in lines[0]["error"]


def test_symlink_loops_are_reported_not_skipped(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "good.phh").write_text(GOOD)
    os.symlink("..", tmp_path / "a" / "up")
    os.symlink("self.phh", tmp_path / "self.phh")
    lines = list(replay_paths([str(tmp_path), str(tmp_path / "self.phh")]))
    errors = [line["error"] for line in lines if not line["ok"]]
    assert any("links back to a folder already searched" in e for e in errors), errors
    assert sum("symbolic-link loop" in e for e in errors) == 3, errors
    assert [line["file"] for line in lines if line["ok"]] == [str(tmp_path / "a" / "good.phh")]


def test_a_folder_without_hands_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a hand")
    lines = list(replay_paths([str(tmp_path)]))
    assert len(lines) == 1 and not lines[0]["ok"]
    assert "holds no hand history" in lines[0]["error"]
