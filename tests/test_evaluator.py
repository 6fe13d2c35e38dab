"""Hand evaluator: hand rankings (PE-5), cards speak (CC-11), descriptions.

The reference ranker below is deliberately simple and independent of the
evaluator's tables: it sorts ranks by (count, rank) and tests straights and
flushes directly, so a table-building bug cannot hide in both.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, pairwise

import pytest

from firmware.engine.cards import parse_cards
from firmware.engine.evaluator import (
    Category,
    best_hand,
    category_of,
    evaluate,
    evaluate5,
    evaluate7,
)
from firmware.errors import CardError, ConfigError

# ---------------------------------------------------------------------------
# An obviously-correct reference ranker
# ---------------------------------------------------------------------------


def reference_rank5(cards: tuple[int, ...]) -> tuple[int, ...]:
    """Comparable key of five cards: (category 1..9, tie-break ranks...)."""
    ranks = [c >> 2 for c in cards]
    flush = len({c & 3 for c in cards}) == 1
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [n for _, n in groups]
    order = tuple(r for r, _ in groups)
    distinct = sorted(set(ranks), reverse=True)
    straight_high = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        straight_high = distinct[0]
    if distinct == [12, 3, 2, 1, 0]:
        straight_high = 3
    if straight_high is not None:
        return (9 if flush else 5, straight_high)
    if shape == [4, 1]:
        return (8, *order)
    if shape == [3, 2]:
        return (7, *order)
    if flush:
        return (6, *order)
    if shape == [3, 1, 1]:
        return (4, *order)
    if shape == [2, 2, 1]:
        return (3, *order)
    if shape == [2, 1, 1, 1]:
        return (2, *order)
    return (1, *order)


def reference_best(cards: tuple[int, ...]) -> tuple[int, ...]:
    """Best reference key over every five-card subset."""
    return max(reference_rank5(five) for five in combinations(cards, 5))


def strength(text: str) -> int:
    return evaluate(parse_cards(text))


# ---------------------------------------------------------------------------
# PE-5: hand rankings
# ---------------------------------------------------------------------------

FIVE_CARD_CATEGORY_COUNTS = {
    Category.STRAIGHT_FLUSH: 40,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}


def test_pe_5_all_2598960_five_card_hands_rank_into_7462_values() -> None:
    """PE-5: Every five-card hand: 7,462 distinct values, the textbook category
    counts, and an order that agrees with the reference ranker."""
    per_strength: dict[int, tuple[int, ...]] = {}
    histogram: Counter[int] = Counter()
    for five in combinations(range(52), 5):
        s = evaluate5(*five)
        histogram[s] += 1
        if s not in per_strength:
            per_strength[s] = five
    assert sum(histogram.values()) == 2_598_960
    assert len(histogram) == 7462
    assert sorted(histogram) == list(range(1, 7463))
    by_category: Counter[Category] = Counter()
    for s, n in histogram.items():
        by_category[category_of(s)] += n
    assert dict(by_category) == FIVE_CARD_CATEGORY_COUNTS
    # One representative per strength: the reference keys must rise strictly
    # with strength, and the reference category must match category_of.
    keys = [reference_rank5(per_strength[s]) for s in range(1, 7463)]
    assert all(a < b for a, b in pairwise(keys))
    assert all(k[0] == category_of(s) for s, k in enumerate(keys, start=1))


def test_pe_5_equal_values_are_equal_hands_on_random_five_card_hands() -> None:
    """PE-5: two five-card hands of equal rank by the norm's ladder get equal strength, checked on
    random hands.
    """
    rng = random.Random(5)
    seen: dict[int, tuple[int, ...]] = {}
    for _ in range(20_000):
        five = tuple(rng.sample(range(52), 5))
        key = reference_rank5(five)
        assert seen.setdefault(evaluate5(*five), key) == key


# (better, worse) pairs, one or more per PE-5 tie-break rule.
PE_5_ORDER = [
    # Categories from high to low.
    ("AsKsQsJsTs", "9h8h7h6h5h"),  # royal flush over a lower straight flush
    ("5d4d3d2dAd", "AcAdAhAsKc"),  # the lowest straight flush beats quads
    ("2c2d2h2s3c", "AcAdAhKsKc"),  # quads over full house
    ("2c2d2h3s3c", "AhKhQhJh9h"),  # full house over flush
    ("7h5h4h3h2h", "AcKdQhJsTc"),  # flush over straight
    ("5c4d3h2sAc", "AcAdAhKsQc"),  # the wheel still beats trips
    ("2c2d2h4s3c", "AcAdKhKsQc"),  # trips over two pair
    ("3c3d2h2sAc", "AcAdKhQsJc"),  # two pair over one pair
    ("2c2d3h4s5c", "AcKdQhJs9c"),  # pair over high card
    # Four of a kind: higher quads, then the kicker.
    ("3c3d3h3s2c", "2c2d2h2sAc"),
    ("9c9d9h9sAc", "9c9d9h9sKc"),
    # Full house: higher trips, then the higher pair.
    ("3c3d3h2s2c", "2c2d2hAsAc"),
    ("KcKdKh9s9c", "KcKdKh8s8c"),
    # Flush: highest card, then the next ones.
    ("Ah5h4h3h7h", "KhQhJh9h8h"),
    ("AhJh9h7h4h", "AhJh9h7h3h"),
    ("AhJh9h7h4h", "AhJh8h7h6h"),
    # Straight: highest card only; A-2-3-4-5 is the lowest straight.
    ("AcKdQhJsTc", "KcQdJhTs9c"),
    ("6c5d4h3s2c", "5c4d3h2sAc"),
    ("TcJdQhKs9c", "6c5d4h3s2c"),
    # Three of a kind: higher trips, then kickers.
    ("3c3d3h4s5c", "2c2d2hAsKc"),
    ("7c7d7hAs3c", "7c7d7hKsQc"),
    ("7c7d7hAs4c", "7c7d7hAs3c"),
    # Two pair: higher pair, then lower pair, then kicker.
    ("AcAd2h2s3c", "KcKdQhQsJc"),
    ("AcAd3h3s2c", "AcAd2h2sKc"),
    ("AcAd2h2sKc", "AcAd2h2sQc"),
    # Pair: the pair, then kickers one by one.
    ("AcAd2h3s4c", "KcKdAhQsJc"),
    ("AcAdKh3s2c", "AcAdQhJsTc"),
    ("AcAdKh5s4c", "AcAdKh5s3c"),
    # High card: highest, then the next ones.
    ("Ac7d5h3s2c", "KcQdJh9s8c"),
    ("AcKdQhJs9c", "AcKdQhJs8c"),
    ("AcKdQhJs8c", "AcKdQhTs9c"),
]


@pytest.mark.parametrize(("better", "worse"), PE_5_ORDER)
def test_pe_5_tie_breaks(better: str, worse: str) -> None:
    """PE-5: ties break by the norm's order: the higher quads or trips, then the highest cards, the
    higher then lower pair, then kickers.
    """
    assert strength(better) > strength(worse)
    assert reference_rank5(tuple(parse_cards(better))) > reference_rank5(tuple(parse_cards(worse)))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("AcKdQhJs9c", "AdKhQsJc9d"),  # suits never break ties
        ("KcKdKh9s9c", "KsKhKd9d9h"),
        ("5c4d3h2sAc", "5d4h3s2cAd"),
        ("AcAd2h2sKc", "AhAs2c2dKd"),
    ],
)
def test_pe_5_identical_ranks_tie(first: str, second: str) -> None:
    """PE-5: hands with the same ranks in different suits tie; suits never break a tie."""
    assert strength(first) == strength(second)


def test_pe_5_extremes_and_straight_bounds() -> None:
    """PE-5: the royal flush is highest and A-2-3-4-5 is the lowest straight; the ace is high
    elsewhere.
    """
    assert strength("AsKsQsJsTs") == 7462
    assert strength("7c5d4h3s2c") == 1
    wheel, six_high, ace_high = (
        strength("5c4d3h2sAc"),
        strength("6c5d4h3s2c"),
        strength("AcKdQhJsTc"),
    )
    straights = [s for s in range(1, 7463) if category_of(s) is Category.STRAIGHT]
    assert wheel == min(straights) < six_high
    assert ace_high == max(straights)


# ---------------------------------------------------------------------------
# CC-11: cards speak, best five of seven
# ---------------------------------------------------------------------------


def test_cc_11_best_five_of_seven_matches_reference_on_random_hands() -> None:
    """CC-11: evaluate7 orders 3,000 random seven-card hands exactly as the best
    five-card subset under the reference ranker does."""
    rng = random.Random(11)
    strength_of_key: dict[tuple[int, ...], int] = {}
    for _ in range(3_000):
        seven = tuple(rng.sample(range(52), 7))
        s = evaluate7(*seven)
        assert s == evaluate(seven) == max(evaluate5(*f) for f in combinations(seven, 5))
        assert strength_of_key.setdefault(reference_best(seven), s) == s
    ordered = sorted(strength_of_key.items())
    assert all(a[1] < b[1] for a, b in pairwise(ordered))


def test_cc_11_six_cards_are_best_five_of_six() -> None:
    """CC-11: cards speak: the evaluator takes the best five of the cards available."""
    rng = random.Random(6)
    for _ in range(2_000):
        six = tuple(rng.sample(range(52), 6))
        assert evaluate(six) == max(evaluate5(*f) for f in combinations(six, 5))


def test_cc_11_flush_draws_and_suited_boards() -> None:
    """CC-11: Hands weighted towards one suit exercise the flush path hard."""
    rng = random.Random(12)
    hearts = [c for c in range(52) if c & 3 == 2]
    others = [c for c in range(52) if c & 3 != 2]
    for n_hearts in (3, 4, 5, 6, 7):
        for _ in range(300):
            seven = tuple(rng.sample(hearts, n_hearts) + rng.sample(others, 7 - n_hearts))
            best = max(reference_rank5(f) for f in combinations(seven, 5))
            assert category_of(evaluate7(*seven)) == best[0]
            assert evaluate7(*seven) == max(evaluate5(*f) for f in combinations(seven, 5))


def test_cc_11_agrees_with_phevaluator_on_random_pairs() -> None:
    """CC-11: Our order (higher is better) mirrors phevaluator's (lower is better)."""
    phevaluator = pytest.importorskip("phevaluator")
    rng = random.Random(7)
    for _ in range(5_000):
        h1 = rng.sample(range(52), 7)
        h2 = rng.sample(range(52), 7)
        ours = evaluate7(*h1) - evaluate7(*h2)
        theirs = phevaluator.evaluate_cards(*h2) - phevaluator.evaluate_cards(*h1)
        assert (ours > 0) - (ours < 0) == (theirs > 0) - (theirs < 0)
        # phevaluator ranks 1 (best) .. 7462 (worst): the same scale reversed.
        assert evaluate7(*h1) == 7463 - phevaluator.evaluate_cards(*h1)


