"""Live equity in pure Python (firmware/views/live_equity.py) against the numpy odds extra.

The table's runtime may not import numpy or :mod:`firmware.odds`; these tests
may, so every figure the console would show is compared with the odds extra's
exact results: heads-up preflop through the stored table read without numpy,
flop, turn and river boards with two to four hands, and dead cards.
"""

from __future__ import annotations

import random
import zipfile
from pathlib import Path

import numpy as np
import pytest

from firmware.engine.cards import parse_cards
from firmware.errors import CardError
from firmware.odds import headsup
from firmware.odds.equity import equity, equity_by_boards
from firmware.odds.shares import Share
from firmware.views import live_equity as le
from firmware.views.audience import PUBLIC_DRAW_ROLES


def expected(share: Share) -> dict[str, float]:
    """What :func:`le.exact_equity` must give for one hand of the odds extra's result."""
    return {"win": share.win, "tie": share.ties / share.boards, "equity": share.equity}


def deal(
    rng: random.Random, hands: int, board: int, dead: int
) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    deck = list(range(52))
    rng.shuffle(deck)
    holes = [(deck[2 * i], deck[2 * i + 1]) for i in range(hands)]
    rest = deck[2 * hands :]
    return holes, rest[:board], rest[board : board + dead]


@pytest.mark.parametrize("seed", range(12))
def test_heads_up_preflop_from_the_table_equals_the_odds_extra(seed: int) -> None:
    holes, _, _ = deal(random.Random(seed), 2, 0, 0)
    got = le.exact_equity({4: holes[0], 9: holes[1]}, [])
    assert got is not None
    ref = equity([list(h) for h in holes])
    assert got == {4: expected(ref[0]), 9: expected(ref[1])}
    assert le.canonical_key(holes[0], holes[1]) == headsup.canonical_key(holes[0], holes[1])


def test_heads_up_preflop_equals_every_board_counted() -> None:
    """The stored row read without numpy is the enumeration of all 1,712,304 boards."""
    aces, suited = parse_cards("AcKc"), parse_cards("7h6h")
    got = le.exact_equity({1: (aces[0], aces[1]), 2: (suited[0], suited[1])}, ())
    ref = equity_by_boards([aces, suited])
    assert got == {1: expected(ref[0]), 2: expected(ref[1])}


def test_the_table_read_without_numpy_is_numpys() -> None:
    table = le.preflop_table()
    assert table is not None
    keys, counts = table
    with np.load(headsup.TABLE_PATH) as data:
        assert list(keys) == data["keys"].tolist()
        assert list(counts) == data["counts"].reshape(-1).tolist()
    assert le.TABLE_PATH == headsup.TABLE_PATH


@pytest.mark.parametrize("hands", [2, 3, 4])
@pytest.mark.parametrize("board", [3, 4, 5])
@pytest.mark.parametrize("dead", [0, 2])
def test_flop_turn_and_river_equal_the_odds_extra(hands: int, board: int, dead: int) -> None:
    rng = random.Random(hands * 100 + board * 10 + dead)
    for _ in range(3):
        holes, cards, dead_cards = deal(rng, hands, board, dead)
        got = le.exact_equity(dict(enumerate(holes, start=1)), cards, dead_cards)
        ref = equity([list(h) for h in holes], cards, dead_cards)
        assert got == {i: expected(s) for i, s in enumerate(ref, start=1)}


def test_splits_and_three_way_ties_count_as_the_odds_extra_does() -> None:
    """A board that plays for everyone: ties counted, equities split three ways."""
    holes = [tuple(parse_cards(h)) for h in ("2c3d", "2h3s", "4c5d")]
    board = parse_cards("AhKhQdJc")
    got = le.exact_equity({1: holes[0], 2: holes[1], 3: holes[2]}, board)
    ref = equity([list(h) for h in holes], board)
    assert got == {1: expected(ref[0]), 2: expected(ref[1]), 3: expected(ref[2])}
    assert (
        got is not None
        and got[1]["tie"] > 0
        and abs(sum(v["equity"] for v in got.values()) - 1) < 1e-12
    )


def test_dead_cards_leave_the_deck() -> None:
    aces, kings = parse_cards("AhAd"), parse_cards("KsKc")
    board = parse_cards("2c7d9h")
    free = le.exact_equity({1: (aces[0], aces[1]), 2: (kings[0], kings[1])}, board)
    dead_king = le.exact_equity(
        {1: (aces[0], aces[1]), 2: (kings[0], kings[1])}, board, parse_cards("Kh")
    )
    assert free is not None and dead_king is not None
    assert dead_king[2]["win"] < free[2]["win"]  # one king fewer to hit
    ref = equity([aces, kings], board, parse_cards("Kh"))
    assert dead_king == {1: expected(ref[0]), 2: expected(ref[1])}


