"""Real times (issue 23, item 9): hand records carry their wall-clock start and end
(UTC), from the journaled anchor, so a replay rebuilds them; exports, ``history list``
and the diagnostics show them in the table's time zone."""

from __future__ import annotations

import itertools
import pathlib
import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from firmware.cli.history import main_history
from firmware.errors import ConfigError, IllegalAction
from firmware.service.controller import Controller
from firmware.service.history import HandHistory
from firmware.service.journal import Journal
from firmware.service.recovery import restore
from firmware.service.registry import TagRegistry
from firmware.table import event_records
from firmware.table import events as te
from firmware.table.options import table_config_from
from firmware.table.snapshot import restore_state, table_state
from firmware.table.table import Table
from firmware.table.walltime import local_text
from firmware.views.diag import report_text
from hal_sim.table_soak import Soak

WALL = 1_780_000_000.0
"""The evening's real time at table time 0 (2026-05-28 20:26:40 UTC)."""
ZONE = "America/Lima"
DOWN = 3600.0
"""The controller is off an hour between the two sessions."""


class Evening:
    """A cash table played through the controller on its journal, with an injected
    wall clock; ``played`` keeps when (really) each hand started."""

    def __init__(self, tmp_path: pathlib.Path) -> None:
        self.path = str(tmp_path / "journal.sqlite")
        self.journal = Journal(self.path)
        self.soak = Soak("casino-cash", seed=5, incident_rate=0.0, journal=self.journal)
        self.history = HandHistory(str(tmp_path / "history.sqlite"))
        self.history.set_zone(ZONE)
        self.played: dict[int, float] = {}
        self.offset = 0.0
        self.connect(self.soak.table)

    def connect(self, table: Table) -> None:
        self.soak.table = table
        table.hand_listeners.append(self.history.listener(lambda: 0.0))
        self.controller = Controller(
            table,
            {},
            TagRegistry(":memory:"),
            journal=self.journal.append,
            clock=lambda: table.now,
        )
        self.controller.wall = lambda: WALL + self.offset + table.now

        def apply(event: te.TableEvent) -> bool:
            if isinstance(event, te.Shuffle):  # the hand really starts now
                self.played[table.hand_number + 1] = WALL + self.offset + table.now
            return self.controller.apply(event)

        self.soak._apply = apply  # type: ignore[method-assign]

    def restart(self) -> None:
        self.journal.close()
        self.journal = Journal(self.path)
        self.offset += DOWN
        self.connect(restore(self.journal))


def header_time(text: str) -> float:
    """The moment a PokerStars header gives, read in its zone."""
    found = re.search(r" - (\d{4}/\d{2}/\d{2} \d{1,2}:\d{2}:\d{2}) (\S+) \[", text)
    assert found, text.splitlines()[0]
    when = datetime.strptime(found.group(1), "%Y/%m/%d %H:%M:%S")
    assert found.group(2) == when.replace(tzinfo=ZoneInfo(ZONE)).tzname()
    return when.replace(tzinfo=ZoneInfo(ZONE)).timestamp()


@pytest.fixture
def evening(tmp_path: pathlib.Path) -> Any:
    night = Evening(tmp_path)
    for _ in range(6):
        night.soak.play_hand()
    night.restart()
    for _ in range(6):
        night.soak.play_hand()
    yield night
    night.history.close()
    night.journal.close()


def test_records_carry_real_times_that_a_replay_rebuilds(evening: Evening) -> None:
    records = [r for r in evening.soak.table.records if r["hand"] in evening.played]
    assert len(records) >= 8
    for record in records:
        start, end = record["started_wall"], record["finished_wall"]
        assert start == pytest.approx(evening.played[record["hand"]], abs=1.0)
        assert end >= start and end - start == pytest.approx(
            record["finished_at"] - record["started_at"], abs=0.01
        )
    # Hands after the restart are an hour (the time the controller was off) later.
    gaps = [b["started_wall"] - a["started_wall"] for a, b in itertools.pairwise(records)]
    assert max(gaps) > DOWN
    # The journal alone rebuilds the same records, real times included.
    replayed = restore(Journal(evening.path))
    assert replayed.records == evening.soak.table.records
    # The history stores each hand at its real end, which --since and --until use.
    last = records[-1]
    found = evening.history.find(since=last["finished_wall"] - 0.5, limit=100)
    assert [r["hand"] for r in found] == [last["hand"]]


