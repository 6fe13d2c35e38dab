"""The level clock as people read it: one way to count it down, one way to write it.

A view's level part (:func:`firmware.views.levelclock.level_part`) gives the
seconds left in the phase on now, whether it is a break (the level ``number``
is then the one it leads to) and whether the clock is paused. Every screen - the
seats, the console's header and game page, the broadcast screen, the floor's
clock page - counts down from it with :func:`shown_seconds` and writes it with
:func:`level_line`, so no two screens can count differently (issue 23).

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

STYLES = ("seat", "console", "panel")
"""Where a line is shown: a seat's top bar, the console's header, the console's
game page (longer: blinds named)."""


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


__all__ = ["STYLES", "level_line", "mmss", "shown_seconds"]
