"""Live equity during an all-in, exact, in pure Python (issue 15).

When no more betting is possible the live hands are turned face up (TDA-9) and
everyone at the table may see them; from then on the console (and a broadcast
view) can show each hand's exact share of the pot over every board still to
come. This runs on the table, whose runtime imports neither numpy nor
:mod:`firmware.odds` (an extra that is not installed there; an import-linter
contract forbids it), so it is written with the engine's own evaluator:

* From the flop on, every remaining board is enumerated: at most C(45, 2) =
  990 run-outs heads-up on the flop (820 with four hands), each hand's seven
  cards summed from the evaluator's card weights (:data:`WEIGHTS`) and read
  from its flat tables, the rare flush through :func:`evaluate7`.
* Heads-up before the flop (C(48, 5) = 1,712,304 boards, far too many for one
  frame) is read from the stored table of the 93,769 suit-isomorphism classes
  that :mod:`firmware.odds.headsup` builds, ``firmware/odds/data/headsup_preflop.npz``.
  It is opened here without numpy: an ``.npz`` is a zip of ``.npy`` files, each a
  short header (a Python literal naming the type and shape) followed by the raw
  little-endian array, which the :mod:`array` module loads as it is. It is read
  once, the first time it is needed. A matchup's row is found by the same
  canonical key (:func:`firmware.engine.matchups.canonical_key`, which the odds
  extra uses too) with a binary search.
* Three or more hands before the flop, or heads-up before the flop with dead
  cards, would need hundreds of thousands of boards: no result (``None``); the
  console says the odds are shown from the flop on.

Results are kept by hands, board and dead cards (a bounded cache), so the
views of every event of a street cost a dictionary lookup.
"""

from __future__ import annotations

import ast
import sys
import zipfile
from array import array
from bisect import bisect_left
from collections.abc import Collection, Mapping, Sequence
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Final

from firmware.engine.cards import DECK_SIZE
from firmware.engine.evaluator import (
    FLUSH_BITS,
    HIGH_INDEX,
    HIGH_MASK,
    HIGH_SHIFT,
    LOW_INDEX,
    LOW_MASK,
    RANK_STRENGTHS,
    WEIGHTS,
    evaluate7,
)
from firmware.engine.matchups import canonical_key, check_all_in
from firmware.engine.state import Phase

if TYPE_CHECKING:
    from firmware.table.dealing import TableHand

__all__ = [
    "FROM_FLOP",
    "TABLE_PATH",
    "all_in_tabled",
    "console_equity",
    "exact_equity",
    "live_equity",
    "preflop_table",
]

Equity = dict[int, dict[str, float]]

#: The heads-up preflop table, found from the package's folder (as the evaluator's
#: tables are) without importing :mod:`firmware.odds`.
TABLE_PATH: Final = (
    Path(sys.modules["firmware"].__path__[0]).resolve() / "odds" / "data" / "headsup_preflop.npz"
)
#: Boards behind a heads-up preflop matchup: C(48, 5).
PREFLOP_BOARDS: Final = 1_712_304
#: Catalog key of the console's sentence when the all-in's equity is not computed.
FROM_FLOP: Final = "ui.console.equity_from_flop"
#: Draw roles whose card, once public, is out of play and seen by everyone (as
#: :data:`firmware.views.audience.PUBLIC_DRAW_ROLES`; a test keeps them equal).
DEAD_ROLES: Final = ("exposed", "removed", "burn")
#: Results kept (each a few hands' numbers); cleared when full.
CACHE_SIZE: Final = 512

_STRENGTH7: Final = RANK_STRENGTHS[2]
_LOW7: Final = LOW_INDEX[2]
_CACHE: dict[tuple[object, ...], Equity | None] = {}


# ---------------------------------------------------------------- the stored table


