"""Equity by rank pattern against the board-by-board enumeration: identical integers."""

from __future__ import annotations

import random

import pytest

from firmware.engine.cards import parse_cards
from firmware.odds.equity import equity, equity_by_boards
from firmware.odds.shares import Share


def counts(shares: list[Share]) -> list[tuple[int, int, float, int]]:
    return [(s.wins, s.ties, s.tie_share, s.boards) for s in shares]


def deal(
    seed: int, players: int, board: int, dead: int
) -> tuple[list[list[int]], list[int], list[int]]:
    """A random deal: hole cards, board cards and dead cards, all distinct."""
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    holes = [deck[2 * i : 2 * i + 2] for i in range(players)]
    rest = deck[2 * players :]
    return holes, rest[:board], rest[board : board + dead]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("street", [3, 4, 5])
def test_random_postflop_deals_match_board_enumeration(seed: int, street: int) -> None:
    holes, board, dead = deal(seed * 7 + street, 2 + seed % 8, street, seed % 5)
    assert counts(equity(holes, board, dead)) == counts(equity_by_boards(holes, board, dead))


@pytest.mark.parametrize("seed", range(8))
def test_random_preflop_deals_with_dead_cards_match_board_enumeration(seed: int) -> None:
    # 14 dead cards or more keep the reference enumeration quick (<= 278,256 boards).
    holes, board, dead = deal(100 + seed, 2 + seed, 0, 14 + seed % 3)
    assert counts(equity(holes, board, dead)) == counts(equity_by_boards(holes, board, dead))


@pytest.mark.parametrize(
    ("holes", "board", "dead"),
    [
        # Two hands of one suit: both can flush, the higher flush wins.
        (("AhKh", "QhJh"), "", "2c3c4c5c6c7c8c9cTcJcQcKcAc"),
        # Every hand suited, one suit each: four suits can flush.
        (("AhKh", "QsJs", "Td9d", "8c7c"), "", "2c3d4h5s6c7d8h9sTs"),
        # Four of a suit on the flop and turn: a single card of it flushes.
        (("Ah2c", "Kd3d", "7s7c"), "QhJh9h", ""),
        (("Ah2c", "Kd3d", "7s7c"), "QhJh9h4h", ""),
        # A straight flush on board against four-card flushes and quads.
        (("Ah2c", "9s9c", "5d5c"), "9h8h7h6h", "5h"),
        # The board's five suited cards play for everybody.
        (("2c3d", "2d3c"), "AsKsQsJs", ""),
    ],
)
def test_flush_heavy_deals_match_board_enumeration(
    holes: tuple[str, ...], board: str, dead: str
) -> None:
    hands, known, out = [parse_cards(h) for h in holes], parse_cards(board), parse_cards(dead)
    assert counts(equity(hands, known, out)) == counts(equity_by_boards(hands, known, out))


@pytest.mark.slow
@pytest.mark.parametrize(
    "holes",
    [
        ("AhKh", "QsQd"),
        ("AhKh", "QsQd", "JcTc", "9h9s", "8d7d", "AcKs"),
        ("AhKh", "QsQd", "JcTc", "9h9s", "8d7d", "AcKs", "5c5d", "4s3s", "2h2d"),
    ],
)
def test_full_preflop_matches_board_enumeration(holes: tuple[str, ...]) -> None:
    hands = [parse_cards(h) for h in holes]
    assert counts(equity(hands)) == counts(equity_by_boards(hands))
