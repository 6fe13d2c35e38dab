"""Exact equity speed: firmware.odds.equity against OMPEval (C++) in the same run.

Run::

    .venv/bin/python bench/bench_equity.py [--omp PATH] [--repeat 9] [--phevaluator]

``--omp`` (or the ``OMPEVAL_DIR`` environment variable) is the path of an
OMPEval checkout built with ``make`` (``lib/ompeval.a``); for nine hands it
must be built with ``MAX_PLAYERS=9`` (stock OMPEval stops at six). The script
compiles ``bench/omp_driver.cpp`` (ours) against it with ``g++ -O3`` into
``build/bench/`` and, case by case, times OMPEval's ``EquityCalculator``
(exact enumeration, one thread) and a plain C++ loop over every board with
OMPEval's ``HandEvaluator``, then ours, back to back, each ``--repeat`` times.
Without a path or a compiler the OMPEval columns are skipped with a message.

Heads-up rows are timed twice: through :func:`equity` (the stored table of
``firmware/odds/data``) and with :func:`pattern_equity` (the enumeration by
rank pattern, as without the table). Every case checks that our wins equal OMPEval's (integers), and
``--phevaluator`` adds the 3-way flop case checked against an enumeration
through phevaluator, so a fast wrong answer cannot pass. Timings: min and
median of the repeats; ratios compare the same statistic. Lines starting
with ``RATIO`` are collected by ``bench/run_all.py``. Not part of pytest.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware.engine.cards import parse_cards  # noqa: E402
from firmware.odds.equity import equity  # noqa: E402
from firmware.odds.patterns import pattern_equity  # noqa: E402

PREFLOP = [
    ("heads-up AhKh QsQd", ["AhKh", "QsQd"]),
    ("  same, no table", ["AhKh", "QsQd"]),
    ("heads-up AhAd KsKc", ["AhAd", "KsKc"]),
    ("  same, no table", ["AhAd", "KsKc"]),
    ("6-way", ["AhKh", "QsQd", "JcTc", "9h9s", "8d7d", "AcKs"]),
    ("9-way", ["AhKh", "QsQd", "JcTc", "9h9s", "8d7d", "AcKs", "5c5d", "4s3s", "2h2d"]),
]
FLOP = ("3-way flop AhKh/QsQc/7d6d on 2h9cTd", ["AhKh", "QsQc", "7d6d"], "2h9cTd")


def build_driver(omp: Path) -> Path | None:
    """Compile bench/omp_driver.cpp against the OMPEval checkout; None (and a message) if not."""
    library = omp / "lib" / "ompeval.a"
    if not library.is_file():
        print(f"OMPEval skipped: {library} not found; build OMPEval there with make first.")
        return None
    compiler = shutil.which("g++")
    if compiler is None:
        print("OMPEval skipped: no g++ on PATH to build the driver; install g++ to compare.")
        return None
    source = ROOT / "bench" / "omp_driver.cpp"
    out = ROOT / "build" / "bench" / f"omp_driver-{abs(hash(str(omp.resolve()))):x}"
    newest = max(source.stat().st_mtime, library.stat().st_mtime)
    if not out.exists() or out.stat().st_mtime < newest:
        out.parent.mkdir(parents=True, exist_ok=True)
        command = [compiler, "-O3", "-std=c++17", "-pthread", "-I", str(omp), str(source)]
        subprocess.run([*command, str(library), "-o", str(out)], check=True)
    return out


def run_driver(
    driver: Path, repeat: int, hands: list[str]
) -> dict[str, tuple[float, float, list[int]]]:
    """OMPEval timings per method: ``{"calc": (min ms, median ms, wins), "loop": ...}``."""
    text = subprocess.run(
        [str(driver), str(repeat), *hands], check=True, capture_output=True, text=True
    ).stdout
    results = {}
    for line in text.splitlines():
        method, *fields = line.split()
        if fields and fields[0] != "refused":
            results[method] = (float(fields[0]), float(fields[1]), [int(w) for w in fields[2:]])
    return results


def time_ours(
    repeat: int, holes: list[list[int]], board: list[int], table: bool = True
) -> tuple[float, float, list[int]]:
    """Our (min ms, median ms, wins) over ``repeat`` calls (``table=False``: always count
    by rank pattern, as without the heads-up table)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        shares = equity(holes, board) if table else pattern_equity(holes, board)
        times.append((time.perf_counter() - start) * 1e3)
    return min(times), statistics.median(times), [s.wins for s in shares]


