"""Card drawing: faces with vector suit symbols, backs, empty slots; two- or four-colour decks.

Cards come from the view as text (``"Ah"``, ``"Td"``; ``"??"`` for a face-down
card). Suits are drawn as shapes, not font glyphs: the bundled font has no
suit symbols. The four-colour deck colours spades black, hearts red,
diamonds blue and clubs green.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame

from ui.fonts import Fonts
from ui.suits import draw_suit
from ui.widgets import BG, GREEN, MUTED, PANEL, PANEL_HI, RED, TEXT, Color, Screen

RANK_TEXT = {"T": "10"}
TWO_COLOUR: dict[str, Color] = {
    "s": (20, 20, 20),
    "c": (20, 20, 20),
    "h": (200, 20, 30),
    "d": (200, 20, 30),
}
FOUR_COLOUR: dict[str, Color] = {
    "s": (20, 20, 20),
    "c": (0, 130, 40),
    "h": (200, 20, 30),
    "d": (20, 80, 200),
}
FACE: Color = (252, 252, 248)
BACK: Color = (150, 30, 40)
SLOT: Color = (30, 85, 58)


def is_card(code: object) -> bool:
    """Whether ``code`` names a face-up card (``"Ah"``), as opposed to ``"??"`` or junk."""
    return (
        isinstance(code, str)
        and len(code) == 2
        and code[0].upper() in "23456789TJQKA"
        and code[1].lower() in "cdhs"
    )


def suit_colour(suit: str, four_colour: bool) -> Color:
    """The ink of ``suit`` (``c``, ``d``, ``h``, ``s``)."""
    return (FOUR_COLOUR if four_colour else TWO_COLOUR)[suit.lower()]


def draw_card(
    surface: pygame.Surface,
    rect: pygame.Rect,
    code: str | None,
    fonts: Fonts,
    *,
    four_colour: bool = False,
    dim: bool = False,
) -> None:
    """Draw one card in ``rect``: a face for ``"Ah"``, a back for ``"??"``, a slot for ``None``.

    ``dim`` greys a face (a folded or mucked hand).
    """
    radius = max(3, rect.width // 10)
    if code is None:
        pygame.draw.rect(surface, SLOT, rect, border_radius=radius)
        pygame.draw.rect(surface, (60, 120, 90), rect, width=2, border_radius=radius)
        return
    if not is_card(code):
        pygame.draw.rect(surface, BACK, rect, border_radius=radius)
        inner = rect.inflate(-rect.width // 5, -rect.height // 7)
        pygame.draw.rect(surface, (220, 200, 200), inner, width=2, border_radius=radius)
        pygame.draw.rect(surface, (250, 250, 250), rect, width=2, border_radius=radius)
        return
    rank, suit = code[0].upper(), code[1].lower()
    ink = suit_colour(suit, four_colour)
    pygame.draw.rect(surface, FACE, rect, border_radius=radius)
    pygame.draw.rect(surface, (120, 120, 120), rect, width=1, border_radius=radius)
    label = RANK_TEXT.get(rank, rank)
    size = max(fonts.min_size, round(rect.height * 0.5))
    font = fonts.get(size)
    while font.size(label)[0] > rect.width * 0.9 and size > fonts.min_size:
        size -= 2  # never under the readable minimum (Fonts.get keeps to it)
        font = fonts.get(size)
    img = font.render(label, True, ink)
    r = img.get_rect(midtop=(rect.centerx, rect.top + round(rect.height * 0.04)))
    surface.blit(img, r)
    side = round(min(rect.width * 0.6, rect.height * 0.4))
    sym = pygame.Rect(0, 0, side, side)
    sym.midbottom = (rect.centerx, rect.bottom - round(rect.height * 0.07))
    draw_suit(surface, suit, sym, ink)
    if dim:
        shade = pygame.Surface(rect.size, pygame.SRCALPHA)
        shade.fill((0, 0, 0, 110))
        surface.blit(shade, rect)


def draw_recall(
    screen: Screen,
    area: pygame.Rect,
    entries: list[Any],
    title: str,
    four_colour: bool,
    name_of: Callable[[int | None], str],
    title_colour: Color = (250, 200, 60),
    viewer: int | None = None,
) -> None:
    """Draw the game recall page: the last ten hands, newest first.

    An entry is a dict as ``firmware/views/audience.py`` builds it (``hand``, ``hole``, ``board``,
    ``pots`` with ``shares``, ``starting_stacks``/``finishing_stacks``) or the short form
    (``cards``, ``net``, ``winners`` ``[{"seat", "amount"}]``, ``summary``); any other entry
    is shown as text. ``viewer`` is the seat whose net result is shown. Only cards in
    the entries are drawn.
    """
    screen.panel(area, PANEL)
    head = pygame.Rect(area.left + 10, area.top + 4, area.width - 20, area.height // 12)
    screen.text(title, head, 0.05, title_colour, align="left")
    hands = entries[-10:][::-1]
    if not hands:
        screen.text(screen.t("ui.recall.empty"), area, 0.045, MUTED)
        return
    top = area.top + area.height // 11
    row_h = (area.bottom - top - 4) // 10
    for i, entry in enumerate(hands):
        r = pygame.Rect(area.left + 8, top + i * row_h, area.width - 16, row_h - 2)
        pygame.draw.rect(screen.surface, BG if i % 2 else PANEL_HI, r, border_radius=4)
        _recall_row(screen, r, entry, four_colour, name_of, viewer)


def _recall_row(
    screen: Screen,
    r: pygame.Rect,
    entry: Any,
    four_colour: bool,
    name_of: Callable[[int | None], str],
    viewer: int | None,
) -> None:
    if not isinstance(entry, dict):
        screen.text(str(entry), r.inflate(-8, 0), 0.035, TEXT, align="left")
        return
    x = r.left + 4
    label = screen.t("ui.seat.hand", hand=entry.get("hand", "?"))
    screen.text(label, pygame.Rect(x, r.top, r.width // 7, r.height), 0.035, TEXT, align="left")
    x += r.width // 7
    ch = r.height - 4
    cw = int(ch * 0.7)
    for group in (entry.get("hole") or entry.get("cards") or [], entry.get("board") or []):
        for c in list(group)[:5]:
            code = str(c) if is_card(c) else "??"
            draw_card(
                screen.surface,
                pygame.Rect(x, r.top + 2, cw, ch),
                code,
                screen.fonts,
                four_colour=four_colour,
            )
            x += cw + 2
        x += cw // 2
    net = entry.get("net", entry.get("result"))
    start, finish = entry.get("starting_stacks") or {}, entry.get("finishing_stacks") or {}
    if net is None and viewer is not None:
        a, b = (
            start.get(str(viewer), start.get(viewer)),
            finish.get(str(viewer), finish.get(viewer)),
        )
        net = b - a if isinstance(a, int) and isinstance(b, int) else None
    winners = list(entry.get("winners") or [])
    for pot in entry.get("pots") or []:
        for seat, amount in (pot.get("shares") or {}).items():
            winners.append({"seat": int(seat) if str(seat).isdigit() else seat, "amount": amount})
    rest = pygame.Rect(x, r.top, r.right - x - 4, r.height)
    if isinstance(net, int | float):
        colour = GREEN if net > 0 else (RED if net < 0 else TEXT)
        text = f"{net:+d}" if isinstance(net, int) else f"{net:+}"
        screen.text(
            text, pygame.Rect(rest.right - 70, r.top, 70, r.height), 0.04, colour, align="right"
        )
        rest.width -= 74
    summary = entry.get("summary") or ", ".join(
        screen.t("ui.wins", name=name_of(w.get("seat")), amount=w.get("amount", 0)) for w in winners
    )
    if summary:
        screen.text(str(summary), rest, 0.032, MUTED, align="left")
