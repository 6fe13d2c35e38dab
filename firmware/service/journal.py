"""The journal: every table event committed to SQLite before it takes effect.

The store is an SQLite file in WAL mode with ``synchronous=FULL``: when
:meth:`Journal.append` returns, the event is on disk. Each record is the
event's msgpack form and carries the SHA-256 of the previous record, so an
edited, inserted or deleted record is found by :meth:`Journal.verify` (and by
``pokertable audit verify``).

Because the table is event-sourced, recovery is replay: :func:`restore`
rebuilds the table from the journal's events, so after a crash or power loss
at any instant the table resumes exactly where it stopped. Cards enter the
journal only when drawn; a virtual deck's order is never written, so undealt
cards are never on disk (after a restart the rest of the deck is shuffled
again from the cards not yet seen).
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgpack

from firmware.errors import PokerTableError
from firmware.table import events as te

GENESIS = b"\x00" * 32
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    kind TEXT NOT NULL,
    record BLOB NOT NULL,
    prev BLOB NOT NULL,
    hash BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS snapshots (
    event_id INTEGER PRIMARY KEY,
    hash BLOB NOT NULL,
    state BLOB NOT NULL,
    digest BLOB NOT NULL
);
"""

#: Snapshots kept in a journal (older ones are deleted when a new one is saved).
KEEP_SNAPSHOTS = 2


class JournalError(PokerTableError, OSError):
    """The journal is corrupt, truncated or was altered; the table must stay stopped."""


def _digest(prev: bytes, record: bytes) -> bytes:
    return hashlib.sha256(prev + record).digest()


@dataclass(frozen=True)
class VerifyReport:
    """The result of checking a journal's chain of hashes."""

    records: int
    ok: bool
    problem: str = ""
    first_bad: int | None = None


