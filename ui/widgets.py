"""Shared screen machinery: theme, fonts, text fitting, buttons, slider and the base screen.

A screen renders one ``view`` dict (docs/protocols/table.md) into a surface and
turns taps into protocol messages. Layout is in relative units: every rect is
a fraction of the surface, so 800x480 and other sizes share one layout.

Input: **mouse events only** (``MOUSEBUTTONDOWN``/``MOUSEMOTION``/``MOUSEBUTTONUP``).
On the Pi, SDL turns touches into synthetic mouse events by default, so the
``FINGER*`` events are ignored here; handling both would fire every tap twice.

A button fires on release inside the rect it was pressed in (a slide off the
button cancels the tap), the usual touchscreen behaviour. A control that has just
appeared (a new button or slider, or one moved) ignores presses for
:data:`GUARD_SECONDS` on the screen's clock (:attr:`Screen.clock`, advanced by
:meth:`Screen.tick`): a tap meant for what was there before never lands on it.

Readability: no text is drawn under :data:`ui.fonts.MIN_TEXT_HEIGHT` pixels (the rendered
line's height, measured by the font); a screen lays its buttons out at least
:data:`MIN_TARGET` pixels either way (the seat does; tests measure it, the widgets
do not grow a smaller rect). Every text a draw renders is kept in
:attr:`Screen.rendered` with its height, every touch target in
:meth:`Screen.targets`, so tests measure what was drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pygame

from firmware.i18n import CATALOG, DEFAULT_LANGUAGE, tr
from firmware.i18n.clock import level_line
from ui import suits
from ui.fonts import Fonts
from ui.suits import with_suits

Color = tuple[int, int, int]
Message = dict[str, Any]

# Theme: dark felt, high-contrast text (white on dark, dark on light buttons).
BG: Color = (12, 60, 38)
PANEL: Color = (18, 30, 26)
PANEL_HI: Color = (34, 52, 46)
TEXT: Color = (245, 245, 240)
MUTED: Color = (175, 190, 182)
GOLD: Color = (250, 200, 60)
RED: Color = (220, 50, 47)
GREEN: Color = (40, 150, 80)
BLUE: Color = (40, 100, 190)
GREY: Color = (90, 98, 95)
BLACK: Color = (0, 0, 0)
WHITE: Color = (255, 255, 255)

STYLES: dict[str, tuple[Color, Color]] = {
    "normal": ((60, 72, 68), TEXT),
    "primary": (BLUE, WHITE),
    "go": (GREEN, WHITE),
    "danger": ((170, 40, 40), WHITE),
    "warn": ((200, 140, 20), BLACK),
    "toggle": ((60, 72, 68), TEXT),
    "selected": (GOLD, BLACK),
    "disabled": ((45, 50, 48), (120, 125, 122)),
}


MIN_TARGET = 44
"""The smallest touch target, in pixels either way."""

GUARD_SECONDS = 0.6
"""How long a control that has just appeared ignores presses (on the screen's clock)."""


@dataclass
class Button:
    """A tappable rect: it emits ``message`` (a protocol message) and/or runs ``action``."""

    id: str
    rect: pygame.Rect
    label: str
    message: Message | None = None
    action: Callable[[], None] | None = None
    enabled: bool = True
    style: str = "normal"


@dataclass
class Slider:
    """A horizontal amount slider from ``low`` to ``high`` (integers)."""

    id: str
    rect: pygame.Rect
    low: int
    high: int
    on_change: Callable[[int], None]

    def value_at(self, x: int) -> int:
        """Return the amount at screen column ``x``."""
        if self.high <= self.low:
            return self.low
        frac = (x - self.rect.left) / max(1, self.rect.width)
        frac = min(1.0, max(0.0, frac))
        return round(self.low + frac * (self.high - self.low))

    def x_of(self, value: int) -> int:
        """Return the screen column of ``value`` (for tests and drawing)."""
        if self.high <= self.low:
            return self.rect.left
        frac = (value - self.low) / (self.high - self.low)
        return self.rect.left + round(frac * self.rect.width)


@dataclass
class _Frame:
    buttons: list[Button] = field(default_factory=list)
    sliders: list[Slider] = field(default_factory=list)


class Screen:
    """Base class: holds the view, the surface, the buttons of the last render.

    Subclasses implement :meth:`paint`, which draws the view and registers
    buttons with :meth:`button` and sliders with :meth:`slider`.
    """

    def __init__(
        self,
        view: Message | None = None,
        *,
        size: tuple[int, int] = (800, 480),
        surface: pygame.Surface | None = None,
        lang: str | None = None,
        large_text: bool = False,
    ) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self.surface = surface if surface is not None else pygame.Surface(size)
        self.fonts = Fonts()
        self.view: Message = view or {}
        self.lang: str = lang or str(self.view.get("lang") or DEFAULT_LANGUAGE)
        self.large_text = large_text
        self.dirty = True
        self.now = 0.0
        """Seconds since the last view arrived; the run loop advances it (clock countdown)."""
        self.clock = 0.0
        """Seconds since the screen started, advanced only by :meth:`tick` (the injected
        clock: the run loop feeds it wall time, tests feed it what they want)."""
        self._appeared: dict[str, tuple[tuple[int, int, int, int], float]] = {}
        self._drawn_once = False
        self._frame = _Frame()
        self._pressed: str | None = None
        self._dragging: Slider | None = None
        self._outbox: list[Message] = []
        self.notice = ""
        self._notice_left = 0.0
        self.drawn: list[str] = []
        """Every text drawn by the last :meth:`draw` (whole, before fitting): for tests."""
        self.cut: list[str] = []
        """Texts the last draw could not show whole (ellipsised or lines left out)."""

    # --- view -------------------------------------------------------------------------------

    def set_view(self, view: Message) -> None:
        """Show ``view`` (a ``view`` message); the view's language wins if it changed."""
        if view.get("lang") and view.get("lang") != self.view.get("lang"):
            self.lang = str(view["lang"])
        self.view = view
        self.now = 0.0
        self.on_view()
        self.dirty = True

    def on_view(self) -> None:
        """Hook: a new view arrived (reset per-hand local state)."""

    def show_notice(self, text: str, seconds: float = 5.0) -> None:
        """Show ``text`` (a refusal, an alert) in a banner for ``seconds``."""
        self.notice, self._notice_left = text, seconds
        self.dirty = True

    def tick(self, seconds: float) -> bool:
        """Advance local time by ``seconds``; return whether the screen must be redrawn."""
        before = (self.clock_text(), self.level_text())
        self.now += seconds
        self.clock += seconds
        if self.notice:
            self._notice_left -= seconds
            if self._notice_left <= 0:
                self.notice = ""
                self.dirty = True
        if (self.clock_text(), self.level_text()) != before:
            self.dirty = True
        return self.dirty

    def clock_text(self) -> str:
        """What the countdown shows now ('' without a clock); redraw only when it changes."""
        return ""

    def level_text(self, style: str = "seat") -> str:
        """The level clock's line ('' without a level clock): level, blinds and time left,
        or the break, or "Paused" (:func:`firmware.views.levelclock.level_line`, the same
        reading on every screen)."""
        level = self.view.get("level") or (self.view.get("console") or {}).get("level")
        if not level or level.get("seconds_left") is None:
            return ""
        return level_line(level, self.now, self.lang, style)

    def refusal_text(self, message: Message) -> str:
        """A ``refused`` or ``alert`` message's sentence in the screen's language.

        The catalog's text of the message's ``key`` (with its ``params``) when the
        catalog has it; otherwise the sentence as sent.
        """
        key = message.get("key")
        if isinstance(key, str) and key in CATALOG:
            try:
                return self.t(key, **dict(message.get("params") or {}))
            except (KeyError, IndexError, ValueError):
                pass  # a placeholder the sender did not fill: show its sentence
        return str(message.get("reason") or message.get("text") or "")

    # --- text and units -----------------------------------------------------------------

    def t(self, key: str, **params: Any) -> str:
        """Translate ``key`` into the screen's language."""
        return tr(key, self.lang, **params)

    def rect(self, x: float, y: float, w: float, h: float) -> pygame.Rect:
        """A rect in relative units (fractions of the surface)."""
        sw, sh = self.surface.get_size()
        return pygame.Rect(round(x * sw), round(y * sh), round(w * sw), round(h * sh))

    @property
    def scale(self) -> float:
        """How much larger text is drawn: 1.3 in large-text mode, else 1."""
        return 1.3 if self.large_text else 1.0

    def px(self, rel: float) -> int:
        """A font size: ``rel`` of the surface height, scaled up in large-text mode."""
        size = round(self.surface.get_height() * max(rel, 0.04) * self.scale)
        return max(self.fonts.min_size, size)

    def text(
        self,
        text: str,
        rect: pygame.Rect,
        rel: float,
        color: Color = TEXT,
        align: str = "center",
        valign: str = "center",
    ) -> pygame.Rect:
        """Draw ``text`` in ``rect``, shrinking it to fit (ellipsised at the smallest size);
        card codes are drawn as rank and suit symbol (:func:`ui.suits.with_suits`)."""
        text = with_suits(text)
        self.drawn.append(text)
        size = self.px(rel)
        limit = max(self.fonts.min_size, min(size, int(rect.height * 1.05 * self.scale) or size))
        font = self.fonts.get(limit)
        while suits.width(font, text) > rect.width and limit > self.fonts.min_size:
            limit -= 1
            font = self.fonts.get(limit)
        if suits.width(font, text) > rect.width:
            self.cut.append(text)
            while text and suits.width(font, text + "…") > rect.width:
                text = text[:-1]
            text += "…"
        img = suits.render(font, text, color)
        r = img.get_rect()
        if align == "left":
            r.left = rect.left
        elif align == "right":
            r.right = rect.right
        else:
            r.centerx = rect.centerx
        if valign == "top":
            r.top = rect.top
        else:
            r.centery = rect.centery
        self.surface.blit(img, r)
        return r

    def panel(self, rect: pygame.Rect, color: Color = PANEL, border: Color | None = None) -> None:
        """A rounded panel."""
        radius = max(3, rect.height // 8)
        pygame.draw.rect(self.surface, color, rect, border_radius=min(radius, 12))
        if border is not None:
            pygame.draw.rect(self.surface, border, rect, width=3, border_radius=min(radius, 12))

    # --- widgets ------------------------------------------------------------------------

    def button(
        self,
        id: str,
        rect: pygame.Rect,
        label: str,
        message: Message | None = None,
        action: Callable[[], None] | None = None,
        *,
        enabled: bool = True,
        style: str = "normal",
        rel: float = 0.045,
    ) -> Button:
        """Draw and register a button."""
        btn = Button(id, rect, label, message, action, enabled, style)
        self._frame.buttons.append(btn)
        fill, ink = STYLES["disabled" if not enabled else style]
        if self._pressed == id:
            fill = tuple(min(255, c + 40) for c in fill)  # type: ignore[assignment]
        self.panel(rect, fill)
        inner = rect.inflate(-max(4, rect.width // 14), -4)
        font = self.fonts.get(self.px(rel))
        smallest = self.fonts.get(self.fonts.min_size)
        too_wide = font.size(label)[0] > inner.width * 1.25
        if (
            " " in label
            and (too_wide or smallest.size(label)[0] > inner.width)
            and inner.height >= 2 * smallest.get_linesize()
        ):
            # Too long for one line: two lines, split at the space nearest the middle.
            self.drawn.append(label)
            spaces = [i for i, ch in enumerate(label) if ch == " "]
            cut = min(spaces, key=lambda i: abs(i - len(label) / 2))
            if font.get_linesize() * 2 > inner.height:
                font = smallest
            half = font.get_linesize()
            top = pygame.Rect(inner.left, inner.centery - half, inner.width, half)
            self.text(label[:cut], top, rel, ink)
            self.text(label[cut + 1 :], top.move(0, half), rel, ink)
        else:
            self.text(label, inner, rel, ink)
        return btn

    def slider(
        self,
        id: str,
        rect: pygame.Rect,
        low: int,
        high: int,
        value: int,
        on_change: Callable[[int], None],
    ) -> Slider:
        """Draw and register a slider with its thumb at ``value``."""
        s = Slider(id, rect, low, high, on_change)
        self._frame.sliders.append(s)
        track = pygame.Rect(rect.left, rect.centery - 4, rect.width, 8)
        pygame.draw.rect(self.surface, GREY, track, border_radius=4)
        x = s.x_of(value)
        filled = pygame.Rect(rect.left, track.top, x - rect.left, 8)
        pygame.draw.rect(self.surface, GOLD, filled, border_radius=4)
        pygame.draw.circle(self.surface, WHITE, (x, rect.centery), max(8, rect.height // 2 - 2))
        pygame.draw.circle(self.surface, GOLD, (x, rect.centery), max(5, rect.height // 2 - 6))
        return s

    # --- rendering and input ------------------------------------------------------------

    def paint(self) -> None:
        """Draw the whole screen (subclasses)."""
        raise NotImplementedError

    def draw(self) -> pygame.Surface:
        """Redraw the screen now and return its surface."""
        self._frame = _Frame()
        self.drawn = []
        self.cut = []
        self.fonts.clear_log()
        self.surface.fill(BG)
        self.paint()
        if self.notice:
            self._notice_band(self.notice_rect())
        self._note_appearances()
        self.dirty = False
        return self.surface

    notice_size = 0.045
    """The notice's text size (a fraction of the height; it shrinks to fit, never under
    the readable minimum)."""

    def notice_rect(self) -> pygame.Rect:
        """Where the notice banner goes (a seat screen keeps it off its actions and cards)."""
        return self.rect(0.05, 0.86, 0.9, 0.12)

    def _notice_band(self, band: pygame.Rect) -> None:
        """The notice, word-wrapped in ``band``; a tap on it closes it."""
        self.panel(band, (110, 25, 25), WHITE)
        self.paragraph(self.notice, band.inflate(-16, -8), self.notice_size, WHITE)
        self._frame.buttons.append(Button("notice", band, "", None, self.close_notice))

    def close_notice(self) -> None:
        """Take the notice away (a tap on it)."""
        self.notice, self._notice_left = "", 0.0
        self.dirty = True

    @property
    def rendered(self) -> list[tuple[str, int]]:
        """Every text the last draw rendered and its height in pixels: for tests."""
        self._ensure()
        return list(self.fonts.log)

    def targets(self) -> list[tuple[str, pygame.Rect]]:
        """Every touch target on screen now: buttons and sliders' touch areas, by id."""
        self._ensure()
        out = [(b.id, pygame.Rect(b.rect)) for b in self._frame.buttons if b.id != "_modal"]
        out += [(s.id, s.rect.inflate(28, 16)) for s in self._frame.sliders]
        return out

    def _note_appearances(self) -> None:
        """Note when each control appeared where it is (for the tap guard)."""
        seen: dict[str, tuple[tuple[int, int, int, int], float]] = {}
        first = not self._drawn_once
        controls = [(b.id, b.rect) for b in self._frame.buttons]
        controls += [(f"slider:{s.id}", s.rect) for s in self._frame.sliders]
        for key, rect in controls:
            where = (rect.x, rect.y, rect.w, rect.h)
            before = self._appeared.get(key)
            if before is not None and before[0] == where:
                seen[key] = before
            else:
                seen[key] = (where, -GUARD_SECONDS if first else self.clock)
        self._appeared = seen
        self._drawn_once = True

    def guarded(self, key: str) -> bool:
        """Whether control ``key`` appeared too recently to take a press (the tap guard)."""
        at = self._appeared.get(key)
        return at is not None and self.clock - at[1] < GUARD_SECONDS - 1e-6

    def _ensure(self) -> None:
        if self.dirty:
            self.draw()

    def buttons(self) -> list[Button]:
        """The buttons on screen now (after a redraw if needed)."""
        self._ensure()
        return list(self._frame.buttons)

    def button_rect(self, id: str) -> pygame.Rect | None:
        """The rect of button ``id`` on screen now, or ``None`` if it is not shown."""
        for b in self.buttons():
            if b.id == id:
                return pygame.Rect(b.rect)
        for s in self._frame.sliders:
            if s.id == id:
                return pygame.Rect(s.rect)
        return None

    def find_slider(self, id: str) -> Slider | None:
        """The slider ``id`` on screen now, or ``None``."""
        self._ensure()
        return next((s for s in self._frame.sliders if s.id == id), None)

    def emit(self, message: Message) -> None:
        """Queue a protocol message produced by a local action."""
        self._outbox.append(message)

    def handle(self, event: pygame.event.Event) -> list[Message]:
        """Process one input event; return the protocol messages it produced."""
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self._ensure()
            for s in self._frame.sliders:
                if s.rect.inflate(28, 16).collidepoint(event.pos):
                    if self.guarded(f"slider:{s.id}"):
                        return []  # it appeared under a finger: not the player's choice
                    self._dragging = s
                    s.on_change(s.value_at(event.pos[0]))
                    self.dirty = True
                    return []
            hit = self._hit(event.pos)
            if hit is not None and self.guarded(hit.id):
                hit = None  # it appeared under a finger: this press was meant for another
            self._pressed = hit.id if hit is not None and hit.enabled else None
            self.dirty = self.dirty or self._pressed is not None
        elif event.type == pygame.MOUSEMOTION and self._dragging is not None:
            self._dragging.on_change(self._dragging.value_at(event.pos[0]))
            self.dirty = True
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1:
            if self._dragging is not None:
                self._dragging = None
                return []
            pressed, self._pressed = self._pressed, None
            if pressed is None:
                return []
            self.dirty = True
            hit = self._hit(event.pos)
            if hit is None or hit.id != pressed or not hit.enabled:
                return []
            return self.activate(hit)
        return []

    def _hit(self, pos: tuple[int, int]) -> Button | None:
        # Last drawn wins: dialogs are drawn over the screen they cover.
        for b in reversed(self._frame.buttons):
            if b.rect.collidepoint(pos):
                return b
        return None

    def activate(self, button: Button) -> list[Message]:
        """Run a button: its local action, then its message; return the messages."""
        if button.action is not None:
            button.action()
        out = self._outbox
        self._outbox = []
        if button.message is not None:
            out.append(dict(button.message))
        self.dirty = True
        return out

    def modal_shade(self) -> None:
        """Dim everything drawn so far and swallow taps under a dialog."""
        shade = pygame.Surface(self.surface.get_size(), pygame.SRCALPHA)
        shade.fill((0, 0, 0, 170))
        self.surface.blit(shade, (0, 0))
        # A disabled full-screen button below the dialog's buttons blocks taps beneath.
        self._frame.buttons.append(Button("_modal", self.surface.get_rect(), "", enabled=False))

    def dialog(
        self,
        title: str,
        body: str,
        buttons: list[tuple[str, str, Callable[[], None] | None, str]],
        messages: dict[str, Message] | None = None,
    ) -> pygame.Rect:
        """Draw a modal dialog over the screen: ``title``, ``body`` and a row of buttons.

        Each button is ``(id, label, action, style)``; ``messages`` maps a button id to
        the protocol message it sends. Taps outside the dialog do nothing.
        """
        self.modal_shade()
        box = self.rect(0.12, 0.18, 0.76, 0.64)
        self.panel(box, PANEL, GOLD)
        self.text(
            title, pygame.Rect(box.left + 12, box.top + 10, box.width - 24, box.height // 4), 0.055
        )
        body_rect = pygame.Rect(
            box.left + 12, box.top + box.height // 4 + 10, box.width - 24, box.height // 4
        )
        self.text(body, body_rect, 0.04, MUTED)
        n = max(1, len(buttons))
        pad = 14
        bw, bh = (box.width - (n + 1) * pad) // n, box.height // 3
        for i, (id, label, action, style) in enumerate(buttons):
            r = pygame.Rect(box.left + pad + i * (bw + pad), box.bottom - bh - pad, bw, bh)
            self.button(id, r, label, (messages or {}).get(id), action, style=style, rel=0.05)
        return box

    def paragraph(
        self, text: str, rect: pygame.Rect, rel: float, color: Color = TEXT
    ) -> pygame.Rect:
        """Draw ``text`` word-wrapped in ``rect``, shrinking the font until it fits. A line
        breaks only between words, never inside one."""
        text = with_suits(text)
        self.drawn.append(text)
        size = self.px(rel)
        while True:
            font = self.fonts.get(size)
            lines: list[str] = []
            for word in text.split():
                if lines and suits.width(font, lines[-1] + " " + word) <= rect.width:
                    lines[-1] += " " + word
                else:
                    lines.append(word)
            line_h = font.get_linesize()
            if len(lines) * line_h <= rect.height or size <= self.fonts.min_size:
                break
            size -= 1
        y = rect.top
        for line in lines:
            if y + line_h > rect.bottom + 2:
                self.cut.append(text)
                break
            if font.size(line)[0] > rect.width:  # one word wider than the rect: fitted
                self.text(line, pygame.Rect(rect.left, y, rect.width, line_h), 0.04, color, "left")
            else:  # at the size the wrapping chose (text() would cap it at the line height)
                self.drawn.append(line)
                self.surface.blit(font.render(line, True, color), (rect.left, y))
            y += line_h
        return pygame.Rect(rect.left, rect.top, rect.width, y - rect.top)
