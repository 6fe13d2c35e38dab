"""Tournament procedures: blind levels and the tournament clock (TDA-17),
penalties (TDA-7, TDA-31), seat and button draws (TDA-13, HG-5) and table
balancing (TDA-25, HG-4).

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

import enum
import logging
import math
import tomllib
from collections.abc import Iterable, Mapping, Sequence
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


# ------------------------------------------------------------------ penalties (TDA-7, TDA-31)


class PenaltyKind(enum.Enum):
    """The penalties the floor can give (TDA-7)."""

    WARNING = "warning"
    ROUNDS = "rounds"
    DISQUALIFICATION = "disqualification"


@dataclass(frozen=True)
class Penalty:
    """A penalty: a warning, 1 to 4 rounds away from the table, or disqualification."""

    kind: PenaltyKind
    rounds: int = 0

    def __post_init__(self) -> None:
        if self.kind is PenaltyKind.ROUNDS and not 1 <= self.rounds <= 4:
            raise IllegalAction(
                f"A penalty is one, two, three or four rounds (TDA-7), not {self.rounds}.",
                key="error.penalty.rounds",
                rounds=self.rounds,
            )
        if self.kind is not PenaltyKind.ROUNDS and self.rounds:
            raise IllegalAction(
                f"A {self.kind.value} has no rounds; give rounds=0.",
                key="error.penalty.no_rounds",
                kind=self.kind.value,
            )


def hands_to_miss(rounds: int, players_at_table: int) -> int:
    """Hands missed for ``rounds``: one per player at the table, the offender
    included, when the penalty is given, times the rounds (TDA-7).

    >>> hands_to_miss(2, 9)
    18
    """
    if players_at_table < 1:
        raise IllegalAction(
            "The offender counts himself: at least one player is at the table.",
            key="error.penalty.no_players",
        )
    return Penalty(PenaltyKind.ROUNDS, rounds).rounds * players_at_table


@dataclass
class PenaltyRecord:
    """One penalty given, for the audit log (TDA-1) and the seat's screen."""

    seat: int
    penalty: Penalty
    reason: str
    given_at: float
    players_at_table: int
    hands_total: int = 0
    hands_left: int = 0
    deferred: bool = False
    started: bool = True
    chips_removed: int = 0
    kill_now: bool = False
    """Given during a hand and not deferred: that hand is killed and counts."""


