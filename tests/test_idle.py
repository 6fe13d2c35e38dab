"""An idle table writes nothing: timer ticks are derived, journaled only when they matter
(or, while a level clock runs, every few seconds).

The controller's timer moves the table's clock every second. A tick that
changes nothing but the time is not journaled; the time it reached is
journaled once, just before the next event, so a restart replays the event at
the same table time. A tick that changes something (a tournament level ends,
a called clock runs) is journaled as before.
"""

from __future__ import annotations

import pathlib

from firmware.service.controller import LEVEL_JOURNAL_SECONDS, Controller
from firmware.service.journal import Journal
from firmware.service.recovery import restore, store_table_setup
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.table.tournament import LevelSchedule

LEVELS = [
    {"small_blind": 25, "big_blind": 50, "minutes": 1},
    {"small_blind": 50, "big_blind": 100, "minutes": 1},
    {"small_blind": 100, "big_blind": 200, "minutes": 1},
]


def controller_on_journal(
    tmp_path: pathlib.Path, profile: str = "casino-cash", levels: list[dict[str, int]] | None = None
) -> tuple[Controller, Journal]:
    journal = Journal(str(tmp_path / "journal.sqlite"))
    config = TableConfig(profile, profile_options(profile), Stakes())
    schedule = LevelSchedule.from_dicts(levels) if levels else None
    store_table_setup(journal, config, deck_ready=True, schedule=levels)
    table = Table(config, deck_ready=True, schedule=schedule)
    registry = TagRegistry(":memory:")
    return Controller(table, {}, registry, journal=journal.append), journal


def test_an_idle_hour_journals_nothing_and_a_restart_reaches_the_same_time(
    tmp_path: pathlib.Path,
) -> None:
    controller, journal = controller_on_journal(tmp_path)
    controller.apply(te.SitDown(1, "Ana", 200))
    before = len(journal)
    for second in range(1, 3601):
        controller.tick(float(second))
    assert len(journal) == before  # an idle hour: no record, no fsync
    assert controller.table.now == 3600.0
    controller.apply(te.SitDown(2, "Bea", 300))
    # The time reached goes first, then the event: two records.
    records = list(journal.events())
    assert len(journal) == before + 2
    assert records[-2] == te.Tick(3600.0) and records[-1] == te.SitDown(2, "Bea", 300)
    restored = restore(journal)
    assert restored.now == controller.table.now
    assert restored.seating.seats == controller.table.seating.seats


def test_a_tick_that_ends_a_tournament_level_is_journaled(tmp_path: pathlib.Path) -> None:
    controller, journal = controller_on_journal(tmp_path, "tda-tournament", LEVELS)
    controller.apply(te.LevelClock("start"))
    before = len(list(journal.events()))  # events only (the journal also keeps its set-up)
    for second in range(1, 151):
        controller.tick(float(second))
    ticks = [e.now for e in list(journal.events())[before:] if isinstance(e, te.Tick)]
    # Level 2 begins at 60 s and level 3 at 120 s: those ticks are journaled; while the
    # level clock runs the time is also journaled every LEVEL_JOURNAL_SECONDS, so a
    # restart finds the level where it was (issue 23), and nothing more.
    assert 60.0 in ticks and 120.0 in ticks
    gaps = [b - a for a, b in zip([0.0, *ticks], ticks, strict=False)]
    assert max(gaps) <= LEVEL_JOURNAL_SECONDS
    assert len(ticks) <= 150 / LEVEL_JOURNAL_SECONDS + 2
    restored = restore(journal)
    assert restored.levels is not None and controller.table.levels is not None
    assert restored.levels.current(120.0).index == controller.table.levels.current(120.0).index == 2


def test_a_paused_level_clock_journals_nothing(tmp_path: pathlib.Path) -> None:
    controller, journal = controller_on_journal(tmp_path, "tda-tournament", LEVELS)
    controller.apply(te.LevelClock("start"))
    controller.tick(10.0)
    controller.apply(te.LevelClock("pause"))
    before = len(journal)
    for second in range(11, 400):
        controller.tick(float(second))
    assert len(journal) == before
