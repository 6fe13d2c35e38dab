"""Numpy batch evaluator: many hands at once, same strengths as :mod:`firmware.engine.evaluator`.

Each card has the weight of :data:`firmware.engine.evaluator.WEIGHTS` (base-5 rank
digits in two fields, a flush flag per suit), so a hand's weight sum ``v`` is
built with one gather and add per pair of card columns (a 64x64 table of
pair sums). Then, per row:

* ``low = v & 0x1FFFF`` (ranks 2..8) and ``high = (v >> 17) & 0x3FFF``
  (ranks 9..A) index two small int32 tables whose sum is a *perfect index* of
  the rank multiset among all multisets of that many cards:
  ``LA[low] + LB[high]``. Multisets are grouped by how many cards fall in the
  low field (``j``); inside a group the index is
  ``offset[j] + rank_of_low * count_of_high[n - j] + rank_of_high``, the first
  two terms living in ``LA`` and the last in ``LB``. A uint16 table then
  gives the strength. Tables total about 1.2 MB.
* Rows with a flush flag (about 3% of 7-card hands) take the rank bitmask of
  the flush suit from a second additive sum, ``m``, where each card adds
  ``1 << (rank + 16 * suit)``, and look it up in a list of 8192.

Large inputs are processed in chunks so temporaries stay a few megabytes.

>>> import numpy as np
>>> from firmware.engine.cards import parse_cards
>>> evaluate_batch(np.array([parse_cards("AsKsQsJsTs2c3d"), parse_cards("7c5d4h3s2c9dJh")]))
array([7462,  172], dtype=uint16)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from firmware.engine.evaluator import (
    FLUSH_BITS,
    FLUSH_TABLE,
    HIGH_INDEX,
    HIGH_SHIFT,
    LOW_INDEX,
    RANK_STRENGTHS,
    SUIT_FIELD,
    SUIT_SHIFT,
    WEIGHTS,
)
from firmware.errors import CardError

__all__ = [
    "CHUNK_ROWS",
    "FLUSH_STRENGTHS",
    "MASK_WEIGHTS",
    "PAIR_WEIGHTS64",
    "WEIGHTS64",
    "evaluate_batch",
    "multiset_index",
    "rank_strengths",
    "strengths_from_sums",
]

Int64Array = npt.NDArray[np.int64]
UInt16Array = npt.NDArray[np.uint16]
IntArray = npt.NDArray[np.integer]

#: Rows evaluated per chunk; bounds temporary memory to a few megabytes.
CHUNK_ROWS = 1 << 17

#: Card weights (see :data:`firmware.engine.evaluator.WEIGHTS`) as int64.
WEIGHTS64: Int64Array = np.array(WEIGHTS, dtype=np.int64)
#: Per-card suited rank bit, ``1 << (rank + 16 * suit)``; sums give 4 rank masks.
MASK_WEIGHTS: Int64Array = np.array(
    [1 << ((c >> 2) + 16 * (c & 3)) for c in range(52)], dtype=np.int64
)

#: Weight sums of two cards, indexed by ``first << 6 | second`` (32 KB): one
#: gather per pair of card columns instead of two.
PAIR_WEIGHTS64: Int64Array = np.zeros(64 * 64, dtype=np.int64)
PAIR_WEIGHTS64.reshape(64, 64)[:52, :52] = WEIGHTS64[:, None] + WEIGHTS64[None, :]

_LOW_MASK = (1 << HIGH_SHIFT) - 1
_HIGH_MASK = (1 << 14) - 1
_FLAG_SHIFT = SUIT_SHIFT + SUIT_FIELD - 1  # first flush flag bit (clubs)


def _build() -> tuple[
    dict[int, npt.NDArray[np.int32]], npt.NDArray[np.int32], dict[int, UInt16Array]
]:
    """``LA`` per hand size (5, 6, 7), the shared ``LB`` and the strength tables.

    The engine's evaluator keeps exactly this index in flat lists
    (:data:`~firmware.engine.evaluator.LOW_INDEX` and friends); here they become arrays.
    """
    la_by_size = {n: np.array(LOW_INDEX[n - 5], dtype=np.int32) for n in (5, 6, 7)}
    table_by_size = {n: np.array(RANK_STRENGTHS[n - 5], dtype=np.uint16) for n in (5, 6, 7)}
    return la_by_size, np.array(HIGH_INDEX, dtype=np.int32), table_by_size


_LA, _LB, _STRENGTH = _build()
_FLUSH = np.array(FLUSH_TABLE, dtype=np.uint16)
#: Strength of the best flush in a 13-bit rank mask of one suit (0 below five bits).
FLUSH_STRENGTHS: UInt16Array = _FLUSH


def multiset_index(v: IntArray, n_cards: int) -> npt.NDArray[np.intp]:
    """Perfect index ``0 .. M - 1`` of the rank multisets of ``n_cards`` (5, 6 or 7) cards.

    :param v: int64 array of weight sums (or of rank parts alone).
    """
    index: npt.NDArray[np.intp] = (
        _LA[n_cards][v & _LOW_MASK] + _LB[(v >> HIGH_SHIFT) & _HIGH_MASK]
    ).astype(np.intp)
    return index


def rank_strengths(v: IntArray, n_cards: int) -> UInt16Array:
    """Strengths of hands ignoring flushes, from the rank part of their weight sums.

    :param v: any-shape int64 array of weight sums (or of rank parts alone).
    :param n_cards: cards per hand, 5, 6 or 7.
    """
    table: UInt16Array = _STRENGTH[n_cards][
        _LA[n_cards][v & _LOW_MASK] + _LB[(v >> HIGH_SHIFT) & _HIGH_MASK]
    ]
    return table


def strengths_from_sums(
    v: Int64Array, n_cards: int, masks: Callable[[npt.NDArray[np.intp]], Int64Array]
) -> UInt16Array:
    """Strengths of hands given their weight sums.

    :param v: weight sums (:data:`WEIGHTS64` added over each hand's cards).
    :param n_cards: cards per hand, 5, 6 or 7.
    :param masks: called with the row numbers of the flush hands, returns
        their :data:`MASK_WEIGHTS` sums (only those rows are needed).
    :returns: uint16 strengths, 1..7462, higher is better.
    """
    la, table = _LA[n_cards], _STRENGTH[n_cards]
    out: UInt16Array = table[la[v & _LOW_MASK] + _LB[(v >> HIGH_SHIFT) & _HIGH_MASK]]
    rows = np.flatnonzero(v & FLUSH_BITS)
    if rows.size:
        flags = (v[rows] & FLUSH_BITS) >> _FLAG_SHIFT  # one bit at 0, 7, 14 or 21
        suit = (flags >= 1 << 7).astype(np.int64) + (flags >= 1 << 14) + (flags >= 1 << 21)
        out[rows] = _FLUSH[(masks(rows) >> (suit << 4)) & 0x1FFF]
    return out


def evaluate_batch(cards: IntArray) -> UInt16Array:
    """Evaluate an ``(N, 5)``, ``(N, 6)`` or ``(N, 7)`` array of card numbers.

    Returns the same strengths as :func:`firmware.engine.evaluator.evaluate` (uint16,
    1..7462, higher is better). Cards in a row must be distinct; that is not
    checked here (it would cost more than the evaluation).

    :raises CardError: for a wrong shape or a card number outside 0..51.
    """
    arr = np.asarray(cards)
    if arr.ndim != 2 or arr.shape[1] not in (5, 6, 7):
        raise CardError(
            f"evaluate_batch needs an (N, 5), (N, 6) or (N, 7) array of cards, not shape "
            f"{arr.shape}; put one hand per row.",
            key="error.batch.shape",
            shape=str(arr.shape),
        )
    if not np.issubdtype(arr.dtype, np.integer):
        raise CardError(
            f"evaluate_batch needs integer card numbers, not {arr.dtype}; "
            "parse the cards with firmware.engine.cards first.",
            key="error.batch.dtype",
        )
    if arr.size and (arr.min() < 0 or arr.max() > 51):
        raise CardError(
            "evaluate_batch got a card number outside 0 to 51; card numbers are rank * 4 + suit.",
            key="error.card.number",
        )
    n, k = arr.shape
    out = np.empty(n, dtype=np.uint16)
    for start in range(0, n, CHUNK_ROWS):
        cols = np.ascontiguousarray(arr[start : start + CHUNK_ROWS].T, dtype=np.intp)
        v = PAIR_WEIGHTS64[cols[0] << 6 | cols[1]]
        for i in range(2, k - 1, 2):
            v += PAIR_WEIGHTS64[cols[i] << 6 | cols[i + 1]]
        if k % 2:
            v += WEIGHTS64[cols[k - 1]]

        def masks(rows: npt.NDArray[np.intp], cols: IntArray = cols) -> Int64Array:
            sub = cols[:, rows]
            m: Int64Array = MASK_WEIGHTS[sub[0]]
            for col in sub[1:]:
                m += MASK_WEIGHTS[col]
            return m

        out[start : start + CHUNK_ROWS] = strengths_from_sums(v, k, masks)
    return out
