"""Fuzzing the CLI's database readers: any damage gives a sentence, never a traceback.

The readers of ``tests/test_history_fuzz.py`` read text; these read the table's
SQLite files (issue 27, item 11: ``audit verify`` after ``UPDATE events SET
record=-1`` raised TypeError, ``history list`` StackError, ExtraData, TypeError
and ValueError, and ``history``'s own KeyError handler crashed in ``list``).
A real journal (signed, with a snapshot) and a real hand history are written
once from played hands; hypothesis then damages a copy the way an edit or a
failing card would (a column set to a value of any type, malformed msgpack,
rows deleted, a table dropped, bytes overwritten, the file cut) and runs
``audit verify`` (with and without the key), ``audit salvage``, ``history list``
(with filters) and ``history show`` in every format. Each run must end with
an exit status and, when it fails, one line on standard error that starts with
``pokertable`` and names no exception class as a traceback would. The budget is
fixed and derandomized.
"""

from __future__ import annotations

import contextlib
import io
import pathlib
import shutil
import sqlite3
import tempfile
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.cli.main import main
from firmware.service.history import HandHistory
from firmware.service.journal import Journal, load_or_create_key
from hal_sim.table_soak import Soak

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A data folder with a signed journal (and a snapshot) and a hand history."""
    folder = tmp_path_factory.mktemp("seeds")
    key = load_or_create_key(str(folder / "journal.key"))
    journal = Journal(str(folder / "journal.sqlite"), key=key)
    history = HandHistory(str(folder / "history.sqlite"))
    soak = Soak("casino-cash", 5, 0.15, journal, 3)
    soak.table.hand_listeners.append(history.listener(lambda: soak.table.now))
    for _ in range(6):
        soak.play_hand()
    journal.close()
    history.close()
    for name in ("journal.sqlite", "history.sqlite"):  # folded into the main files
        db = sqlite3.connect(folder / name)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
    return folder


def nested(depth: int) -> bytes:
    return b"\x91" * depth + b"\x00"  # fixarray of one element, ``depth`` deep


VALUES = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from([-1, 0, 1, 2**62]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.binary(max_size=40),
    st.sampled_from(
        [
            b"\xc1",  # never used in msgpack
            msgpack.packb({"kind": "sit"}) + b"\x00",  # ExtraData
            nested(5000),  # StackError
            msgpack.packb([1, 2, 3]),
            msgpack.packb({"hand": "x", "pots": 1, "seats": None}),
            msgpack.packb({"hand": 1, "pots": [{"winners": 5}], "seats": [1], "void": 0}),
            msgpack.packb({"kind": "meta", "key": 1}),
            msgpack.packb({"kind": "bogus"}),
            msgpack.packb(1e308),
        ]
    ),
)

COLUMNS = {
    "journal.sqlite": {
        "events": ["id", "time", "kind", "record", "prev", "hash"],
        "meta": ["key", "value"],
        "snapshots": ["event_id", "hash", "state", "digest"],
    },
    "history.sqlite": {
        "hands": ["number", "finished", "seats", "players", "record", "engine", "script"],
    },
}


@st.composite
def damage(draw: st.DrawFn) -> tuple[str, list[tuple[str, Any]]]:
    """A file and the list of changes made to it."""
    name = draw(st.sampled_from(sorted(COLUMNS)))
    changes: list[tuple[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["set", "set", "set", "delete", "drop", "bytes", "cut"]))
        table = draw(st.sampled_from(sorted(COLUMNS[name])))
        if kind == "set":
            column = draw(st.sampled_from(COLUMNS[name][table]))
            every = draw(st.booleans())
            changes.append(("set", (table, column, draw(VALUES), every, draw(st.integers(1, 40)))))
        elif kind == "delete":
            changes.append(("delete", (table, draw(st.integers(1, 40)))))
        elif kind == "drop":
            changes.append(("drop", table))
        elif kind == "bytes":
            at, data = draw(st.floats(0, 1)), draw(st.binary(min_size=1, max_size=64))
            changes.append(("bytes", (at, data)))
        else:
            changes.append(("cut", draw(st.floats(0, 1))))
    return name, changes


def apply(path: pathlib.Path, changes: list[tuple[str, Any]]) -> None:
    for kind, what in changes:
        if kind in ("bytes", "cut"):
            size = path.stat().st_size
            at = int(size * (what[0] if kind == "bytes" else what))
            with open(path, "r+b") as handle:
                if kind == "cut":
                    handle.truncate(at)
                else:
                    handle.seek(at)
                    handle.write(what[1])
            continue
        try:
            db = sqlite3.connect(path)
            if kind == "set":
                table, column, value, every, row = what
                key = COLUMNS[path.name][table][0]
                where = "" if every else f" WHERE {key} = (SELECT {key} FROM {table} "
                where += "" if every else f"ORDER BY {key} LIMIT 1 OFFSET {row % 40})"
                db.execute(f"UPDATE OR IGNORE {table} SET {column} = ?{where}", (value,))
            elif kind == "delete":
                table, row = what
                key = COLUMNS[path.name][table][0]
                db.execute(f"DELETE FROM {table} WHERE {key} % 41 = ?", (row,))
            else:
                db.execute(f"DROP TABLE {what}")
            db.commit()
            db.close()
        except sqlite3.Error:
            pass  # the file is already past what SQLite can edit: read it as it is


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def said_in_a_sentence(code: int, out: str, err: str) -> None:
    """An exit status; an error is one line on standard error (``pokertable ...``) or,
    for ``audit verify``'s finding, its one report line."""
    assert isinstance(code, int)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) <= 1 and all(line.startswith("pokertable ") for line in lines), err
    if code != 0:
        assert lines or out.strip(), "a failure that says nothing"


