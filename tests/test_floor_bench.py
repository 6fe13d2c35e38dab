"""The card-room benchmarks' small default runs (``bench/bench_floor*.py``): tables in child
processes play into one floor on real nats-server and PostgreSQL; every record and every
finished hand of every table ends in the store exactly once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _bench(name: str, *args: str) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, str(BENCH / name), *args],
        capture_output=True,
        text=True,
        timeout=1800,  # a guard against a hang only
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = {}
    for line in done.stdout.splitlines():
        key, _, value = line.strip().partition(" ")
        if key and value:
            figures[key] = value.strip()
    return figures


def test_bench_floor_small_room_is_exactly_once() -> None:
    figures = _bench(
        "bench_floor.py",
        *("--tables", "3", "--seconds", "4", "--warmup", "1", "--per-process", "3"),
        *("--pace", "0.005"),  # gentle on the shared test machine
    )
    assert figures["exactly_once"] == "1.0"
    assert float(figures["records_per_s"]) > 0 and int(figures["records_total"]) > 0
    assert float(figures["latency_p99_ms"]) >= float(figures["latency_p50_ms"]) > 0


def test_bench_floor_capacity_ingests_a_backlog_in_batches() -> None:
    figures = _bench(
        "bench_floor.py",
        *("--tables", "2", "--seconds", "3", "--per-process", "2", "--capacity"),
    )
    assert figures["exactly_once"] == "1.0"
    # A backlog is stored many records per transaction, not one by one.
    assert float(figures["records_per_batch"]) > 10


def test_bench_floor_mtt_small_tournament_to_the_end() -> None:
    figures = _bench(
        "bench_floor_mtt.py",
        *("--players", "20", "--seats", "6", "--per-process", "2", "--level-seconds", "3"),
    )
    assert figures["chips_conserved_at_winner"] == "True"
    assert figures["places_complete"] == "True" and figures["pool_paid_exactly"] == "True"
    assert figures["exactly_once"] == "True" and int(figures["tables"]) == 4
