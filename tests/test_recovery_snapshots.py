"""Recovery from the newest snapshot: the same table as a full replay, replaying only the tail."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import msgpack
import pytest

from firmware.errors import ConfigError
from firmware.service import journal as journal_module
from firmware.service import recovery
from firmware.service.journal import Journal, JournalError
from firmware.service.recovery import restore
from firmware.service.retention import Retention
from firmware.table.snapshot import table_state
from firmware.table.table import Table
from hal_sim.table_soak import run_soak


def played(path: Path, hands: int, every: int, seed: int = 7) -> Journal:
    journal = Journal(str(path))
    run_soak("casino-cash", hands, seed=seed, journal=journal, snapshot_every=every)
    journal.close()
    return Journal(str(path))


def same_table(a: Table, b: Table) -> None:
    """Everything a player or the floor can see is equal."""
    assert a.hand_number == b.hand_number
    assert {k: (v.stack, v.rebuy, v.markers) for k, v in a.seating.seats.items()} == {
        k: (v.stack, v.rebuy, v.markers) for k, v in b.seating.seats.items()
    }
    assert (a.hand is None) == (b.hand is None)
    if a.hand is not None and b.hand is not None:
        assert a.hand.hand.snapshot() == b.hand.hand.snapshot()
    else:
        assert table_state(a) == table_state(b)


def test_snapshots_are_saved_every_few_hands_and_only_the_newest_kept(tmp_path: Path) -> None:
    journal = played(tmp_path / "j.sqlite", hands=25, every=4)
    db = sqlite3.connect(journal.path)
    rows = [n for (n,) in db.execute("SELECT event_id FROM snapshots ORDER BY event_id")]
    assert len(rows) == journal_module.KEEP_SNAPSHOTS
    number, state = journal.latest_snapshot() or (0, {})
    assert number == rows[-1] and state["hand_number"] == 24  # hands 4, 8, ..., 24


def test_restore_from_a_snapshot_equals_a_full_replay_at_every_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_module, "KEEP_SNAPSHOTS", 1000)
    source = played(tmp_path / "full.sqlite", hands=30, every=3)
    events = list(source.events())
    db = sqlite3.connect(source.path)
    snapshots = {
        n: msgpack.unpackb(s) for n, s in db.execute("SELECT event_id, state FROM snapshots")
    }
    assert len(snapshots) == 10
    rng = random.Random(11)
    for cut in sorted(rng.sample(range(min(snapshots), len(events) + 1), 15)):
        with_snapshots = Journal(str(tmp_path / f"s{cut}.sqlite"))
        plain = Journal(str(tmp_path / f"p{cut}.sqlite"))
        for target in (with_snapshots, plain):
            target.set_meta("table", source.meta("table"))
        for event in events[:cut]:
            number = with_snapshots.append(event)  # record numbers count the chained meta
            plain.append(event)
            if number in snapshots:
                with_snapshots.save_snapshot(snapshots[number])
        same_table(restore(with_snapshots), restore(plain))


def test_restore_replays_only_the_records_after_the_newest_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = played(tmp_path / "j.sqlite", hands=40, every=5)
    newest, _ = journal.latest_snapshot() or (0, {})
    applied: list[object] = []

    class CountingTable(Table):
        def apply(self, event: Any) -> None:
            applied.append(event)
            super().apply(event)

    monkeypatch.setattr(recovery, "Table", CountingTable)
    restore(journal)
    assert len(applied) == 1 + len(journal) - newest  # the snapshot, then the tail
    assert len(journal) - newest < len(journal) // 5


def test_an_altered_snapshot_keeps_the_table_stopped(tmp_path: Path) -> None:
    journal = played(tmp_path / "j.sqlite", hands=12, every=5)
    journal.close()
    db = sqlite3.connect(str(tmp_path / "j.sqlite"))
    (number, blob) = db.execute(
        "SELECT event_id, state FROM snapshots ORDER BY event_id DESC LIMIT 1"
    ).fetchone()
    state = msgpack.unpackb(blob)
    state["seats"][0]["stack"] += 1000  # chips from nowhere
    db.execute("UPDATE snapshots SET state = ? WHERE event_id = ?", (msgpack.packb(state), number))
    db.commit()
    db.close()
    with pytest.raises(JournalError, match=f"snapshot at record {number}"):
        restore(Journal(str(tmp_path / "j.sqlite")))


def test_an_altered_record_after_the_snapshot_is_still_found(tmp_path: Path) -> None:
    journal = played(tmp_path / "j.sqlite", hands=12, every=5)
    newest, _ = journal.latest_snapshot() or (0, {})
    journal.close()
    db = sqlite3.connect(str(tmp_path / "j.sqlite"))
    db.execute("UPDATE events SET hash = x'00' WHERE id = ?", (newest + 2,))
    db.commit()
    db.close()
    with pytest.raises(JournalError, match=f"record {newest + 2}"):
        restore(Journal(str(tmp_path / "j.sqlite")))


def test_snapshot_interval_is_validated() -> None:
    assert Retention.from_config({"snapshot_every_hands": 50}).snapshot_every_hands == 50
    with pytest.raises(ConfigError, match="snapshot_every_hands"):
        Retention.from_config({"snapshot_every_hands": 0})