class Journal:
    """An append-only, hash-chained event store in one SQLite file.

    :param path: The database file.
    :param clock: Wall-clock time recorded with each event (audit only).
    """

    def __init__(self, path: str, clock: Any = time.time) -> None:
        self.path = path
        self._clock = clock
        try:
            # One thread at a time (the controller's loop); the loop may not be the opener's.
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            status = self._db.execute("PRAGMA quick_check").fetchone()[0]
            if status != "ok":
                raise JournalError(
                    f"The journal {path} is damaged ({status}). The table stays stopped; run "
                    "'pokertable audit salvage' to copy the valid records to a new journal."
                )
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise JournalError(
                f"The journal {path} cannot be read ({exc}). The table stays stopped; run "
                "'pokertable audit salvage' to copy the valid records to a new journal."
            ) from exc
        row = self._db.execute("SELECT id, hash FROM events ORDER BY id DESC LIMIT 1").fetchone()
        self._last_id: int = row[0] if row else 0
        self._last_hash: bytes = row[1] if row else GENESIS

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    # ------------------------------------------------------------ metadata

    def set_meta(self, key: str, value: Any) -> None:
        """Store a setting of the table (its configuration) with the journal."""
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                (key, msgpack.packb(value)),
            )

    def meta(self, key: str, default: Any = None) -> Any:
        """A stored setting, or ``default``."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return msgpack.unpackb(row[0]) if row else default

    # ------------------------------------------------------------ events

    def append(self, event: te.TableEvent) -> int:
        """Commit ``event`` durably and return its record number."""
        record = msgpack.packb(te.to_record(event))
        digest = _digest(self._last_hash, record)
        number = self._last_id + 1
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO events (id, time, kind, record, prev, hash) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (number, self._clock(), event.kind, record, self._last_hash, digest),
                )
                self._db.execute("COMMIT")
            except BaseException:
                # SQLite may already have rolled back (a full disk does): a failed ROLLBACK
                # must not hide the real error.
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise JournalError(
                f"The journal {self.path} cannot be written ({exc}); record {number} "
                f"({event.kind}) was not recorded."
            ) from exc
        self._last_id, self._last_hash = number, digest
        return number

    def __len__(self) -> int:
        return self._last_id

    # ------------------------------------------------------------ snapshots

    def save_snapshot(self, state: dict[str, Any]) -> int:
        """Store the table's state as of the last record (between hands); return that number.

        Recovery then starts from the newest snapshot and replays only the
        records after it. The snapshot is tied to the chain: it stores the
        hash of its record and a digest of both, checked when it is read.
        """
        blob = msgpack.packb(state)
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO snapshots (event_id, hash, state, digest) "
                "VALUES (?, ?, ?, ?)",
                (self._last_id, self._last_hash, blob, _digest(self._last_hash, blob)),
            )
            self._db.execute(
                "DELETE FROM snapshots WHERE event_id NOT IN "
                "(SELECT event_id FROM snapshots ORDER BY event_id DESC LIMIT ?)",
                (KEEP_SNAPSHOTS,),
            )
        return self._last_id

    def latest_snapshot(self) -> tuple[int, dict[str, Any]] | None:
        """The newest snapshot as ``(record number, state)``, or None.

        :raises JournalError: if the snapshot does not match the record it names.
        """
        row = self._db.execute(
            "SELECT event_id, hash, state, digest FROM snapshots ORDER BY event_id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        number, chain, blob, digest = row
        record = self._db.execute("SELECT hash FROM events WHERE id = ?", (number,)).fetchone()
        expected = GENESIS if number == 0 else (record[0] if record else None)
        if chain != expected or _digest(chain, blob) != digest:
            raise JournalError(
                f"The snapshot at record {number} of the journal {self.path} does not match "
                "the journal. The table stays stopped; see 'pokertable audit verify' and "
                "'pokertable audit salvage'."
            )
        state: dict[str, Any] = msgpack.unpackb(blob)
        return number, state

    # ------------------------------------------------------------ reading

    def events(self, after: int = 0) -> Iterator[te.TableEvent]:
        """Every event after record ``after``, in order (after checking that part of the chain)."""
        report = self.verify(after)
        if not report.ok:
            raise JournalError(
                f"The journal {self.path} fails its integrity check at record "
                f"{report.first_bad}: {report.problem}. The table stays stopped; see "
                "'pokertable audit verify' and 'pokertable audit salvage'."
            )
        for (record,) in self._db.execute(
            "SELECT record FROM events WHERE id > ? ORDER BY id", (after,)
        ):
            yield te.from_record(msgpack.unpackb(record))

    def verify(self, after: int = 0) -> VerifyReport:
        """Check that no record was edited, inserted or deleted (from record ``after`` on)."""
        prev = GENESIS
        if after:
            row = self._db.execute("SELECT hash FROM events WHERE id = ?", (after,)).fetchone()
            if row is None:
                return VerifyReport(0, False, f"record {after} is missing", after)
            prev = row[0]
        expected = after + 1
        count = after
        for number, record, stored_prev, digest in self._db.execute(
            "SELECT id, record, prev, hash FROM events WHERE id > ? ORDER BY id", (after,)
        ):
            if number != expected:
                return VerifyReport(count, False, f"record {expected} is missing", expected)
            if stored_prev != prev or _digest(prev, record) != digest:
                return VerifyReport(count, False, "the record was altered", number)
            prev, expected, count = digest, expected + 1, count + 1
        return VerifyReport(count, True)


def salvage(source: str, target: str) -> VerifyReport:
    """Copy the valid prefix of a damaged journal into a new file; report what was kept."""
    try:
        db = sqlite3.connect(source)
        rows = list(db.execute("SELECT id, time, kind, record, prev, hash FROM events ORDER BY id"))
        meta = list(db.execute("SELECT key, value FROM meta"))
    except sqlite3.DatabaseError as exc:
        raise JournalError(f"Nothing can be read from {source} ({exc}).") from exc
    out = Journal(target)
    for key, value in meta:
        out._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
    prev, kept = GENESIS, 0
    for number, stamp, kind, record, stored_prev, digest in rows:
        if number != kept + 1 or stored_prev != prev or _digest(prev, record) != digest:
            break
        out._db.execute(
            "INSERT INTO events (id, time, kind, record, prev, hash) VALUES (?, ?, ?, ?, ?, ?)",
            (number, stamp, kind, record, prev, digest),
        )
        prev, kept = digest, kept + 1
    out.close()
    lost = len(rows) - kept
    return VerifyReport(kept, lost == 0, f"{lost} record(s) after the damage were dropped")


def main_audit(argv: list[str] | None = None) -> int:
    """``pokertable audit verify DB`` / ``pokertable audit salvage DB NEW``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="pokertable audit",
        description="Check a table journal's chain of hashes, or salvage its valid records.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("verify", help="check that no record was edited or deleted")
    check.add_argument("journal")
    rescue = sub.add_parser("salvage", help="copy the valid records into a new journal")
    rescue.add_argument("journal")
    rescue.add_argument("new")
    args = parser.parse_args(argv)
    try:
        if args.command == "verify":
            journal = Journal(args.journal)
            report = journal.verify()
            journal.close()
        else:
            report = salvage(args.journal, args.new)
    except JournalError as exc:
        print(f"pokertable audit: {exc}")
        return 1
    if args.command == "salvage":
        print(f"{report.records} record(s) copied to {args.new}; {report.problem}.")
        return 0
    if report.ok:
        print(f"{args.journal}: {report.records} record(s), chain intact.")
        return 0
    print(
        f"{args.journal}: the chain breaks at record {report.first_bad}: {report.problem}. "
        "The table must not run on this journal; salvage it and tell the floor."
    )
    return 1
