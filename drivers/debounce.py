"""A pure, clock-injected debouncer for one button input.

A change of the input counts only once the input has stayed at its new level
for ``bounce_time`` seconds; presses and releases alike. Contact chatter (a
burst of edges shorter than ``bounce_time``) therefore produces exactly one
press, and a glitch that returns to the settled level produces nothing.

Edges are fed with :meth:`Debouncer.edge`; a settled change is reported by
the next :meth:`Debouncer.edge` or :meth:`Debouncer.poll` call made at or
after :meth:`Debouncer.deadline`. Nothing here reads the wall clock or
sleeps: time comes from the injected ``clock`` (``time.monotonic`` by
default), so tests drive it with a fake clock.

>>> now = [0.0]
>>> d = Debouncer(0.02, clock=lambda: now[0])
>>> d.edge(True); now[0] = 0.001; d.edge(False); now[0] = 0.002; d.edge(True)
>>> d.poll() is None             # still bouncing
True
>>> now[0] = 0.03
>>> d.poll()
Change(pressed=True, time=0.002)
>>> d.poll() is None             # reported once
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]
"""A monotonic clock in seconds, such as :func:`time.monotonic`."""


@dataclass(frozen=True)
class Change:
    """A settled change of the input.

    :param pressed: ``True`` for a press, ``False`` for a release.
    :param time: When the input reached the level it then kept (clock seconds).
    """

    pressed: bool
    time: float


class Debouncer:
    """Debounce one input: report a level only after it has been stable.

    Not thread-safe: the caller serialises :meth:`edge` and :meth:`poll`
    (the GPIO driver holds a lock around them).

    :param bounce_time: Seconds the input must stay at a new level before
        the change counts; ``0`` reports every change at once.
    :param clock: Where the time of each edge comes from.
    :param pressed: The settled level at the start (``True`` if held down).
    :raises ValueError: if ``bounce_time`` is negative or not finite.
    """

    def __init__(
        self, bounce_time: float, *, clock: Clock = time.monotonic, pressed: bool = False
    ) -> None:
        if not (math.isfinite(bounce_time) and bounce_time >= 0):
            raise ValueError(
                f"The bounce time must be a finite number of seconds >= 0, not {bounce_time!r}."
            )
        self._bounce = bounce_time
        self._clock = clock
        self._stable = pressed
        self._raw = pressed
        self._since = -math.inf

    @property
    def pressed(self) -> bool:
        """The settled (debounced) level: ``True`` while pressed."""
        return self._stable

    def edge(self, pressed: bool) -> Change | None:
        """Record that the raw input is now ``pressed`` (at ``clock()``).

        Returns the change that had settled before this edge, if any (it is
        reported here rather than lost when :meth:`poll` was not called in
        time); otherwise ``None``. A repeated level is not an edge.
        """
        now = self._clock()
        settled = self._settle(now)
        if pressed != self._raw:
            self._raw = pressed
            self._since = now
        return settled

    def poll(self) -> Change | None:
        """Report the pending change if the input has now been stable long enough."""
        return self._settle(self._clock())

    def deadline(self) -> float | None:
        """When (clock seconds) the pending change will settle, or ``None`` if none is pending."""
        if self._raw == self._stable:
            return None
        return self._since + self._bounce

    def _settle(self, now: float) -> Change | None:
        if self._raw == self._stable or now - self._since < self._bounce:
            return None
        self._stable = self._raw
        return Change(pressed=self._stable, time=self._since)
