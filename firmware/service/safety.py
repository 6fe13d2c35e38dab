"""What keeps one bad event from stopping the table.

* :func:`trial_apply` applies an event to a copy of the table first, so the
  controller journals only events the table accepts: a refused event (for any
  reason, an :class:`~firmware.errors.IllegalAction` or a fault of the
  firmware) leaves the table, the journal and the meters untouched.
* :class:`LogThrottle` keeps a repeated error from filling the disk with the
  same line: the first few of each kind per window are logged, then one
  summary line says how many were left out.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import time
from collections.abc import Callable
from typing import Any

from firmware.errors import IllegalAction, PokerTableError
from firmware.table import events as te
from firmware.table.table import Table

log = logging.getLogger("firmware.service")

APPEND_ONLY = ("log", "records", "audit", "chip_races")
"""Table lists that only grow (or are trimmed): a trial shares their items."""


def trial_copy(table: Table) -> Table:
    """A copy of ``table`` an event can be tried on without touching the original.

    The copy has no hand listeners (history, retention, meters never see a
    trial) and shares the finished items of the append-only lists, so a trial
    costs about the size of the hand in progress, not of the table's past.
    """
    memo: dict[int, Any] = {id(table.hand_listeners): []}
    for name in APPEND_ONLY:
        items = getattr(table, name, None)
        if isinstance(items, list):
            memo[id(items)] = list(items)
    # Frozen objects are shared, not copied: the configuration, the hand's plan and
    # the events already in the hand's logs (an event is never changed once applied).
    # Copying them was most of a trial's cost (issue 15).
    shared: list[Any] = [table.config]
    th = table.hand
    if th is not None:
        shared += [th.plan, th.hand.config, *th.log, *th.hand.events]
    for item in shared:
        memo[id(item)] = item
    return copy.deepcopy(table, memo)


def trial_apply(table: Table, event: te.TableEvent) -> None:
    """Check that ``table`` accepts ``event`` by applying it to a copy.

    :raises IllegalAction: the table's own refusal, or, for a fault of the
        firmware (any other exception), a refusal that names it
        (``table.refused_fault``); the original table is untouched either way.
    """
    trial = trial_copy(table)
    try:
        trial.apply(event)
    except IllegalAction:
        raise
    except Exception as exc:
        raise _refusal(event, exc) from exc


def _refusal(event: te.TableEvent, exc: Exception) -> IllegalAction:
    """The refusal an exception raised by a trial becomes (see :func:`trial_apply`)."""
    if isinstance(exc, IllegalAction):
        return exc
    if isinstance(exc, PokerTableError):  # a refusal of another kind (a chip race's ConfigError)
        return IllegalAction(str(exc), key=exc.key, **exc.params)
    return IllegalAction(
        f"The table cannot take the {event.kind} event ({type(exc).__name__}: {exc}); "
        "nothing was recorded. Check the request and call the floor if it repeats.",
        key="table.refused_fault",
        kind=event.kind,
    )


class Trials:
    """Tries each event on a twin of the table kept in step with it (issue 15).

    :func:`trial_apply` copies the table for every event; during a hand that copy
    was most of the controller's time per event. The twin is a
    :func:`trial_copy` taken when the hand starts (or whenever it may differ
    from the table), and every event the table accepts is applied to both, so
    the next event is tried on the twin as it is. The twin is dropped (and copied
    again on the next event) after a refusal, a journal failure, or when the
    table's log is not where the twin left it. It goes on from one hand to the
    next (copying it at each shuffle was most of that event's cost) while a
    check between hands finds it alike: hand count, records, seating and deck.
    """

    def __init__(self) -> None:
        self._twin: Table | None = None
        self._of: Table | None = None
        self._mark: tuple[int, int, int] | None = None
        self.record: dict[str, Any] | None = None
        """The record of a hand the last trial finished (the table takes it, read only,
        instead of replaying the hand again: :attr:`Table.record_ready`)."""

    @staticmethod
    def _where(table: Table) -> tuple[int, int, int]:
        return (len(table.log), table.hand_number, id(table.hand))

    def trial(self, table: Table, events: list[te.TableEvent]) -> None:
        """Apply ``events`` in order to the twin of ``table`` (copied when needed).

        :raises IllegalAction: as :func:`trial_apply` does; the twin is dropped.
        """
        twin = self._twin
        if (
            twin is None
            or self._of is not table
            or self._mark != self._where(table)
            or (table.hand is None and not _alike_between_hands(twin, table))
        ):
            twin = trial_copy(table)
        twin.advance_clock(table.now)
        self._twin = None  # until the table has taken the same events
        self.record = None
        newest = twin.records[-1] if twin.records else None
        for event in events:
            try:
                twin.apply(event)
            except Exception as exc:
                raise _refusal(event, exc) from exc
        if twin.records and twin.records[-1] is not newest:
            self.record = twin.records[-1]
        self._twin, self._of = twin, table

    def taken(self, table: Table) -> None:
        """The table took the events of the last :meth:`trial`: the twin is in step."""
        self._mark = self._where(table)

    def drop(self) -> None:
        """Forget the twin (the table did not take what was tried)."""
        self._twin = None
        self.record = None


def _alike_between_hands(twin: Table, table: Table) -> bool:
    """Whether ``twin`` is ``table`` in what a hand starts from (a cheap check between
    hands, beside the log's length): hand count, records, seating, deck, floor hold."""
    return (
        twin.hand is None
        and twin.hand_number == table.hand_number
        and len(twin.records) == len(table.records)
        and twin.deal_limit == table.deal_limit
        and twin.seating == table.seating
        and twin.deck == table.deck
    )


class LogThrottle:
    """Log at most ``burst`` lines per kind every ``window`` seconds, then a summary.

    :param logger: Where the lines go.
    :param clock: Monotonic seconds (injectable for tests).
    """

    def __init__(
        self,
        logger: logging.Logger,
        burst: int = 5,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.burst = burst
        self.window = window
        self.clock = clock
        self._kinds: dict[str, list[float]] = {}
        """Per kind: [window start, lines logged, lines left out]."""

    def log(self, level: int, kind: str, message: str, *args: object) -> bool:
        """Log ``message`` unless ``kind`` was logged ``burst`` times this window.

        Returns whether the line was written. When a window with lines left
        out ends, one line says how many.
        """
        now = self.clock()
        state = self._kinds.get(kind)
        if state is None or now - state[0] >= self.window:
            if state is not None and state[2]:
                self.logger.log(
                    level,
                    "%d more message(s) like '%s' were left out in the last %.0f s.",
                    int(state[2]),
                    kind,
                    now - state[0],
                )
            state = [now, 0.0, 0.0]
            self._kinds[kind] = state
        if state[1] < self.burst:
            state[1] += 1
            self.logger.log(level, message, *args)
            return True
        state[2] += 1
        return False


class Stops:
    """The controller's own pauses (a mixin of :class:`~firmware.service.controller.Controller`).

    ``state.stops`` holds why the controller paused the table: ``journal``
    (the journal cannot be written, a full disk) clears by itself when
    ``storage_ok`` says there is room again; ``error`` (a fault of the
    firmware caught by the loop) clears when the dealer resumes.
    """

    state: Any
    storage_ok: Callable[[], bool] | None

    def _alert(
        self, text: str, source: str | None = None, key: str | None = None, **params: Any
    ) -> None:
        raise NotImplementedError

    def _outputs(self) -> None:
        raise NotImplementedError

    def _release_held(self) -> None:
        raise NotImplementedError

    def _stopped_by_error(self, exc: Exception) -> None:
        """Pause the table after a fault of the firmware, with an alert and a log line."""
        log.exception("The controller caught an unexpected error; the table is paused.")
        text = (
            f"The table is paused after an internal error ({type(exc).__name__}: {exc}). "
            "Nothing was lost; check the table and resume it from the console."
        )
        self.state.stops["error"] = text
        error = f"{type(exc).__name__}: {exc}"
        self._alert(text, None, "alert.stopped_error", error=error)
        with contextlib.suppress(Exception):
            self._outputs()

    def resume_after_error(self) -> None:
        """The dealer resumes after an internal error (the journal's stop clears by itself)."""
        if self.state.stops.pop("error", None) is not None:
            self._alert(
                "The dealer resumed the table after the internal error.",
                None,
                "alert.resumed_after_error",
            )
            self._release_held()

    def _journal_failed(self, exc: Exception) -> None:
        """The journal cannot be written (disk full, SD card failing): pause, refuse, alert."""
        cause = str(exc) if str(exc).startswith("The journal") else f"The journal failed: {exc}."
        text = (
            f"{cause} The table is paused and takes nothing until the journal can be written "
            "again (free space on the disk, or call the technician); nothing was lost."
        )
        if self.state.stops.get("journal") != text:
            log.error("%s", text)
            self._alert(text, None, "alert.journal.failed", error=str(exc))
        self.state.stops["journal"] = text
        self._outputs()

    def _storage_back(self) -> bool:
        """Whether the journal can be written again; if so the table resumes."""
        if self.storage_ok is not None and not self.storage_ok():
            return False
        self.state.stops.pop("journal", None)
        self._alert(
            "The journal can be written again; the table resumes.", None, "alert.journal.back"
        )
        self._release_held()
        return True


__all__ = ["APPEND_ONLY", "LogThrottle", "Stops", "Trials", "trial_apply", "trial_copy"]
