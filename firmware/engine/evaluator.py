"""Texas Hold'em hand evaluator: 5, 6 or 7 cards to one strength number.

A *strength* is an ``int`` from 1 (7-5-4-3-2 offsuit, the worst five-card
hand) to 7462 (a royal flush); higher is better and equal strengths split the
pot. 7462 is the number of distinct five-card hand values.

How the fast path works (pure Python, no numpy, so the engine can import it
on a Pi Zero): every card has a precomputed integer weight :data:`WEIGHTS`.
Its low 31 bits hold the card's rank as one base-5 digit (ranks 2..8 in a
17-bit field, ranks 9..A in a 14-bit field above it; a rank occurs at most
four times, so digits never carry). From bit 31 up, each suit has a 7-bit
counter to which each card of that suit adds 13: four cards give 52, five to
seven give 65..91, so the counter's top bit (64) is set exactly when the suit
has five or more cards. Summing the weights of the cards gives, in one
integer, the multiset of ranks and a flush flag per suit.

* Without a flush flag, the rank part gives a perfect index of the rank
  multiset from two list reads (see "Flat tables" below), and a list of
  strengths indexed by it holds the best five cards among those ranks: flat
  lists of small ints only, no dictionary, so the mypyc build works on native
  ints and the tables stay under 5 MB in both builds.
* With a flush flag (about 3% of 7-card hands): with five or more cards of
  one suit among seven, no four of a kind or full house is possible, so the
  best flush (or straight flush) of that suit is the answer: a rank bitmask
  of the suited cards indexes :data:`FLUSH_TABLE`.

>>> from firmware.engine.cards import parse_cards
>>> evaluate(parse_cards("AsKsQsJsTs2c3d"))
7462
>>> category_of(evaluate(parse_cards("7c5d4h3s2c")))
<Category.HIGH_CARD: 1>
>>> best_hand(parse_cards("KcKdKh9s9c2d3d")).describe("en")
'Full house, kings full of nines'
>>> best_hand(parse_cards("KcKdKh9s9c2d3d")).describe("es")
'Full de reyes y nueves'
"""

from __future__ import annotations

import enum
import sys
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement
from pathlib import Path
from typing import Any, Final

from firmware.engine.cards import DECK_SIZE, Card, check_distinct, format_cards
from firmware.errors import CardError, ConfigError

__all__ = [
    "FLUSH_TABLE",
    "RANK_STRENGTHS",
    "WEIGHTS",
    "Category",
    "HandValue",
    "best_hand",
    "category_of",
    "evaluate",
    "evaluate5",
    "evaluate7",
]

#: Number of distinct five-card hand values; the strongest strength.
DISTINCT_VALUES: Final = 7462
#: Bit where the four 7-bit suit counters start in a weight sum.
SUIT_SHIFT: Final = 31
#: Width of each suit counter.
SUIT_FIELD: Final = 7
#: What one card adds to its suit counter (4 * 13 < 64 <= 5 * 13, 7 * 13 < 128).
SUIT_UNIT: Final = 13
#: Mask of the rank part of a weight sum.
RANK_MASK: Final = (1 << SUIT_SHIFT) - 1
#: The top bit of each suit counter: set when that suit has 5 or more cards.
FLUSH_BITS: Final = sum(1 << (SUIT_SHIFT + SUIT_FIELD * s + SUIT_FIELD - 1) for s in range(4))
#: Number of low ranks (2..8) packed in the first field of the rank part.
LOW_RANKS: Final = 7
#: Bit where the high-rank field (9..A) starts in the rank part.
HIGH_SHIFT: Final = 17


def rank_weight(rank: int) -> int:
    """Return the rank part of a card weight: one base-5 digit for ``rank``.

    >>> rank_weight(0), rank_weight(6), rank_weight(7) == 1 << HIGH_SHIFT
    (1, 15625, True)
    """
    if rank < LOW_RANKS:
        return int(5**rank)
    return int(5 ** (rank - LOW_RANKS)) << HIGH_SHIFT


#: Weight of each card 0..51: rank digit plus 13 in its suit's counter.
WEIGHTS: Final[list[int]] = [
    rank_weight(c >> 2) + (SUIT_UNIT << (SUIT_SHIFT + SUIT_FIELD * (c & 3)))
    for c in range(DECK_SIZE)
]


