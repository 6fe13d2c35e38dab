"""What exact equity needs of an all-in, in pure Python, shared by the table's runtime
(:mod:`firmware.views.live_equity`) and the odds extra (:mod:`firmware.odds`).

* :func:`check_all_in`: the hands, board and dead cards an equity is asked for,
  checked with a full sentence for each kind of mistake;
* :func:`canonical_key`: a heads-up matchup's class under suit relabelling, the
  key of the stored heads-up preflop table (``firmware/odds/data``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import permutations
from numbers import Integral
from typing import Final

from firmware.engine.cards import DECK_SIZE, format_card
from firmware.errors import CardError

SUIT_PERMUTATIONS: Final = list(permutations(range(4)))
"""The 24 relabellings of the four suits."""


def canonical_key(first: Sequence[int], second: Sequence[int]) -> int:
    """Smallest key of the matchup over the 24 suit relabellings: each hand's cards in
    descending order, ``((a_high * 52 + a_low) * 52 + b_high) * 52 + b_low``."""
    best = 1 << 62
    cards = (first[0], first[1], second[0], second[1])
    for perm in SUIT_PERMUTATIONS:
        a, b, c, d = ((card & ~3) | perm[card & 3] for card in cards)
        if a < b:
            a, b = b, a
        if c < d:
            c, d = d, c
        key = ((a * 52 + b) * 52 + c) * 52 + d
        if key < best:
            best = key
    return best


def check_all_in(
    holes: Sequence[Sequence[int]], board: Sequence[int], dead: Iterable[int] = ()
) -> None:
    """Raise :class:`CardError` with a full sentence for input that is not an all-in:
    fewer than two hands, a hand without two cards, a board of 1, 2 or more than 5
    cards, a card number out of range, a card used twice, too few cards left."""
    if len(holes) < 2:
        raise CardError(
            f"Equity needs at least two hands, but {len(holes)} were given.",
            key="error.equity.players",
            count=len(holes),
        )
    for seat, hole in enumerate(holes, start=1):
        if len(hole) != 2:
            raise CardError(
                f"Hand {seat} has {len(hole)} cards; each hand needs exactly two hole cards.",
                key="error.equity.hole",
                seat=seat,
                count=len(hole),
            )
    if len(board) not in (0, 3, 4, 5):
        raise CardError(
            f"The board has {len(board)} cards; give none (preflop), three (flop), "
            "four (turn) or five (river).",
            key="error.equity.board",
            count=len(board),
        )
    seen: set[int] = set()
    for card in [*(c for hole in holes for c in hole), *board, *dead]:
        if not (isinstance(card, Integral) and not isinstance(card, bool)) or not (
            0 <= card < DECK_SIZE
        ):
            raise CardError(
                f"{card!r} is not a card number; card numbers are ints 0 to 51.",
                key="error.card.number",
                card=repr(card),
            )
        if int(card) in seen:
            raise CardError(
                f"The card {format_card(int(card))} is used twice; each card can be in only "
                "one hand, on the board or among the dead cards.",
                key="error.card.duplicate",
                card=format_card(int(card)),
            )
        seen.add(int(card))
    if DECK_SIZE - len(seen) < 5 - len(board):
        raise CardError(
            "Too few cards are left in the deck to complete the board; remove some hands "
            "or dead cards.",
            key="error.equity.deck",
        )


__all__ = ["SUIT_PERMUTATIONS", "canonical_key", "check_all_in"]