@pytest.mark.parametrize(
    ("hole", "board", "expected"),
    [
        ("2c3d", "AhKhQhJhTh", "Royal flush"),  # the board plays
        ("AcKc", "AdAh7s7c2d", "Full house, aces full of sevens"),
        ("Ac2d", "KhKsQc9d4h", "Pair of kings"),  # ace kicker still counts
        ("6h7h", "8h9hTh2c2d", "Straight flush, ten high"),
        ("Ac2d", "3h4s5c9dKh", "Straight, five high"),
        ("9c9d", "9h9sKd2c2h", "Four of a kind, nines"),
    ],
)
def test_cc_11_hole_cards_and_board_together(hole: str, board: str, expected: str) -> None:
    """CC-11: the best five cards come from the two hole cards and the board together, in any
    combination.
    """
    assert best_hand(parse_cards(hole + board)).describe("en") == expected


def test_cc_11_kicker_from_the_hole_decides() -> None:
    """CC-11: a hole card used as a kicker decides between hands that share the board's pair."""
    board = "AhAd8s5c2h"
    assert strength("KcQd" + board) > strength("QcJd" + board)
    # Both players play the board's best five: a split.
    board = "AhKdQsJcTh"
    assert strength("2c3d" + board) == strength("4s5s" + board)


# ---------------------------------------------------------------------------
# best_hand and describe()
# ---------------------------------------------------------------------------