class Category(enum.IntEnum):
    """Hand categories from worst to best; a royal flush is a straight flush."""

    HIGH_CARD = 1
    PAIR = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    STRAIGHT_FLUSH = 9


# --------------------------------------------------------------------------
# Table construction (runs once at import)
# --------------------------------------------------------------------------

_WHEEL = (12, 3, 2, 1, 0)  # A-5-4-3-2, the lowest straight (five high)


def _straight_high(desc: Sequence[int]) -> int:
    """Return the top rank of five distinct ranks in descending order if they
    form a straight (3, the five, for the wheel), else -1."""
    if desc[0] - desc[4] == 4:
        return desc[0]
    if tuple(desc) == _WHEEL:
        return 3
    return -1


def _class_key(ranks: Sequence[int], suited: bool) -> tuple[int, tuple[int, ...]]:
    """Return ``(category, tie-break ranks)`` of five cards given their ranks.

    Ranks are grouped by how often they occur (most first), then by rank
    (highest first); comparing the tuples lexicographically is exactly the
    tie-break rule of each category.
    """
    counts = [0] * 13
    for r in ranks:
        counts[r] += 1
    groups = sorted(((n, r) for r, n in enumerate(counts) if n), reverse=True)
    pattern = tuple(n for n, _ in groups)
    order = tuple(r for _, r in groups)
    if pattern == (1, 1, 1, 1, 1):
        high = _straight_high(order)
        if high >= 0:
            return (Category.STRAIGHT_FLUSH if suited else Category.STRAIGHT), (high,)
        return (Category.FLUSH if suited else Category.HIGH_CARD), order
    category = {
        (4, 1): Category.FOUR_OF_A_KIND,
        (3, 2): Category.FULL_HOUSE,
        (3, 1, 1): Category.THREE_OF_A_KIND,
        (2, 2, 1): Category.TWO_PAIR,
        (2, 1, 1, 1): Category.PAIR,
    }[pattern]
    return category, order


def _build_rank_dict() -> tuple[dict[int, int], list[int], list[int]]:
    """Build the rank-multiset dictionary, the flush list and the category bounds."""
    rank_sets = [
        t for t in combinations_with_replacement(range(13), 5) if max(map(t.count, t)) <= 4
    ]
    flush_sets = list(combinations(range(13), 5))
    keyed = [(_class_key(t, False), t, False) for t in rank_sets]
    keyed += [(_class_key(t, True), t, True) for t in flush_sets]
    keyed.sort()
    strengths = list(range(1, len(keyed) + 1))
    table: dict[int, int] = {}
    flush = [0] * 8192
    bounds = [0] * len(Category)
    for (key, ranks, suited), strength in zip(keyed, strengths, strict=True):
        bounds[key[0] - 1] = strength
        if suited:
            flush[sum(1 << r for r in ranks)] = strength
        else:
            table[sum(rank_weight(r) for r in ranks)] = strength
    # Best flush among 6 or 7 suited cards: best over the masks one bit smaller.
    for mask in sorted(range(8192), key=int.bit_count):
        if 6 <= mask.bit_count() <= 7:
            flush[mask] = max(flush[mask & ~(1 << r)] for r in range(13) if mask >> r & 1)
    # Best of 6 and 7 ranks: best over the multisets one card smaller.
    rw = [rank_weight(r) for r in range(13)]
    for size in (6, 7):
        for t in combinations_with_replacement(range(13), size):
            rank_key = sum(rw[r] for r in t)
            if any(t[i] == t[i + 4] for i in range(size - 4)):
                continue  # five of one rank
            table[rank_key] = max(table[rank_key - rw[r]] for r in set(t))
    return table, flush, bounds


# --------------------------------------------------------------------------
# Flat tables: a perfect index of each rank multiset, native ints only
# --------------------------------------------------------------------------
#
# The rank part of a weight sum is two base-5 numbers: ``low = v & LOW_MASK``
# (ranks 2..8) and ``high = v >> HIGH_SHIFT & HIGH_MASK`` (ranks 9..A). Among
# the multisets of ``n`` cards (5, 6 or 7), group them by how many cards fall in
# the low field (``j``); inside a group, the multiset's position is
# ``position of low among lows of j cards * lows' partner count + position of
# high among highs of n - j cards``. So ``LOW_INDEX[n][low] + HIGH_INDEX[high]``
# is a perfect index ``0 .. M - 1`` (M = 6,175, 18,395, 49,205) into a list of
# strengths: three list reads instead of a dictionary lookup with a 60-bit key,
# which the mypyc build runs on native ints without creating any object.
# ``firmware.odds.batch`` uses the same index with numpy.

