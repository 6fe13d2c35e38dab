"""Table procedures soak: 10,000 random hands per rules profile, chips conserved.

Usage: ``.venv/bin/python bench/bench_table.py [--hands 10000] [--seed 1]``.
Prints hands per second and the incidents injected for each profile; exits
non-zero if any chip was created or lost.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# This checkout's packages, not whatever pokertable is installed in the environment.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hal_sim.table_soak import run_soak


def main() -> int:
    """Run the soak for each profile and print a table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'profile':16} {'hands':>7} {'seconds':>8} {'hands/s':>8} {'void':>5}  conserved")
    ok = True
    for profile in ("tda-tournament", "casino-cash", "home"):
        r = run_soak(profile, args.hands, seed=args.seed)
        ok &= r.conserved
        print(
            f"{profile:16} {r.hands:7d} {r.seconds:8.2f} {r.hands_per_second:8.0f} "
            f"{r.voided:5d}  {r.conserved}   incidents: {dict(sorted(r.incidents.items()))}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
