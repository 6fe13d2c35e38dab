"""Calling the clock on a player (TDA-5) and the automatic action timer.

TDA-5: once a reasonable time has passed and someone calls for "time", the
player has one minute to act; the last ten seconds are counted down aloud; if
he has not acted, his hand is dead. :class:`ActionClock` keeps that minute.
It never reads the wall clock: every method takes ``now``, a number of seconds
from any fixed origin (the table's monotonic clock in production).

>>> clock = ActionClock(seconds=60, countdown=10)
>>> clock.call(seat=4, now=100.0, called_by="floor")
>>> clock.status(149.5).announcements
()
>>> clock.status(150.0).announcements
(10,)
>>> clock.status(153.2).announcements  # late poll: 9, 8 and 7 are still said once each
(9, 8, 7)
>>> clock.expired(160.0)
True

:class:`ActionTimer` is the house's automatic timer (``action_timer_seconds``):
each action gets a fixed time, then the player's time bank is spent, then the
hand is dead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from firmware.errors import ConfigError, IllegalAction
from firmware.table.options import TableOptions

CALLERS = ("floor", "dealer")
"""Who may call the clock directly; a seat may only request it (TDA-5)."""


@dataclass(frozen=True)
class ClockStatus:
    """What the clock shows at one moment.

    :param running: The clock is running (called and not stopped).
    :param seconds_left: Seconds left to act, never below 0.
    :param counting_down: In the last ``countdown`` seconds (counted aloud, TDA-5).
    :param expired: Time is up: the hand is dead (the caller kills it).
    :param announcements: Whole seconds to say aloud now, highest first; each
        second from ``countdown`` down to 1 is returned exactly once over the
        life of the clock, however irregular the polling.
    """

    running: bool
    seconds_left: float
    counting_down: bool
    expired: bool
    announcements: tuple[int, ...] = ()


@dataclass
class ActionClock:
    """The clock called on one player (TDA-5).

    :param seconds: Time to act once the clock is called (``clock_seconds``).
    :param countdown: Last seconds counted aloud (``clock_countdown_seconds``).
    """

    seconds: int = 60
    countdown: int = 10
    seat: int | None = None
    called_at: float | None = None
    stopped_at: float | None = None
    requested_by: int | None = None
    log: list[str] = field(default_factory=list)
    _announced_down_to: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.seconds < 1:
            raise ConfigError(f"The clock needs at least 1 second to act, not {self.seconds}.")
        if not 0 <= self.countdown <= self.seconds:
            raise ConfigError(
                f"The countdown ({self.countdown} s) must be from 0 to the clock's "
                f"{self.seconds} s."
            )
        self._announced_down_to = self.countdown + 1

    @classmethod
    def from_options(cls, options: TableOptions) -> ActionClock:
        """A clock with the table's ``clock_seconds`` and ``clock_countdown_seconds``."""
        return cls(seconds=options.clock_seconds, countdown=options.clock_countdown_seconds)

    @property
    def pending_request(self) -> bool:
        """A seat asked for the clock and the floor or dealer has not confirmed yet."""
        return self.requested_by is not None and self.called_at is None

    def request(self, seat: int, now: float, requested_by: int) -> None:
        """Seat ``requested_by`` asks for the clock on ``seat``; the floor or dealer confirms.

        :raises IllegalAction: if a player asks for the clock on himself or the
            clock is already running.
        """
        if seat == requested_by:
            raise IllegalAction(
                f"Seat {seat} cannot call the clock on itself; ask another seat or the floor.",
                key="error.clock.self",
                seat=seat,
            )
        self._check_not_running()
        self.seat = seat
        self.requested_by = requested_by
        self.log.append(f"{now:.1f}: seat {requested_by} asks for the clock on seat {seat}")

    def confirm(self, now: float, confirmed_by: str) -> None:
        """The floor or dealer confirms a seat's request: the clock starts at ``now``."""
        if not self.pending_request or self.seat is None:
            raise IllegalAction(
                "No seat has asked for the clock; the floor or dealer can call it directly.",
                key="error.clock.no_request",
            )
        self.call(self.seat, now, confirmed_by)

    def call(self, seat: int, now: float, called_by: str) -> None:
        """The floor or dealer calls the clock on ``seat`` at ``now`` (TDA-5).

        :raises IllegalAction: if the caller is not the floor or dealer, or the
            clock is already running.
        """
        if called_by not in CALLERS:
            raise IllegalAction(
                f"Only the floor or the dealer can call the clock, not {called_by!r}; "
                "a seat can ask for it with request().",
                key="error.clock.caller",
            )
        self._check_not_running()
        self.seat = seat
        self.called_at = now
        self.stopped_at = None
        self._announced_down_to = self.countdown + 1
        self.log.append(
            f"{now:.1f}: {called_by} calls the clock on seat {seat}: {self.seconds} s to act"
        )

    def stop(self, now: float) -> None:
        """The player acted (or the hand ended): the clock stops."""
        if self.called_at is not None and self.stopped_at is None:
            self.stopped_at = now
            self.log.append(f"{now:.1f}: seat {self.seat} acted; clock stopped")
        self.requested_by = None

    @property
    def running(self) -> bool:
        """The clock has been called and not stopped."""
        return self.called_at is not None and self.stopped_at is None

    def seconds_left(self, now: float) -> float:
        """Seconds left to act at ``now``: the full time if not called, never below 0."""
        if self.called_at is None:
            return float(self.seconds)
        end = now if self.stopped_at is None else min(now, self.stopped_at)
        return max(0.0, self.seconds - max(0.0, end - self.called_at))

    def expired(self, now: float) -> bool:
        """Time is up and the player did not act: his hand is dead (TDA-5)."""
        return self.running and self.seconds_left(now) <= 0.0

    def status(self, now: float) -> ClockStatus:
        """The clock at ``now``, with the seconds still to be announced.

        Second ``n`` is due once ``seconds_left <= n``. Every due second not
        yet returned is returned now, highest first, so each of ``countdown``
        .. 1 is announced exactly once even if polls skip seconds; a poll with
        an earlier ``now`` than a previous one announces nothing new.
        """
        left = self.seconds_left(now)
        if not self.running:
            return ClockStatus(False, left, False, False)
        due = max(1, math.ceil(left)) if left > 0 else 1
        announcements = tuple(range(self._announced_down_to - 1, due - 1, -1))
        if announcements:
            self._announced_down_to = announcements[-1]
            self.log.append(f"{now:.1f}: countdown {', '.join(map(str, announcements))}")
        return ClockStatus(
            running=True,
            seconds_left=left,
            counting_down=0.0 < left <= self.countdown,
            expired=left <= 0.0,
            announcements=announcements,
        )

    def _check_not_running(self) -> None:
        if self.running:
            raise IllegalAction(
                f"The clock is already running on seat {self.seat}; stop it before calling "
                "it again.",
                key="error.clock.running",
                seat=self.seat,
            )


