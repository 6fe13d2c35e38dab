"""Tournament procedures: blind levels and the tournament clock (TDA-17).

Penalties (TDA-7, TDA-31) are in :mod:`firmware.table.penalties`, seat and
button draws (TDA-13, HG-5) in :mod:`firmware.table.draws`.

Everything here is pure: time is passed in as seconds (``now``), randomness
comes from an injected :class:`random.Random` (production passes
:class:`random.SystemRandom`, TDA-13's cryptographic source).

>>> schedule = LevelSchedule.from_dicts(
...     [{"small_blind": 25, "big_blind": 50, "minutes": 20},
...      {"break_minutes": 10},
...      {"small_blind": 50, "big_blind": 100, "ante": 100, "big_blind_ante": True,
...       "minutes": 20}])
>>> schedule.level_at(1199.0)
(0, Level(small_blind=25, big_blind=50, ante=0, big_blind_ante=False, minutes=20.0), 1.0)
>>> schedule.level_at(1900.0, paused_seconds=100.0)[2]  # 1800 s of play: level 2 just began
1200.0
"""

from __future__ import annotations

import logging
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from firmware.engine.rules import Structure
from firmware.errors import ConfigError, IllegalAction
from firmware.i18n.clock import mmss
from firmware.table.options import Stakes, type_said

log = logging.getLogger(__name__)

T = TypeVar("T")

# ------------------------------------------------------------------ levels (TDA-17)


@dataclass(frozen=True)
class Level:
    """One blind level. With ``big_blind_ante`` the big blind posts ``ante`` for the table."""

    small_blind: int
    big_blind: int
    ante: int = 0
    big_blind_ante: bool = False
    minutes: float = 20

    @property
    def seconds(self) -> float:
        """Length of the level in seconds."""
        return self.minutes * 60


@dataclass(frozen=True)
class LevelPosition:
    """Where the tournament clock stands.

    :param index: 0-based index of the level in force (during a break: the
        level that follows it; after the last level: the last, which goes on).
    :param level: That level.
    :param seconds_left: Seconds left in the level (the full level during a
        break; 0 once the last level's time is up).
    :param on_break: The clock is in a break; no hand may start.
    :param break_seconds_left: Seconds left in the break, 0 if not on a break.
    """

    index: int
    level: Level
    seconds_left: float
    on_break: bool = False
    break_seconds_left: float = 0.0

    @property
    def number(self) -> int:
        """The level's number as shown to players (1-based)."""
        return self.index + 1


_LEVEL_KEYS = {"small_blind", "big_blind", "ante", "big_blind_ante", "minutes"}


