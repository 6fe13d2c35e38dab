"""Live equity on the table (pure Python, no numpy): is each case within one frame?

Run::

    .venv/bin/python bench/bench_live_equity.py [--repeat 15] [--random 200]

Times :func:`firmware.views.live_equity.exact_equity`, the function the console's
view (and a broadcast view) calls during an all-in, in its worst cases: heads-up
before the flop (the stored table's first load, read from the ``.npz`` without
numpy, then a lookup), flops and turns with two to nine hands on boards that make
the most flushes (each flush is a full :func:`evaluate7`), the slowest of
``--random`` random 4-way flops, and a repeated call (the cache: what every view
of a street after the first costs). Each result is first checked against the
numpy odds extra (:func:`firmware.odds.equity.equity`) when it is installed, so a
fast wrong answer fails loudly. Timings are CPU time (``time.process_time``,
the machine is shared) with the result cache cleared before each run: min and
median of the repeats, and the wall-clock min. The goal is one frame at 30 fps,
33 ms. Lines starting with ``RATIO`` are collected by ``bench/run_all.py``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware.engine.cards import parse_cards  # noqa: E402
from firmware.views import live_equity as le  # noqa: E402

FRAME_MS = 1000 / 30

Case = tuple[str, list[str], str]
CASES: list[Case] = [
    ("heads-up preflop AhKh QsQd", ["AhKh", "QsQd"], ""),
    ("2-way flop, flush draws (Ks9s/7s6s on As5s2d)", ["Ks9s", "7s6s"], "As5s2d"),
    ("2-way flop, no flush possible (AhKd/QsQc on 2c7d9h)", ["AhKd", "QsQc"], "2c7d9h"),
    (
        "4-way flop, monotone (AhKh/QhJc/Th9d/8h7s on 2h5h9h)",
        ["AhKh", "QhJc", "Th9d", "8h7s"],
        "2h5h9h",
    ),
    ("4-way turn (AhKh/QhJc/Th9d/8h7s on 2h5h9hJd)", ["AhKh", "QhJc", "Th9d", "8h7s"], "2h5h9hJd"),
    (
        "9-way flop, monotone (2h5h9h)",
        ["AhKh", "QhJc", "Th9d", "8h7s", "AsKs", "QdQs", "JsTs", "6d6c", "5c4c"],
        "2h5h9h",
    ),
]


def check(holes: list[list[int]], board: list[int]) -> str:
    """Compare with the numpy odds extra; a sentence for the table."""
    try:
        from firmware.odds.equity import equity
    except ImportError:
        return "not checked (no numpy)"
    got = le.exact_equity(dict(enumerate(map(tuple, holes))), board)  # type: ignore[arg-type]
    ref = equity(holes, board)
    want = {
        i: {"win": s.win, "tie": s.ties / s.boards, "equity": s.equity} for i, s in enumerate(ref)
    }
    if got != want:
        raise SystemExit(f"live equity differs from firmware.odds for {holes} on {board}")
    return "= firmware.odds"


def timed(
    run: Callable[[], object], repeat: int, before: Callable[[], None]
) -> tuple[float, float, float]:
    """Min and median CPU ms, min wall ms, over ``repeat`` runs (``before`` untimed)."""
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(repeat):
        before()
        c, w = time.process_time(), time.perf_counter()
        run()
        cpu.append((time.process_time() - c) * 1000)
        wall.append((time.perf_counter() - w) * 1000)
    return min(cpu), statistics.median(cpu), min(wall)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--random", type=int, default=200, help="random 4-way flops tried")
    args = parser.parse_args()
    rows: list[tuple[str, float, float, float, str]] = []

    def clear_results() -> None:
        le._CACHE.clear()

    def clear_all() -> None:
        le._CACHE.clear()
        le.preflop_table.cache_clear()

    first = CASES[0]
    holes = [tuple(parse_cards(h)) for h in first[1]]
    hands = dict(enumerate(holes))
    rows.append(
        (
            "heads-up preflop, first call (loads the table)",
            *timed(lambda: le.exact_equity(hands, ()), args.repeat, clear_all),
            check([list(h) for h in holes], []),
        )
    )
    for name, cards, board_text in CASES:
        holes = [tuple(parse_cards(h)) for h in cards]
        board = parse_cards(board_text)
        hands = dict(enumerate(holes))
        verdict = check([list(h) for h in holes], board)
        rows.append(
            (
                name,
                *timed(
                    lambda hands=hands, board=board: le.exact_equity(hands, board),
                    args.repeat,
                    clear_results,
                ),
                verdict,
            )
        )
    # The slowest of random 4-way flops (one run each, then that one timed again).
    rng = random.Random(15)
    slowest: tuple[float, dict[int, tuple[int, int]], list[int]] = (0.0, {}, [])
    for _ in range(args.random):
        deck = list(range(52))
        rng.shuffle(deck)
        hands = {i: (deck[2 * i], deck[2 * i + 1]) for i in range(4)}
        board = deck[8:11]
        le._CACHE.clear()
        c = time.process_time()
        le.exact_equity(hands, board)
        spent = time.process_time() - c
        if spent > slowest[0]:
            slowest = (spent, hands, board)
    _, hands, board = slowest
    rows.append(
        (
            f"slowest of {args.random} random 4-way flops",
            *timed(lambda: le.exact_equity(hands, board), args.repeat, clear_results),
            check([list(h) for h in hands.values()], board),
        )
    )
    hands = dict(enumerate(tuple(parse_cards(h)) for h in CASES[3][1]))
    board = parse_cards(CASES[3][2])
    le.exact_equity(hands, board)
    rows.append(
        (
            "4-way flop again (cached: every later view of the street)",
            *timed(lambda: le.exact_equity(hands, board), args.repeat, lambda: None),
            "",
        )
    )

    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  {'CPU min ms':>10}  {'CPU med ms':>10}  {'wall min ms':>11}  check")
    for name, low, median, wall, verdict in rows:
        print(f"{name:<{width}}  {low:>10.3f}  {median:>10.3f}  {wall:>11.3f}  {verdict}")
    worst = max(r[2] for r in rows)
    print(f"worst median {worst:.2f} ms CPU; one frame at 30 fps is {FRAME_MS:.1f} ms")
    print(f"RATIO|live equity: worst case (ms, median CPU)|{worst:.2f}|< {FRAME_MS:.0f}")
    return 0 if worst < FRAME_MS else 1


if __name__ == "__main__":
    sys.exit(main())
