"""Real times: stored in UTC, shown in the table's time zone (issue 23).

Hand records carry ``started_wall`` and ``finished_wall``: seconds since the
Unix epoch, UTC, taken from the journaled wall-clock anchor
(:class:`~firmware.table.events.WallClock`), never from the clock during a
replay. People read them in the table's time zone, ``[table] timezone`` in the
configuration (an IANA name such as ``"America/Lima"``); without it, the
system's zone.

>>> local_text(1764790981.0, "America/Lima")
'2025-12-03 14:43:01 -05'
>>> check_zone("Mars/Olympus")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
firmware.errors.ConfigError: The time zone 'Mars/Olympus' is not known; ...
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from firmware.errors import ConfigError


def check_zone(name: object) -> str:
    """``name`` if it is a time zone this system knows ("" is the system's own).

    :raises ConfigError: naming the zone, for anything else.
    """
    if not isinstance(name, str):
        raise ConfigError(
            f'The time zone must be a name in quotes such as "America/Lima", not {name!r}.',
            key="config.table.timezone",
            zone=repr(name),
        )
    if name:
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
            raise ConfigError(
                f"The time zone {name!r} is not known; give an IANA name such as "
                '"America/Lima" or "Europe/Madrid" (see timedatectl list-timezones).',
                key="config.table.timezone",
                zone=repr(name),
            ) from exc
    return name


def zone_of(name: str | None) -> tzinfo:
    """The time zone ``name``; "" or ``None``: the system's (``TZ``, ``/etc/localtime``)."""
    for candidate in (name, os.environ.get("TZ", "").lstrip(":"), _system_zone_name()):
        if candidate:
            try:
                return ZoneInfo(candidate)
            except (ZoneInfoNotFoundError, ValueError, OSError):
                continue
    local = datetime.now().astimezone().tzinfo
    return local if local is not None else UTC


def _system_zone_name() -> str:
    """The IANA name /etc/localtime points at ("" if it does not say)."""
    try:
        target = os.path.realpath("/etc/localtime")
    except OSError:
        return ""
    marker = "zoneinfo/"
    return target.split(marker, 1)[1] if marker in target else ""


def local_time(wall: float, zone: str | None) -> datetime:
    """``wall`` (seconds since the epoch, UTC) in ``zone``."""
    return datetime.fromtimestamp(wall, UTC).astimezone(zone_of(zone))


def local_text(wall: float, zone: str | None) -> str:
    """``2026-12-03 14:43:01 -05``: the moment in ``zone``, with its abbreviation."""
    when = local_time(wall, zone)
    return when.strftime("%Y-%m-%d %H:%M:%S ") + (when.tzname() or "")


def stamp_text(wall: float) -> str:
    """``20261203T194301Z``: the moment in UTC for file names (sorted, zone-free)."""
    return datetime.fromtimestamp(wall, UTC).strftime("%Y%m%dT%H%M%SZ")


__all__ = ["check_zone", "local_text", "local_time", "stamp_text", "zone_of"]
