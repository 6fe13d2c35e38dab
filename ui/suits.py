"""Card names in screen text as rank and suit symbol ("Q♥", "10♠"), never "Qh".

Views and refusals name cards by their codes (``"Qh"``, runs such as
``"AhKd7c"``: :data:`CARD_RUN`). Every text a screen
draws passes through :func:`with_suits`, which writes each card as its rank
and suit symbol, the same in every language (the terminal's narration writes
them the same way: :func:`firmware.i18n.cards.readable`). :func:`render` draws
each symbol as a shape (:func:`draw_suit`, the cards' own suit shapes) between
the font's text, so a symbol looks the same in every size and colour on every
screen, and :func:`width` measures such a line.

>>> with_suits("Carta: Qh; mesa AhKd7c; ?? oculta; Ts")
'Carta: Q♥; mesa A♥ K♦ 7♣; ?? oculta; 10♠'
"""

from __future__ import annotations

import re

import pygame

from firmware.i18n import cards

Color = tuple[int, int, int]

CARD_RUN = cards.CARD_RUN
"""Card codes in text, ``Ah`` or runs such as ``AhKd7c``, as the firmware writes them."""

SYMBOLS = cards.SUIT_SYMBOLS
"""Each suit's symbol, as written in screen text."""
SUIT_OF = {symbol: suit for suit, symbol in SYMBOLS.items()}
SPLIT = re.compile("([♠♥♦♣])")


def with_suits(text: str) -> str:
    """``text`` with every card code written as rank and suit symbol (``T`` as ``10``),
    as the terminal's narration writes them too (:func:`firmware.i18n.cards.readable`)."""
    return cards.readable(text)


def draw_suit(surface: pygame.Surface, suit: str, rect: pygame.Rect, color: Color) -> None:
    """Draw the symbol of ``suit`` (``c``, ``d``, ``h``, ``s``) filling ``rect``."""
    x, y, w, h = rect
    cx = x + w / 2
    s = suit.lower()
    if s == "d":
        pts = [(cx, y), (x + w * 0.9, y + h / 2), (cx, y + h), (x + w * 0.1, y + h / 2)]
        pygame.draw.polygon(surface, color, pts)
    elif s == "h":
        r = w * 0.26
        pygame.draw.circle(surface, color, (x + w * 0.27, y + h * 0.32), r)
        pygame.draw.circle(surface, color, (x + w * 0.73, y + h * 0.32), r)
        pts = [(x + w * 0.02, y + h * 0.4), (x + w * 0.98, y + h * 0.4), (cx, y + h)]
        pygame.draw.polygon(surface, color, pts)
    elif s == "s":
        r = w * 0.25
        pygame.draw.circle(surface, color, (x + w * 0.27, y + h * 0.58), r)
        pygame.draw.circle(surface, color, (x + w * 0.73, y + h * 0.58), r)
        pts = [(x + w * 0.03, y + h * 0.52), (x + w * 0.97, y + h * 0.52), (cx, y)]
        pygame.draw.polygon(surface, color, pts)
        stem = [(cx, y + h * 0.6), (x + w * 0.68, y + h), (x + w * 0.32, y + h)]
        pygame.draw.polygon(surface, color, stem)
    else:  # clubs
        r = w * 0.22
        pygame.draw.circle(surface, color, (cx, y + h * 0.25), r)
        pygame.draw.circle(surface, color, (x + w * 0.25, y + h * 0.58), r)
        pygame.draw.circle(surface, color, (x + w * 0.75, y + h * 0.58), r)
        stem = [(cx, y + h * 0.45), (x + w * 0.68, y + h), (x + w * 0.32, y + h)]
        pygame.draw.polygon(surface, color, stem)


def _symbol_size(font: pygame.font.Font) -> int:
    """A suit symbol's side in a line of ``font``: about a capital letter's height."""
    return max(4, round(font.get_ascent() * 0.75))


def width(font: pygame.font.Font, text: str) -> int:
    """The width of ``text`` drawn by :func:`render` (suit symbols as shapes)."""
    if not SPLIT.search(text):
        return int(font.size(text)[0])
    total = 0
    for part in SPLIT.split(text):
        if part in SUIT_OF:
            total += _symbol_size(font) + 2
        elif part:
            total += int(font.size(part)[0])
    return total


def render(font: pygame.font.Font, text: str, color: Color) -> pygame.Surface:
    """``text`` in ``font`` and ``color``, each suit symbol drawn as its shape."""
    if not SPLIT.search(text):
        return font.render(text, True, color)
    surface = pygame.Surface((max(1, width(font, text)), font.get_height()), pygame.SRCALPHA)
    x = 0
    side = _symbol_size(font)
    top = font.get_ascent() - side
    for part in SPLIT.split(text):
        if part in SUIT_OF:
            draw_suit(surface, SUIT_OF[part], pygame.Rect(x + 1, top, side, side), color)
            x += side + 2
        elif part:
            img = font.render(part, True, color)
            surface.blit(img, (x, 0))
            x += img.get_width()
    return surface


__all__ = ["SYMBOLS", "draw_suit", "render", "width", "with_suits"]