@dataclass(frozen=True)
class LevelSchedule:
    """A tournament's blind structure.

    :param levels: The levels in order.
    :param breaks: Minutes of break after a level, keyed by level number (1-based).
    :param structure: Betting structure (NL, PL or FL; FL's big bet is twice the big blind).
    :param chip_unit: The smallest chip in play (see the chip race).
    :raises ConfigError: naming the level, for blinds that go down, a small
        blind above the big blind, a negative ante or non-positive minutes.
    """

    levels: tuple[Level, ...]
    breaks: Mapping[int, float] = field(default_factory=dict)
    structure: Structure = Structure.NO_LIMIT
    chip_unit: int = 1

    def __post_init__(self) -> None:
        if not self.levels:
            raise ConfigError(
                "The blind structure has no levels; give at least one.",
                key="config.levels.empty",
            )
        previous: Level | None = None
        for number, level in enumerate(self.levels, start=1):
            _check_level(number, level, previous)
            previous = level
        for after, minutes in self.breaks.items():
            if not 1 <= after < len(self.levels) or minutes <= 0:
                raise ConfigError(
                    f"The break after level {after} is not valid: a break needs a positive "
                    "number of minutes and must come between two levels.",
                    key="config.levels.break_after",
                    level=after,
                )

    @classmethod
    def from_dicts(
        cls,
        entries: Sequence[Mapping[str, Any]],
        structure: Structure = Structure.NO_LIMIT,
        chip_unit: int = 1,
    ) -> LevelSchedule:
        """Build a schedule from a list of levels and breaks (``{"break_minutes": 10}``)."""
        levels: list[Level] = []
        breaks: dict[int, float] = {}
        for entry in entries:
            number = len(levels) + 1
            if "break_minutes" in entry:
                if set(entry) != {"break_minutes"} or not levels or len(levels) in breaks:
                    raise ConfigError(
                        f"The break before level {number} must be an entry of its own, "
                        "after a level and not after another break.",
                        key="config.levels.break_before",
                        level=number,
                    )
                breaks[len(levels)] = float(
                    _value(entry["break_minutes"], f"break before level {number}", (int, float))
                )
                continue
            unknown = sorted(set(entry) - _LEVEL_KEYS)
            missing = sorted({"small_blind", "big_blind", "minutes"} - set(entry))
            if unknown or missing:
                raise ConfigError(
                    f"Level {number} has unknown key(s) [{', '.join(unknown)}] or lacks "
                    f"[{', '.join(missing)}]; a level has {', '.join(sorted(_LEVEL_KEYS))}.",
                    key="config.levels.keys",
                    level=number,
                    unknown=", ".join(unknown),
                    missing=", ".join(missing),
                    known=", ".join(sorted(_LEVEL_KEYS)),
                )
            levels.append(
                Level(
                    small_blind=_value(entry["small_blind"], f"level {number} small_blind", int),
                    big_blind=_value(entry["big_blind"], f"level {number} big_blind", int),
                    ante=_value(entry.get("ante", 0), f"level {number} ante", int),
                    big_blind_ante=_value(
                        entry.get("big_blind_ante", False), f"level {number} big_blind_ante", bool
                    ),
                    minutes=float(
                        _value(entry["minutes"], f"level {number} minutes", (int, float))
                    ),
                )
            )
        return cls(tuple(levels), breaks, structure, chip_unit)

    @classmethod
    def from_toml(cls, text: str) -> LevelSchedule:
        """Parse ``structure = "NL"``, ``chip_unit = 25`` and ``[[levels]]`` tables.

        A ``[[levels]]`` entry holding only ``break_minutes`` is a break.
        """
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(
                f"The blind structure is not valid TOML: {exc}.",
                key="config.levels.toml",
                error=str(exc),
            ) from exc
        unknown = sorted(set(data) - {"structure", "chip_unit", "levels"})
        if unknown:
            raise ConfigError(
                f"Unknown key(s) in the blind structure: {', '.join(unknown)}; expected "
                "structure, chip_unit and [[levels]].",
                key="config.levels.unknown",
                unknown=", ".join(unknown),
            )
        try:
            structure = Structure(data.get("structure", "NL"))
        except ValueError as exc:
            raise ConfigError(
                f"The structure must be NL, PL or FL, not {data['structure']!r}.",
                key="config.structure",
                value=repr(data["structure"]),
            ) from exc
        chip_unit = _value(data.get("chip_unit", 1), "chip_unit", int)
        return cls.from_dicts(data.get("levels", []), structure, chip_unit)

    def position(self, running_seconds: float) -> LevelPosition:
        """The level in force after ``running_seconds`` of clock time (pauses excluded).

        A level covers ``[start, end)``: at its very end the next one is in force.
        """
        t = 0.0
        for index, level in enumerate(self.levels):
            end = t + level.seconds
            if running_seconds < end:
                return LevelPosition(index, level, end - max(running_seconds, t))
            t = end
            pause = self.breaks.get(index + 1, 0) * 60
            if running_seconds < t + pause:
                following = self.levels[index + 1]
                return LevelPosition(
                    index + 1, following, following.seconds, True, t + pause - running_seconds
                )
            t += pause
        return LevelPosition(len(self.levels) - 1, self.levels[-1], 0.0)

    def level_at(
        self, elapsed_seconds: float, paused_seconds: float = 0.0
    ) -> tuple[int, Level, float]:
        """(0-based index, level, seconds left in it) after ``elapsed_seconds`` since
        the start, of which ``paused_seconds`` the clock was paused."""
        pos = self.position(elapsed_seconds - paused_seconds)
        return pos.index, pos.level, pos.seconds_left

    def stakes(self, level: Level) -> Stakes:
        """The table :class:`Stakes` of ``level``."""
        return Stakes(
            structure=self.structure,
            small_blind=level.small_blind,
            big_blind=level.big_blind,
            ante=level.ante,
            big_blind_ante=level.big_blind_ante,
            big_bet=2 * level.big_blind if self.structure is Structure.FIXED_LIMIT else 0,
            chip_unit=self.chip_unit,
        )