def _npy_array(data: bytes, name: str) -> tuple[array[int], tuple[int, ...]]:
    """The array and shape of one ``.npy`` file's bytes (unsigned 32-bit, C order).

    :raises ValueError: for any other file, naming what is wrong.
    """
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{name} is not a .npy array")
    major = data[6]
    if major == 1:
        length, start = int.from_bytes(data[8:10], "little"), 10
    elif major in (2, 3):
        length, start = int.from_bytes(data[8:12], "little"), 12
    else:
        raise ValueError(f"{name} has .npy format version {major}, which is not read here")
    header = ast.literal_eval(data[start : start + length].decode("latin-1"))
    if not isinstance(header, dict) or header.get("fortran_order") or header.get("descr") != "<u4":
        raise ValueError(f"{name} is not a C-ordered little-endian uint32 array: {header!r}")
    shape = tuple(int(n) for n in header["shape"])
    values = array("I")
    if values.itemsize != 4:  # pragma: no cover - every platform we run on has 4-byte ints
        values = array("L")
    values.frombytes(data[start + length :])
    if sys.byteorder == "big":  # pragma: no cover - no big-endian Pi
        values.byteswap()
    expected = 1
    for n in shape:
        expected *= n
    if len(values) != expected:
        raise ValueError(f"{name} holds {len(values)} values for the shape {shape}")
    return values, shape


@cache
def preflop_table(path: Path = TABLE_PATH) -> tuple[array[int], array[int]] | None:
    """The heads-up preflop table's sorted class keys and its ``(wins, splits)`` counts
    (two per key, flat), read once; ``None`` when the file is missing or damaged."""
    try:
        with zipfile.ZipFile(path) as archive:
            keys, key_shape = _npy_array(archive.read("keys.npy"), "keys.npy")
            counts, count_shape = _npy_array(archive.read("counts.npy"), "counts.npy")
    except Exception:
        # Any damage (a cut header, a shape of no numbers, bad deflate data...) reads as
        # no table: the console's view is built from it on every change.
        return None
    if len(key_shape) != 1 or count_shape != (key_shape[0], 2):
        return None
    return keys, counts


def _preflop(first: tuple[int, int], second: tuple[int, int]) -> tuple[int, int, int] | None:
    """``(first's wins, second's wins, splits)`` out of :data:`PREFLOP_BOARDS`, from the table."""
    table = preflop_table()
    if table is None:
        return None
    keys, counts = table
    key = canonical_key(first, second)
    row = bisect_left(keys, key)
    if row >= len(keys) or keys[row] != key:  # pragma: no cover - a broken table file
        return None
    wins, splits = counts[2 * row], counts[2 * row + 1]
    return wins, PREFLOP_BOARDS - wins - splits, splits


# ---------------------------------------------------------------- enumeration


def _enumerate(
    holes: list[tuple[int, int]], board: tuple[int, ...], deck: list[int]
) -> tuple[list[int], list[list[int]], int]:
    """Each hand's outright wins, its splits by number of sharers, and the boards counted.

    Every completion of ``board`` from ``deck``: each hand's seven cards are a
    sum of card weights (its hole cards and the board dealt are summed once);
    without a flush the strength is two list reads, with one :func:`evaluate7`.
    """
    players = len(holes)
    w = WEIGHTS
    low7, high, strength7 = _LOW7, HIGH_INDEX, _STRENGTH7
    fixed = sum(w[c] for c in board)
    bases = [w[a] + w[b] + fixed for a, b in holes]
    cards = [(*hole, *board) for hole in holes]
    wins = [0] * players
    split = [[0] * (players + 1) for _ in range(players)]
    runouts = list(combinations(deck, 5 - len(board)))
    order = range(players)
    for runout in runouts:
        s = 0
        for c in runout:
            s += w[c]
        best = -1
        first = 0
        sharing = 0
        strengths = [0] * players
        for p in order:
            v = bases[p] + s
            if v & FLUSH_BITS:
                st = evaluate7(*cards[p], *runout)
            else:
                st = strength7[low7[v & LOW_MASK] + high[v >> HIGH_SHIFT & HIGH_MASK]]
            strengths[p] = st
            if st > best:
                best, first, sharing = st, p, 1
            elif st == best:
                sharing += 1
        if sharing == 1:
            wins[first] += 1
        else:
            for p in order:
                if strengths[p] == best:
                    split[p][sharing] += 1
    return wins, split, len(runouts)


def _result(wins: int, split: list[int], boards: int) -> dict[str, float]:
    """One hand's fractions, added in the order :class:`firmware.odds.shares.Share` adds them."""
    ties = sum(split[2:])
    tie_share = sum(split[k] / k for k in range(2, len(split)))
    return {
        "win": wins / boards,
        "tie": ties / boards,
        "equity": wins / boards + tie_share / boards,
    }


