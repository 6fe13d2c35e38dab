"""Journal benchmarks: commit latency, recovery time, size per 1,000 hands.

Usage: ``.venv/bin/python bench/bench_journal.py [--hands 10000] [--dir /tmp/x]``.

Plays ``--hands`` random hands (the table soak) with every table event
committed to a real SQLite journal file (WAL, synchronous=FULL), timing each
commit; then measures a cold restart: opening the journal, verifying its
chain and replaying it into a table that is ready to resume.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

# This checkout's packages, not whatever pokertable is installed in the environment.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware.service.journal import Journal
from firmware.service.recovery import restore
from hal_sim.table_soak import run_soak


class TimedJournal(Journal):
    """A journal that records how long each append (commit) took."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.latencies: list[float] = []

    def append(self, event):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        number = super().append(event)
        self.latencies.append(time.perf_counter() - started)
        return number


def main() -> int:
    """Run the journal benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--dir", default=None, help="folder for the journal (default: a temp dir)")
    args = parser.parse_args()
    folder = args.dir or tempfile.mkdtemp(prefix="pokertable-bench-")
    path = os.path.join(folder, "journal.sqlite")
    if os.path.exists(path):
        os.remove(path)
    journal = TimedJournal(path)
    started = time.perf_counter()
    run_soak("casino-cash", args.hands, seed=1, journal=journal)
    played = time.perf_counter() - started
    events = len(journal)
    journal.close()
    lat = sorted(journal.latencies)
    p99 = lat[int(len(lat) * 0.99) - 1]
    size = os.path.getsize(path)
    started = time.perf_counter()
    reopened = Journal(path)
    table = restore(reopened)
    recovery = time.perf_counter() - started
    reopened.close()
    print(f"hands {args.hands}, events {events}, played in {played:.1f} s")
    print(
        f"commit latency: median {statistics.median(lat) * 1000:.2f} ms, "
        f"p99 {p99 * 1000:.2f} ms, max {lat[-1] * 1000:.2f} ms"
    )
    per_thousand = size / args.hands * 1000 / 1e6
    print(f"database size: {size / 1e6:.2f} MB, {per_thousand:.2f} MB per 1,000 hands")
    print(f"recovery (open + verify chain + replay {events} events): {recovery:.2f} s")
    print(f"table after recovery: hand {table.hand_number}, {len(table.seating.seats)} seats")
    return 0


if __name__ == "__main__":
    sys.exit(main())
