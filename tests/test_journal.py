"""The journal (a real SQLite file) and recovery after a crash at any instant."""

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from firmware.service.journal import Journal, JournalError, salvage
from firmware.service.recovery import restore
from firmware.table import events as te
from hal_sim.table_soak import resume_soak, run_soak


def soak_journal(path: str, hands: int = 40, seed: int = 5) -> None:
    journal = Journal(path)
    run_soak("casino-cash", hands, seed=seed, journal=journal)
    journal.close()  # checkpoints the WAL into the main file


def test_every_event_is_committed_and_the_chain_verifies(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "j.sqlite")
    soak_journal(path)
    journal = Journal(path)
    report = journal.verify()
    assert report.ok and report.records == len(journal) > 100
    table = restore(journal)
    assert len(table.records) == 40


def test_an_edited_record_is_detected(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "j.sqlite")
    soak_journal(path, hands=5)
    db = sqlite3.connect(path)
    (record,) = db.execute("SELECT record FROM events WHERE id = 20").fetchone()
    db.execute("UPDATE events SET record = ? WHERE id = 20", (record.replace(b"draw", b"DRAW"),))
    db.commit()
    db.close()
    report = Journal(path).verify()
    assert not report.ok and report.first_bad == 20 and "altered" in report.problem
    with pytest.raises(JournalError, match="record 20"):
        restore(Journal(path))


def test_a_deleted_record_is_detected(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "j.sqlite")
    soak_journal(path, hands=5)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE id = 7")
    db.commit()
    db.close()
    report = Journal(path).verify()
    assert not report.ok and report.first_bad == 7 and "missing" in report.problem


def test_a_corrupted_file_keeps_the_table_stopped_and_salvage_keeps_the_valid_prefix(
    tmp_path,
) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "j.sqlite")
    soak_journal(path, hands=5)
    size = os.path.getsize(path)
    with open(path, "r+b") as handle:
        handle.truncate(size // 3)  # a power cut in the middle of writing the file
    with pytest.raises(JournalError, match="stays stopped"):
        Journal(path)
    good = str(tmp_path / "good.sqlite")
    soak_journal(good, hands=5)
    db = sqlite3.connect(good)
    db.execute("UPDATE events SET hash = x'00' WHERE id = 30")
    db.commit()
    db.close()
    report = salvage(good, str(tmp_path / "salvaged.sqlite"))
    assert report.records == 29 and not report.ok
    assert Journal(str(tmp_path / "salvaged.sqlite")).verify().ok


def test_restore_replays_to_the_same_state_at_every_prefix(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "j.sqlite")
    soak_journal(path, hands=8)
    journal = Journal(path)
    events = list(journal.events())
    rng = random.Random(3)
    for cut in sorted(rng.sample(range(1, len(events)), 12)):
        prefix = Journal(str(tmp_path / f"p{cut}.sqlite"))
        prefix.set_meta("table", journal.meta("table"))
        for event in events[:cut]:
            prefix.append(event)
        a, b = restore(prefix), restore(prefix)
        assert {k: v.stack for k, v in a.seating.seats.items()} == {
            k: v.stack for k, v in b.seating.seats.items()
        }
        if a.hand is not None:
            assert a.hand.hand.snapshot() == b.hand.hand.snapshot()


CRASH_RUNS = int(os.environ.get("POKERTABLE_CRASH_RUNS", "3"))
"""SIGKILL runs in the suite; set POKERTABLE_CRASH_RUNS=200 for the big run (docs/benchmarks.md)."""


@pytest.mark.parametrize("seed", range(1, CRASH_RUNS + 1))
def test_sigkill_at_a_random_instant_then_resume_with_every_chip_in_place(
    tmp_path, seed: int
) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "crash.sqlite")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hal_sim.table_soak",
            "--hands",
            "1000000",
            "--seed",
            str(seed),
            "--journal",
            path,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    rng = random.Random(seed)
    target = rng.randint(150, 900)  # events journaled before the kill
    while time.monotonic() < deadline:
        try:
            if len(Journal(path)) >= target:
                break
        except JournalError:
            pass
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    journal = Journal(path)
    assert journal.verify().ok
    soak = resume_soak(journal, seed=seed)
    removed = soak.table.penalties.chips_removed
    on_table = sum(s.stack + s.rebuy for s in soak.table.seating.seats.values())
    assert on_table + soak.result.chips_out + removed == soak.result.chips_in
    if soak.table.hand is not None:
        soak.finish_hand()  # the hand that was open at the crash finishes correctly
    for _ in range(20):
        soak.play_hand()  # and play goes on, the ledger checked after each hand
    assert soak.result.conserved


def test_void_on_recovery_refunds_the_open_hand(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from firmware.service.recovery import store_table_setup
    from firmware.table.options import Stakes, TableConfig, profile_options

    journal = Journal(str(tmp_path / "v.sqlite"))
    config = TableConfig("home", profile_options("home", void_on_recovery=True), Stakes())
    store_table_setup(journal, config, deck_ready=True)
    for event in [
        te.SitDown(1, "A", 200),
        te.SitDown(2, "B", 200),
        te.SetButton(1),
        te.Shuffle(),
        te.Cut(),
        *(te.CardDrawn(c) for c in range(4)),
        te.Act(1, "raise", 10),
    ]:
        journal.append(event)
    table = restore(journal)
    assert table.hand is None and table.records[-1]["void"]
    assert {k: v.stack for k, v in table.seating.seats.items()} == {1: 200, 2: 200}


def test_audit_command_reports_intact_and_broken_chains(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from firmware.cli.main import main

    path = str(tmp_path / "a.sqlite")
    soak_journal(path, hands=3)
    assert main(["audit", "verify", path]) == 0
    assert "chain intact" in capsys.readouterr().out
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE id = 3")
    db.commit()
    db.close()
    assert main(["audit", "verify", path]) == 1
    assert "breaks at record 3" in capsys.readouterr().out
