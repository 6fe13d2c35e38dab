"""The replay command (firmware.cli.replay): JSON lines, errors, exit status, --game."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from firmware.cli.replay import main_replay, replay_paths
from firmware.errors import HandHistoryError

DATA = Path(__file__).parent / "data" / "phh"

FT_HEADS_UP_FIVE_BETS = """
variant = "FT"
antes = [0, 0]
blinds_or_straddles = [1, 2]
small_bet = 2
big_bet = 4
starting_stacks = [100, 100]
actions = ["d dh p1 AcKd", "d dh p2 2c3d", "p2 cbr 4", "p1 cbr 6", "p2 cbr 8", "p1 cbr 10",
           "p2 cc", "d db JcJdJh", "p1 f"]
"""


def test_folder_is_recursive_and_sorted(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    shutil.copy(DATA / "nt_heads_up_allin.phh", tmp_path / "b" / "x.phh")
    shutil.copy(DATA / "nt_three_way_side_pot.phh", tmp_path / "a.phh")
    (tmp_path / "notes.txt").write_text("not a hand")
    lines = list(replay_paths([str(tmp_path)]))
    assert [Path(line["file"]).name for line in lines] == ["a.phh", "x.phh"]
    assert all(line["ok"] for line in lines)
    assert lines[0]["finishing_stacks"] == [20, 80, 150]
    assert lines[0]["pots"] == [{"amount": 150, "winners": [2]}, {"amount": 60, "winners": [1]}]
    assert lines[0]["players"] == ["Alice", "Bob", "Carol"]
    assert lines[0]["matches_file"] is True


def test_main_prints_json_lines_errors_to_stderr_and_exit_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main_replay([str(DATA)])
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    assert len(lines) == len(list(DATA.glob("*.phh")))
    bad = [line for line in lines if not line["ok"]]
    assert [Path(line["file"]).name for line in bad] == ["illegal_missing_check.phh"]
    assert "action 7 ('p2 cbr 4')" in bad[0]["error"]
    assert "illegal_missing_check.phh" in err and "not legal" in err
    good = [line for line in lines if line["ok"]]
    assert all(line["matches_file"] for line in good)


def test_main_exit_0_when_all_good(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_replay([str(DATA / "nt_heads_up_allin.phh"), "--game", "cash"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["game"] == "cash" and line["finishing_stacks"] == [0, 200]


def test_no_auto_showdown_flag(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA / "ft_four_handed_bb_ante_unknown_cards.phh")
    assert main_replay([path]) == 0
    assert json.loads(capsys.readouterr().out)["auto_showdown"] == 2
    assert main_replay([path, "--no-auto-showdown"]) == 1
    assert "show or muck" in capsys.readouterr().err


def test_game_flag_changes_the_fixed_limit_cap_heads_up(tmp_path: Path) -> None:
    path = tmp_path / "cap.phh"
    path.write_text(FT_HEADS_UP_FIVE_BETS)
    cash = next(replay_paths([str(path)], "cash"))
    assert cash["ok"], cash
    assert cash["finishing_stacks"] == [90, 110]
    tournament = next(replay_paths([str(path)], "tournament"))
    assert not tournament["ok"]
    assert "action 5 ('p1 cbr 10')" in tournament["error"]


def test_unknown_game_and_missing_path() -> None:
    with pytest.raises(HandHistoryError, match="cash"):
        list(replay_paths([str(DATA)], "home"))
    line = next(replay_paths(["/nonexistent/dir"]))
    assert not line["ok"] and "does not exist" in line["error"]
    assert main_replay(["/nonexistent/dir"]) == 1
