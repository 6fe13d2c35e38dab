"""Hands per second: replaying the same PHH hands through our engine and PokerKit 0.7.7.

Usage::

    .venv/bin/python bench/bench_engine.py [--hands N] [--repeat R] [--seed S] [--profile]

Generates ``N`` random no-limit and fixed-limit hands once (the differential
test generator, ``tests/pokerkit_harness.py``), keeps them as PHH text in
memory, checks that both engines reach the same finishing stacks, then times
*parse + play* of every hand:

* ours: ``firmware.engine.histories.phh.loads_phh`` + ``play_phh`` (strict reader, every action
  checked by the engine, pots awarded);
* PokerKit: ``HandHistory.loads`` + iterating the states to the end.

Each timing is the smallest CPU time of ``R`` runs, ours and PokerKit's taking
turns so that a change of load during the run weighs on both alike. The hands and everything made
while generating them are moved out of the garbage collector's reach first
(``gc.collect(); gc.freeze()``), for both engines alike: otherwise every full
collection during a timed run also walks the benchmark's own data (tens of
thousands of PokerKit objects), which a replay on the table does not have.
``--profile`` prints the top of a cProfile of our side.

If the engine's modules are compiled (``make compiled``, mypyc), the compiled
engine is timed in this process and the pure-Python engine in a subprocess
started with ``--pure`` (which times PokerKit again, taking turns with it, for
the pure engine's ratios), which imports every ``firmware`` module from its
``.py`` source (the extensions hidden); both are printed against PokerKit.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import importlib.abc
import importlib.machinery
import importlib.util
import json
import pathlib
import pstats
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class PureFirmware(importlib.abc.MetaPathFinder):
    """Import ``firmware`` and its submodules from ``.py`` sources only (no extensions)."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != "firmware" and not name.startswith("firmware."):
            return None
        finder = importlib.machinery.FileFinder(
            str(ROOT) if path is None else path[0],
            (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES),
        )
        return finder.find_spec(name, target)  # type: ignore[arg-type]


if "--pure" in sys.argv:
    sys.meta_path.insert(0, PureFirmware())

from pokerkit import HandHistory  # noqa: E402

from firmware.engine.histories.phh import loads_phh, play_phh  # noqa: E402
from tests.pokerkit_harness import BENCH_SEED, benchmark_corpus  # noqa: E402

COMPILED = importlib.util.find_spec("firmware.engine.hand").origin.endswith(".so")  # type: ignore[union-attr]

warnings.filterwarnings("ignore", category=UserWarning)


def generate(count: int, seed: int) -> list[str]:
    """Return ``count`` PHH texts of random hands both engines agree on
    (``tests/pokerkit_harness.py``, :func:`benchmark_corpus`; the same hands
    ``tests/test_replay_paths.py`` replays by both paths)."""
    return [text for text, _ in benchmark_corpus(count, seed)]


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


def best_of(jobs: dict[str, tuple[Callable[[Any], object], Any]], repeat: int) -> dict[str, float]:
    """Smallest CPU time (``time.process_time``) of ``repeat`` runs of each job ``func(items)``.

    CPU time rather than wall time: on a shared, loaded machine the wall time of the
    same run swings by 3x, the CPU time much less. The jobs take turns (ours, then
    PokerKit, then ours again...), so that a change in the machine's load during
    the run weighs on both sides alike rather than on whichever ran last.
    """
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(repeat):
        for name, (func, items) in jobs.items():
            t0 = time.process_time()
            func(items)
            times[name].append(time.process_time() - t0)
    return {name: min(values) for name, values in times.items()}


def timings(texts: list[str], repeat: int) -> dict[str, float]:
    """Parse + play and play only, ours and PokerKit's, taking turns (see :func:`best_of`)."""
    loaded = [loads_phh(t) for t in texts]
    histories = [HandHistory.loads(t) for t in texts]
    return best_of(
        {
            "parse_play": (ours, texts),
            "pk_parse_play": (pokerkit, texts),
            "play": (lambda items: [play_phh(h) for h in items], loaded),
            "pk_play": (lambda items: [list(h) for h in items], histories),
        },
        repeat,
    )


def main() -> int:
    """Run the benchmark and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=BENCH_SEED)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--pure", action="store_true", help="hide compiled modules; print our timings as JSON"
    )
    args = parser.parse_args()
    texts = generate(args.hands, args.seed)
    gc.collect()
    gc.freeze()
    if args.pure:  # subprocess of a compiled run: time the pure-Python engine (and PokerKit)
        assert not COMPILED
        print(json.dumps(timings(texts, args.repeat)))
        return 0
    actions = sum(len(loads_phh(t).actions) for t in texts)
    if ours(texts) != pokerkit(texts):
        print("The engines disagree on finishing stacks; fix that before timing.")
        return 1
    pure: dict[str, float] | None = None
    if COMPILED:
        cmd = [sys.executable, __file__, "--pure", "--hands", str(args.hands)]
        cmd += ["--repeat", str(args.repeat), "--seed", str(args.seed)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        pure = json.loads(out.strip().splitlines()[-1])
    label = "compiled" if COMPILED else "pure"
    got = timings(texts, args.repeat)
    t_ours, t_pk, p_ours, p_pk = (
        got["parse_play"],
        got["pk_parse_play"],
        got["play"],
        got["pk_play"],
    )
    n = len(texts)
    print(
        f"{n} hands, {actions} PHH actions (mean {actions / n:.1f} per hand), best of {args.repeat}"
        " (CPU time, ours and PokerKit taking turns)"
    )
    print(f"engine modules in this process: {label}")

    def row(name: str, t: float, ref: float) -> None:
        print(f"{name:<40}{n / t:>12,.0f}{t / n * 1e6:>12,.0f}{ref / t:>9.1f}x")

    print(f"{'engine':<40}{'hands/s':>12}{'us/hand':>12}{'ratio':>10}")
    row("PokerKit 0.7.7 (parse + play)", t_pk, t_pk)
    if pure is not None:
        row(
            "PokerKit, in the pure run (parse + play)", pure["pk_parse_play"], pure["pk_parse_play"]
        )
        row("ours, pure (strict parse + play)", pure["parse_play"], pure["pk_parse_play"])
    row(f"ours, {label} (strict parse + play)", t_ours, t_pk)
    row("PokerKit 0.7.7 (play only)", p_pk, p_pk)
    if pure is not None:
        row("ours, pure (play only)", pure["play"], pure["pk_play"])
    row(f"ours, {label} (play only)", p_ours, p_pk)
    goal = ">= 100" if COMPILED else ">= 40"
    print(f"RATIO|replay {label} / PokerKit (parse + play)|{t_pk / t_ours:.1f}|{goal}")
    if pure is not None:
        ratio = pure["pk_parse_play"] / pure["parse_play"]
        print(f"RATIO|replay pure / PokerKit (parse + play)|{ratio:.1f}|>= 40")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(ours, texts)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
