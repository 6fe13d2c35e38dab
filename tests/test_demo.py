"""The headless demo table behind `make run`, and the pokertable command."""

import random
import subprocess
import sys

import pytest

from firmware.cli import main
from firmware.demo import DemoTable, play_hand


def test_demo_hands_conserve_chips_and_narrate_in_both_languages() -> None:
    rng = random.Random(7)
    table = DemoTable()
    lines: list[str] = []
    for lang in ("es", "en") * 10:
        before = sum(table.stacks)
        rebuy_lines = len([x for x in lines if "recompra" in x or "rebuys" in x])
        hand = play_hand(table, rng, lines.append, lang)
        assert hand.result is not None
        assert sum(hand.result.finishing_stacks) == sum(hand.result.starting_stacks)
        rebuys = len([x for x in lines if "recompra" in x or "rebuys" in x]) - rebuy_lines
        assert sum(table.stacks) == before + rebuys * table.buy_in
    assert any(line.startswith("Mano n.º") for line in lines)
    assert any(line.startswith("Hand #") for line in lines)
    assert table.button == 20 % len(table.names)


def test_cli_run_prints_hands_and_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--hands", "3", "--seed", "1", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.count("Hand #") == 3
    assert "conserved: True" in out


def test_cli_unknown_command_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dance"]) == 2
    assert "'dance' is not a command" in capsys.readouterr().err


def test_console_script_entry_point_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "firmware.cli", "run", "--hands", "1", "--seed", "3"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Mano n.º 1" in result.stdout
