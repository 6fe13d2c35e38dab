"""The broadcast feed's delay (issue 15; house procedure BROADCAST in ``docs/rules.md``).

When the table is served with a ``[broadcast]`` section, every change's
broadcast view (:func:`firmware.views.broadcast.broadcast_view`) is computed
on the controller's loop thread in both languages, encoded, and put in a
:class:`DelayLine`; the server thread takes each one out once its delay has
passed and gives it to the connected ``broadcast`` terminals in their
language. The line is filled whether or not a broadcast terminal is
connected, so one that connects late gets the table as it was a delay ago at
once (and nothing newer). A broadcast terminal never gets a live view and
makes no request but ``language``.

The line holds at most :data:`MAX_BYTES` of views (a long delay at a busy
table); past that, it is thinned: every other view waiting in each language
is dropped but the oldest and the newest (the feed skips them, it is never
ahead, and still reaches the table as it is now), counted in
:attr:`DelayLine.dropped`.

The level clock is public and is not delayed: every view the line gives out
carries the clock as it is *now* (:meth:`DelayLine.set_level`, put by the loop
thread at each change), and when the clock pauses, resumes, or moves to a break
or a level, the newest released view is given out again with it, so the
broadcast screen counts the same seconds as the seats and the console (issue 23).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from firmware.protocol.framing import HEADER, decode_body, encode

MAX_BYTES = 64 << 20
"""The most bytes of views waiting in the line (64 MiB: hours at a busy table)."""

RELEASE_SECONDS = 0.2
"""How often the server thread takes the views that are due out of the line."""


class DelayLine:
    """Views waiting for their delay, oldest first (thread-safe).

    :param delay: Seconds a view waits after its change.
    :param clock: Monotonic seconds (injectable for tests).
    :param max_bytes: The most bytes waiting (:data:`MAX_BYTES`).
    """

    def __init__(
        self,
        delay: float,
        clock: Callable[[], float] = time.monotonic,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.delay = delay
        self.clock = clock
        self.max_bytes = max_bytes
        self._waiting: deque[tuple[float, str, bytes]] = deque()
        self._bytes = 0
        self._lock = threading.Lock()
        self._released: dict[str, bytes] = {}
        self._last: dict[str, bytes] = {}
        """The last view put in each language (an unchanged one is not queued again)."""
        self.dropped = 0
        """Views dropped because the line was full."""
        self._level: tuple[dict[str, Any] | None, float] | None = None
        """The level clock now and when it was read (``None``: never set: views as made)."""
        self._level_moved = False
        """The clock changed other than by running on: give the latest views out again."""

    def set_level(self, level: dict[str, Any] | None) -> None:
        """The level clock's view part as it is now (loop thread, at each change)."""
        now = self.clock()
        with self._lock:
            if self._level is None or _moved(self._level, level, now):
                self._level_moved = True
            self._level = (level, now)

    def _live(self, data: bytes) -> bytes:
        """``data`` with the level clock as it is now (lock held)."""
        if self._level is None or self._level[0] is None:
            return data  # no level clock (a cash table): the view as it was made
        level, at = self._level
        view = decode_body(data[HEADER.size :])
        if level is not None and not level.get("paused"):
            left = max(0.0, float(level["seconds_left"]) - (self.clock() - at))
            level = {**level, "seconds_left": round(left, 3)}
        view["level"] = level
        return encode(view)

    def put(self, lang: str, data: bytes) -> None:
        """Queue the view ``data`` in ``lang`` of a change made now (loop thread); one
        identical to the last one queued in ``lang`` is not queued again."""
        if self._last.get(lang) == data:
            return
        self._last[lang] = data
        with self._lock:
            self._waiting.append((self.clock() + self.delay, lang, data))
            self._bytes += len(data)
            while self._bytes > self.max_bytes and len(self._waiting) > 1:
                if not self._thin():  # two views a language or fewer: the oldest goes
                    _, _, old = self._waiting.popleft()
                    self._bytes -= len(old)
                    self.dropped += 1

    def _thin(self) -> bool:
        """Drop every other view waiting in each language, but each language's oldest
        (the next to be shown) and newest (the table as it is now); whether any went.

        Never the oldest alone: with a delay longer than the line holds, each view
        would be dropped before its delay passed and the feed would freeze for good.
        Thinned, the line still spans the whole delay, fewer views a minute.
        """
        newest = {lang: index for index, (_, lang, _) in enumerate(self._waiting)}
        counted: dict[str, int] = {}
        kept: deque[tuple[float, str, bytes]] = deque()
        for index, item in enumerate(self._waiting):
            lang = item[1]
            n = counted[lang] = counted.get(lang, -1) + 1
            if n % 2 == 0 or newest[lang] == index:
                kept.append(item)
            else:
                self._bytes -= len(item[2])
                self.dropped += 1
        thinned = len(kept) < len(self._waiting)
        self._waiting = kept
        return thinned

    def due(self) -> dict[str, bytes]:
        """Take out every view whose delay has passed: the newest of them per language
        (server thread). Each becomes that language's :meth:`latest`."""
        now = self.clock()
        out: dict[str, bytes] = {}
        with self._lock:
            while self._waiting and self._waiting[0][0] <= now:
                _, lang, data = self._waiting.popleft()
                self._bytes -= len(data)
                out[lang] = data
            self._released.update(out)
            if self._level_moved:  # the clock paused, resumed, or changed level or break
                out = dict(self._released)
                self._level_moved = False
            return {lang: self._live(data) for lang, data in out.items()}

    def latest(self, lang: str) -> bytes | None:
        """The newest view in ``lang`` whose delay has passed (``None``: none yet), with
        the level clock as it is now."""
        with self._lock:
            data = self._released.get(lang)
            return None if data is None else self._live(data)

    def __len__(self) -> int:
        with self._lock:
            return len(self._waiting)


def _moved(
    before: tuple[dict[str, Any] | None, float], level: dict[str, Any] | None, now: float
) -> bool:
    """Whether the clock ``level`` read at ``now`` is other than ``before`` run on: a
    pause, a resume, a new level or break, a clock started or set."""
    old, at = before
    if old is None or level is None:
        return old is not level
    for key in ("number", "on_break", "paused"):
        if old.get(key) != level.get(key):
            return True
    expected = float(old["seconds_left"]) - (0.0 if old.get("paused") else now - at)
    return abs(expected - float(level["seconds_left"])) > 0.25


__all__ = ["MAX_BYTES", "RELEASE_SECONDS", "DelayLine"]