#: Mask of the low field (ranks 2..8) of a weight sum.
LOW_MASK: Final = (1 << HIGH_SHIFT) - 1
#: Mask of the high field (ranks 9..A) once shifted down by :data:`HIGH_SHIFT`.
HIGH_MASK: Final = (1 << 14) - 1
#: Values of the low and high fields (every base-5 number of 7 and 6 digits).
LOW_VALUES: Final = 5**LOW_RANKS
HIGH_VALUES: Final = 5 ** (13 - LOW_RANKS)
#: Hand sizes with a rank table.
SIZES: Final = (5, 6, 7)


def _digit_sums(n_digits: int) -> list[int]:
    """Sum of the base-5 digits (cards in the field) of 0 .. 5**n_digits - 1."""
    sums = [0]
    for _ in range(n_digits):
        sums = [s + d for d in range(5) for s in sums]
    return sums


def _positions(sizes: list[int]) -> tuple[list[int], list[int]]:
    """Each value's 0-based position among the values of the same size, and the counts."""
    seen = [0] * (max(sizes) + 1)
    positions = []
    for size in sizes:
        positions.append(seen[size])
        seen[size] += 1
    return positions, seen


FlatTables = tuple[list[list[int]], list[int], list[list[int]], list[int], list[int]]
"""Low indexes per size (5, 6, 7), high index, strengths per size, flush list, bounds."""


def _flatten(table: dict[int, int], flush: list[int], bounds: list[int]) -> FlatTables:
    """The flat tables of a rank-multiset dictionary (keys: rank parts of weight sums)."""
    low_size = _digit_sums(LOW_RANKS)
    high_size = _digit_sums(13 - LOW_RANKS)
    low_pos, n_low = _positions(low_size)
    high_index, n_high = _positions(high_size)
    lows: list[list[int]] = []
    strengths: list[list[int]] = []
    for size in SIZES:
        offsets = [0]
        for j in range(size + 1):
            offsets.append(offsets[-1] + n_low[j] * n_high[size - j])
        lows.append(
            [
                offsets[j] + p * n_high[size - j] if j <= size else 0
                for j, p in zip(low_size, low_pos, strict=True)
            ]
        )
        strengths.append([0] * offsets[-1])
    for key, strength in table.items():
        low, high = key & LOW_MASK, key >> HIGH_SHIFT
        size = low_size[low] + high_size[high]
        strengths[size - 5][lows[size - 5][low] + high_index[high]] = strength
    if not all(all(s) for s in strengths):  # pragma: no cover - a table-building bug
        raise RuntimeError("The flat rank tables have holes; the evaluator is broken.")
    return lows, high_index, strengths, flush, bounds


def rank_table() -> dict[int, int]:
    """The rank-multiset table as a dictionary: rank part of a weight sum -> strength.

    Built on demand from the flat tables (for checks and tools, not the hot path).
    """
    low_size = _digit_sums(LOW_RANKS)
    high_size = _digit_sums(13 - LOW_RANKS)
    table: dict[int, int] = {}
    for low in range(LOW_VALUES):
        for high in range(HIGH_VALUES):
            size = low_size[low] + high_size[high]
            if 5 <= size <= 7:
                index = LOW_INDEX[size - 5][low] + HIGH_INDEX[high]
                table[low | high << HIGH_SHIFT] = RANK_STRENGTHS[size - 5][index]
    return table


#: The tables as built by :func:`_build_tables`, stored so that import does not rebuild
#: them (0.15-0.7 s here, several times that on a Pi); ``tests/test_evaluator_tables.py``
#: checks the file against a fresh build, and a missing or damaged file means a rebuild.
#: Found from the package's folder: a mypyc-compiled module's ``__file__`` is the path
#: it was compiled from, relative to the build folder, not where it was installed.
TABLES_FILE = Path(sys.modules["firmware.engine"].__path__[0]).resolve() / "evaluator_tables.bin"
_TABLES_MAGIC = b"PTEV2"


