"""The journal's seal is kept outside the data folder (issue 27, item 5).

The attacks of the issue against real ``pokertable serve`` processes, whose seal
key is handed over as systemd does (``$CREDENTIALS_DIRECTORY``, a folder the
data folder does not contain):

* whoever holds the data folder edits a record, recomputes the chain and signs
  the head again with a key of their own (there is no ``journal.key`` in the
  folder to use): ``audit verify --key`` with the seal key fails, and ``serve``
  refuses to start on the journal;
* deleting the key and the head no longer makes ``serve`` create a new key and
  sign the forged journal: it refuses with a sentence and creates nothing;
* a journal written before keys existed is sealed on purpose with ``audit seal``.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import signal
import sqlite3
import subprocess
import sys

import msgpack
import pytest

from firmware.cli.init import main_init
from firmware.service.journal import CHAIN_V2, Journal, load_or_create_key

POKERTABLE = pathlib.Path(sys.executable).parent / "pokertable"


def setup(tmp_path: pathlib.Path) -> tuple[pathlib.Path, dict[str, str]]:
    config = tmp_path / "table.toml"
    assert (
        main_init(
            ["--seats", "2", "--socket", str(tmp_path / "table.sock"), "--socket-group", "",
             "--secrets-dir", str(tmp_path / "terminals"), "--output", str(config)]
        )
        == 0
    )  # fmt: skip
    credentials = tmp_path / "credentials"  # what systemd's LoadCredential= gives
    credentials.mkdir(mode=0o700)
    load_or_create_key(str(credentials / "journal.key"))  # as install.sh does
    (tmp_path / "run").mkdir()
    env = dict(
        os.environ,
        JOURNAL_STREAM="",
        CREDENTIALS_DIRECTORY=str(credentials),
        XDG_RUNTIME_DIR=str(tmp_path / "run"),
    )
    return config, env


def serve_once(tmp_path: pathlib.Path, config: pathlib.Path, env: dict[str, str]) -> None:
    """Start serve, wait until it runs, stop it."""
    serve = subprocess.Popen(
        [str(POKERTABLE), "serve", "--config", str(config), "--data", str(tmp_path / "d")],
        stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert serve.stderr is not None
    for line in serve.stderr:
        if "Table started" in line or "Table restored" in line:
            break
    serve.send_signal(signal.SIGTERM)
    assert serve.wait(60) == 0


def serve_refused(config: pathlib.Path, data: pathlib.Path, env: dict[str, str]) -> str:
    result = subprocess.run(
        [str(POKERTABLE), "serve", "--config", str(config), "--data", str(data)],
        capture_output=True, text=True, timeout=120, check=False, env=env,
    )  # fmt: skip
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stderr


def audit(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(POKERTABLE), "audit", *args],
        capture_output=True, text=True, timeout=120, check=False, env=env,
    )  # fmt: skip


def forge(path: pathlib.Path) -> None:
    """The attack: the big blind in the table's setup raised, the chain recomputed (the
    attacker knows the code), the head signed again with a key of the attacker's."""
    db = sqlite3.connect(path)
    rows = db.execute("SELECT id, time, kind, record FROM events ORDER BY id").fetchall()
    prev = b"\x00" * 32
    for number, stamp, kind, record in rows:
        entry = msgpack.unpackb(record)
        if entry.get("key") == "table":
            entry["value"]["stakes"]["big_blind"] *= 10
            record = msgpack.packb(entry)
            db.execute("UPDATE meta SET value = ? WHERE key = 'table'",
                       (msgpack.packb(entry["value"]),))  # fmt: skip
        columns = msgpack.packb([float(stamp), kind], use_single_float=False)
        digest = hashlib.sha256(CHAIN_V2 + prev + columns + record).digest()
        db.execute("UPDATE events SET record = ?, prev = ?, hash = ? WHERE id = ?",
                   (record, prev, digest, number))  # fmt: skip
        prev = digest
    db.commit()
    db.close()
    mine = load_or_create_key(str(path.parent / "journal.key"))  # the attacker's own key
    journal = Journal(str(path), key=mine)
    journal.sign_head()
    journal.close()


def test_a_recomputed_and_re_signed_journal_fails_verify_and_serve_refuses_it(
    tmp_path: pathlib.Path,
) -> None:
    config, env = setup(tmp_path)
    serve_once(tmp_path, config, env)
    data = tmp_path / "d"
    assert not (data / "journal.key").exists()  # the seal is not in the data folder
    seal = str(tmp_path / "credentials" / "journal.key")
    assert audit("verify", str(data / "journal.sqlite"), "--key", seal, env=env).returncode == 0
    forge(data / "journal.sqlite")
    # With the attacker's key beside the journal, the forgery verifies (what the issue saw) ...
    beside = audit("verify", str(data / "journal.sqlite"), "--key", str(data / "journal.key"),
                   env=env)  # fmt: skip
    assert beside.returncode == 0
    # ... but not with the seal key, and serve (which reads only the seal) refuses it.
    checked = audit("verify", str(data / "journal.sqlite"), "--key", seal, env=env)
    assert checked.returncode == 1 and "signed with another key" in checked.stdout, checked
    said = serve_refused(config, data, env)
    assert "signed with another key" in said


def test_deleting_key_and_head_does_not_make_serve_sign_the_journal(
    tmp_path: pathlib.Path,
) -> None:
    config, env = setup(tmp_path)
    serve_once(tmp_path, config, env)
    data = tmp_path / "d"
    key = tmp_path / "credentials" / "journal.key"
    key.unlink()
    (data / "journal.sqlite.head").unlink()
    before = {p.name for p in data.iterdir()}
    said = serve_refused(config, data, env)
    assert "its seal key" in said and "is missing" in said and "never made" in said, said
    assert not key.exists() and not (data / "journal.sqlite.head").exists()
    assert {p.name for p in data.iterdir()} - before <= {"status.json"}
    # Run by hand with the key beside the journal, the same refusal.
    del env["CREDENTIALS_DIRECTORY"]
    said = serve_refused(config, data, env)
    assert "is missing" in said and not (data / "journal.key").exists()


def test_a_journal_from_before_keys_is_sealed_on_purpose(tmp_path: pathlib.Path) -> None:
    _, env = setup(tmp_path)
    path = tmp_path / "old.sqlite"
    journal = Journal(str(path))  # no key: as written before keys existed
    journal.set_meta("table", {"profile": "home"})
    journal.close()
    key = tmp_path / "seal" / "journal.key"
    key.parent.mkdir(mode=0o700)
    sealed = audit("seal", str(path), "--key", str(key), env=env)
    assert sealed.returncode == 0 and "sealed with the new key" in sealed.stdout, sealed
    assert audit("verify", str(path), "--key", str(key), env=env).returncode == 0
    again = audit("seal", str(path), "--key", str(key), env=env)
    assert again.returncode == 1 and "already exists" in again.stderr


@pytest.mark.parametrize("where", ["credentials", "beside"])
def test_a_new_table_gets_its_key_only_where_it_may(tmp_path: pathlib.Path, where: str) -> None:
    config, env = setup(tmp_path)
    if where == "beside":
        del env["CREDENTIALS_DIRECTORY"]
        serve_once(tmp_path, config, env)
        assert (tmp_path / "d" / "journal.key").exists()  # development: made for an empty one
    else:
        (tmp_path / "credentials" / "journal.key").unlink()
        said = serve_refused(config, tmp_path / "d", env)
        assert "install.sh" in said
