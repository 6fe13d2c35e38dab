"""Playing cards: parsing, formatting and the 52-card deck.

A card is an ``int`` from 0 to 51: ``rank * 4 + suit``, with ranks 0..12 for
2..A and suits 0..3 for clubs, diamonds, hearts and spades (the same encoding
as phevaluator, so benchmarks can feed both the same integers).

>>> parse_card("Ah")
50
>>> format_card(50)
'Ah'
>>> format_cards(parse_cards("Td9c"))
'Td9c'
>>> len(full_deck())
52
"""

from __future__ import annotations

from collections.abc import Iterable

from firmware.errors import CardError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK_SIZE = 52

Card = int

_SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}


def card_rank(card: Card) -> int:
    """Return the rank of ``card``: 0 for a deuce up to 12 for an ace."""
    return card >> 2


def card_suit(card: Card) -> int:
    """Return the suit of ``card``: 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return card & 3


def make_card(rank: int, suit: int) -> Card:
    """Return the card of ``rank`` (0..12) and ``suit`` (0..3)."""
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise CardError(
            f"Rank {rank} and suit {suit} do not name a card; ranks are 0-12, suits 0-3."
        )
    return rank * 4 + suit


def parse_card(text: str) -> Card:
    """Parse one card written as rank then suit, such as ``Ah`` or ``td``.

    :raises CardError: if the text is not a card (jokers are not cards).
    """
    if len(text) != 2:
        raise CardError(
            f"'{text}' is not a card; write a rank (2-9, T, J, Q, K, A) and a suit (c, d, h, s), "
            "for example 'Ah' or 'Td'.",
            key="error.card.invalid",
            text=text,
        )
    rank = RANKS.find(text[0].upper())
    suit = SUITS.find(text[1].lower())
    if rank < 0 or suit < 0:
        raise CardError(
            f"'{text}' is not a card; write a rank (2-9, T, J, Q, K, A) and a suit (c, d, h, s), "
            "for example 'Ah' or 'Td'.",
            key="error.card.invalid",
            text=text,
        )
    return rank * 4 + suit


def parse_cards(text: str) -> list[Card]:
    """Parse cards written together or separated by spaces or commas.

    >>> parse_cards("AhKd 2c")
    [50, 45, 0]

    :raises CardError: if any card is invalid or a card appears twice.
    """
    compact = "".join(ch for ch in text if ch not in " ,")
    if len(compact) % 2:
        raise CardError(
            f"'{text}' does not split into two-character cards such as 'AhKd'.",
            key="error.card.invalid",
            text=text,
        )
    cards = [parse_card(compact[i : i + 2]) for i in range(0, len(compact), 2)]
    check_distinct(cards)
    return cards


def format_card(card: Card) -> str:
    """Format ``card`` as rank and suit, for example ``Ah``."""
    if not 0 <= card < DECK_SIZE:
        raise CardError(f"{card} is not a card number; card numbers are 0 to 51.")
    return RANKS[card >> 2] + SUITS[card & 3]


def format_cards(cards: Iterable[Card]) -> str:
    """Format several cards next to each other, for example ``AhKd``."""
    return "".join(format_card(card) for card in cards)


def full_deck() -> list[Card]:
    """Return the 52 cards of a deck in a fixed order (no jokers)."""
    return list(range(DECK_SIZE))


def check_distinct(cards: Iterable[Card]) -> None:
    """Raise :class:`CardError` if a card appears more than once."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise CardError(
                f"The card {format_card(card)} appears twice; a deck holds each card once.",
                key="error.card.duplicate",
                card=format_card(card),
            )
        seen.add(card)