def dump_tables(tables: FlatTables) -> bytes:
    """The flat tables as bytes for :data:`TABLES_FILE` (zlib, little-endian arrays)."""
    lows, high, strengths, flush, bounds = tables
    lists = [*lows, high, *strengths, flush, bounds]
    parts = [array("I", [len(x) for x in lists])] + [array("H", x) for x in lists]
    if sys.byteorder == "big":  # pragma: no cover - no big-endian Pi
        for part in parts:
            part.byteswap()
    return _TABLES_MAGIC + zlib.compress(b"".join(p.tobytes() for p in parts), 6)


def load_tables(data: bytes) -> FlatTables:
    """The tables from :func:`dump_tables` bytes.

    :raises ValueError: for bytes that are not such a file (the caller rebuilds).
    """
    if not data.startswith(_TABLES_MAGIC):
        raise ValueError("not an evaluator tables file")
    raw = zlib.decompress(data[len(_TABLES_MAGIC) :])
    n_lists = 2 * len(SIZES) + 3
    sizes = array("I", raw[: 4 * n_lists])
    if sys.byteorder == "big":  # pragma: no cover - no big-endian Pi
        sizes.byteswap()
    if len(sizes) != n_lists:
        raise ValueError("evaluator tables file of the wrong size")
    offset = 4 * n_lists
    arrays = []
    for count in sizes:
        part = array("H")
        part.frombytes(raw[offset : offset + 2 * count])
        if sys.byteorder == "big":  # pragma: no cover - no big-endian Pi
            part.byteswap()
        offset += 2 * count
        arrays.append(part)
    if offset != len(raw) or len(arrays[-2]) != 8192 or len(arrays[-1]) != len(Category):
        raise ValueError("evaluator tables file of the wrong size")
    # One int object per value, shared by all the entries that have it (330,000
    # entries, 49,205 values): megabytes less than an int per entry. Typed Any so
    # that the mypyc build keeps the objects instead of unboxing them.
    shared: list[Any] = list(range(max(max(a, default=0) for a in arrays) + 1))
    lists = [[shared[v] for v in a] for a in arrays]
    n = len(SIZES)
    return lists[:n], lists[n], lists[n + 1 : 2 * n + 1], lists[-2], lists[-1]


def _build_tables() -> FlatTables:
    """Build the flat tables from scratch (the dictionary is only a step)."""
    return _flatten(*_build_rank_dict())


def write_tables_file() -> None:
    """Rebuild the tables and write :data:`TABLES_FILE` (``make tables``)."""
    TABLES_FILE.write_bytes(dump_tables(_build_tables()))


def _tables() -> FlatTables:
    """The tables from :data:`TABLES_FILE`, or built afresh if it is missing or damaged."""
    try:
        return load_tables(TABLES_FILE.read_bytes())
    except (OSError, ValueError, zlib.error):
        return _build_tables()


_LOADED = _tables()
#: Per hand size 5, 6, 7: the first term of a multiset's index, by the low field.
LOW_INDEX: Final[list[list[int]]] = _LOADED[0]
#: The second term of a multiset's index, by the high field (same for every size).
HIGH_INDEX: Final[list[int]] = _LOADED[1]
#: Per hand size 5, 6, 7: the strength of the best non-flush hand, by multiset index.
RANK_STRENGTHS: Final[list[list[int]]] = _LOADED[2]
#: Strength of the best flush or straight flush, indexed by a 13-bit rank mask.
FLUSH_TABLE: Final[list[int]] = _LOADED[3]
#: Highest strength of each category, in category order.
CATEGORY_BOUNDS: Final[list[int]] = _LOADED[4]
_LOW5: Final[list[int]] = LOW_INDEX[0]
_LOW7: Final[list[int]] = LOW_INDEX[2]
_STRENGTH5: Final[list[int]] = RANK_STRENGTHS[0]
_STRENGTH7: Final[list[int]] = RANK_STRENGTHS[2]


# --------------------------------------------------------------------------
# Hot paths
# --------------------------------------------------------------------------


def _flush_strength(v: int, cards: Sequence[Card]) -> int:
    """Strength of the flush in a weight sum ``v`` known to contain one."""
    suit = ((v & FLUSH_BITS).bit_length() - SUIT_SHIFT - SUIT_FIELD) // SUIT_FIELD
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= 1 << (card >> 2)
    return FLUSH_TABLE[mask]


