"""``pokertable script`` on bad input: one line naming file and line, exit 1, no traceback.

Each case is a file a user could really hand the command (bytes that are not
UTF-8, an unclosed quote, a small blind above the big blind, a bad number in
an ``expect`` line, a 1 MB line, an empty file, a hand cut off, a NUL byte in
a name); the command must say what is wrong in one line, exit with 1 and go
on with the good files given after it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware.table.script import main_script
from firmware.table.script_text import MAX_LINE

HEAD = b"profile casino-cash\nstakes NL 1/2\ndeck-ready\nseat 1 Ana 200\nseat 2 Bruno 200\n"
GOOD = HEAD + b"button 1\nshuffle\ncut\ndraw Ah Kd 7c As\n1 fold\nexpect hands 1\n"

CASES = {
    "not_utf8": (HEAD.replace(b"Ana", b"An\xffa"), "Line 4", "not UTF-8"),
    "unclosed_quote": (HEAD.replace(b"Ana", b'"Ana'), "Line 4", "quote"),
    "small_blind_above_big": (HEAD.replace(b"1/2", b"5/2"), "Line 2", "small blind"),
    "bad_expect_number": (GOOD.replace(b"hands 1", b"hands one"), "Line 11", "'one'"),
    "huge_line": (HEAD + b"draw " + b"A" * 1_000_000 + b"\n", "Line 6", str(MAX_LINE)),
    "empty": (b"", "", "plays no hand"),
    "cut_off": (GOOD.rsplit(b"1 fold", 1)[0], "", "middle of hand 1"),
    "nul_in_name": (HEAD.replace(b"Ana", b"A\x00na"), "Line 4", "NUL"),
    "control_in_name": (HEAD.replace(b"Ana", b"A\x1bna"), "Line 4", "control character"),
    "bad_stacks_expect": (GOOD.replace(b"hands 1", b"stacks 1:200"), "Line 11", "SEAT=CHIPS"),
    "bad_restore": (GOOD.replace(b"1 fold\n", b'restore {"seats": 5}\n'), "Line 10", "restore"),
    "huge_number": (HEAD.replace(b"Ana 200", b"Ana " + b"9" * 3000), "Line 4", "whole number"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_script_is_one_line_and_exit_1_and_good_file_still_runs(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, where, what = CASES[case]
    bad = tmp_path / f"{case}.txt"
    bad.write_bytes(data)
    good = tmp_path / "good.txt"
    good.write_bytes(GOOD)
    assert main_script([str(bad), str(good)]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"pokertable script: {bad}: {where}")
    assert what in lines[0]
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["file"] for r in records] == [str(good)]


def test_missing_file_does_not_stop_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.txt"
    good.write_bytes(GOOD)
    assert main_script([str(tmp_path / "missing.txt"), str(good)]) == 1
    out, err = capsys.readouterr()
    assert "missing.txt" in err and len(out.splitlines()) == 1


def test_a_script_may_stop_mid_hand_or_play_none_when_it_says_so(tmp_path: Path) -> None:
    unfinished = tmp_path / "unfinished.txt"
    unfinished.write_bytes(GOOD.rsplit(b"1 fold", 1)[0] + b"expect unfinished\n")
    none = tmp_path / "none.txt"
    none.write_bytes(HEAD + b"expect hands 0\n")
    assert main_script([str(unfinished), str(none)]) == 0
    done = tmp_path / "done.txt"
    done.write_bytes(GOOD + b"expect unfinished\n")
    assert main_script([str(done)]) == 1


def test_a_good_script_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.txt"
    good.write_bytes(GOOD)
    assert main_script([str(good)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["hand"] == 1 and record["finishing_stacks"] == {"1": 199, "2": 201}
