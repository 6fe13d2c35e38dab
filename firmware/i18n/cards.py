"""Cards as people read them: rank and suit symbol ("Q♥", "10♠"), never codes ("Qh").

The firmware writes cards as codes (``"Qh"``, runs such as ``"AhKd7c"``); what
people read, the screens (``ui.suits``) and the terminal's narration
(:mod:`firmware.views.narrate`), writes each card as its rank and suit symbol,
the same in every language.

>>> readable("Flop: KsTh2d; Carta: Qc; ?? oculta; seat1.turn")
'Flop: K♠ 10♥ 2♦; Carta: Q♣; ?? oculta; seat1.turn'
"""

from __future__ import annotations

import re

CARD_RUN = re.compile(r"(?<![A-Za-z0-9])((?:[23456789TJQKA][cdhs])+)(?![A-Za-z0-9])")
"""Card codes in text, ``Ah`` or runs such as ``AhKd7c``, as the firmware writes them
(``firmware.views.redact.CARD_RUN``'s; the catalog stands alone, so the pattern is
repeated here and ``tests/test_spanish_slips.py`` checks the two match the same)."""

SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
"""Each suit's symbol as written for people."""


def readable(text: str) -> str:
    """``text`` with every card code written as rank and suit symbol, ``T`` as ``10``,
    the cards of a run separated by spaces."""
    if not text:
        return text

    def one(match: re.Match[str]) -> str:
        run = match.group(1)
        cards = (run[i : i + 2] for i in range(0, len(run), 2))
        return " ".join(c[0].replace("T", "10") + SUIT_SYMBOLS[c[1]] for c in cards)

    return CARD_RUN.sub(one, text)


__all__ = ["CARD_RUN", "SUIT_SYMBOLS", "readable"]