@pytest.mark.soak
@FUZZ
@given(damage())
def test_a_damaged_journal_or_history_is_said_in_one_sentence(
    seeds: pathlib.Path, case: tuple[str, list[tuple[str, Any]]]
) -> None:
    name, changes = case
    with tempfile.TemporaryDirectory() as folder:
        work = pathlib.Path(folder)
        for file in ("journal.sqlite", "history.sqlite", "journal.sqlite.head", "journal.key"):
            shutil.copy2(seeds / file, work / file)
        apply(work / name, changes)
        journal, history = str(work / "journal.sqlite"), str(work / "history.sqlite")
        said_in_a_sentence(*run("audit", "verify", journal))
        said_in_a_sentence(*run("audit", "verify", journal, "--key", str(work / "journal.key")))
        said_in_a_sentence(*run("audit", "salvage", journal, str(work / "salvaged.sqlite")))
        said_in_a_sentence(*run("history", "--db", history, "list"))
        said_in_a_sentence(*run("history", "--db", history, "list", "--seat", "1", "--since", "0"))
        said_in_a_sentence(*run("history", "--db", history, "list", "--player", "P1"))
        for form in ("json", "phh", "pokerstars", "script"):
            said_in_a_sentence(*run("history", "--db", history, "show", "2", "--format", form))


def test_the_reported_cases_are_sentences(seeds: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """The issue's own cases, named (the fuzz finds them too)."""
    for file in ("journal.sqlite", "history.sqlite", "journal.sqlite.head", "journal.key"):
        shutil.copy2(seeds / file, tmp_path / file)
    journal, history = str(tmp_path / "journal.sqlite"), str(tmp_path / "history.sqlite")
    apply(tmp_path / "journal.sqlite", [("set", ("events", "record", -1, True, 0))])
    code, out, err = run("audit", "verify", journal)
    assert code == 1 and "wrong type" in out, out + err
    apply(tmp_path / "history.sqlite", [("set", ("hands", "record", nested(5000), True, 0))])
    code, _, err = run("history", "--db", history, "list")
    assert code == 1 and err.startswith("pokertable history: The hand history"), err
    apply(tmp_path / "history.sqlite", [("set", ("hands", "record", b"\x90\x00", True, 0))])
    code, _, err = run("history", "--db", history, "list")  # ExtraData
    assert code == 1 and "edited or damaged" in err, err
    apply(tmp_path / "history.sqlite", [("set", ("hands", "record", msgpack.packb({}), True, 0))])
    code, _, err = run("history", "--db", history, "list")  # the KeyError in list
    assert code == 1 and "edited or damaged" in err, err
    code, _, err = run("history", "--db", history, "show", "999")
    assert code == 1 and "There is no hand 999" in err, err