@dataclass(frozen=True)
class TimerStatus:
    """What the automatic action timer shows.

    :param phase: ``idle``, ``action`` (the per-action time), ``bank`` (spending
        the time bank) or ``expired`` (the hand is dead).
    :param seconds_left: Seconds left in the current phase.
    :param bank_left: Seconds left in the time bank at ``now``.
    """

    phase: str
    seconds_left: float
    bank_left: float


@dataclass
class ActionTimer:
    """Automatic action timer with a time bank (house option ``action_timer_seconds``).

    Each action gets ``seconds``; when they run out, the player's bank is
    spent; when the bank is empty too, the hand is dead. The bank carries over
    from action to action (it is the player's, not the action's).

    >>> timer = ActionTimer(seconds=20, bank_seconds=30)
    >>> timer.start(0.0)
    >>> timer.status(25.0)
    TimerStatus(phase='bank', seconds_left=25.0, bank_left=25.0)
    >>> timer.stop(25.0)
    >>> timer.bank_left
    25.0
    """

    seconds: float
    bank_seconds: float = 0.0
    bank_left: float = field(init=False)
    started_at: float | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.seconds <= 0 or self.bank_seconds < 0:
            raise ConfigError(
                "The action timer needs a positive time per action and a time bank of 0 "
                f"or more seconds, not {self.seconds} and {self.bank_seconds}."
            )
        self.bank_left = float(self.bank_seconds)

    def start(self, now: float) -> None:
        """The player's turn begins at ``now``."""
        self.started_at = now

    def status(self, now: float) -> TimerStatus:
        """Phase, seconds left in it and the bank at ``now``."""
        if self.started_at is None:
            return TimerStatus("idle", float(self.seconds), self.bank_left)
        elapsed = max(0.0, now - self.started_at)
        if elapsed < self.seconds:
            return TimerStatus("action", self.seconds - elapsed, self.bank_left)
        bank = max(0.0, self.bank_left - (elapsed - self.seconds))
        if bank > 0.0:
            return TimerStatus("bank", bank, bank)
        return TimerStatus("expired", 0.0, 0.0)

    def expired(self, now: float) -> bool:
        """The action time and the bank are spent: the hand is dead."""
        return self.status(now).phase == "expired"

    def stop(self, now: float) -> None:
        """The player acted at ``now``: the bank keeps what was not spent."""
        if self.started_at is not None:
            self.bank_left = self.status(now).bank_left
            self.started_at = None


def switch_turn(
    timers: dict[int, ActionTimer],
    previous: int | None,
    actor: int | None,
    now: float,
    seconds: int,
    bank: int,
) -> None:
    """The turn passes from ``previous`` to ``actor`` at ``now``: stop the one's
    automatic timer (his bank keeps what he did not spend) and start the other's,
    creating it with ``seconds`` per action and ``bank`` seconds of bank."""
    if previous is not None:
        timers[previous].stop(now)
    if actor is not None:
        timer = timers.get(actor)
        if timer is None:
            timer = timers[actor] = ActionTimer(seconds, bank)
        timer.start(now)
