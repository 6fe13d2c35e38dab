"""The cost of the rake (HOUSE-RAKE) on a hand: the table's ``apply`` with and without it.

Usage::

    .venv/bin/python bench/bench_rake.py [--hands 3000] [--seed 1] [--rounds 3]

Two soak tables (``hal_sim.table_soak.Soak``, profile ``casino-cash``, no
incidents) play random hands at the same blinds (1/2), one raking 5 % capped at
6 chips with a minimum pot of 10 (``rake_basis_points = 500``), one not. They
take turns hand by hand, so a change of load during the run weighs on both
alike. Every ``Table.apply`` is timed in CPU time of the thread (``time.thread_time_ns``:
the other processes of a busy machine do not count); the events
that end a hand (where the engine awards the pots and takes the rake) are also
counted apart. Printed: per-event p50, p99 and the mean, for all events and
for the hand-ending ones, for each table, and the raked/unraked ratio of each
p99. Of ``--rounds`` rounds the smallest p99 of each is kept (the least
disturbed by the other processes of the machine). Chips are checked
conserved (the stacks plus the rake equal the buy-ins) at the end.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# This checkout's packages, not whatever pokertable is installed in the environment.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware.engine.rules import Structure
from firmware.table import events as te
from firmware.table.options import Stakes
from hal_sim.table_soak import Soak

RAKED = Stakes(Structure.NO_LIMIT, 1, 2, rake_basis_points=500, rake_cap=6, rake_min_pot=10)
PLAIN = Stakes(Structure.NO_LIMIT, 1, 2)


def timed(soak: Soak, every: list[int], ending: list[int]) -> None:
    """Time every ``apply`` of ``soak``'s table into ``every`` (and ``ending`` for the
    events that finish a hand)."""
    table = soak.table
    apply: Callable[[te.TableEvent], None] = table.apply

    def timed_apply(event: te.TableEvent) -> None:
        in_hand = table.hand is not None
        start = time.thread_time_ns()
        try:
            apply(event)
        finally:
            spent = time.thread_time_ns() - start
            every.append(spent)
            if in_hand and table.hand is None:
                ending.append(spent)

    table.apply = timed_apply  # type: ignore[method-assign]


def p(values: list[int], q: float) -> float:
    """The ``q`` quantile of ``values`` in microseconds."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000


def one_round(hands: int, seed: int) -> dict[str, dict[str, float]]:
    """Play ``hands`` hands on each table, taking turns; the timings of each."""
    soaks = {
        "raked": Soak("casino-cash", seed, incident_rate=0.0, stakes=RAKED),
        "unraked": Soak("casino-cash", seed, incident_rate=0.0, stakes=PLAIN),
    }
    every: dict[str, list[int]] = {name: [] for name in soaks}
    ending: dict[str, list[int]] = {name: [] for name in soaks}
    for name, soak in soaks.items():
        timed(soak, every[name], ending[name])
    gc.collect()
    gc.freeze()
    for _ in range(hands):
        for soak in soaks.values():
            soak.play_hand()
    gc.unfreeze()
    raked = soaks["raked"]
    on_table = sum(s.stack for s in raked.table.seating.seats.values())
    assert raked.raked > 0, "the raked table took no rake"
    assert on_table + raked.raked + raked.result.chips_out == raked.result.chips_in, "chips"
    return {
        name: {
            "events": len(every[name]),
            "p50": p(every[name], 0.50),
            "p99": p(every[name], 0.99),
            "mean": statistics.fmean(every[name]) / 1000,
            "end_p50": p(ending[name], 0.50),
            "end_p99": p(ending[name], 0.99),
            "rake": float(soaks[name].raked),
        }
        for name in soaks
    }


def main() -> int:
    """Run the rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    best: dict[str, dict[str, float]] = {}
    for k in range(args.rounds):
        for name, figures in one_round(args.hands, args.seed + k).items():
            kept = best.setdefault(name, figures)
            for key in ("p50", "p99", "mean", "end_p50", "end_p99"):
                kept[key] = min(kept[key], figures[key])
    print(f"{args.hands} hands per table, {args.rounds} round(s), times in microseconds")
    print(f"{'table':8} {'events':>7} {'p50':>7} {'p99':>7} {'mean':>7} {'end p50':>8} "
          f"{'end p99':>8} {'rake':>6}")  # fmt: skip
    for name, f in best.items():
        print(
            f"{name:8} {int(f['events']):7d} {f['p50']:7.1f} {f['p99']:7.1f} {f['mean']:7.1f} "
            f"{f['end_p50']:8.1f} {f['end_p99']:8.1f} {int(f['rake']):6d}"
        )
    raked, plain = best["raked"], best["unraked"]
    print(
        f"raked/unraked: p99 {raked['p99'] / plain['p99']:.3f}, "
        f"hand-ending p99 {raked['end_p99'] / plain['end_p99']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