def phevaluator_equity(holes: list[list[int]], board: list[int]) -> list[float]:
    """Equity by enumerating boards and calling phevaluator per hand (lower is better)."""
    from phevaluator import evaluate_cards

    used = {*board, *(c for h in holes for c in h)}
    deck = [c for c in range(52) if c not in used]
    shares = [0.0] * len(holes)
    boards = 0
    for rest in combinations(deck, 5 - len(board)):
        ranks = [evaluate_cards(*h, *board, *rest) for h in holes]
        winners = [i for i, r in enumerate(ranks) if r == min(ranks)]
        for i in winners:
            shares[i] += 1 / len(winners)
        boards += 1
    return [s / boards for s in shares]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--omp", default=os.environ.get("OMPEVAL_DIR"), help="OMPEval checkout")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--phevaluator", action="store_true", help="add the 3-way flop check")
    args = parser.parse_args()
    driver = None
    if args.omp:
        driver = build_driver(Path(args.omp))
    else:
        print("OMPEval skipped: give its checkout with --omp PATH or OMPEVAL_DIR to compare.")
    equity([parse_cards("AhKh"), parse_cards("QsQd")])  # first call builds the cached tables
    print(f"ms, min / median of {args.repeat}; ratio = OMPEval time / ours (>1: ours faster)")
    header = f"{'case':20s} {'ours':>13s} {'OMPEval calc':>13s} {'ratio':>11s}"
    print(f"{header} {'C++ loop':>13s} {'ratio':>11s}")
    ratios = []
    for name, texts in PREFLOP:
        holes = [parse_cards(t) for t in texts]
        peer = run_driver(driver, args.repeat, texts) if driver else {}
        ours = time_ours(args.repeat, holes, [], table="no table" not in name)
        if "no table" in name:
            name = f"{texts[0]} {texts[1]} no table"
        row = f"{name:20s} {ours[0]:6.2f}/{ours[1]:6.2f}"
        for method, label in (("calc", "OMPEval calculator"), ("loop", "C++ HandEvaluator loop")):
            if method not in peer:
                row += f" {'-':>13s} {'-':>11s}"
                continue
            low, mid, wins = peer[method]
            if wins != ours[2]:
                raise SystemExit(
                    f"{name}: OMPEval {method} wins {wins} differ from ours {ours[2]}."
                )
            row += f" {low:6.2f}/{mid:6.2f} {low / ours[0]:4.1f}x/{mid / ours[1]:4.1f}x"
            ratios.append(f"RATIO|equity {name}: {label} / ours (min)|{low / ours[0]:.2f}|>= 1")
        print(row)
    print("\n".join(ratios))
    if args.phevaluator:
        name, texts, board_text = FLOP
        holes, board = [parse_cards(t) for t in texts], parse_cards(board_text)
        ours = time_ours(args.repeat, holes, board)
        start = time.perf_counter()
        theirs = phevaluator_equity(holes, board)
        elapsed = (time.perf_counter() - start) * 1e3
        mine = [s.equity for s in equity(holes, board)]
        assert all(abs(a - b) < 1e-9 for a, b in zip(mine, theirs, strict=True)), (mine, theirs)
        print(f"{name}: ours {ours[0]:.2f}/{ours[1]:.2f} ms, phevaluator loop {elapsed:.1f} ms")


if __name__ == "__main__":
    main()