def exact_equity(
    hands: Mapping[int, tuple[int, int]], board: Sequence[int], dead: Collection[int] = ()
) -> dict[int, dict[str, float]] | None:
    """Each hand's exact share by enumerating every remaining board.

    ``{key: {"win": w, "tie": t, "equity": e}}`` with fractions 0..1: ``win``
    the boards won outright, ``tie`` the boards split with another hand,
    ``equity`` the expected share of the pot (a split board counts 1/2, 1/3...),
    so the equities add up to 1. Keys are whatever the caller uses (seat
    numbers). Cards are the engine's ints (:mod:`firmware.engine.cards`);
    ``dead`` cards are out of the deck (exposed cards everyone saw).

    ``None`` when it cannot be computed within a frame without the odds extra:
    three or more hands before the flop (C(46, 5) = 1,370,754 boards or more),
    heads-up before the flop with dead cards (the stored table assumes a full
    deck), or heads-up before the flop without the stored table file.

    :raises CardError: for fewer than two hands, a hand without two cards, a
        board of 1, 2 or 6+ cards, or a card used twice.
    """
    check_all_in(list(hands.values()), board, dead)
    key = (tuple(sorted(hands.items())), tuple(board), tuple(sorted(dead)))
    try:
        cached = _CACHE[key]
    except KeyError:
        cached = _compute(hands, tuple(board), set(dead))
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = cached
    if cached is None:
        return None
    return {k: dict(v) for k, v in cached.items()}


def _compute(
    hands: Mapping[int, tuple[int, int]], board: tuple[int, ...], dead: set[int]
) -> Equity | None:
    names = list(hands)
    holes = [(hands[k][0], hands[k][1]) for k in names]
    if not board:
        if len(holes) != 2 or dead:
            return None
        counted = _preflop(holes[0], holes[1])
        if counted is None:
            return None
        first, second, splits = counted
        return {
            names[0]: _result(first, [0, 0, splits], PREFLOP_BOARDS),
            names[1]: _result(second, [0, 0, splits], PREFLOP_BOARDS),
        }
    used = {c for hole in holes for c in hole} | set(board) | dead
    deck = [c for c in range(DECK_SIZE) if c not in used]
    wins, split, boards = _enumerate(holes, board, deck)
    return {k: _result(wins[p], split[p], boards) for p, k in enumerate(names)}


# ---------------------------------------------------------------- the hand at the table


def all_in_tabled(th: TableHand | None) -> bool:
    """Whether the hand is in an all-in with the live hands turned face up (TDA-9)."""
    if th is None or not th.s.dealt:
        return False
    hand = th.hand
    return hand.cards_up and hand.phase in (Phase.BOARD, Phase.SHOWDOWN)


def _public_dead(th: TableHand) -> set[int]:
    """Cards out of play that everyone saw: exposed or found face up, a burn shown after a
    burn error, a folded hand shown. A burn nobody saw stays in the deck (it is unknown)."""
    hand = th.hand
    dead = {d.card for d in th.draws if d.public and d.role in DEAD_ROLES}
    for position, shown in enumerate(hand.shown):
        if shown is not None and hand.folded[position]:
            dead.update(shown)
    in_play = set(hand.board) | {c for hole in hand.hole for c in hole if c is not None}
    return dead - in_play


def live_equity(th: TableHand) -> dict[int, dict[str, float]] | None:
    """During an all-in with the hands tabled (the hand's ``cards_up``: TDA-9), each live
    seat's exact equity from the board dealt so far; None otherwise."""
    if not all_in_tabled(th):
        return None
    hand = th.hand
    hands: dict[int, tuple[int, int]] = {}
    for position, hole in enumerate(hand.hole):
        if hand.folded[position]:
            continue
        cards = [c for c in hole if c is not None]
        if len(cards) != 2:
            return None
        hands[th.seat(position)] = (cards[0], cards[1])
    if len(hands) < 2:
        return None
    return exact_equity(hands, tuple(hand.board), _public_dead(th))


def console_equity(th: TableHand | None) -> list[dict[str, float]] | str | None:
    """The console's ``equity``: during an all-in with the hands tabled, one row per live
    seat (``seat``, and ``win``, ``tie``, ``equity`` in percent rounded to 0.1), or the
    catalog key :data:`FROM_FLOP` when it is not computed; ``None`` otherwise."""
    if th is None or not all_in_tabled(th):
        return None
    shares = live_equity(th)
    if shares is None:
        return FROM_FLOP
    return [
        {
            "seat": seat,
            "win": round(100 * share["win"], 1),
            "tie": round(100 * share["tie"], 1),
            "equity": round(100 * share["equity"], 1),
        }
        for seat, share in sorted(shares.items())
    ]