def evaluate7(a: Card, b: Card, c: Card, d: Card, e: Card, f: Card, g: Card) -> int:
    """Return the strength (1..7462, higher is better) of the best five of seven cards.

    The cards must be distinct ints 0..51; this hot path does not check them.

    >>> evaluate7(48, 49, 50, 51, 44, 0, 4)  # four aces, king kicker
    7452
    """
    w = WEIGHTS
    v: int = w[a] + w[b] + w[c] + w[d] + w[e] + w[f] + w[g]
    if v & FLUSH_BITS:
        return _flush_strength(v, (a, b, c, d, e, f, g))
    return _STRENGTH7[_LOW7[v & LOW_MASK] + HIGH_INDEX[v >> HIGH_SHIFT & HIGH_MASK]]


def evaluate5(a: Card, b: Card, c: Card, d: Card, e: Card) -> int:
    """Return the strength (1..7462, higher is better) of five distinct cards.

    >>> evaluate5(12, 8, 4, 0, 51)  # 5-4-3-2-A, the wheel
    5854
    """
    w = WEIGHTS
    v: int = w[a] + w[b] + w[c] + w[d] + w[e]
    if v & FLUSH_BITS:
        return _flush_strength(v, (a, b, c, d, e))
    return _STRENGTH5[_LOW5[v & LOW_MASK] + HIGH_INDEX[v >> HIGH_SHIFT & HIGH_MASK]]


def evaluate(cards: Sequence[Card]) -> int:
    """Return the strength of the best five of 5, 6 or 7 distinct cards.

    :raises CardError: if there are not 5 to 7 cards, a card is not 0..51 or
        a card appears twice.
    """
    _check_hand(cards)
    v = sum(WEIGHTS[c] for c in cards)
    if v & FLUSH_BITS:
        return _flush_strength(v, cards)
    size = len(cards) - 5
    index = LOW_INDEX[size][v & LOW_MASK] + HIGH_INDEX[v >> HIGH_SHIFT & HIGH_MASK]
    return RANK_STRENGTHS[size][index]


def _check_hand(cards: Sequence[Card]) -> None:
    """Raise :class:`CardError` unless ``cards`` are 5 to 7 distinct valid cards."""
    if not 5 <= len(cards) <= 7:
        raise CardError(
            f"A hand is evaluated from 5, 6 or 7 cards, but {len(cards)} were given; "
            "pass the two hole cards with three to five board cards.",
            key="error.evaluator.count",
            count=len(cards),
        )
    for card in cards:
        if not (isinstance(card, int) and 0 <= card < DECK_SIZE):
            raise CardError(
                f"{card!r} is not a card number; card numbers are ints 0 to 51.",
                key="error.card.number",
                card=repr(card),
            )
    check_distinct(cards)


def category_of(strength: int) -> Category:
    """Return the category of a strength (1..7462).

    >>> category_of(7462).name, category_of(1).name
    ('STRAIGHT_FLUSH', 'HIGH_CARD')
    """
    if not 1 <= strength <= DISTINCT_VALUES:
        raise CardError(
            f"{strength} is not a hand strength; strengths run from 1 to {DISTINCT_VALUES}.",
            key="error.evaluator.strength",
            strength=strength,
        )
    return Category(bisect_left(CATEGORY_BOUNDS, strength) + 1)


# --------------------------------------------------------------------------
# Slow path: the five cards used and a description, for showdown display
# --------------------------------------------------------------------------

# Per rank: English singular and plural, Spanish singular and plural.
_RANK_NAMES = (
    ("two", "twos", "dos", "doses"),
    ("three", "threes", "tres", "treses"),
    ("four", "fours", "cuatro", "cuatros"),
    ("five", "fives", "cinco", "cincos"),
    ("six", "sixes", "seis", "seises"),
    ("seven", "sevens", "siete", "sietes"),
    ("eight", "eights", "ocho", "ochos"),
    ("nine", "nines", "nueve", "nueves"),
    ("ten", "tens", "diez", "dieces"),
    ("jack", "jacks", "jota", "jotas"),
    ("queen", "queens", "reina", "reinas"),
    ("king", "kings", "rey", "reyes"),
    ("ace", "aces", "as", "ases"),
)
_EN_SINGULAR = tuple(names[0] for names in _RANK_NAMES)
_EN_PLURAL = tuple(names[1] for names in _RANK_NAMES)
_ES_SINGULAR = tuple(names[2] for names in _RANK_NAMES)
_ES_PLURAL = tuple(names[3] for names in _RANK_NAMES)
_ES_FEMININE = frozenset({9, 10})  # la jota, la reina


