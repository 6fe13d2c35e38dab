"""The mutation score's counting (tests/mutation/mutation.py, docs/testing.md).

A hang caught by the CPU-time limit is a detection and counts like a kill,
shown in its own column; an error (any other exit) never counts as killed;
equivalents leave the numerator and the denominator alike.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "mutation_runner", ROOT / "tests" / "mutation" / "mutation.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_timeouts_count_as_detected_and_errors_never_do() -> None:
    m = _runner()
    names = ["m.x_f__mutmut_1", "m.x_f__mutmut_2", "m.x_f__mutmut_3", "m.x_f__mutmut_4"]
    names += ["m.x_f__mutmut_5"]
    outcomes = dict(zip(names, ["killed", "timeout", "survived", "error", "killed"], strict=True))
    equivalent = {"m.x_f__mutmut_5": object()}
    (row,) = m.tally({"m": names}, 7, outcomes, equivalent)
    assert (row.drawn, row.equivalent, row.killed) == (5, 1, 1)
    assert row.timeouts == ["m.x_f__mutmut_2"]
    assert row.survived == ["m.x_f__mutmut_3"] and row.errors == ["m.x_f__mutmut_4"]
    assert row.score == 2 / 4


def test_exit_codes_other_than_a_failed_test_are_errors_not_kills() -> None:
    m = _runner()
    assert m.outcome("m.x_f__mutmut_1", 1) == "killed"
    for code in (0, 5, 33):
        assert m.outcome("m.x_f__mutmut_1", code) == "survived"
    for code in (2, 3, 4, -9, 137, None):
        assert m.outcome("m.x_f__mutmut_1", code) == "error"


def test_the_cpu_limit_of_the_recheck_stops_a_loop_that_never_ends() -> None:
    """The recheck's limit is CPU time, which a busy machine does not use up: a child
    spinning forever under a one-second limit is stopped by SIGXCPU (-24), the code the
    recheck reads as a timeout."""
    m = _runner()
    done = subprocess.run(
        [sys.executable, "-c", "while True: pass"],
        preexec_fn=lambda: m._limit_cpu(1),
        check=False,
    )
    assert done.returncode == -24
