"""Numpy batch evaluator: identical strengths to the pure-Python evaluator."""

from __future__ import annotations

import random

import numpy as np
import pytest

from firmware.engine.evaluator import Category, evaluate
from firmware.errors import CardError
from firmware.odds.batch import CHUNK_ROWS, evaluate_batch
from firmware.odds.verify import (
    EXPECTED_DISTINCT_VALUES,
    EXPECTED_SEVEN_CARD_COUNTS,
    VerifyResult,
    main_verify,
)


def random_hands(n: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k]


@pytest.mark.parametrize("k", [5, 6, 7])
def test_batch_equals_evaluate_on_random_hands(k: int) -> None:
    hands = random_hands(30_000, k, seed=k)
    expected = [evaluate(row) for row in hands.tolist()]
    assert evaluate_batch(hands).tolist() == expected


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64])
def test_batch_accepts_any_integer_dtype(dtype: type) -> None:
    hands = random_hands(500, 7, seed=3)
    assert evaluate_batch(hands.astype(dtype)).tolist() == evaluate_batch(hands).tolist()


def test_batch_flush_heavy_hands_and_chunk_boundary() -> None:
    """More rows than one chunk, most of them holding five or more suited cards."""
    rng = random.Random(9)
    rows = []
    for _ in range(CHUNK_ROWS + 1_000):
        suit = rng.randrange(4)
        suited = [c for c in range(52) if c & 3 == suit]
        n = rng.choice((4, 5, 6, 7))
        rest = [c for c in range(52) if c & 3 != suit]
        rows.append(rng.sample(suited, n) + rng.sample(rest, 7 - n))
    hands = np.array(rows)
    got = evaluate_batch(hands)
    sample = rng.sample(range(len(rows)), 20_000) + list(range(CHUNK_ROWS - 5, CHUNK_ROWS + 5))
    assert [int(got[i]) for i in sample] == [evaluate(rows[i]) for i in sample]


def test_batch_empty_input() -> None:
    assert evaluate_batch(np.zeros((0, 7), dtype=np.int64)).shape == (0,)


@pytest.mark.parametrize(
    "bad",
    [np.zeros((3, 4), dtype=np.int64), np.zeros(7, dtype=np.int64), np.zeros((2, 7)) + 0.5],
)
def test_batch_rejects_bad_shapes_and_types(bad: np.ndarray) -> None:
    with pytest.raises(CardError, match=r"evaluate_batch needs (an|integer)"):
        evaluate_batch(bad)


def test_batch_rejects_card_numbers_out_of_range() -> None:
    with pytest.raises(CardError, match="outside 0 to 51"):
        evaluate_batch(np.array([[0, 1, 2, 3, 52]]))


def test_cc_11_all_133784560_seven_card_hands_have_the_published_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """CC-11: The batch evaluator over every seven-card hand (about 2 s), via the CLI entry."""
    assert main_verify([]) == 0
    out = capsys.readouterr()
    assert "Seven-card check OK: 133,784,560 hands, 4824 distinct strengths" in out.out
    assert "133,784,560 / 133,784,560 hands" in out.err


def test_verify_result_flags_a_wrong_count() -> None:
    good = dict(EXPECTED_SEVEN_CARD_COUNTS)
    bad = {**good, Category.FLUSH: good[Category.FLUSH] - 1}
    assert VerifyResult(good, good, EXPECTED_DISTINCT_VALUES, 133_784_560, 1.0).ok
    assert not VerifyResult(bad, good, EXPECTED_DISTINCT_VALUES, 133_784_560, 1.0).ok
    assert "FAILED" in VerifyResult(bad, good, 4824, 133_784_560, 1.0).summary()


def test_verify_rejects_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_verify(["--fast"]) == 2
    assert "takes no arguments" in capsys.readouterr().err
