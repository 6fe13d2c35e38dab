"""Run every benchmark in this folder and print one table of the ratios and goals.

Usage: ``.venv/bin/python bench/run_all.py`` (or ``make bench``); set
``OMPEVAL_DIR`` to an OMPEval checkout built with ``MAX_PLAYERS=9`` to compare
equity with it. Each script runs in its own process with arguments sized so
the whole set takes a few minutes here; its own table is printed as it runs,
and the lines it marks ``RATIO|what|value|goal`` are gathered at the end.
Figures are recorded by hand in docs/benchmarks.md.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import time

#: Each script with the arguments used by ``make bench`` (sized for < 10 minutes).
RUNS: list[tuple[str, list[str]]] = [
    ("bench_evaluator.py", ["--hands", "100000", "--repeat", "3"]),
    ("bench_equity.py", ["--repeat", "7", "--phevaluator"]),
    ("bench_live_equity.py", ["--repeat", "9", "--random", "100"]),
    ("bench_engine.py", ["--hands", "300", "--repeat", "3"]),
    ("bench_recovery.py", ["--hands", "100,5000", "--repeat", "3"]),
    ("bench_screen_path.py", ["--events", "1000"]),
    ("bench_screen_path.py", ["--events", "1000", "--busy"]),
    ("bench_first_frame.py", ["--rounds", "5"]),
    ("bench_journal.py", ["--hands", "300"]),
    ("bench_memory.py", []),
    ("bench_table.py", ["--hands", "1000"]),
    ("bench_rake.py", ["--hands", "500", "--rounds", "1"]),
    ("bench_serial.py", []),
    ("bench_ui_idle.py", []),
    ("bench_ui_latency.py", ["--actions", "300"]),
]


def main() -> int:
    """Run each script; print the ratio table; return non-zero if any failed."""
    here = pathlib.Path(__file__).resolve().parent
    ratios: list[tuple[str, str, str]] = []
    failed: list[str] = []
    started = time.monotonic()
    for script, args in RUNS:
        print(f"=== {script} {' '.join(args)}", flush=True)
        begun = time.monotonic()
        proc = subprocess.run(
            [sys.executable, str(here / script), *args], capture_output=True, text=True
        )
        for line in proc.stdout.splitlines():
            if line.startswith("RATIO|"):
                _, what, value, goal = line.split("|")
                ratios.append((what, value, goal))
            else:
                print(line)
        if proc.returncode:
            failed.append(script)
            print(proc.stderr[-2000:], end="")
        print(f"    ({time.monotonic() - begun:.0f} s)", flush=True)
    print(f"\n=== ratios and goals ({time.monotonic() - started:.0f} s in all)")
    width = max((len(what) for what, _, _ in ratios), default=10)
    for what, value, goal in ratios:
        print(f"{what:<{width}}  {value:>9}  goal {goal}")
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