def _es_to(rank: int) -> str:
    """Spanish "to the <rank>" as in "Escalera al cinco" or "Color a la reina"."""
    return ("a la " if rank in _ES_FEMININE else "al ") + _ES_SINGULAR[rank]


def _order_five(five: Sequence[Card], category: Category) -> tuple[Card, ...]:
    """Order five cards for display: biggest group first, then by rank; a wheel
    straight shows its ace last (5-4-3-2-A)."""
    counts = [0] * 13
    for card in five:
        counts[card >> 2] += 1
    ordered = sorted(five, key=lambda c: (counts[c >> 2], c >> 2, c & 3), reverse=True)
    is_straight = category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH)
    if is_straight and tuple(c >> 2 for c in ordered) == _WHEEL:
        ordered = ordered[1:] + ordered[:1]
    return tuple(ordered)


@dataclass(frozen=True)
class HandValue:
    """The value of a hand: strength, category and the five cards that play.

    :ivar strength: 1..7462, higher is better.
    :ivar category: the hand's :class:`Category`.
    :ivar cards: the five cards used, ordered for display (e.g. trips then pair).
    """

    strength: int
    category: Category
    cards: tuple[Card, ...]

    @property
    def is_royal(self) -> bool:
        """True for a royal flush (the ace-high straight flush)."""
        return self.strength == DISTINCT_VALUES

    def describe(self, lang: str = "en") -> str:
        """Describe the hand in English (``"en"``) or Spanish (``"es"``).

        :raises ConfigError: for any other language.
        """
        r = [c >> 2 for c in self.cards]
        cat = self.category
        if lang == "en":
            one, many = _EN_SINGULAR, _EN_PLURAL
            texts = {
                Category.HIGH_CARD: f"High card, {one[r[0]]}",
                Category.PAIR: f"Pair of {many[r[0]]}",
                Category.TWO_PAIR: f"Two pair, {many[r[0]]} and {many[r[2]]}",
                Category.THREE_OF_A_KIND: f"Three of a kind, {many[r[0]]}",
                Category.STRAIGHT: f"Straight, {one[r[0]]} high",
                Category.FLUSH: f"Flush, {one[r[0]]} high",
                Category.FULL_HOUSE: f"Full house, {many[r[0]]} full of {many[r[3]]}",
                Category.FOUR_OF_A_KIND: f"Four of a kind, {many[r[0]]}",
                Category.STRAIGHT_FLUSH: f"Straight flush, {one[r[0]]} high",
            }
            return "Royal flush" if self.is_royal else texts[cat]
        if lang == "es":
            uno, varios = _ES_SINGULAR, _ES_PLURAL
            textos = {
                Category.HIGH_CARD: f"Carta alta: {uno[r[0]]}",
                Category.PAIR: f"Pareja de {varios[r[0]]}",
                Category.TWO_PAIR: f"Doble pareja de {varios[r[0]]} y {varios[r[2]]}",
                Category.THREE_OF_A_KIND: f"Trío de {varios[r[0]]}",
                Category.STRAIGHT: f"Escalera {_es_to(r[0])}",
                Category.FLUSH: f"Color {_es_to(r[0])}",
                Category.FULL_HOUSE: f"Full de {varios[r[0]]} y {varios[r[3]]}",
                Category.FOUR_OF_A_KIND: f"Póker de {varios[r[0]]}",
                Category.STRAIGHT_FLUSH: f"Escalera de color {_es_to(r[0])}",
            }
            return "Escalera real" if self.is_royal else textos[cat]
        raise ConfigError(
            f"There are no hand descriptions in language '{lang}'; use 'en' or 'es'.",
            key="error.evaluator.language",
            lang=lang,
        )

    def __str__(self) -> str:
        return f"{self.describe('en')} ({format_cards(self.cards)})"


def best_hand(cards: Sequence[Card]) -> HandValue:
    """Return the :class:`HandValue` of the best five of 5, 6 or 7 cards.

    This is the slow path for showdown display; use :func:`evaluate7` to
    compare hands.

    :raises CardError: if there are not 5 to 7 distinct valid cards.
    """
    _check_hand(cards)
    best = max(combinations(cards, 5), key=lambda five: evaluate5(*five))
    strength = evaluate5(*best)
    category = category_of(strength)
    return HandValue(strength, category, _order_five(best, category))