@dataclass
class PenaltyBook:
    """Penalties at one table, by seat.

    A penalised seat is dealt in and posts its blinds and antes; its hand is
    killed (TDA-7). Call :meth:`hand_dealt` once per hand dealt and
    :meth:`hand_over` when it ends; a hand counts toward a penalty only if the
    seat was dealt in.
    """

    records: list[PenaltyRecord] = field(default_factory=list)
    closed: list[PenaltyRecord] = field(default_factory=list)
    """Penalties of players who have left their seat (kept for the audit)."""
    in_hand: bool = False
    _dealt: frozenset[int] = frozenset()
    _serving: set[int] = field(default_factory=set)
    _counted: list[PenaltyRecord] = field(default_factory=list)
    """Penalties that counted the hand in progress (given back if it is voided)."""
    _started_now: list[PenaltyRecord] = field(default_factory=list)
    """Deferred penalties (TDA-31) that started with the hand in progress."""

    def give(
        self,
        seat: int,
        penalty: Penalty,
        reason: str,
        now: float,
        players_at_table: int,
        *,
        starts_next_hand: bool = False,
        chips: int = 0,
    ) -> PenaltyRecord:
        """Record ``penalty`` on ``seat`` for ``reason`` at ``now``.

        With ``starts_next_hand`` (TDA-31) the current hand stays live and the
        count starts with the next hand dealt. Otherwise, given during a hand
        the seat was dealt into, that hand is killed (``kill_now``) and is the
        first hand missed. For a disqualification ``chips`` is the stack
        removed from play.

        :raises IllegalAction: for an empty reason, or a seat already disqualified.
        """
        if not reason.strip():
            raise IllegalAction(
                "A penalty needs a reason for the audit log (TDA-1); say why it is given.",
                key="error.ruling.no_reason",
            )
        if self.is_disqualified(seat):
            raise IllegalAction(
                f"Seat {seat} is already disqualified.", key="error.penalty.disqualified", seat=seat
            )
        record = PenaltyRecord(seat, penalty, reason.strip(), now, players_at_table)
        if penalty.kind is PenaltyKind.ROUNDS:
            record.hands_total = record.hands_left = hands_to_miss(penalty.rounds, players_at_table)
            record.deferred = starts_next_hand
            record.started = not starts_next_hand
            if self.in_hand and not starts_next_hand and seat in self._dealt:
                self._count(seat, record)
                record.kill_now = True
        elif penalty.kind is PenaltyKind.DISQUALIFICATION:
            if chips < 0:
                raise IllegalAction(
                    "The chips removed cannot be negative.", key="error.penalty.negative_chips"
                )
            record.chips_removed = chips
            for other in self.records:
                if other.seat == seat:
                    other.hands_left = 0
            record.kill_now = self.in_hand and seat in self._dealt
        self.records.append(record)
        log.info("Penalty on seat %d: %s (%s) at %.1f", seat, penalty, reason, now)
        return record

    def disqualify(self, seat: int, reason: str, now: float, chips: int, players: int = 1) -> int:
        """Disqualify ``seat``; its ``chips`` leave the tournament (TDA-7). Returns them."""
        self.give(seat, Penalty(PenaltyKind.DISQUALIFICATION), reason, now, players, chips=chips)
        return chips

    def hand_dealt(self, seats_dealt_in: Iterable[int]) -> frozenset[int]:
        """A hand was dealt to ``seats_dealt_in``: start deferred penalties, count
        one hand for each serving seat, and return the seats whose hands are killed."""
        self.in_hand = True
        self._dealt = frozenset(seats_dealt_in)
        self._serving = set()
        self._counted = []
        self._started_now = [r for r in self.records if not r.started]
        for record in self.records:
            record.started = True
        for seat in sorted(self._dealt):
            active = [r for r in self.records if r.seat == seat and r.hands_left > 0]
            if active:
                self._count(seat, active[0])
            if self.is_disqualified(seat):
                self._serving.add(seat)
        return frozenset(self._serving)

    def hand_over(self, voided: bool = False) -> None:
        """The hand ended. A voided hand (misdeal, dead hand, floor void) was never
        played, so it does not count toward any penalty (TDA-7): the hands it took
        are given back and deferred penalties start again with the next hand."""
        if voided:
            for record in self._counted:
                record.hands_left += 1
            for record in self._started_now:
                record.started = False
        self._counted = []
        self._started_now = []
        self.in_hand = False
        self._dealt = frozenset()
        self._serving = set()

    def is_serving(self, seat: int) -> bool:
        """The seat's hand is killed this hand, or a started penalty still has hands
        to miss (a deferred penalty, TDA-31, leaves the current hand live)."""
        return seat in self._serving or any(
            r.seat == seat and r.started and r.hands_left > 0 for r in self.records
        )

    def hands_left(self, seat: int) -> int:
        """Hands the seat still has to miss, deferred penalties included."""
        return sum(r.hands_left for r in self.records if r.seat == seat)

    def is_disqualified(self, seat: int) -> bool:
        """The seat's player was disqualified."""
        return any(
            r.seat == seat and r.penalty.kind is PenaltyKind.DISQUALIFICATION for r in self.records
        )

    @property
    def chips_removed(self) -> int:
        """Chips removed from play by disqualifications."""
        return sum(r.chips_removed for r in (*self.records, *self.closed))

    def seat_vacated(self, seat: int) -> None:
        """The player at ``seat`` left: his penalties end there and do not pass to
        the seat's next occupant (they stay in :attr:`closed` for the audit)."""
        self.closed.extend(r for r in self.records if r.seat == seat)
        self.records = [r for r in self.records if r.seat != seat]
        self._serving.discard(seat)

    def _count(self, seat: int, record: PenaltyRecord) -> None:
        record.hands_left -= 1
        self._counted.append(record)
        self._serving.add(seat)
