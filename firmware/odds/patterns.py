"""Exact equity by rank pattern: boards grouped by their ranks, flushes counted apart.

Enumerating every board (:func:`firmware.odds.equity.equity_by_boards`)
evaluates 1,712,304 boards per hand heads-up preflop, yet most boards differ
only in suits that cannot matter. This module counts the same boards in far
fewer groups, exactly:

1. **Rank multisets.** Without a flush a hand's strength depends only on the
   ranks of its seven cards. The remaining board cards are grouped by their
   rank multiset (at most 6,175 for five cards); a multiset stands for
   ``prod(C(available cards of rank r, times r occurs))`` boards. Each group
   is evaluated once as if nobody had a flush.
2. **Flush corrections.** Five board cards hold three or more of at most one
   suit, so at most one suit can give anybody a flush on a given board. For
   each suit ``s`` and each number ``j`` of new ``s`` cards that lets some
   hand reach five of ``s``, the boards are grouped by *which* ranks of ``s``
   come (a subset of the available ones) and the rank multiset of the other
   new cards (not of suit ``s``). For those groups the showdown is played
   twice, with the flushes and without, and the difference, times the
   number of boards in the group, is added. With five cards of one suit among
   seven no full house or quads is possible, so a flush hand's strength is
   simply its flush.

Every group carries an integer weight (its number of boards), so wins, split
counts and board totals are the same integers the board-by-board enumeration
gives. Heads-up preflop is about 6,000 rank groups and some tens of
thousands of flush groups instead of 1.7 million boards.

>>> from firmware.engine.cards import parse_cards
>>> hands = [parse_cards("AhAd"), parse_cards("KsKc")]
>>> [s.wins for s in pattern_equity(hands, parse_cards("2c7d9h4s"))]
[42, 2]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement
from math import comb

import numpy as np
import numpy.typing as npt

from firmware.engine.cards import DECK_SIZE, Card
from firmware.engine.evaluator import rank_weight
from firmware.odds.batch import FLUSH_STRENGTHS, multiset_index, rank_strengths
from firmware.odds.shares import Share, Tally

__all__ = ["pattern_equity"]

Int64Array = npt.NDArray[np.int64]

#: Rank part of each rank's card weight (see :func:`firmware.engine.evaluator.rank_weight`).
RANK_WEIGHTS: Int64Array = np.array([rank_weight(r) for r in range(13)], dtype=np.int64)
#: ``BINOMIAL[n, k] = C(n, k)`` for n up to 4 cards of a rank and k up to 5.
BINOMIAL: Int64Array = np.array([[comb(n, k) for k in range(6)] for n in range(5)], dtype=np.int64)
_ALL_MASKS = np.arange(1 << 13, dtype=np.int64)
#: Rank-weight sum of every 13-bit rank mask.
MASK_RANK_WEIGHTS: Int64Array = (((_ALL_MASKS[:, None] >> np.arange(13)) & 1) * RANK_WEIGHTS).sum(
    axis=1
)
_POPCOUNT = ((_ALL_MASKS[:, None] >> np.arange(13)) & 1).sum(axis=1)


@cache
def _multisets(size: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], Int64Array]:
    """Every multiset of ``size`` ranks, sorted by rank-weight sum.

    Returns ``(ranks, times, weights)``: ``ranks[i, m]`` is the ``i``-th
    distinct rank of multiset ``m`` (13, a rank with no cards, past its last)
    and ``times[i, m]`` how often it occurs; ``weights[m]`` the rank-weight
    sum. Sums are distinct (base-5 digits), so :func:`numpy.searchsorted`
    finds a multiset from its sum.
    """
    combos = sorted(
        (c for c in combinations_with_replacement(range(13), size) if size < 5 or c[0] != c[4]),
        key=lambda combo: sum(rank_weight(r) for r in combo),
    )
    ranks = np.full((max(size, 1), len(combos)), 13, dtype=np.intp)
    times = np.zeros_like(ranks)
    for m, combo in enumerate(combos):
        for i, rank in enumerate(sorted(set(combo))):
            ranks[i, m], times[i, m] = rank, combo.count(rank)
    weights = np.array([sum(rank_weight(r) for r in combo) for combo in combos], dtype=np.int64)
    if size == 5:  # order them by the batch evaluator's perfect index instead
        order = np.argsort(multiset_index(weights, 5))
        ranks, times, weights = ranks[:, order], times[:, order], weights[order]
    return ranks, times, weights


def _position(size: int, weights: Int64Array) -> npt.NDArray[np.intp]:
    """Position in :func:`_multisets` of the multisets with these rank-weight sums."""
    if size == 5:
        return multiset_index(weights, 5)
    return np.searchsorted(_multisets(size)[2], weights)


@cache
def _masks_of_size(size: int) -> Int64Array:
    """Every 13-bit rank mask with ``size`` bits set."""
    masks: Int64Array = _ALL_MASKS[size == _POPCOUNT]
    return masks


def _boards_per_multiset(size: int, available: npt.NDArray[np.intp]) -> Int64Array:
    """Boards per multiset of :func:`_multisets` given the cards left of each rank (13 ints)."""
    ranks, times, _ = _multisets(size)
    left = np.append(available, 0)  # rank 13: the padding, C(0, 0) = 1
    per_rank = BINOMIAL[left[ranks], times]
    boards: Int64Array = per_rank[0].copy()
    for row in per_rank[1:]:
        boards *= row
    return boards


def pattern_equity(
    holes: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    dead: Sequence[Card] = (),
) -> list[Share]:
    """Exact equity of each hand, counting boards by rank pattern (inputs already validated).

    Same result as enumerating every board; see the module docstring for how.
    Call :func:`firmware.odds.equity.equity`, which validates its input first.
    """
    used = {int(c) for hole in holes for c in hole} | {int(c) for c in (*board, *dead)}
    available = np.zeros((13, 4), dtype=np.intp)
    for card in range(DECK_SIZE):
        if card not in used:
            available[card >> 2, card & 3] = 1
    new = 5 - len(board)
    fixed_w = int(sum(RANK_WEIGHTS[c >> 2] for c in board))
    hole_w = np.array(
        [fixed_w + int(RANK_WEIGHTS[a >> 2] + RANK_WEIGHTS[b >> 2]) for a, b in holes],
        dtype=np.int64,
    )
    players = len(holes)
    tally = Tally(players)

    # Strength of every hand on every multiset of new cards, as if no flush existed.
    weights = _multisets(new)[2]
    boards = _boards_per_multiset(new, available.sum(axis=1))
    possible = np.flatnonzero(boards)
    plain = np.zeros((players, weights.size), dtype=np.uint16)
    plain[:, possible] = rank_strengths(weights[possible][None, :] + hole_w[:, None], 7)
    # Boards where some hand has a flush are tallied below, and taken out of their multiset.
    flush_boards = np.zeros(weights.size, dtype=np.int64)
    best_but: dict[int, npt.NDArray[np.uint16]] = {}  # best plain strength of all but hand p

    for suit in range(4):
        board_mask = sum(1 << (c >> 2) for c in board if c & 3 == suit)
        on_board = board_mask.bit_count()
        hole_masks = [sum(1 << (c >> 2) for c in hole if c & 3 == suit) for hole in holes]
        most = max(m.bit_count() for m in hole_masks)
        free = sum(1 << r for r in range(13) if available[r, suit])
        others = available.sum(axis=1) - available[:, suit]
        for j in range(max(0, 5 - on_board - most), new + 1):
            subsets = _masks_of_size(j)
            subsets = subsets[(subsets & ~free) == 0]
            rest_boards = _boards_per_multiset(new - j, others)
            rest = np.flatnonzero(rest_boards)
            if not subsets.size or not rest.size:
                continue
            rest_w, rest_boards = _multisets(new - j)[2][rest], rest_boards[rest]
            unit_w = (MASK_RANK_WEIGHTS[subsets][:, None] + rest_w[None, :]).ravel()
            unit_boards = np.tile(rest_boards, subsets.size)
            where = _position(new, unit_w)
            flush_boards += np.bincount(where, weights=unit_boards, minlength=weights.size).astype(
                np.int64
            )
            flushers = [p for p, m in enumerate(hole_masks) if on_board + j + m.bit_count() >= 5]
            flush = {  # five of one suit among seven rule out full houses and quads
                p: FLUSH_STRENGTHS[subsets | (board_mask | hole_masks[p])] for p in flushers
            }
            if len(flushers) == 1:
                # Usual case: the one flush wins alone unless somebody else has a full
                # house or better; only those few columns need a full showdown.
                (p,) = flushers
                if p not in best_but:
                    best_but[p] = np.delete(plain, p, axis=0).max(axis=0)
                mine = np.repeat(flush[p], rest.size)
                beaten = np.flatnonzero(best_but[p][where] > mine)
                tally.split[p, 1] += int(unit_boards.sum()) - int(unit_boards[beaten].sum())
                where, unit_boards, mine = where[beaten], unit_boards[beaten], mine[beaten]
                strengths = plain[:, where]
                strengths[p] = mine
            else:
                strengths = plain[:, where]
                for p in flushers:
                    strengths[p] = np.repeat(flush[p], rest.size)
            tally.add(strengths, unit_boards)
    tally.add(plain[:, possible], boards[possible] - flush_boards[possible])
    return tally.shares(comb(int(available.sum()), new))
