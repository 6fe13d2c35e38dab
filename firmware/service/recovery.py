"""Rebuilding the table from its journal after a restart.

The journal holds the table's set-up (configuration, blind schedule) as
metadata and every table event in order, plus a snapshot of the table
between hands every few hands. :func:`restore` loads the newest snapshot
into a new :class:`~firmware.table.table.Table` and replays the events after
it, so recovery time does not grow with the session. Events the table
refused the first time are refused again in the same way, so the result is
exactly the state at the moment of the crash. With the house option ``void_on_recovery`` an open
hand is then voided with exact refunds instead of resumed.
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict
from typing import Any

from firmware.engine.rules import Structure
from firmware.errors import IllegalAction
from firmware.service.journal import Journal
from firmware.table import events as te
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
) -> None:
    """Record what is needed to rebuild the table before its first event."""
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
        },
    )


def restore(journal: Journal) -> Table:
    """Rebuild the table from ``journal``: its newest snapshot, then the records after it.

    The chain is verified from the snapshot on (``pokertable audit verify``
    checks all of it); without a snapshot every record is verified and replayed.

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
        setup["profile"], profile_options(setup["profile"], **setup["options"]), Stakes(**stakes)
    )
    schedule = None
    if setup.get("schedule"):
        schedule = LevelSchedule.from_dicts(setup["schedule"], structure=config.stakes.structure)
    table = Table(config, deck_ready=setup["deck_ready"], schedule=schedule)
    # Start from the newest snapshot (taken between hands every few hands, see
    # firmware.service.retention) and replay only the records after it.
    snapshot = journal.latest_snapshot()
    after = 0
    if snapshot is not None:
        after, state = snapshot
        table.apply(te.Restore(state))
    for event in journal.events(after):
        # A refused event was refused the first time too: the journal records
        # attempts, not only successes, and replay refuses it the same way.
        with contextlib.suppress(IllegalAction):
            table.apply(event)
    if table.hand is not None and config.options.void_on_recovery:
        event = te.VoidByFloor("power loss: the open hand is void by house rule", staff="system")
        journal.append(event)
        table.apply(event)
    return table
