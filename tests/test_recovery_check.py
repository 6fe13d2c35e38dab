"""A restart without SQLite's page check: damage is still found, by the check beside the table.

``pokertable serve`` opens the journal with ``check=False`` (reading a 5,000-hand file
page by page after a power cut was most of a restart) and runs
:func:`~firmware.service.recovery.check_in_background` once the table is back.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import msgpack
import pytest

from firmware.errors import IllegalAction
from firmware.service.controller import Controller
from firmware.service.journal import Journal, JournalError, check_whole
from firmware.service.recovery import check_in_background, restore
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from hal_sim.table_soak import run_soak


def played(path: Path, hands: int = 30) -> None:
    journal = Journal(str(path))
    run_soak("casino-cash", hands, seed=11, journal=journal, snapshot_every=5)
    journal.close()  # checkpoints the WAL into the main file


def damage_page_of(path: Path, record_id: int) -> int:
    """Overwrite the type byte of the page holding record ``record_id``; return its offset."""
    db = sqlite3.connect(path)
    (digest,) = db.execute("SELECT hash FROM events WHERE id = ?", (record_id,)).fetchone()
    (page_size,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    data = path.read_bytes()
    at = data.find(digest)  # its hash (random bytes), in its row or as the next one's prev
    assert at > 0
    page = at // page_size * page_size
    with open(path, "r+b") as handle:
        handle.seek(page)
        handle.write(b"\xff")  # no valid b-tree page starts with 0xff
    return page


def test_a_file_cut_short_is_found_at_open_without_the_page_check(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    played(path, hands=10)
    with open(path, "r+b") as handle:
        handle.truncate(os.path.getsize(path) // 3)  # a power cut while the file was written
    with pytest.raises(JournalError, match="stays stopped"):
        Journal(str(path), check=False)


def test_a_damaged_old_page_is_found_beside_the_table_which_then_takes_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite"
    played(path)
    damage_page_of(path, 40)  # long before the newest snapshot
    with pytest.raises(JournalError, match="damaged"):
        Journal(str(path))  # the page check on open finds it
    journal = Journal(str(path), check=False)
    table = restore(journal)  # the tail after the snapshot is intact: back in play
    records = len(journal)
    controller = Controller(table, {}, TagRegistry(":memory:"), journal=journal.append)
    problems: list[str] = []

    def damaged(problem: str) -> None:
        problems.append(problem)
        controller.call_soon(lambda: controller.journal_damaged(problem))

    check_in_background(journal.path, damaged).join()
    assert len(problems) == 1 and "damaged" in problems[0]
    controller.run_pending()
    assert controller.paused and "audit salvage" in controller.alerts[-1].text
    with pytest.raises(IllegalAction, match="found damage") as refused:
        controller.submit(te.SitOut(1, True))
    assert refused.value.key == "table.journal_damaged"
    assert len(journal) == records  # nothing journaled after the damage was found
    journal.close()


def test_an_edited_record_is_found_by_the_whole_check_and_an_intact_journal_passes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite"
    played(path)
    calls: list[str] = []
    check_in_background(str(path), calls.append).join()
    report = check_whole(str(path))
    assert calls == [] and report.ok and report.records == len(Journal(str(path)))
    db = sqlite3.connect(path)
    (record,) = db.execute("SELECT record FROM events WHERE id = 25").fetchone()
    entry = msgpack.unpackb(record)
    entry["kind"] = entry["kind"] + "x"
    db.execute("UPDATE events SET record = ? WHERE id = 25", (msgpack.packb(entry),))
    db.commit()
    db.close()
    restore(Journal(str(path), check=False))  # record 25 is before the newest snapshot
    check_in_background(str(path), calls.append).join()
    assert calls == ["the record was altered (record 25)"]
