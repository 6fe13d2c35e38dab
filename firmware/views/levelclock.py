"""The level clock's part of every view (read with :mod:`firmware.i18n.clock`).

The tournament's level clock (:class:`~firmware.table.tournament.TournamentClock`)
runs on the table's time, which the controller journals (ticks, and the floor's
or the console's start, pause and resume as ``LevelClock`` events), so a replay
or a restart finds it where it was. Each view carries the clock as
:func:`level_part` makes it: the seconds left *in the phase on now* (the level,
or the break before the next level), whether it is a break, whether it is
paused. A screen counts down from that number by the seconds since it got the
view unless the clock is paused, and writes it with
:func:`firmware.i18n.clock.level_line` - the seat screens, the console's header
and game page, the broadcast screen and the floor's clock page all read the
clock there, so they cannot count differently (issue 23).
"""

from __future__ import annotations

from typing import Any

from firmware.table.tournament import LevelSchedule, TournamentClock


def level_part(clock: TournamentClock | None, now: float) -> dict[str, Any] | None:
    """The level clock's part of a view at table time ``now`` (``None``: no clock or
    not started).

    ``seconds_left`` is the time left in the phase on now: the level's, or during a
    break the break's (the level ``number`` is then the one the break leads to).
    """
    if clock is None or clock.started_at is None:
        return None
    position = clock.current(now)
    left = position.break_seconds_left if position.on_break else position.seconds_left
    return _part(
        position.number, position.level, left, position.on_break, clock.paused, clock.schedule
    )


def schedule_part(schedule: LevelSchedule, running_seconds: float, paused: bool) -> dict[str, Any]:
    """The same part for a clock kept elsewhere (the floor's tournament clock):
    ``running_seconds`` of clock time since the start, pauses left out."""
    position = schedule.position(running_seconds)
    left = position.break_seconds_left if position.on_break else position.seconds_left
    return _part(position.number, position.level, left, position.on_break, paused, schedule)


def _part(
    number: int,
    level: Any,
    left: float,
    on_break: bool,
    paused: bool,
    schedule: LevelSchedule,
) -> dict[str, Any]:
    return {
        "number": number,
        "small_blind": level.small_blind,
        "big_blind": level.big_blind,
        "ante": level.ante,
        "seconds_left": round(max(0.0, left), 3),
        "on_break": on_break,
        "paused": paused,
        "last": number == len(schedule.levels),
    }


__all__ = ["level_part", "schedule_part"]
