"""Exact equity: enumeration against independent brute force, ties, bad input."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations

import pytest

from firmware.engine.cards import parse_cards
from firmware.engine.evaluator import WEIGHTS, evaluate7
from firmware.errors import CardError
from firmware.odds.equity import Share, board_sums, equity


def brute_force(
    holes: Sequence[Sequence[int]], board: Sequence[int] = (), dead: Sequence[int] = ()
) -> list[tuple[int, int, Fraction, int]]:
    """(wins, ties, tie share, boards) per hand, one evaluate7 call per hand and board."""
    used = {*board, *dead, *(c for h in holes for c in h)}
    deck = [c for c in range(52) if c not in used]
    wins = [0] * len(holes)
    ties = [0] * len(holes)
    share = [Fraction(0)] * len(holes)
    boards = 0
    for rest in combinations(deck, 5 - len(board)):
        full = (*board, *rest)
        scores = [evaluate7(*h, *full) for h in holes]
        top = max(scores)
        winners = [i for i, s in enumerate(scores) if s == top]
        for i in winners:
            if len(winners) == 1:
                wins[i] += 1
            else:
                ties[i] += 1
                share[i] += Fraction(1, len(winners))
        boards += 1
    return [(wins[i], ties[i], share[i], boards) for i in range(len(holes))]


def assert_same(got: list[Share], expected: list[tuple[int, int, Fraction, int]]) -> None:
    assert [(s.wins, s.ties, s.boards) for s in got] == [(w, t, n) for w, t, _, n in expected]
    for s, (_, _, share, _) in zip(got, expected, strict=True):
        assert s.tie_share == pytest.approx(float(share), abs=1e-9)
    assert sum(s.equity for s in got) == pytest.approx(1.0)


def cards(*texts: str) -> list[list[int]]:
    return [parse_cards(t) for t in texts]


@pytest.mark.parametrize(
    ("holes", "board"),
    [
        (("AhAd", "KsKc"), "2c7d9h4sJc"),  # river: one board
        (("AhAd", "KsKc"), "2c7d9h4s"),  # turn
        (("AhKh", "QsQc", "7d6d"), "2h9cTd"),  # three-way flop
        (("AsKs", "7c7d", "Jh9h", "5c4c"), "QsTh3c"),  # four-way flop with draws
        (("2c2d", "3c3d"), "AhKhQhJhTh"),  # the board plays: a split
    ],
)
def test_equity_matches_brute_force(holes: tuple[str, ...], board: str) -> None:
    hands, known = cards(*holes), parse_cards(board)
    assert_same(equity(hands, known), brute_force(hands, known))


def test_equity_preflop_with_dead_cards_matches_brute_force() -> None:
    hands = cards("AhAd", "KsKc", "9c8c")
    dead = parse_cards("2c2d2h2s3c3d3h3s4c4d4h4s5c5d5h5s6c6d6h6s")  # 98,280 boards left
    assert_same(equity(hands, dead=dead), brute_force(hands, dead=dead))


@pytest.mark.slow
def test_equity_heads_up_preflop_matches_phevaluator_enumeration() -> None:
    """All 1,712,304 boards of AhAd vs KsKc, enumerated independently."""
    phevaluator = pytest.importorskip("phevaluator")
    a, b = cards("AhAd", "KsKc")
    deck = [c for c in range(52) if c not in (*a, *b)]
    wins_a = wins_b = split = 0
    for board in combinations(deck, 5):
        x = phevaluator.evaluate_cards(*a, *board)
        y = phevaluator.evaluate_cards(*b, *board)
        wins_a += x < y
        wins_b += y < x
        split += x == y
    got = equity([a, b])
    assert [(s.wins, s.ties, s.boards) for s in got] == [
        (wins_a, split, 1_712_304),
        (wins_b, split, 1_712_304),
    ]
    assert got[0].tie_share == split / 2
    # The well-known figure: aces win about 81-82% against kings.
    assert 0.81 < got[0].equity < 0.82


def test_board_plays_splits_evenly_between_many_hands() -> None:
    hands = cards("2c3d", "2d3c", "4c5d", "4d5c")
    shares = equity(hands, parse_cards("AsKsQsJsTs"))
    assert all(s.wins == 0 and s.ties == 1 and s.tie == pytest.approx(0.25) for s in shares)


def test_board_sums_enumerate_each_subset_once() -> None:
    deck = list(range(0, 52, 3))  # 18 cards
    sums_w, _ = board_sums(deck, 3)
    expected = sorted(sum(WEIGHTS[c] for c in trio) for trio in combinations(deck, 3))
    assert sorted(sums_w.tolist()) == expected


@pytest.mark.parametrize(
    ("holes", "board", "dead", "message"),
    [
        (("AhAd",), "", "", "at least two hands"),
        (("AhAd", "Ks"), "", "", "exactly two hole cards"),
        (("AhAd", "KsKcQd"), "", "", "exactly two hole cards"),
        (("AhAd", "KsKc"), "2c", "", "give none"),
        (("AhAd", "KsKc"), "2c3c", "", "give none"),
        (("AhAd", "KsKc"), "2c3c4c5c6c7c", "", "give none"),
        (("AhAd", "AhKc"), "", "", "used twice"),
        (("AhAd", "KsKc"), "Ah2c3c", "", "used twice"),
        (("AhAd", "KsKc"), "", "Kc", "used twice"),
    ],
)
def test_bad_input_is_a_clear_error(
    holes: tuple[str, ...], board: str, dead: str, message: str
) -> None:
    hands = [parse_cards(h) for h in holes]
    with pytest.raises(CardError, match=message):
        equity(hands, parse_cards(board), parse_cards(dead))


def test_card_numbers_out_of_range_are_rejected() -> None:
    with pytest.raises(CardError, match="not a card number"):
        equity([[0, 1], [2, 52]])


def test_too_many_dead_cards_is_a_clear_error() -> None:
    with pytest.raises(CardError, match="Too few cards"):
        equity(cards("AhAd", "KsKc"), dead=list(range(0, 44)))
