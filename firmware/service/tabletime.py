"""The controller's time (a mixin of :class:`~firmware.service.controller.Controller`):
the table's clock, its ticks, the journaled level clock and the wall-clock anchor.

The table's time is seconds since the journal began; after a restart it goes on
from where the journal left it. A tick that changes something (a called clock,
a new level or break) is journaled and applied; any other only moves the clock
and is journaled just before the next event, or, while the level clock runs,
every :data:`LEVEL_JOURNAL_SECONDS`, so a restart finds a level or a break
where it was (issue 23). The loop ticks at the moment a level or a break ends,
not up to a second later. The first event after each start is preceded by a
:class:`~firmware.table.events.WallClock` record: the anchor of the hand
records' real times, which a replay reads instead of the clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware.table import events as te
from firmware.table.table import Table

LEVEL_JOURNAL_SECONDS = 5.0
"""While the level clock runs, the table's time is journaled at least this often, so a
restarted controller loses at most this much of a level or a break (issue 23)."""

MIN_TICK_SECONDS = 0.001
"""The shortest wait for a tick timed to a level's end (never a busy loop)."""


class TableTime:
    """The table's clock, ticks and wall-clock anchor of the controller."""

    table: Table
    clock: Callable[[], float]
    wall: Callable[[], float]
    tick_seconds: float
    journal: Callable[[te.TableEvent], object] | None
    _started_at: float
    _journaled_time: float
    _anchored: bool
    state: Any
    storage_ok: Callable[[], bool] | None

    def apply(self, event: te.TableEvent) -> bool:
        raise NotImplementedError

    def _tell_listeners(self) -> None:
        raise NotImplementedError

    def collect_time(self) -> bool:
        raise NotImplementedError

    def _storage_back(self) -> bool:
        raise NotImplementedError

    @property
    def testing(self) -> bool:
        raise NotImplementedError

    def table_time(self, now: float | None = None) -> float:
        """Seconds since the controller started, the table's clock."""
        return round((self.clock() if now is None else now) - self._started_at, 3)

    def tick(self, now: float) -> bool:
        """The timer: a tick that changes something (a called clock, a new level or
        break) is journaled and applied, and the screens are told (``True``); any other
        only moves the table's clock, and is journaled just before the next event
        (:meth:`submit`) or, while the level clock runs, every
        :data:`LEVEL_JOURNAL_SECONDS` (a restart finds the level and the break where
        they were, issue 23). An idle table without a running level clock writes nothing."""
        if self.table.tick_matters(now):
            return self.apply(te.Tick(now))
        self.table.advance_clock(now)
        if self.collect_time():  # a period of the time charge began (HOUSE-TIME)
            return True
        levels = self.table.levels
        if (
            self.journal is not None
            and levels is not None
            and levels.started_at is not None
            and not levels.paused
            and now - self._journaled_time >= LEVEL_JOURNAL_SECONDS
        ):
            self.apply(te.Tick(now))
        return False

    def next_tick_at(self, now: float) -> float:
        """When the loop ticks next (monotonic ``now``): a tick later, or at the end of
        the level or break in force if that comes first, so every screen sees the new
        level or break on its second (issue 23)."""
        due = now + self.tick_seconds
        levels = self.table.levels
        if levels is not None and levels.started_at is not None and not levels.paused:
            position = levels.current(self.table_time(now))
            left = position.break_seconds_left if position.on_break else position.seconds_left
            if left > 0:
                due = min(due, now + max(MIN_TICK_SECONDS, left))
        return due

    def _tick(self, now: float) -> None:
        """A timer event for the table (none in test mode or while stopped)."""
        if "journal" in self.state.stops and self.storage_ok is not None:
            self._storage_back()
        if self.testing or self.state.stops:
            return
        if self.tick(self.table_time(now)):
            self._tell_listeners()  # a new level, a break, a called clock: the screens see it

    def _time_before(self, event: te.TableEvent) -> te.WallClock | None:
        """Bring the table's clock up to ``event`` (a level clock's start, pause or resume
        happens when pressed, not at the last tick); the wall-clock anchor to journal
        before it, on the first event since this controller started."""
        if isinstance(event, te.LevelClock) and event.at is None:
            self.table.advance_clock(self.table_time())
        if self._anchored or isinstance(event, te.Tick):
            return None
        lag = max(0.0, self.table_time() - self.table.now)  # the table time is the last tick's
        return te.WallClock(round(self.wall() - lag, 3))


__all__ = ["LEVEL_JOURNAL_SECONDS", "TableTime"]
