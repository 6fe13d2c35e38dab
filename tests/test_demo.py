"""The simulated table behind `make run`: the real controller on simulated devices."""

import subprocess
import sys

import pytest

from firmware.cli.main import main
from hal_sim.fakes import FakeButtons
from hal_sim.sim_table import SimulatedTable


def test_simulated_table_plays_through_the_controller_and_conserves_chips() -> None:
    lines: list[str] = []
    sim = SimulatedTable(seed=7, lang="en", say=lines.append)
    assert sim.run(15)
    assert sum(1 for line in lines if line.startswith("Hand #")) == 15
    assert lines[-1].endswith("(conserved: True)")
    # Every card came from the simulated shoe through the controller's queue.
    assert all(len(r["cards"]["hole"]) == len(r["seats"]) for r in sim.table.records)
    buttons = sim.controller.devices["buttons"]
    assert isinstance(buttons, FakeButtons)
    assert any(on for _, on in buttons.led_history)  # the turn LEDs were driven
    assert not any(buttons.led(led) for led in buttons.leds())  # and left off at shutdown


def test_simulated_table_narrates_in_spanish() -> None:
    lines: list[str] = []
    SimulatedTable(seed=3, lang="es", say=lines.append).run(3)
    assert any(line.startswith("Mano n.º 1") for line in lines)
    assert "se conservan: True" in lines[-1]


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
        [sys.executable, "-m", "firmware.cli.main", "run", "--hands", "1", "--seed", "3"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Mano n.º 1" in result.stdout
