"""Rebuilding the table from its journal after a restart.

The journal holds the table's set-up (configuration, blind schedule) as
metadata and every table event in order, plus a snapshot of the table
between hands every few hands. :func:`restore` loads the newest snapshot
into a new :class:`~firmware.table.table.Table` and replays the events after
it, so recovery time does not grow with the session and the result is
exactly the state at the moment of the crash; an event the table refuses is
skipped and reported, never a reason to stay down. With the house option
``void_on_recovery`` an open hand is then voided with exact refunds instead
of resumed.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from firmware.engine.rules import Structure
from firmware.errors import IllegalAction
from firmware.service.journal import Journal, JournalError, check_whole
from firmware.table import events as te
from firmware.table.jackpot import parse_jackpot
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.table.tournament import LevelSchedule


def schedule_entries(schedule: LevelSchedule | None) -> list[dict[str, Any]] | None:
    """A blind schedule as plain level and break entries (for the journal)."""
    if schedule is None:
        return None
    entries: list[dict[str, Any]] = []
    for number, level in enumerate(schedule.levels, start=1):
        entries.append(asdict(level))
        if number in schedule.breaks:
            entries.append({"break_minutes": schedule.breaks[number]})
    return entries


def store_table_setup(
    journal: Journal,
    config: TableConfig,
    deck_ready: bool,
    schedule: list[dict[str, Any]] | None = None,
    schedule_of: LevelSchedule | None = None,
) -> None:
    """Record what is needed to rebuild the table before its first event.

    :param schedule: The blind levels as :func:`schedule_entries` gives them.
    :param schedule_of: The schedule itself, whose structure and chip unit are
        kept too (without it, the table's own are used on restore).
    """
    stakes = asdict(config.stakes)
    stakes["structure"] = config.stakes.structure.value
    journal.set_meta(
        "table",
        {
            "profile": config.profile,
            "options": asdict(config.options),
            "stakes": stakes,
            "deck_ready": deck_ready,
            "schedule": schedule,
            "schedule_structure": schedule_of.structure.value if schedule_of else None,
            "schedule_chip_unit": schedule_of.chip_unit if schedule_of else None,
            "jackpot": None if config.jackpot is None else config.jackpot.to_section(),
        },
    )


def restore(journal: Journal, problems: list[str] | None = None) -> Table:
    """Rebuild the table from ``journal``: its newest snapshot, then the records after it.

    The chain is verified from the snapshot on (``pokertable audit verify``
    checks all of it); without a snapshot every record is verified and replayed.

    Replay never stops on an event the table refuses: a refused event is
    skipped and described in ``problems`` (the console shows each as an
    alert). The controller journals only events the table accepted, so a
    refusal here means an older journal or a change of the rules; a refusal
    that is a fault of the firmware (not an ``IllegalAction``) may have half
    applied, so the replay starts again without that event: the result is
    exactly the table as if it had never been journaled.

    :param problems: Receives one sentence per event skipped.
    :raises firmware.service.journal.JournalError: if the journal is damaged or altered.
    :raises IllegalAction: if the journal has no table set-up.
    """
    setup = journal.meta("table")
    if setup is None:
        raise IllegalAction(
            f"The journal {journal.path} has no table set-up; it was not written by a table."
        )
    stakes = dict(setup["stakes"])
    stakes["structure"] = Structure(stakes["structure"])
    config = TableConfig(
        setup["profile"],
        profile_options(setup["profile"], **setup["options"]),
        Stakes(**stakes),
        jackpot=parse_jackpot(setup["jackpot"]) if setup.get("jackpot") else None,
    )
    schedule = None
    if setup.get("schedule"):
        structure = setup.get("schedule_structure")
        schedule = LevelSchedule.from_dicts(
            setup["schedule"],
            structure=Structure(structure) if structure else config.stakes.structure,
            chip_unit=setup.get("schedule_chip_unit") or 1,
        )
    # Start from the newest snapshot (taken between hands every few hands, see
    # firmware.service.retention) and replay only the records after it.
    try:
        snapshot = journal.latest_snapshot()
        after, state = snapshot if snapshot is not None else (0, None)
        events = list(journal.events(after))
    except sqlite3.DatabaseError as exc:  # a damaged page in what recovery reads
        raise JournalError(
            f"The journal {journal.path} cannot be read ({exc}). The table stays stopped; "
            "run 'pokertable audit salvage' to copy the valid records to a new journal."
        ) from exc
    skipped: set[int] = set()
    while True:
        table = Table(config, deck_ready=setup["deck_ready"], schedule=schedule)
        if state is not None:
            table.apply(te.Restore(state))
        notes: list[str] = []
        faulty = None
        for number, event in enumerate(events, start=1):
            if number in skipped:
                notes.append(_skipped(number, event, None))
                continue
            try:
                table.apply(event)
            except IllegalAction as exc:  # refused, and a refusal changes nothing
                notes.append(_skipped(number, event, exc))
            except Exception:
                faulty = number
                break
        if faulty is None:
            break
        skipped.add(faulty)
    if problems is not None:
        problems.extend(notes)
    if table.hand is not None and config.options.void_on_recovery:
        event = te.VoidByFloor("power loss: the open hand is void by house rule", staff="system")
        journal.append(event)
        table.apply(event)
    return table


def check_in_background(path: str, damaged: Callable[[str], None]) -> threading.Thread:
    """Check the whole journal at ``path`` on a thread of its own (started here).

    After a restart the journal is opened without SQLite's page check and only
    the records after the newest snapshot are verified (:func:`restore`), so
    the table is back in play at once; this runs the rest of what ``pokertable
    audit verify`` checks (every page, the whole chain, the metadata) beside
    the table and calls ``damaged`` with the problem (from this thread) if it
    finds one. SQLite reads the pages without holding the interpreter lock.
    """

    def run() -> None:
        report = check_whole(path)
        if not report.ok:
            where = f" (record {report.first_bad})" if report.first_bad else ""
            damaged(f"{report.problem}{where}")

    thread = threading.Thread(target=run, name="journal-check", daemon=True)
    thread.start()
    return thread


class Skipped(str):
    """A sentence about a journal event recovery skipped, with its catalog ``key`` and
    ``params`` so the console shows it in its own language (``reason`` is the refusal's
    own key, values and sentence)."""

    key = "alert.recovery.skipped"
    params: dict[str, Any]


def _skipped(number: int, event: te.TableEvent, exc: IllegalAction | None) -> Skipped:
    why = "a fault of the firmware" if exc is None else str(exc)
    note = Skipped(
        f"Recovery skipped journal event {number} ({event.kind}) after the last snapshot: the "
        f"table refuses it ({why}). "
        "The table resumed without it; tell the floor."
    )
    reason = (
        {"key": "alert.recovery.firmware_fault", "params": {}, "text": why}
        if exc is None
        else {"key": exc.key or "", "params": dict(exc.params), "text": why}
    )
    note.params = {"number": number, "kind": event.kind, "reason": reason}
    return note


def table_from_setup(setup: dict[str, Any]) -> Table:
    """A new table from the set-up :func:`store_table_setup` recorded (the floor
    rebuilds each table's replica from it too)."""
    stakes = dict(setup["stakes"])
    stakes["structure"] = Structure(stakes["structure"])
    config = TableConfig(
        setup["profile"],
        profile_options(setup["profile"], **setup["options"]),
        Stakes(**stakes),
        jackpot=parse_jackpot(setup["jackpot"]) if setup.get("jackpot") else None,
    )
    schedule = None
    if setup.get("schedule"):
        schedule = LevelSchedule.from_dicts(setup["schedule"], structure=config.stakes.structure)
    return Table(config, deck_ready=setup["deck_ready"], schedule=schedule)
