"""Hands per second: replaying the same PHH hands through our engine and PokerKit 0.7.7.

Usage::

    .venv/bin/python bench/bench_engine.py [--hands N] [--repeat R] [--seed S] [--profile]

Generates ``N`` random no-limit and fixed-limit hands once (the differential
test generator, ``tests/pokerkit_harness.py``), keeps them as PHH text in
memory, checks that both engines reach the same finishing stacks, then times
*parse + play* of every hand:

* ours: ``firmware.phh.loads_phh`` + ``play_phh`` (strict reader, every action
  checked by the engine, pots awarded);
* PokerKit: ``HandHistory.loads`` + iterating the states to the end.

Each timing is the best of ``R`` runs. ``--profile`` prints the top of a
cProfile of our side.
"""

from __future__ import annotations

import argparse
import cProfile
import pathlib
import pstats
import sys
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pokerkit import HandHistory  # noqa: E402

from firmware.phh import hand_to_phh, loads_phh, play_phh  # noqa: E402
from firmware.rules import Structure  # noqa: E402
from tests.pokerkit_harness import play_random_hand  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)


def generate(count: int, seed: int) -> list[str]:
    """Return ``count`` PHH texts of random hands both engines agree on."""
    texts: list[str] = []
    s = seed
    while len(texts) < count:
        outcome = play_random_hand(s)
        s += 1
        start = outcome.start
        if outcome.findings or start.config.structure is Structure.POT_LIMIT:
            continue
        if any(start.antes) and any(start.dead):
            continue
        assert outcome.hand.result is not None
        if list(outcome.hand.result.finishing_stacks) != [int(x) for x in outcome.state.stacks]:
            continue  # odd-chip rule difference: keep only hands with one right answer
        texts.append(hand_to_phh(outcome.hand))
    return texts


def ours(texts: list[str]) -> list[list[int]]:
    """Parse and play every hand with our engine; return finishing stacks."""
    out = []
    for text in texts:
        result = play_phh(loads_phh(text)).hand.result
        assert result is not None
        out.append(list(result.finishing_stacks))
    return out


def pokerkit(texts: list[str]) -> list[list[int]]:
    """Parse and play every hand with PokerKit; return finishing stacks."""
    out = []
    for text in texts:
        state = None
        for state in HandHistory.loads(text):  # noqa: B007
            pass
        assert state is not None
        out.append([int(s) for s in state.stacks])
    return out


def best(func: object, texts: list[str], repeat: int) -> float:
    """Best wall time of ``repeat`` runs of ``func(texts)``."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func(texts)  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    """Run the benchmark and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=10_000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    texts = generate(args.hands, args.seed)
    actions = sum(len(loads_phh(t).actions) for t in texts)
    if ours(texts) != pokerkit(texts):
        print("The engines disagree on finishing stacks; fix that before timing.")
        return 1
    t_ours = best(ours, texts, args.repeat)
    t_pk = best(pokerkit, texts, args.repeat)
    n = len(texts)
    print(
        f"{n} hands, {actions} PHH actions (mean {actions / n:.1f} per hand), best of {args.repeat}"
    )
    print(f"{'engine':<32}{'hands/s':>12}{'us/hand':>12}{'ratio':>10}")
    print(
        f"{'PokerKit 0.7.7 (parse + play)':<32}{n / t_pk:>12,.0f}{t_pk / n * 1e6:>12,.0f}{1:>9.1f}x"
    )
    print(
        f"{'ours (strict parse + play)':<32}{n / t_ours:>12,.0f}{t_ours / n * 1e6:>12,.0f}"
        f"{t_pk / t_ours:>9.1f}x"
    )
    loaded = [loads_phh(t) for t in texts]
    histories = [HandHistory.loads(t) for t in texts]
    p_ours = best(lambda items: [play_phh(h) for h in items], loaded, args.repeat)
    p_pk = best(lambda items: [list(h) for h in items], histories, args.repeat)
    print(f"{'PokerKit 0.7.7 (play only)':<32}{n / p_pk:>12,.0f}{p_pk / n * 1e6:>12,.0f}{1:>9.1f}x")
    print(
        f"{'ours (play only)':<32}{n / p_ours:>12,.0f}{p_ours / n * 1e6:>12,.0f}"
        f"{p_pk / p_ours:>9.1f}x"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(ours, texts)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
