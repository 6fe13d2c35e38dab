"""The screen run loop: views in, taps out, redraw only on change.

:func:`run` connects a screen to a :class:`Link` - the controller connection
(any object with ``send`` and a non-blocking ``receive``) or a
:class:`ViewSource` that plays prepared views (demos, tests, screenshots).

Idle cost: the loop sleeps on ``pygame.time.Clock.tick(fps)`` and redraws
only when the screen is dirty - a new view, a tap, or the countdown's
displayed second changing - so an idle screen costs an event poll per frame.

Run prepared views::

    python -m ui.app views.json            # a JSON list of view messages, one every 3 s
"""

from __future__ import annotations

import functools
import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import pygame

from ui.broadcast import BroadcastScreen
from ui.console import ConsoleScreen
from ui.fonts import Fonts
from ui.seat import SeatScreen
from ui.widgets import Message, Screen


class Link(Protocol):
    """A connection to the controller, as the screen sees it."""

    def send(self, message: Message) -> None:
        """Send one client → controller message."""

    def receive(self) -> list[Message]:
        """Return the controller messages that arrived since the last call (never blocks)."""


class ViewSource:
    """A :class:`Link` playing ``views`` one every ``interval`` seconds; keeps what is sent."""

    def __init__(
        self,
        views: Iterable[Message],
        interval: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.views = list(views)
        self.interval = interval
        self.clock = clock
        self.sent: list[Message] = []
        self._next = 0
        self._due = clock()

    def send(self, message: Message) -> None:
        """Keep ``message`` (and print it, for demos)."""
        self.sent.append(message)
        print(json.dumps(message, ensure_ascii=False), flush=True)

    def receive(self) -> list[Message]:
        """The next view when its time has come."""
        if self._next >= len(self.views) or self.clock() < self._due:
            return []
        self._due = self.clock() + self.interval
        self._next += 1
        return [self.views[self._next - 1]]


def make_screen(view: Message, surface: pygame.Surface | None = None, **kwargs: Any) -> Screen:
    """A seat screen, the broadcast preview or a console for ``view``'s audience."""
    if view.get("audience") == "seat":
        return SeatScreen(view, surface=surface, **kwargs)
    if view.get("audience") == "broadcast":
        return BroadcastScreen(view, surface=surface)
    return ConsoleScreen(view, surface=surface, **kwargs)


def run(
    link: Link,
    *,
    size: tuple[int, int] = (800, 480),
    fps: int = 30,
    fullscreen: bool = False,
    max_frames: int | None = None,
    **screen_options: Any,
) -> Screen | None:
    """Show the views ``link`` delivers until the window closes (or ``max_frames``).

    Returns the last screen (for tests). ``refused`` messages are shown as a notice.
    On the main thread, SIGTERM closes the screen like its window's close button, so
    whoever started the screen (``make run``) can stop it cleanly.
    """
    closing = threading.Event()
    restore = _close_on_sigterm(closing)
    try:
        return _loop(link, size, fps, fullscreen, max_frames, closing, screen_options)
    finally:
        restore()


def _close_on_sigterm(closing: threading.Event) -> Callable[[], None]:
    """Make SIGTERM set ``closing`` (main thread only); return how to undo it."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.signal(signal.SIGTERM, lambda *_: closing.set())

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


def _loop(
    link: Link,
    size: tuple[int, int],
    fps: int,
    fullscreen: bool,
    max_frames: int | None,
    closing: threading.Event,
    screen_options: dict[str, Any],
) -> Screen | None:
    """The frame loop of :func:`run`."""
    pygame.init()
    flags = pygame.FULLSCREEN if fullscreen else 0
    display = pygame.display.set_mode(size, flags)
    pygame.display.set_caption("pokertable")
    clock = pygame.time.Clock()
    screen: Screen | None = None
    frames = 0
    last = time.monotonic()
    away = False  # the controller went away and the link is reaching it again
    while (max_frames is None or frames < max_frames) and not closing.is_set():
        frames += 1
        for msg in link.receive():
            if msg.get("type") == "link":
                away = msg.get("state") == "reconnecting"
                if screen is not None:
                    screen.dirty = True  # drawn again: with the notice, or without it
                else:
                    draw_reconnecting(display, None) if away else display.fill((0, 0, 0))
                    pygame.display.flip()
            elif msg.get("type") == "view":
                if screen is None or screen.view.get("audience") != msg.get("audience"):
                    screen = make_screen(msg, display, **screen_options)
                else:
                    screen.set_view(msg)
            elif msg.get("type") in ("refused", "alert") and screen is not None:
                screen.show_notice(screen.refusal_text(msg))
        closed = getattr(link, "closed", None)
        if isinstance(closed, threading.Event) and closed.is_set():
            return screen  # the controller went away: the caller says so and exits
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                return screen
            if screen is not None:
                for out in screen.handle(event):
                    link.send(out)
        now = time.monotonic()
        if screen is not None:
            screen.tick(now - last)
            if screen.dirty:
                screen.draw()
                if away:
                    draw_reconnecting(display, screen.lang)
                pygame.display.flip()
        last = now
        clock.tick(fps)
    return screen


@functools.cache
def _band_fonts() -> Fonts:
    """The screens' font for the reconnecting band (opened once)."""
    return Fonts()


def draw_reconnecting(display: pygame.Surface, lang: str | None) -> str:
    """Say across the screen that the controller is away and is being reached again
    (the page stays under it); return the sentence drawn."""
    from firmware.i18n import DEFAULT_LANGUAGE, tr

    text = tr("ui.link.reconnecting", lang or DEFAULT_LANGUAGE)
    width, height = display.get_size()
    band = pygame.Rect(0, height // 2 - 40, width, 80)
    shade = pygame.Surface(band.size, pygame.SRCALPHA)
    shade.fill((10, 10, 10, 225))
    display.blit(shade, band.topleft)
    font = _band_fonts().get(34)  # well above the 14 px floor
    label = font.render(text, True, (255, 220, 120))
    display.blit(label, label.get_rect(center=band.center))
    return text


def main(argv: list[str] | None = None) -> int:
    """``python -m ui.app views.json [WIDTHxHEIGHT]``: play a JSON list of views."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m ui.app views.json [WIDTHxHEIGHT]", file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        views = json.load(f)
    size = (800, 480)
    if len(args) > 1:
        w, h = args[1].lower().split("x")
        size = (int(w), int(h))
    run(ViewSource(views), size=size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
