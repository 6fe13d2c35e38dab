"""The screens' font: DejaVu Sans Bold, shipped in the package, at any size, never
smaller than readable.

Every screen (seats, console, technician, broadcast, the "Reconectando…" band) draws
its text through :class:`Fonts`; nothing else opens a font. The face is the package's
own copy (``ui/data/DejaVuSans-Bold.ttf`` with its licence, ``ui/data/LICENSE-DejaVu.txt``),
never a system font nor pygame's bundled default: the default font (freesansbold)
opened gaps inside words at the screens' small sizes ("SIGUIEN TE", "Baraj a"), and a
system font would change every measured width with the machine's font package. The
choice is recorded in ``docs/architecture.md``.

Sizes are *nominal*: ``get(px)`` draws a line about ``0.68 * px`` pixels tall, the
proportion the layouts were drawn with (:data:`LINE_PER_SIZE`), whatever the face.

Every text a :class:`Fonts` renders is noted in its log with the rendered line's
height in pixels, so tests measure what was really drawn (``Screen.rendered``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame

MIN_TEXT_HEIGHT = 14
"""The smallest text drawn, in pixels of the rendered line (the font's height)."""

FONT_FILE = Path(__file__).with_name("data") / "DejaVuSans-Bold.ttf"
"""The screens' face: DejaVu Sans Bold (Bitstream Vera licence: free to redistribute)."""

LINE_PER_SIZE = 0.68
"""A nominal size's line height, as a fraction of the size (pygame's former default
font's proportion, on which every layout's sizes were chosen)."""


class FontMissing(RuntimeError):
    """The package's font file is missing or unreadable (a broken installation)."""

    def __init__(self, path: Path, error: object) -> None:
        super().__init__(
            f"The screens' font {path} cannot be opened ({error}): reinstall pokertable "
            "(pip install --force-reinstall pokertable) so that its ui/data folder is complete."
        )
        self.path = path
        self.error = error


def font_file() -> Path:
    """The font file the screens use, checked: it exists and pygame can open it.

    :raises FontMissing: if it does not (never a silent fallback to another font).
    """
    if not pygame.font.get_init():
        pygame.font.init()
    try:
        pygame.font.Font(FONT_FILE, 12)
    except (OSError, pygame.error) as exc:  # FileNotFoundError is an OSError
        raise FontMissing(FONT_FILE, getattr(exc, "strerror", None) or exc) from exc
    return FONT_FILE


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
    """The screens' font at any nominal size, cached; never smaller than readable.

    ``get(px)`` takes a nominal size (a line about :data:`LINE_PER_SIZE` ``* px`` tall);
    sizes whose rendered line would be under :data:`MIN_TEXT_HEIGHT` pixels give the
    smallest readable font instead.

    :raises FontMissing: if the package's font file cannot be opened.
    """

    def __init__(self) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._path = font_file()
        self._cache: dict[int, _Font] = {}
        self._by_points: dict[int, _Font] = {}
        self.log: list[tuple[str, int]] = []
        """Every text rendered since :meth:`clear_log`, with its height in pixels."""
        self._line_per_point = pygame.font.Font(self._path, 100).get_height() / 100
        self.min_size = self._smallest_readable()

    def _smallest_readable(self) -> int:
        size = 8
        while self._font(size).get_height() < MIN_TEXT_HEIGHT:
            size += 1
        return size

    def points(self, px: int) -> int:
        """The face's own size (points) for the nominal size ``px``."""
        return max(1, round(px * LINE_PER_SIZE / self._line_per_point))

    def _font(self, px: int) -> _Font:
        font = self._cache.get(px)
        if font is None:
            points = self.points(px)
            font = self._by_points.get(points)
            if font is None:
                font = _Font(self._path, points)
                font.log = self.log
                self._by_points[points] = font
            self._cache[px] = font
        return font

    def get(self, px: int) -> pygame.font.Font:
        """Return the font of nominal size ``px`` (at least :attr:`min_size`: readable)."""
        return self._font(max(self.min_size, px))

    def clear_log(self) -> None:
        """Start a new log of rendered texts (each draw starts one)."""
        self.log.clear()


__all__ = ["FONT_FILE", "MIN_TEXT_HEIGHT", "FontMissing", "Fonts", "font_file"]
