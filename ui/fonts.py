"""The screens' font: pygame's bundled font at any size, never smaller than readable.

Every text a :class:`Fonts` renders is noted in its log with the rendered line's
height in pixels, so tests measure what was really drawn (``Screen.rendered``).
"""

from __future__ import annotations

from typing import Any

import pygame

MIN_TEXT_HEIGHT = 14
"""The smallest text drawn, in pixels of the rendered line (the font's height)."""


class _Font(pygame.font.Font):
    """A font that notes every text it renders, with its height, in its owner's log."""

    log: list[tuple[str, int]] | None = None

    def render(self, text: Any, *args: Any, **kwargs: Any) -> pygame.Surface:
        """Render ``text`` (pygame's ``Font.render``) and note it."""
        img = super().render(text, *args, **kwargs)
        if self.log is not None and str(text).strip():
            self.log.append((str(text), self.get_height()))
        return img


class Fonts:
    """The bundled pygame font at any size, cached; never smaller than readable.

    ``get(px)`` takes pygame's size; sizes whose rendered line would be under
    :data:`MIN_TEXT_HEIGHT` pixels give the smallest readable font instead.
    """

    def __init__(self) -> None:
        self._cache: dict[int, _Font] = {}
        self.log: list[tuple[str, int]] = []
        """Every text rendered since :meth:`clear_log`, with its height in pixels."""
        self.min_size = self._smallest_readable()

    def _smallest_readable(self) -> int:
        size = 8
        while self._font(size).get_height() < MIN_TEXT_HEIGHT:
            size += 1
        return size

    def _font(self, px: int) -> _Font:
        font = self._cache.get(px)
        if font is None:
            font = _Font(None, px)
            font.log = self.log
            self._cache[px] = font
        return font

    def get(self, px: int) -> pygame.font.Font:
        """Return the font of size ``px`` (at least :attr:`min_size`: readable)."""
        return self._font(max(self.min_size, px))

    def clear_log(self) -> None:
        """Start a new log of rendered texts (each draw starts one)."""
        self.log.clear()


__all__ = ["MIN_TEXT_HEIGHT", "Fonts"]
