"""A tampered journal is always caught (issue 11, item 4).

Each attack of the issue is made on a real journal written with the
controller's key, and ``pokertable audit verify`` must say what happened and
fail: records deleted at the end, the stakes edited in ``meta``, a record
edited and the whole chain recomputed, the head file deleted or forged. A
missing path is an error and is not created.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import sqlite3
import stat

import pytest

from firmware.cli.main import main
from firmware.service.journal import Journal, JournalError, load_or_create_key
from firmware.service.recovery import restore, store_table_setup
from firmware.table import events as te
from tests.hardening_kit import table_config


def written(tmp_path: pathlib.Path) -> str:
    """A journal of a few events, written with the key in ``journal.key`` beside it."""
    key = load_or_create_key(str(tmp_path / "journal.key"))
    path = str(tmp_path / "journal.sqlite")
    journal = Journal(path, key=key)
    store_table_setup(journal, table_config(), deck_ready=True)
    for seat in (1, 2, 3):
        journal.append(te.SitDown(seat, f"P{seat}", 200))
    journal.append(te.Shuffle())
    journal.append(te.Cut())
    journal.close()
    return path


def audit(path: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["audit", "verify", path, *extra])
    return code, capsys.readouterr().out


def test_an_untouched_journal_verifies_with_its_signed_head(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path)
    code, out = audit(path, capsys)
    assert code == 0 and "chain intact, signed head matches" in out, out
    key_mode = stat.S_IMODE(os.stat(tmp_path / "journal.key").st_mode)
    assert key_mode == 0o600
    assert restore(Journal(path, key=load_or_create_key(str(tmp_path / "journal.key"))))


def test_records_deleted_at_the_end_are_reported_as_truncation(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE id >= (SELECT MAX(id) - 1 FROM events)")
    db.commit()
    db.close()
    code, out = audit(path, capsys)
    assert code == 1 and "2 record(s) were removed from the end (truncation)" in out, out
    key = load_or_create_key(str(tmp_path / "journal.key"))
    with pytest.raises(JournalError, match="truncation"):
        restore(Journal(path, key=key))


def test_an_edited_stake_in_meta_is_reported(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path)
    journal = Journal(path)
    setup = journal.meta("table")
    journal.close()
    setup["stakes"]["big_blind"] = 200
    import msgpack

    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'table'", (msgpack.packb(setup),))
    db.commit()
    db.close()
    code, out = audit(path, capsys)
    assert code == 1 and "the metadata 'table' was edited" in out, out
    # Even without the key, the chain covers the metadata.
    os.remove(tmp_path / "journal.key")
    code, out = audit(path, capsys)
    assert code == 1 and "the metadata 'table' was edited" in out, out


def test_an_edited_record_with_a_recomputed_chain_is_reported(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path)
    import msgpack

    db = sqlite3.connect(path)
    rows = db.execute("SELECT id, kind, record FROM events ORDER BY id").fetchall()
    prev = b"\x00" * 32
    for number, kind, record in rows:
        if kind == "sit":
            entry = msgpack.unpackb(record)
            entry["chips"] = 20_000  # a richer buy-in
            record = msgpack.packb(entry)
        digest = hashlib.sha256(prev + record).digest()
        db.execute(
            "UPDATE events SET record = ?, prev = ?, hash = ? WHERE id = ?",
            (record, prev, digest, number),
        )
        prev = digest
    db.commit()
    db.close()
    code, out = audit(path, capsys, "--key", str(tmp_path / "journal.key"))
    assert code == 1 and "the chain was recomputed" in out, out
    # Without the key the recomputed chain looks intact, and the command says so.
    os.remove(tmp_path / "journal.key")
    code, out = audit(path, capsys)
    assert code == 0 and "head not checked (no key)" in out, out


def test_a_deleted_or_forged_head_is_reported(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path)
    head_path = path + ".head"
    head = json.loads(pathlib.Path(head_path).read_text())
    head["records"] -= 2  # hide a truncation by editing the head too
    pathlib.Path(head_path).write_text(json.dumps(head))
    code, out = audit(path, capsys)
    assert code == 1 and "the signed head was altered" in out, out
    os.remove(head_path)
    code, out = audit(path, capsys)
    assert code == 1 and "is missing" in out, out


def test_a_missing_path_is_an_error_and_is_not_created(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.sqlite"
    code = main(["audit", "verify", str(missing)])
    err = capsys.readouterr().err  # an error: on standard error, one sentence
    assert (
        code == 1
        and err == f"pokertable audit: There is no journal at {missing}; check the path.\n"
    )
    assert not missing.exists()
    assert main(["audit", "salvage", str(missing), str(tmp_path / "new.sqlite")]) == 1
    assert not missing.exists()


def test_a_key_readable_by_others_is_refused(tmp_path: pathlib.Path) -> None:
    key_path = tmp_path / "journal.key"
    load_or_create_key(str(key_path))
    os.chmod(key_path, 0o644)
    with pytest.raises(JournalError, match="chmod 600"):
        load_or_create_key(str(key_path))


def test_an_edited_snapshot_with_a_recomputed_digest_is_found_with_the_key(
    tmp_path: pathlib.Path,
) -> None:
    """Snapshot digests are keyed: recomputing the plain SHA-256 digest does not hide an edit."""
    import msgpack

    from firmware.table.snapshot import table_state

    key = load_or_create_key(str(tmp_path / "journal.key"))
    path = str(tmp_path / "journal.sqlite")
    journal = Journal(path, key=key)
    store_table_setup(journal, table_config(), deck_ready=True)
    for seat in (1, 2):
        journal.append(te.SitDown(seat, f"P{seat}", 200))
    table = restore(journal)
    journal.save_snapshot(table_state(table))
    journal.close()
    db = sqlite3.connect(path)
    number, chain, blob = db.execute("SELECT event_id, hash, state FROM snapshots").fetchone()
    state = msgpack.unpackb(blob)
    state["seats"][0]["stack"] += 1000  # chips from nowhere
    blob = msgpack.packb(state)
    db.execute(
        "UPDATE snapshots SET state = ?, digest = ? WHERE event_id = ?",
        (blob, hashlib.sha256(chain + blob).digest(), number),
    )
    db.commit()
    db.close()
    with pytest.raises(JournalError, match=f"snapshot at record {number}"):
        restore(Journal(path, key=key))
