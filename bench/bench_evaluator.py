"""Single-hand and batch evaluator speed against phevaluator and treys.

Run:  .venv/bin/python bench/bench_evaluator.py [--hands 200000] [--repeat 5]

All evaluators see the same random seven-card hands (card ints rank*4+suit,
phevaluator's own encoding); treys needs its own card ints, converted before
timing, and runs on a subset (it is ~40x slower), scaled per hand. Each timing
is the smallest CPU time (time.process_time) of --repeat runs, which filters out
noise from other processes.
Not part of pytest.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pure_import import compiled, use_pure_sources

if "--pure" in sys.argv:  # the pure-Python evaluator, for the compiled build's ratio
    use_pure_sources()

import numpy as np
from phevaluator import evaluate_cards
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from firmware.engine.cards import format_card
from firmware.engine.evaluator import evaluate7
from firmware.odds.batch import evaluate_batch


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """Smallest CPU time of ``repeat`` runs, in seconds (CPU time: the machine is shared)."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--treys-hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--pure", action="store_true", help="print evaluate7 ns/hand, from source")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(range(52), 7)) for _ in range(args.hands)]
    if args.pure:
        print(best_of(args.repeat, lambda: [evaluate7(*h) for h in hands]) / len(hands) * 1e9)
        return
    array = np.array(hands, dtype=np.int8)
    treys_eval = TreysEvaluator()
    treys_hands = [[TreysCard.new(format_card(c)) for c in h] for h in hands[: args.treys_hands]]

    # Correctness first: same order as phevaluator (its 1 is our 7462).
    assert all(evaluate7(*h) == 7463 - evaluate_cards(*h) for h in hands[:20_000])
    assert evaluate_batch(array).tolist() == [evaluate7(*h) for h in hands]

    def ours() -> None:
        for h in hands:
            evaluate7(*h)

    def phe() -> None:
        for h in hands:
            evaluate_cards(*h)

    def treys() -> None:
        for h in treys_hands:
            treys_eval.evaluate(h[:2], h[2:])

    def batch() -> None:
        evaluate_batch(array)

    rows = [
        ("phevaluator evaluate_cards", best_of(args.repeat, phe) / len(hands)),
        ("firmware.engine.evaluator.evaluate7", best_of(args.repeat, ours) / len(hands)),
        ("treys Evaluator.evaluate", best_of(args.repeat, treys) / len(treys_hands)),
        ("firmware.odds.batch.evaluate_batch", best_of(args.repeat, batch) / len(hands)),
    ]
    peer = rows[0][1]
    print(f"{len(hands):,} random 7-card hands, best of {args.repeat} runs")
    print(f"{'evaluator':32s} {'ns/hand':>10s} {'M hands/s':>10s} {'vs phevaluator':>15s}")
    for name, per_hand in rows:
        print(f"{name:32s} {per_hand * 1e9:10.0f} {1e-6 / per_hand:10.2f} {peer / per_hand:14.2f}x")
    print(f"RATIO|evaluate7 / phevaluator (per hand)|{peer / rows[1][1]:.2f}|>= 1.5")
    if compiled():
        command = [sys.executable, __file__, "--pure", "--hands", str(args.hands)]
        command += ["--repeat", str(args.repeat), "--seed", str(args.seed)]
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        pure = float(out.split()[-1]) / 1e9
        print(f"{'evaluate7, pure (subprocess)':32s} {pure * 1e9:10.0f} {1e-6 / pure:10.2f}")
        print(f"RATIO|evaluate7 compiled / pure|{pure / rows[1][1]:.2f}|>= 2")
    print(f"RATIO|evaluate_batch / phevaluator (per hand)|{peer / rows[3][1]:.1f}|>= 25")


if __name__ == "__main__":
    main()
