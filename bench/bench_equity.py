"""Exact equity speed: firmware.odds.equity against the same enumeration through phevaluator.

Run:  .venv/bin/python bench/bench_equity.py [--repeat 3] [--skip-peer]

Cases: heads-up preflop (1,712,304 boards), three-way on the flop (903
boards), nine-way preflop (278,256 boards). The peer enumerates the same
boards with itertools.combinations and calls phevaluator's evaluate_cards
once per hand and board (phevaluator has no equity function); it runs once per
case (several seconds). Our figure is the best of --repeat runs. The results
of both are compared, so a fast wrong answer cannot pass. Not part of pytest.
"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from phevaluator import evaluate_cards

from firmware.engine.cards import parse_cards
from firmware.odds.equity import equity

CASES = [
    ("heads-up preflop AhAd vs KsKc", ["AhAd", "KsKc"], ""),
    ("3-way flop AhKh/QsQc/7d6d on 2h9cTd", ["AhKh", "QsQc", "7d6d"], "2h9cTd"),
    (
        "9-way preflop AA..66 (pairs, clubs+diamonds)",
        ["AcAd", "KcKd", "QcQd", "JcJd", "TcTd", "9c9d", "8c8d", "7c7d", "6c6d"],
        "",
    ),
]


def peer_equity(holes: list[list[int]], board: list[int]) -> tuple[list[float], int]:
    """Equity by enumerating boards and calling phevaluator per hand (lower is better)."""
    used = {*board, *(c for h in holes for c in h)}
    deck = [c for c in range(52) if c not in used]
    shares = [0.0] * len(holes)
    boards = 0
    for rest in combinations(deck, 5 - len(board)):
        full = (*board, *rest)
        ranks = [evaluate_cards(*h, *full) for h in holes]
        best = min(ranks)
        winners = [i for i, r in enumerate(ranks) if r == best]
        for i in winners:
            shares[i] += 1 / len(winners)
        boards += 1
    return [s / boards for s in shares], boards


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-peer", action="store_true", help="time only firmware.odds.equity")
    args = parser.parse_args()
    print(f"{'case':46s} {'boards':>10s} {'ours ms':>9s} {'phevaluator ms':>15s} {'ratio':>7s}")
    for name, hole_texts, board_text in CASES:
        holes = [parse_cards(h) for h in hole_texts]
        board = parse_cards(board_text)
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            shares = equity(holes, board)
            best = min(best, time.perf_counter() - start)
        ours = [s.equity for s in shares]
        peer_ms, ratio = "-", "-"
        if not args.skip_peer:
            start = time.perf_counter()
            theirs, boards = peer_equity(holes, board)
            elapsed = time.perf_counter() - start
            assert boards == shares[0].boards
            assert all(abs(a - b) < 1e-9 for a, b in zip(ours, theirs, strict=True)), (
                ours,
                theirs,
            )
            peer_ms, ratio = f"{elapsed * 1e3:.0f}", f"{elapsed / best:.0f}x"
        print(f"{name:46s} {shares[0].boards:>10,} {best * 1e3:9.1f} {peer_ms:>15s} {ratio:>7s}")
        print(f"    equities: {', '.join(f'{e:.4f}' for e in ours)}")


if __name__ == "__main__":
    main()