DESCRIPTIONS = [
    ("AsKsQsJsTs", "Royal flush", "Escalera real"),
    ("9s8s7s6s5s2c", "Straight flush, nine high", "Escalera de color al nueve"),
    ("5d4d3d2dAd", "Straight flush, five high", "Escalera de color al cinco"),
    ("QcQdQhQs3c", "Four of a kind, queens", "Póker de reinas"),
    ("KcKdKh9s9c2d3d", "Full house, kings full of nines", "Full de reyes y nueves"),
    ("Ah9h7h4h2hKc", "Flush, ace high", "Color al as"),
    ("Qh9h7h4h2hKc", "Flush, queen high", "Color a la reina"),
    ("5c4d3h2sAcKd", "Straight, five high", "Escalera al cinco"),
    ("JcTd9h8s7c", "Straight, jack high", "Escalera a la jota"),
    ("7c7d7hAs3c", "Three of a kind, sevens", "Trío de sietes"),
    ("AcAd5h5s3c", "Two pair, aces and fives", "Doble pareja de ases y cincos"),
    ("TcTd6h6s3c", "Two pair, tens and sixes", "Doble pareja de dieces y seises"),
    ("JcJdAh5s3c", "Pair of jacks", "Pareja de jotas"),
    ("2c2dAh5s3cKd", "Pair of twos", "Pareja de doses"),
    ("AcJd9h5s3c", "High card, ace", "Carta alta: as"),
    ("KcJd9h5s3c", "High card, king", "Carta alta: rey"),
]