def test_not_within_a_frame_without_the_odds_extra_is_none(tmp_path: Path) -> None:
    rng = random.Random(7)
    holes, _, dead = deal(rng, 3, 0, 1)
    assert le.exact_equity(dict(enumerate(holes)), []) is None  # three hands before the flop
    assert le.exact_equity({0: holes[0], 1: holes[1]}, [], dead) is None  # dead cards preflop
    assert le.preflop_table(tmp_path / "missing.npz") is None
    damaged = tmp_path / "damaged.npz"
    with zipfile.ZipFile(damaged, "w") as archive:
        archive.writestr("keys.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f8'}")
        archive.writestr("counts.npy", b"")
    assert le.preflop_table(damaged) is None


def test_results_are_cached_by_hands_board_and_dead_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    enumerate_boards = le._enumerate

    def counting(*args: object) -> object:
        calls.append(1)
        return enumerate_boards(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(le, "_enumerate", counting)
    le._CACHE.clear()
    hands = {3: tuple(parse_cards("AsQs")), 5: tuple(parse_cards("JdJc"))}
    board = parse_cards("2s7s8d")
    first = le.exact_equity(hands, board)
    assert first is not None
    first[3]["equity"] = -1.0  # a caller's change does not reach the cache
    second = le.exact_equity(dict(reversed(list(hands.items()))), board)
    assert len(calls) == 1 and second is not None and second[3]["equity"] > 0
    le.exact_equity(hands, board, parse_cards("Ks"))
    assert len(calls) == 2
    for i in range(le.CACHE_SIZE + 5):  # bounded
        le._CACHE[("filler", i)] = None
        if len(le._CACHE) >= le.CACHE_SIZE:
            break
    le.exact_equity(hands, parse_cards("2s7s8d9h"))
    assert len(le._CACHE) <= le.CACHE_SIZE


def test_bad_input_is_refused_with_a_sentence() -> None:
    aces = tuple(parse_cards("AhAd"))
    with pytest.raises(CardError, match="at least two hands"):
        le.exact_equity({1: aces}, [])
    with pytest.raises(CardError, match="used twice"):
        le.exact_equity({1: aces, 2: (aces[0], 5)}, parse_cards("2c3c4c"))
    with pytest.raises(CardError, match="board has 2 cards"):
        le.exact_equity({1: aces, 2: (0, 5)}, parse_cards("2d3c"))


def test_dead_roles_are_the_views_public_draw_roles() -> None:
    assert le.DEAD_ROLES == PUBLIC_DRAW_ROLES


def _npy(header: str, body: bytes = b"") -> bytes:
    """A version 1 ``.npy`` file with ``header`` as its literal (padded as numpy pads it)."""
    text = header.encode("latin-1")
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + body


@pytest.mark.parametrize(
    "damage",
    ["shape_not_numbers", "shape_not_a_tuple", "cut_after_magic", "deflate_corrupt"],
)
def test_any_damaged_table_file_reads_as_none_not_a_traceback(tmp_path: Path, damage: str) -> None:
    """Each damage makes the reader fail another way (a TypeError, an IndexError, zlib's
    error); the console's view is built on every change, so the reader says ``None``."""
    path = tmp_path / f"{damage}.npz"
    good_counts = _npy("{'descr': '<u4', 'fortran_order': False, 'shape': (1, 2)}", b"\0" * 8)
    with zipfile.ZipFile(path, "w") as archive:
        if damage == "shape_not_numbers":
            keys = _npy("{'descr': '<u4', 'fortran_order': False, 'shape': (None,)}", b"\0" * 4)
        elif damage == "shape_not_a_tuple":
            keys = _npy("{'descr': '<u4', 'fortran_order': False, 'shape': 1}", b"\0" * 4)
        elif damage == "cut_after_magic":
            keys = b"\x93NUMPY"
        else:
            keys = b""
        if damage == "deflate_corrupt":
            info = zipfile.ZipInfo("keys.npy")
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, b"x" * 4096)
        else:
            archive.writestr("keys.npy", keys)
        archive.writestr("counts.npy", good_counts)
    if damage == "deflate_corrupt":
        # Spoil the compressed bytes of keys.npy (its CRC no longer matters: inflating fails).
        raw = bytearray(path.read_bytes())
        start = raw.index(b"keys.npy") + len(b"keys.npy")
        raw[start : start + 8] = b"\xff" * 8
        path.write_bytes(bytes(raw))
    assert le.preflop_table(path) is None
