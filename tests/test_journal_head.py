"""The signed head written once an event's views are out (``Journal.defer_head``, issue 15).

The controller journals an event, applies it, computes every audience's view and
only then writes the journal's signed head: the head is never more than one
record behind the chain (what a power cut between a record and its head already
leaves, and a restart accepts), and a record is never written while the
previous one's head is still due.
"""

from __future__ import annotations

import json
import pathlib

from firmware.service.controller import Controller
from firmware.service.journal import KEY_BYTES, Journal
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table

KEY = b"k" * KEY_BYTES


def head_records(journal: Journal) -> int:
    with open(journal.head_path, "rb") as handle:
        return int(json.loads(handle.read().rstrip(b" "))["records"])


def test_a_deferred_head_is_at_most_one_record_behind(tmp_path: pathlib.Path) -> None:
    journal = Journal(str(tmp_path / "j.sqlite"), key=KEY)
    journal.set_meta("table", {"seats": 9})  # metadata: its head at once
    assert head_records(journal) == 1
    journal.defer_head = True
    journal.append(te.Shuffle())
    assert head_records(journal) == 1 and journal.verify().ok  # one record after the head
    journal.append(te.Cut())  # the previous record's head goes first
    assert head_records(journal) == 2 and journal.verify().ok
    journal.sync_head()
    assert head_records(journal) == 3 and journal.verify().ok
    journal.append(te.Tick(5.0))
    journal.close()  # a head still due is written on close
    reopened = Journal(str(tmp_path / "j.sqlite"), key=KEY)
    assert head_records(reopened) == 4 and reopened.verify().ok
    reopened.close()


def test_the_controller_writes_the_head_after_the_views(tmp_path: pathlib.Path) -> None:
    config = TableConfig("home", profile_options("home"), Stakes(small_blind=1, big_blind=2))
    table = Table(config, deck_ready=True)
    journal = Journal(str(tmp_path / "j.sqlite"), key=KEY)
    journal.defer_head = True
    controller = Controller(
        table, {}, TagRegistry(":memory:"), journal=journal.append, journal_sync=journal.sync_head
    )
    seen: list[tuple[int, int]] = []  # (records, head) when the views are computed
    controller.listeners.append(lambda c: seen.append((len(journal), head_records_or_0())))

    def head_records_or_0() -> int:
        return head_records(journal) if pathlib.Path(journal.head_path).exists() else 0

    for seat in (1, 2, 3):
        controller.call_soon(lambda seat=seat: controller.apply(te.SitDown(seat, f"P{seat}", 200)))  # type: ignore[misc]
    controller.run_pending()
    # Each item's views were computed before its head was written; after the item, it was.
    # (The first item also journals the wall-clock anchor before its event: issue 23.)
    assert seen == [(2, 1), (3, 2), (4, 3)]
    assert head_records(journal) == 4 and journal.verify().ok
    journal.close()
