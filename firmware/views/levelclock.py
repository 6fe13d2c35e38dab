"""The level clock as every screen shows it: one part of the view, one way to read it.

The tournament's level clock (:class:`~firmware.table.tournament.TournamentClock`)
runs on the table's time, which the controller journals (ticks, and the floor's
or the console's start, pause and resume as ``LevelClock`` events), so a replay
or a restart finds it where it was. Each view carries the clock as
:func:`level_part` makes it: the seconds left *in the phase on now* (the level,
or the break before the next level), whether it is a break, whether it is
paused. A screen counts down from that number by the seconds since it got the
view (``elapsed``) unless the clock is paused, and writes it with
:func:`level_line` - the seat screens, the console's header and game page, the
broadcast screen and the floor's clock page all read the clock here, so they
cannot count differently (issue 23).

>>> part = {"number": 3, "small_blind": 100, "big_blind": 200, "ante": 0,
...         "seconds_left": 552.4, "on_break": True, "paused": False}
>>> level_line(part, 0.0, "es", "seat")
'Descanso: vuelve el nivel 3 en 09:13'
>>> level_line(part, 1.0, "en", "console")
'Break: level 3 starts in 09:12'
>>> level_line({**part, "on_break": False, "paused": True}, 60.0, "es", "console")
'Pausado · Nivel 3 · 100/200 · 09:13'
"""

from __future__ import annotations

import math
from typing import Any

from firmware.i18n import tr
from firmware.table.tournament import LevelSchedule, TournamentClock

STYLES = ("seat", "console", "panel")
"""Where a line is shown: a seat's top bar, the console's header, the console's
game page (longer: blinds named)."""


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


def shown_seconds(part: dict[str, Any], elapsed: float) -> int:
    """The whole seconds a screen shows ``elapsed`` seconds after it got ``part``:
    rounded up (a countdown shows 0 only when the time is up); frozen while paused."""
    left = float(part.get("seconds_left") or 0.0)
    if not part.get("paused"):
        left -= elapsed
    return max(0, math.ceil(round(left, 3)))


def mmss(seconds: int) -> str:
    """``09:12``; hours as ``1:02:03``."""
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def level_line(part: dict[str, Any], elapsed: float, lang: str, style: str = "seat") -> str:
    """The clock's line in ``lang`` for ``style`` (:data:`STYLES`), ``elapsed``
    seconds after the view came: a level with its blinds and time, a break with the
    level it leads to ("Descanso: vuelve el nivel 3 en 09:12"), a pause as "Pausado"."""
    time = mmss(shown_seconds(part, elapsed))
    params = {
        "n": part.get("number"),
        "sb": part.get("small_blind"),
        "bb": part.get("big_blind"),
        "time": time,
    }
    if part.get("on_break"):
        key = "ui.clock.break"
    else:
        key = {"seat": "ui.seat.level", "console": "ui.console.level"}.get(style, "ui.level.line")
    text = tr(key, lang, **params)
    if part.get("ante") and not part.get("on_break") and style != "seat":
        text += " · " + tr("ui.console.ante", lang, ante=part["ante"])
    if part.get("paused"):
        text = tr("ui.clock.paused", lang, what=text)
    return text


__all__ = ["STYLES", "level_line", "level_part", "mmss", "schedule_part", "shown_seconds"]
