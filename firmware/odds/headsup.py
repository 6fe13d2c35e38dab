"""Heads-up preflop equity from a table: every matchup up to suit relabelling.

Relabelling the four suits (24 ways) changes no result, so the 1,624,350
ordered preflop matchups (1,326 first hands times 1,225 second hands) fall
into 93,769 classes. The table stores, per class, the first hand's outright
wins and the split boards out of 1,712,304 (exact integers, computed by
:func:`firmware.odds.patterns.pattern_equity`); the second hand's wins are
the rest. A class is named by its smallest *key* over the 24 relabellings,
``((a_high * 52 + a_low) * 52 + b_high) * 52 + b_low`` with each hand's cards
in descending order.

The table (``data/headsup_preflop.npz``, about 0.6 MB compressed) is built
by ``python -m firmware.odds.headsup --build`` (a few minutes) and checked
against the enumeration by the tests. Without the file, :func:`lookup`
returns ``None`` and the caller enumerates.
"""

from __future__ import annotations

import argparse
import time
from functools import cache
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from firmware.engine.cards import Card
from firmware.engine.matchups import SUIT_PERMUTATIONS as _PERMUTATIONS
from firmware.engine.matchups import canonical_key
from firmware.odds.patterns import pattern_equity
from firmware.odds.shares import Share

__all__ = ["BOARDS", "TABLE_PATH", "canonical_key", "lookup"]

#: Boards behind every heads-up preflop matchup: C(48, 5).
BOARDS = comb(48, 5)
#: Where the table lives, next to this module.
TABLE_PATH = Path(__file__).resolve().parent / "data" / "headsup_preflop.npz"


def all_keys() -> npt.NDArray[np.int64]:
    """The sorted class keys of all 1,624,350 ordered matchups (vectorised)."""
    high, low = np.array([(h, lo) for h in range(52) for lo in range(h)]).T
    first = np.repeat(np.arange(high.size), high.size)
    second = np.tile(np.arange(high.size), high.size)
    cards = np.stack([high[first], low[first], high[second], low[second]])
    distinct = (cards[:, None, :] != cards[None, :, :]).sum(axis=(0, 1)) == 12
    cards = cards[:, distinct]
    best = np.full(cards.shape[1], 1 << 62, dtype=np.int64)
    for perm in _PERMUTATIONS:
        relabelled = (cards & ~3) | np.array(perm)[cards & 3]
        a, b = np.maximum(relabelled[0], relabelled[1]), np.minimum(relabelled[0], relabelled[1])
        c, d = np.maximum(relabelled[2], relabelled[3]), np.minimum(relabelled[2], relabelled[3])
        best = np.minimum(best, ((a * 52 + b) * 52 + c) * 52 + d)
    keys: npt.NDArray[np.int64] = np.unique(best)
    return keys


def _decode(key: int) -> tuple[list[Card], list[Card]]:
    """The matchup a key names."""
    rest, d = divmod(key, 52)
    rest, c = divmod(rest, 52)
    a, b = divmod(rest, 52)
    return [a, b], [c, d]


@cache
def _table() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint32]] | None:
    """Keys and ``(wins, splits)`` rows of the table, or None when the file is missing."""
    if not TABLE_PATH.is_file():
        return None
    with np.load(TABLE_PATH) as data:
        return data["keys"].astype(np.int64), data["counts"]


def lookup(first: tuple[Card, Card], second: tuple[Card, Card]) -> list[Share] | None:
    """Both hands' shares from the table, or None without a table (the caller enumerates)."""
    table = _table()
    if table is None:
        return None
    keys, counts = table
    key = canonical_key(first, second)
    row = int(np.searchsorted(keys, key))
    if row >= keys.size or keys[row] != key:  # pragma: no cover - a broken table file
        raise RuntimeError(f"{TABLE_PATH} has no row for a valid matchup; rebuild it with --build.")
    wins, splits = int(counts[row, 0]), int(counts[row, 1])
    return [
        Share(wins, splits, splits / 2, BOARDS),
        Share(BOARDS - wins - splits, splits, splits / 2, BOARDS),
    ]


def build(path: Path = TABLE_PATH) -> None:
    """Enumerate every class (a few minutes) and write the table to ``path``."""
    keys = all_keys()
    counts = np.zeros((keys.size, 2), dtype=np.uint32)
    start = time.monotonic()
    for row, key in enumerate(keys.tolist()):
        first, second = _decode(key)
        shares = pattern_equity([first, second])
        counts[row] = shares[0].wins, shares[0].ties
        if row % 5000 == 0:
            print(f"{row:6d} / {keys.size} classes, {time.monotonic() - start:.0f} s", flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, keys=keys.astype(np.uint32), counts=counts)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB, {keys.size} classes)")


def main() -> None:
    """``python -m firmware.odds.headsup --build [--out PATH]``."""
    parser = argparse.ArgumentParser(description="Build the heads-up preflop equity table.")
    parser.add_argument("--build", action="store_true", help="enumerate every class and write it")
    parser.add_argument("--out", type=Path, default=TABLE_PATH)
    args = parser.parse_args()
    if args.build:
        build(args.out)
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
