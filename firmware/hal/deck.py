"""The deck as the hardware knows it, and the virtual deck of a fully electronic table.

Cards are numbered 0-51 as the engine numbers them (``rank * 4 + suit``,
:mod:`firmware.engine.cards`); this module repeats only that count, so that
drivers need nothing of the engine.

The virtual deck is

Shuffled with the operating system's cryptographic random source
(:class:`random.SystemRandom`, backed by ``secrets``); cards are drawn one at
a time in draw order, exactly as a card shoe reports them. Undealt cards are
never exposed: the deck offers no way to look ahead.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from firmware.errors import CardError

_SYSTEM_RANDOM = random.SystemRandom()

DECK_SIZE = 52
"""Cards in a deck: card numbers run from 0 to 51."""


def new_deck_order() -> list[int]:
    """The order of a new deck as it leaves the pack: spades A-K, hearts A-K,
    clubs K-A, diamonds K-A (the usual new-deck order)."""

    def suit(s: int, ascending: bool) -> list[int]:
        ranks = [12, *range(12)]  # A, 2..K
        order = ranks if ascending else list(reversed(ranks))
        return [r * 4 + s for r in order]

    return suit(3, True) + suit(2, True) + suit(0, False) + suit(1, False)


class VirtualDeck:
    """A shuffled deck that deals from the top.

    :param rng: A random source; the default is the cryptographic one.
        Tests may pass a seeded :class:`random.Random` for reproducibility.
    :param exclude: Cards removed from the deck before shuffling (for
        example cards already seen when a deck is reshuffled after a restart).
    """

    def __init__(self, rng: random.Random | None = None, exclude: Iterable[int] = ()) -> None:
        removed = set(exclude)
        self._rng = rng or _SYSTEM_RANDOM
        self._cards = [c for c in list(range(DECK_SIZE)) if c not in removed]
        self._rng.shuffle(self._cards)

    def __len__(self) -> int:
        return len(self._cards)

    def return_to_stub(self, cards: Iterable[int]) -> None:
        """Put cards back into the undealt stub and shuffle it (HG-9)."""
        self._cards.extend(cards)
        self._rng.shuffle(self._cards)

    def draw(self) -> int:
        """Take the top card.

        :raises CardError: when the deck is empty.
        """
        if not self._cards:
            raise CardError(
                "The deck has run out of cards; the hand cannot be completed from this deck.",
                key="error.deck.empty",
            )
        return self._cards.pop()
