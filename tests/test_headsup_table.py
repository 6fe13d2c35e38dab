"""The heads-up preflop table: the same integers as the enumeration, for any suit relabelling."""

from __future__ import annotations

import random
from itertools import permutations

import pytest

from firmware.engine.cards import parse_cards
from firmware.odds import headsup
from firmware.odds.equity import equity
from firmware.odds.patterns import pattern_equity
from firmware.odds.shares import Share

pytestmark = pytest.mark.skipif(
    not headsup.TABLE_PATH.is_file(), reason="the table is built by 'make tables'"
)


def counts(shares: list[Share]) -> list[tuple[int, int, float, int]]:
    return [(s.wins, s.ties, s.tie_share, s.boards) for s in shares]


@pytest.mark.parametrize("seed", range(6))
def test_table_rows_equal_the_enumeration(seed: int) -> None:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    first, second = (deck[0], deck[1]), (deck[2], deck[3])
    stored = headsup.lookup(first, second)
    assert stored is not None
    assert counts(stored) == counts(pattern_equity([list(first), list(second)]))


def test_equity_uses_the_table_only_heads_up_preflop_without_dead_cards() -> None:
    aces, kings = parse_cards("AhAd"), parse_cards("KsKc")
    stored = headsup.lookup((aces[0], aces[1]), (kings[0], kings[1]))
    assert stored is not None and counts(equity([aces, kings])) == counts(stored)
    with_dead = equity([aces, kings], dead=[0])
    assert with_dead[0].boards == 1_533_939  # C(47, 5): enumerated, not from the table


def test_a_suit_relabelling_gives_the_same_key() -> None:
    rng = random.Random(5)
    for _ in range(50):
        a, b, c, d = rng.sample(range(52), 4)
        key = headsup.canonical_key((a, b), (c, d))
        for perm in permutations(range(4)):
            x, y, z, w = ((card & ~3) | perm[card & 3] for card in (a, b, c, d))
            assert headsup.canonical_key((y, x), (w, z)) == key


def test_without_the_file_equity_enumerates(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(headsup, "TABLE_PATH", tmp_path / "missing.npz")
    headsup._table.cache_clear()
    try:
        aces, kings = parse_cards("AhAd"), parse_cards("KsKc")
        assert headsup.lookup((aces[0], aces[1]), (kings[0], kings[1])) is None
        assert equity([aces, kings])[0].wins == 1_388_072
    finally:
        headsup._table.cache_clear()


def test_the_table_is_small_and_complete() -> None:
    assert headsup.TABLE_PATH.stat().st_size < 1_000_000
    table = headsup._table()
    assert table is not None and table[0].size == 93_769