def _check_level(number: int, level: Level, previous: Level | None) -> None:
    problem, key = "", ""
    params: dict[str, Any] = {}
    if level.big_blind < 1 or level.small_blind < 0 or level.ante < 0:
        problem = "needs a big blind of at least 1 and a small blind and ante of 0 or more"
        key = "config.levels.minimum"
    elif level.small_blind > level.big_blind:
        problem = f"has a small blind ({level.small_blind}) above its big blind"
        key, params = "config.levels.small_above_big", {"small": level.small_blind}
    elif level.minutes <= 0:
        problem = f"must last a positive number of minutes, not {level.minutes}"
        key, params = "config.levels.minutes", {"minutes": level.minutes}
    elif previous and (
        level.big_blind < previous.big_blind or level.small_blind < previous.small_blind
    ):
        problem = (
            f"has blinds {level.small_blind}/{level.big_blind}, lower than the level before "
            f"({previous.small_blind}/{previous.big_blind}); blinds may not go down"
        )
        key = "config.levels.down"
        params = {
            "blinds": f"{level.small_blind}/{level.big_blind}",
            "before": f"{previous.small_blind}/{previous.big_blind}",
        }
    if problem:
        raise ConfigError(
            f"Level {number} {problem}. Correct the blind structure.",
            key=key,
            level=number,
            **params,
        )


def _value(value: Any, name: str, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        what = "true or false" if kind is bool else "a whole number" if kind is int else "a number"
        raise ConfigError(
            f"The {name} must be {what}, not {value!r}.",
            key="config.levels.type",
            name=name,
            expected=type_said(kind if isinstance(kind, type) else float),
            value=repr(value),
        )
    return value


@dataclass
class TournamentClock:
    """The level clock: started, paused and resumed by the floor; time passed in.

    ``stakes_for_hand`` uses the level in force when the hand started (its
    shuffle, TDA-17), so a level that ends during a hand changes nothing in it.
    """

    schedule: LevelSchedule
    started_at: float | None = None
    paused_at: float | None = None
    pauses: list[tuple[float, float]] = field(default_factory=list)

    def start(self, now: float) -> None:
        """Start level 1 at ``now``; on a paused clock, resume it (the dealer's
        "Start clock" on a paused clock means "go on", issue 23).

        :raises IllegalAction: if the clock is already running.
        """
        if self.started_at is not None and self.paused_at is not None:
            self.resume(now)
            return
        if self.started_at is not None:
            raise IllegalAction(
                "The tournament clock is already running.", key="error.levels.started"
            )
        self.started_at = now

    def pause(self, now: float) -> None:
        """Stop the clock at ``now`` (hands may go on; the level does not run).

        :raises IllegalAction: if it is paused, or ``now`` is before the clock last
            started running (a late command's moment: that time would be paused twice,
            and the level shown would go back).
        """
        running_since = self._started()
        if self.paused_at is not None:
            raise IllegalAction(
                "The tournament clock is already paused; resume it first.",
                key="error.levels.paused",
            )
        if self.pauses:
            running_since = max(running_since, self.pauses[-1][1])
        if now < running_since:
            raise IllegalAction(
                "The clock cannot pause before it last started running; check the time.",
                key="error.levels.pause_early",
            )
        self.paused_at = now

    def resume(self, now: float) -> None:
        """Restart the clock at ``now``."""
        if self.paused_at is None:
            raise IllegalAction(
                "The tournament clock is not paused.", key="error.levels.not_paused"
            )
        if now < self.paused_at:
            raise IllegalAction(
                "The clock cannot resume before it was paused; check the time.",
                key="error.levels.resume_early",
            )
        self.pauses.append((self.paused_at, now))
        self.paused_at = None

    @property
    def paused(self) -> bool:
        """The clock is paused."""
        return self.paused_at is not None

    def running_seconds(self, now: float) -> float:
        """Clock time at ``now``: seconds since the start, pauses before ``now`` excluded."""
        start = self._started()
        spans = [*self.pauses]
        if self.paused_at is not None:
            spans.append((self.paused_at, max(now, self.paused_at)))
        paused = sum(max(0.0, min(end, now) - begin) for begin, end in spans if begin < now)
        return max(0.0, now - start - paused)

    def current(self, now: float) -> LevelPosition:
        """The level (or break) in force at ``now``."""
        return self.schedule.position(self.running_seconds(now))

    def stakes_for_hand(self, hand_started_at: float) -> Stakes:
        """Stakes of the hand whose shuffle began at ``hand_started_at`` (TDA-17).

        :raises IllegalAction: if that moment falls in a break.
        """
        pos = self.current(hand_started_at)
        if pos.on_break:
            # As every screen counts it: whole seconds rounded up, as minutes:seconds
            # (never "0 seconds" or "1 seconds"; firmware.i18n.clock).
            left = max(1, math.ceil(round(pos.break_seconds_left, 3)))
            raise IllegalAction(
                f"The tournament is on a break ({mmss(left)} left); "
                "start the hand after the break.",
                key="error.levels.on_break",
                seconds=left,
                time=mmss(left),
            )
        return self.schedule.stakes(pos.level)

    def _started(self) -> float:
        if self.started_at is None:
            raise IllegalAction(
                "The tournament clock has not started; start it first.",
                key="error.levels.not_started",
            )
        return self.started_at
