"""The journal's ``time`` and ``kind`` columns are inside the hash chain (issue 27, item 7).

Attacks of the issue on a real journal: a record's ``time`` edited (reordering
busts, and so places and prizes) and a record's ``kind`` turned into ``meta``
(the floor skipped it); both passed ``audit verify`` before. Now the chain
breaks at that record, with the key and without it. The upgrade path: a
journal written before (its records hashed without the columns) still
verifies and replays, takes new records in the new form, and its old
records' ``kind`` is still checked against the record itself.
"""

from __future__ import annotations

import hashlib
import pathlib
import sqlite3

import pytest

from firmware.cli.main import main
from firmware.service.journal import Journal, load_or_create_key
from firmware.service.recovery import restore, store_table_setup
from firmware.table import events as te
from tests.hardening_kit import table_config


def written(tmp_path: pathlib.Path) -> str:
    key = load_or_create_key(str(tmp_path / "journal.key"))
    path = str(tmp_path / "journal.sqlite")
    journal = Journal(path, key=key)
    store_table_setup(journal, table_config(), deck_ready=True)
    for seat in (1, 2, 3):
        journal.append(te.SitDown(seat, f"P{seat}", 200))
    journal.close()
    return path


def edit(path: str, sql: str, *args: object) -> None:
    db = sqlite3.connect(path)
    db.execute(sql, args)
    db.commit()
    db.close()


def audit(path: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["audit", "verify", path, *extra])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("keyed", [True, False])
def test_an_edited_time_breaks_the_chain(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], keyed: bool
) -> None:
    path = written(tmp_path)
    number = sqlite3.connect(path).execute("SELECT MAX(id) FROM events").fetchone()[0]
    edit(path, "UPDATE events SET time = time - 3600 WHERE id = ?", number)
    if not keyed:
        (tmp_path / "journal.key").unlink()
    code, out = audit(path, capsys)
    assert code == 1 and f"breaks at record {number}" in out and "altered" in out, out


@pytest.mark.parametrize("keyed", [True, False])
def test_a_kind_turned_into_meta_breaks_the_chain(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], keyed: bool
) -> None:
    path = written(tmp_path)
    number = (
        sqlite3.connect(path).execute("SELECT MIN(id) FROM events WHERE kind = 'sit'").fetchone()[0]
    )
    edit(path, "UPDATE events SET kind = 'meta' WHERE id = ?", number)
    if not keyed:
        (tmp_path / "journal.key").unlink()
    code, out = audit(path, capsys)
    assert code == 1 and f"breaks at record {number}" in out, out


def old_form(path: str) -> None:
    """Rewrite a journal as the code before issue 27 wrote it (hash of the record only),
    then sign its head again as that code did."""
    db = sqlite3.connect(path)
    prev = b"\x00" * 32
    for number, record in db.execute("SELECT id, record FROM events ORDER BY id").fetchall():
        digest = hashlib.sha256(prev + record).digest()
        db.execute("UPDATE events SET prev = ?, hash = ? WHERE id = ?", (prev, digest, number))
        prev = digest
    db.commit()
    db.close()


def test_an_old_journal_verifies_replays_and_goes_on_in_the_new_form(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path)
    old_form(path)
    key = load_or_create_key(str(tmp_path / "journal.key"))
    journal = Journal(path, key=key)
    journal.sign_head()  # as the old controller left it: a head over the old chain
    assert journal.verify().ok
    table = restore(journal)  # replay never stops on an old record
    assert {k: v.stack for k, v in table.seating.seats.items()} == {1: 200, 2: 200, 3: 200}
    old = len(journal)
    journal.append(te.SitDown(4, "P4", 200))  # written in the new form
    journal.close()
    code, out = audit(path, capsys)
    assert code == 0 and f"{old + 1} record(s), chain intact" in out, out
    # The new record's time is covered ...
    edit(path, "UPDATE events SET time = 0 WHERE id = ?", old + 1)
    code, out = audit(path, capsys)
    assert code == 1 and f"breaks at record {old + 1}" in out, out
    # ... and an old record's kind is checked against the record itself.
    (tmp_path / "second").mkdir()
    path2 = written(tmp_path / "second")
    old_form(path2)
    number = (
        sqlite3.connect(path2)
        .execute("SELECT MIN(id) FROM events WHERE kind = 'sit'")
        .fetchone()[0]
    )
    edit(path2, "UPDATE events SET kind = 'meta' WHERE id = ?", number)
    code, out = audit(path2, capsys)
    assert code == 1 and "kind column differs" in out, out


def test_an_old_record_after_a_new_one_is_refused(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Once the chain is in the new form, a record hashed the old way (its columns then
    editable) is not accepted after it."""
    path = written(tmp_path)
    db = sqlite3.connect(path)
    number, prev, record = db.execute(
        "SELECT id, prev, record FROM events ORDER BY id DESC LIMIT 1"
    ).fetchone()
    db.execute(
        "UPDATE events SET hash = ? WHERE id = ?",
        (hashlib.sha256(prev + record).digest(), number),
    )
    db.commit()
    db.close()
    (tmp_path / "journal.key").unlink()
    code, out = audit(path, capsys)
    assert code == 1 and f"breaks at record {number}" in out, out