@pytest.mark.parametrize(("cards", "english", "spanish"), DESCRIPTIONS)
def test_describe_every_category_in_both_languages(cards: str, english: str, spanish: str) -> None:
    hand = best_hand(parse_cards(cards))
    assert hand.describe("en") == english
    assert hand.describe("es") == spanish
    assert hand.strength == evaluate(parse_cards(cards))
    assert hand.category == category_of(hand.strength)


def test_every_category_is_described() -> None:
    covered = {best_hand(parse_cards(c)).category for c, _, _ in DESCRIPTIONS}
    assert covered == set(Category)


@pytest.mark.parametrize(
    ("cards", "five"),
    [
        ("KcKdKh9s9c2d3d", "KhKdKc9s9c"),  # trips first, then the pair
        ("AcAd5h5s3cKh2d", "AdAc5s5hKh"),  # higher pair, lower pair, kicker
        ("5c4d3h2sAc", "5c4d3h2sAc"),  # the wheel shows its ace last
        ("Ah9h7h4h2hKh", "AhKh9h7h4h"),  # best five of six hearts
    ],
)
def test_best_hand_orders_the_five_cards(cards: str, five: str) -> None:
    assert best_hand(parse_cards(cards)).cards == tuple(parse_cards(five))


def test_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="use 'en' or 'es'"):
        best_hand(parse_cards("AcKdQhJs9c")).describe("fr")


@pytest.mark.parametrize(
    ("cards", "why"),
    [
        ([0, 1, 2, 3], "5, 6 or 7 cards, but 4 were given"),
        ([0, 1, 2, 3, 4, 5, 6, 7], "5, 6 or 7 cards, but 8 were given"),
        ([0, 1, 2, 3, 52], "52 is not a card number"),
    ],
)
def test_bad_hands_are_rejected(cards: list[int], why: str) -> None:
    with pytest.raises(CardError, match=why):
        evaluate(cards)
    with pytest.raises(CardError, match=why):
        best_hand(cards)


def test_duplicate_cards_are_rejected() -> None:
    with pytest.raises(CardError, match="appears twice"):
        evaluate([0, 1, 2, 3, 0])


def test_category_of_rejects_out_of_range() -> None:
    with pytest.raises(CardError, match="strengths run from 1 to 7462"):
        category_of(0)
