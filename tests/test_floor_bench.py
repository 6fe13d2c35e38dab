"""The card-room benchmark's small default run: tables in child processes play into one
floor; every record of every table ends in the store exactly once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]


def test_bench_floor_small_room_is_exactly_once() -> None:
    script = Path(__file__).resolve().parent.parent / "bench" / "bench_floor.py"
    done = subprocess.run(
        [
            *(sys.executable, str(script), "--tables", "3", "--seconds", "4", "--warmup", "1"),
            *("--per-process", "3", "--pace", "0.005"),  # gentle on the shared test machine
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = dict(line.split(None, 1) for line in done.stdout.splitlines() if line.strip())
    assert figures["exactly_once"].strip() == "1.0"
    assert float(figures["records_per_s"]) > 0 and int(figures["records_total"]) > 0