def test_the_export_is_dated_within_a_minute_of_the_hand(evening: Evening) -> None:
    for number, started in evening.played.items():
        record = evening.history.get(number)
        if record is None or record["void"]:
            continue
        text = evening.history.to_pokerstars(number)
        assert abs(header_time(text) - started) <= 60, text.splitlines()[0]
        assert "1970/" not in text.splitlines()[0]


def test_history_list_shows_when_each_hand_started(
    evening: Evening, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "history.sqlite")
    assert main_history(["--db", db, "list", "--limit", "100"], lang="es") == 0
    out = capsys.readouterr().out
    for number, started in evening.played.items():
        if evening.history.get(number) is not None:
            line = next(x for x in out.splitlines() if x.startswith(f"#{number:>6}"))
            assert local_text(started, ZONE) in line  # e.g. 2026-05-28 15:26:40 -05


def test_a_snapshot_keeps_the_anchor() -> None:
    soak = Soak("casino-cash", seed=2, incident_rate=0.0)
    soak.table.apply(te.WallClock(WALL))
    soak.play_hand()
    state = table_state(soak.table)
    fresh = Table(soak.table.config, deck_ready=True)
    restore_state(fresh, state)
    assert fresh.wall_anchor == soak.table.wall_anchor == (0.0, WALL)
    assert fresh.wall_at(100.0) == soak.table.wall_at(100.0)


def test_a_bad_wall_clock_record_is_refused() -> None:
    for wall in (0, -5.0, True, "now", 1e13):
        with pytest.raises(IllegalAction):
            te.WallClock(wall)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction):
        event_records.from_record({"kind": "wall_clock", "wall": "yesterday"})


def test_the_time_zone_is_checked_and_shown_in_the_diagnostics() -> None:
    config = table_config_from({"table": {"profile": "home", "timezone": ZONE}})
    assert config.timezone == ZONE
    with pytest.raises(ConfigError) as caught:
        table_config_from({"table": {"profile": "home", "timezone": "America/Atlantis"}})
    assert caught.value.key == "config.table.timezone"
    text = report_text([], None, "es", WALL, ZONE)
    assert local_text(WALL, ZONE) in text and "UTC" not in text


def test_a_hand_across_a_restart_keeps_its_real_start() -> None:
    """A hand begun before a restart started at the real time of its shuffle: the anchor
    journaled after the restart (the controller was off an hour) dates only what follows."""
    soak = Soak("casino-cash", seed=2, incident_rate=0.0)
    table = soak.table
    table.apply(te.WallClock(WALL))
    seen: dict[str, float] = {}
    plain = soak._apply

    def apply(event: te.TableEvent) -> bool:
        if isinstance(event, te.CardDrawn) and "shuffled" in seen and "restart" not in seen:
            seen["restart"] = table.now  # the first event after the restart, an hour later
            table.apply(te.WallClock(round(WALL + DOWN + table.now, 3)))
        done = plain(event)
        if isinstance(event, te.Shuffle) and done:
            seen["shuffled"] = table.now
        return done

    soak._apply = apply  # type: ignore[method-assign]
    soak.play_hand()
    record = table.records[-1]
    assert "restart" in seen and record["started_at"] == seen["shuffled"]
    assert record["started_wall"] == pytest.approx(WALL + record["started_at"], abs=0.01)
    assert record["finished_wall"] == pytest.approx(WALL + DOWN + record["finished_at"], abs=0.01)
