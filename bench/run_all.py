"""Run every benchmark script in this folder, one after another.

Usage: ``.venv/bin/python bench/run_all.py`` (or ``make bench``). Each script
prints its own table; figures are recorded by hand in docs/benchmarks.md.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys


def main() -> int:
    """Run each ``bench_*.py`` script; return non-zero if any failed."""
    here = pathlib.Path(__file__).resolve().parent
    failed = 0
    for script in sorted(here.glob("bench_*.py")):
        print(f"=== {script.name}", flush=True)
        failed |= subprocess.call([sys.executable, str(script)]) != 0
    return failed


if __name__ == "__main__":
    sys.exit(main())
