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

* ``v & KEY_MASK`` keeps the rank part and the four flush flags. Without a
  flush it is a key of :data:`RANK_TABLE`, whose value is the strength of the
  best five cards among those ranks (5-, 6- and 7-card multisets): one
  dictionary lookup. Measured faster in CPython 3.11 than testing the flag
  first, because ``try`` costs nothing when no exception is raised.
* With a flush the key is missing (``KeyError``, about 3% of 7-card hands).
  With five or more cards of one suit among seven, no four of a kind or full
  house is possible, so the best flush (or straight flush) of that suit is
  the answer: a rank bitmask of the suited cards indexes :data:`FLUSH_TABLE`.

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
from typing import Any

from firmware.engine.cards import DECK_SIZE, Card, check_distinct, format_cards
from firmware.errors import CardError, ConfigError

__all__ = [
    "FLUSH_TABLE",
    "RANK_TABLE",
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
DISTINCT_VALUES = 7462
#: Bit where the four 7-bit suit counters start in a weight sum.
SUIT_SHIFT = 31
#: Width of each suit counter.
SUIT_FIELD = 7
#: What one card adds to its suit counter (4 * 13 < 64 <= 5 * 13, 7 * 13 < 128).
SUIT_UNIT = 13
#: Mask of the rank part of a weight sum.
RANK_MASK = (1 << SUIT_SHIFT) - 1
#: The top bit of each suit counter: set when that suit has 5 or more cards.
FLUSH_BITS = sum(1 << (SUIT_SHIFT + SUIT_FIELD * s + SUIT_FIELD - 1) for s in range(4))
#: Rank part plus flush flags: the dictionary key of a weight sum.
KEY_MASK = RANK_MASK | FLUSH_BITS
#: Number of low ranks (2..8) packed in the first field of the rank part.
LOW_RANKS = 7
#: Bit where the high-rank field (9..A) starts in the rank part.
HIGH_SHIFT = 17


def rank_weight(rank: int) -> int:
    """Return the rank part of a card weight: one base-5 digit for ``rank``.

    >>> rank_weight(0), rank_weight(6), rank_weight(7) == 1 << HIGH_SHIFT
    (1, 15625, True)
    """
    if rank < LOW_RANKS:
        return int(5**rank)
    return int(5 ** (rank - LOW_RANKS)) << HIGH_SHIFT


#: Weight of each card 0..51: rank digit plus 13 in its suit's counter.
WEIGHTS: list[int] = [
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


def _build_tables() -> tuple[dict[int, int], list[int], list[int]]:
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


#: Strength of the best non-flush hand, keyed by the rank part of a weight sum.
RANK_TABLE: dict[int, int]
#: Strength of the best flush or straight flush, indexed by a 13-bit rank mask.
FLUSH_TABLE: list[int]
#: Highest strength of each category, in category order.
CATEGORY_BOUNDS: list[int]

#: The tables as built by :func:`_build_tables`, stored so that import does not rebuild
#: them (0.15-0.7 s here, several times that on a Pi); ``tests/test_evaluator_tables.py``
#: checks the file against a fresh build, and a missing or damaged file means a rebuild.
#: Found from the package's folder: a mypyc-compiled module's ``__file__`` is the path
#: it was compiled from, relative to the build folder, not where it was installed.
TABLES_FILE = Path(sys.modules["firmware.engine"].__path__[0]).resolve() / "evaluator_tables.bin"
_TABLES_MAGIC = b"PTEV1"


def dump_tables(table: dict[int, int], flush: list[int], bounds: list[int]) -> bytes:
    """The three tables as bytes for :data:`TABLES_FILE` (zlib, little-endian arrays)."""
    keys = array("I", sorted(table))
    values = array("H", (table[k] for k in keys))
    parts = [array("I", [len(keys), len(flush), len(bounds)]), keys, values]
    parts += [array("H", flush), array("H", bounds)]
    if sys.byteorder == "big":  # pragma: no cover - no big-endian Pi
        for part in parts:
            part.byteswap()
    return _TABLES_MAGIC + zlib.compress(b"".join(p.tobytes() for p in parts), 6)


def load_tables(data: bytes) -> tuple[dict[int, int], list[int], list[int]]:
    """The tables from :func:`dump_tables` bytes.

    :raises ValueError: for bytes that are not such a file (the caller rebuilds).
    """
    if not data.startswith(_TABLES_MAGIC):
        raise ValueError("not an evaluator tables file")
    raw = zlib.decompress(data[len(_TABLES_MAGIC) :])
    sizes = array("I", raw[:12])
    if sys.byteorder == "big":  # pragma: no cover - no big-endian Pi
        sizes.byteswap()
    n_keys, n_flush, n_bounds = sizes
    offset = 12
    arrays = []
    for code, count in (("I", n_keys), ("H", n_keys), ("H", n_flush), ("H", n_bounds)):
        part = array(code)
        part.frombytes(raw[offset : offset + count * part.itemsize])
        if sys.byteorder == "big":  # pragma: no cover - no big-endian Pi
            part.byteswap()
        offset += count * part.itemsize
        arrays.append(part)
    if offset != len(raw) or n_flush != 8192 or n_bounds != len(Category):
        raise ValueError("evaluator tables file of the wrong size")
    keys, values, flush, bounds = arrays
    # One int object per strength, shared by all the entries that have it (73,775
    # entries, 7,462 strengths): about 2 MB less than an int per entry.
    # Typed Any so that the mypyc build keeps the objects instead of unboxing them.
    shared: list[Any] = list(range(max(max(values, default=0), max(flush), max(bounds)) + 1))
    table = dict(zip(keys, [shared[v] for v in values], strict=True))
    return table, [shared[v] for v in flush], [shared[v] for v in bounds]


def write_tables_file() -> None:
    """Rebuild the tables and write :data:`TABLES_FILE` (``make tables``)."""
    TABLES_FILE.write_bytes(dump_tables(*_build_tables()))


def _tables() -> tuple[dict[int, int], list[int], list[int]]:
    """The tables from :data:`TABLES_FILE`, or built afresh if it is missing or damaged."""
    try:
        return load_tables(TABLES_FILE.read_bytes())
    except (OSError, ValueError, zlib.error):
        return _build_tables()


RANK_TABLE, FLUSH_TABLE, CATEGORY_BOUNDS = _tables()


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
    try:
        return RANK_TABLE[w[a] + w[b] + w[c] + w[d] + w[e] + w[f] + w[g] & KEY_MASK]
    except KeyError:
        v = w[a] + w[b] + w[c] + w[d] + w[e] + w[f] + w[g]
        return _flush_strength(v, (a, b, c, d, e, f, g))


def evaluate5(a: Card, b: Card, c: Card, d: Card, e: Card) -> int:
    """Return the strength (1..7462, higher is better) of five distinct cards.

    >>> evaluate5(12, 8, 4, 0, 51)  # 5-4-3-2-A, the wheel
    5854
    """
    w = WEIGHTS
    try:
        return RANK_TABLE[w[a] + w[b] + w[c] + w[d] + w[e] & KEY_MASK]
    except KeyError:
        return _flush_strength(w[a] + w[b] + w[c] + w[d] + w[e], (a, b, c, d, e))


def evaluate(cards: Sequence[Card]) -> int:
    """Return the strength of the best five of 5, 6 or 7 distinct cards.

    :raises CardError: if there are not 5 to 7 cards, a card is not 0..51 or
        a card appears twice.
    """
    _check_hand(cards)
    v = sum(WEIGHTS[c] for c in cards)
    if v & FLUSH_BITS:
        return _flush_strength(v, cards)
    return RANK_TABLE[v & RANK_MASK]


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
