"""Exact all-in equity over every remaining board.

:func:`equity` is the entry point: it checks its input, then takes heads-up
preflop from a stored table (:mod:`firmware.odds.headsup`) and counts every
other case by rank pattern (:mod:`firmware.odds.patterns`), a few thousand
groups of boards instead of up to 1.7 million boards.
:func:`equity_by_boards` evaluates every board one by one; it is the
reference the tests compare both against.

For each hand the result counts the boards it wins outright, the boards it
splits, and its share of the split boards (a two-way split counts 1/2, a
three-way split 1/3...). ``equity = win + tie`` where both are fractions of
all boards, so the equities of all hands add up to 1.

How the reference is fast: a hand's weight sum (see :mod:`firmware.odds.batch`)
is additive, so the board completions are enumerated once as *sums* — weight sum and
suited-rank-mask sum per board, built column-wise without materialising the
cards — and each player's two hole cards are added as one scalar. Heads-up
preflop is 1,712,304 boards per player.

>>> from firmware.engine.cards import parse_cards
>>> shares = equity([parse_cards("AhAd"), parse_cards("KsKc")], board=parse_cards("2c7d9h4s"))
>>> [s.wins for s in shares], shares[0].boards
([42, 2], 44)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from firmware.engine.cards import DECK_SIZE, Card
from firmware.engine.matchups import check_all_in
from firmware.odds.batch import MASK_WEIGHTS, WEIGHTS64, strengths_from_sums
from firmware.odds.headsup import lookup
from firmware.odds.patterns import pattern_equity
from firmware.odds.shares import Share, Tally

__all__ = ["Share", "board_sums", "equity", "equity_by_boards"]

Int64Array = npt.NDArray[np.int64]

#: Boards evaluated per chunk (bounds memory to tens of megabytes).
CHUNK_BOARDS = 1 << 18


def board_sums(cards: Sequence[Card], k: int) -> tuple[Int64Array, Int64Array]:
    """Weight sums and suited-rank-mask sums of every ``k``-card subset of ``cards``.

    Subsets are listed by their first card (in the order of ``cards``), so the
    subsets whose first card comes after position ``i`` form a suffix; each
    level ``t`` is built from level ``t - 1`` by adding one card in front of
    such suffixes. Returns two int64 arrays of length ``C(len(cards), k)``.
    """
    n = len(cards)
    idx = np.asarray(cards, dtype=np.intp)
    w, m = WEIGHTS64[idx], MASK_WEIGHTS[idx]
    if k == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    # Level 1: subsets starting at i; start[i] = first subset whose first card is >= i.
    sums_w, sums_m = w.copy(), m.copy()
    start = np.arange(n + 1)
    for _ in range(k - 1):
        sizes = np.maximum(start[-1] - start[1:], 0)  # suffix after position i
        parts_w = [w[i] + sums_w[start[i + 1] :] for i in range(n) if sizes[i]]
        parts_m = [m[i] + sums_m[start[i + 1] :] for i in range(n) if sizes[i]]
        if not parts_w:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        sums_w, sums_m = np.concatenate(parts_w), np.concatenate(parts_m)
        start = np.concatenate(([0], np.cumsum(sizes)))
    return sums_w, sums_m


def equity(
    holes: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    dead: Sequence[Card] = (),
) -> list[Share]:
    """Exact equity of each hand over every completion of ``board``.

    Heads-up preflop with no dead cards comes from the stored table
    (:mod:`firmware.odds.headsup`); everything else counts the boards by rank
    pattern (:mod:`firmware.odds.patterns`). Either way the result is
    identical, integer for integer, to :func:`equity_by_boards`.

    :param holes: two hole cards per hand (card ints, see :mod:`firmware.engine.cards`).
    :param board: 0, 3, 4 or 5 board cards already dealt.
    :param dead: cards known to be out of the deck (folded, burned and shown...).
    :returns: one :class:`Share` per hand, in the order of ``holes``.
    :raises CardError: for fewer than two hands, a hand without exactly two
        cards, a board of 1, 2 or 6+ cards, or a card used twice.
    """
    check_all_in(holes, board, dead)
    if len(holes) == 2 and not board and not dead:
        first, second = holes
        stored = lookup((int(first[0]), int(first[1])), (int(second[0]), int(second[1])))
        if stored is not None:
            return stored
    return pattern_equity(holes, board, dead)


def equity_by_boards(
    holes: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    dead: Sequence[Card] = (),
) -> list[Share]:
    """Exact equity of each hand, evaluating every completion of ``board`` one by one.

    The reference for :func:`equity` (same arguments, same result, slower).
    """
    check_all_in(holes, board, dead)
    used = {int(c) for hole in holes for c in hole} | {int(c) for c in (*board, *dead)}
    deck = [c for c in range(DECK_SIZE) if c not in used]
    all_w, all_m = board_sums(deck, 5 - len(board))
    fixed_w = sum(int(WEIGHTS64[c]) for c in board)
    fixed_m = sum(int(MASK_WEIGHTS[c]) for c in board)
    all_w += fixed_w
    all_m += fixed_m
    hole_w = [int(WEIGHTS64[a]) + int(WEIGHTS64[b]) for a, b in holes]
    hole_m = [int(MASK_WEIGHTS[a]) + int(MASK_WEIGHTS[b]) for a, b in holes]
    players = len(holes)
    tally = Tally(players)
    n_boards = all_w.size
    for lo in range(0, n_boards, CHUNK_BOARDS):
        bw, bm = all_w[lo : lo + CHUNK_BOARDS], all_m[lo : lo + CHUNK_BOARDS]
        strengths = np.empty((players, bw.size), dtype=np.uint16)
        for p in range(players):

            def masks(
                rows: npt.NDArray[np.intp], bm: Int64Array = bm, hm: int = hole_m[p]
            ) -> Int64Array:
                return bm[rows] + hm

            strengths[p] = strengths_from_sums(bw + hole_w[p], 7, masks)
        tally.add(strengths)
    return tally.shares(n_boards)
