"""The journal: every table event committed to SQLite before it takes effect.

The store is an SQLite file in WAL mode with ``synchronous=FULL``: when
:meth:`Journal.append` returns, the event is on disk. Each record is the
event's msgpack form and carries the SHA-256 of the previous record, so an
edited, inserted or deleted record is found by :meth:`Journal.verify` (and by
``pokertable audit verify``).

The chain covers the metadata too: :meth:`Journal.set_meta` writes the
setting to the ``meta`` table (for lookups) and a ``meta`` record into the
chain, and verification finds a ``meta`` row that differs from its chained
record. A chain alone can be recomputed by whoever edits the file, and a
deletion at the end leaves a valid chain; so with a key (a secret only the
controller holds, ``journal.key`` in the data directory, mode 0600) the
journal also keeps its head - the number of records, the last hash and the
metadata's digest - in a separate file next to it (``journal.sqlite.head``),
authenticated with HMAC-SHA256 and synced after every record. Verification
with the key reports records removed from the end (truncation), metadata
edits, a recomputed chain and a head that is missing or forged.

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
import hmac
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgpack

from firmware.errors import PokerTableError
from firmware.service.chain import CHAIN_V2 as CHAIN_V2
from firmware.service.chain import digest_v1 as _digest
from firmware.service.chain import digest_v2 as _digest_v2
from firmware.service.chain import link_problem as _link_problem
from firmware.table import event_records
from firmware.table import events as te

GENESIS = b"\x00" * 32
META_KIND = "meta"
"""The kind of the chain records that carry a metadata setting (not a table event)."""
KEY_BYTES = 32
HEAD_BYTES = 512
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

_INSERT = "INSERT INTO events (id, time, kind, record, prev, hash) VALUES (?, ?, ?, ?, ?, ?)"

#: Snapshots kept in a journal (older ones are deleted when a new one is saved).
KEEP_SNAPSHOTS = 2


class JournalError(PokerTableError, OSError):
    """The journal is corrupt, truncated or was altered; the table must stay stopped."""


def load_or_create_key(path: str) -> bytes:
    """The journal key in ``path``, created (32 random bytes, mode 0600) if there is none.

    :raises JournalError: if the file is readable by others or has the wrong size.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
    return read_key(path)


def read_key(path: str) -> bytes:
    """The journal key in ``path``.

    :raises JournalError: if it is missing, readable by others or the wrong size.
    """
    try:
        mode = os.stat(path).st_mode
        with open(path, "rb") as handle:
            key = handle.read()
    except OSError as exc:
        raise JournalError(f"The journal key {path} cannot be read ({exc}).") from exc
    if mode & 0o077:
        raise JournalError(
            f"The journal key {path} is readable by others (mode {mode & 0o777:o}); "
            f"run 'chmod 600 {path}' and keep it only for the controller's user."
        )
    if len(key) != KEY_BYTES:
        raise JournalError(f"The journal key {path} is damaged: it must be {KEY_BYTES} bytes.")
    return key


def _short(name: str) -> str:
    """``"ok"``, or what is wrong when the main file holds fewer pages than its own
    header says (a file cut short); cheap: no page is read.

    The count compared is the one in the main file's header, not ``PRAGMA
    page_count``: that one includes the pages still in the write-ahead log, which a
    power cut leaves there until the next open folds them in (issue 27: a healthy
    journal was called damaged on the first start after a power cut).
    """
    if not os.path.exists(name):
        return "ok"
    try:
        with open(name, "rb") as handle:
            header = handle.read(100)
        held = os.path.getsize(name)
    except OSError as exc:
        return f"the file cannot be read ({exc})"
    if len(header) < 100:
        return "ok" if held == 0 else f"the file holds {held} bytes, less than its header"
    size = int.from_bytes(header[16:18], "big")
    size = 65536 if size == 1 else size
    pages = int.from_bytes(header[28:32], "big")
    # The header's count is valid only when written by the same change as the counter.
    if header[24:28] != header[92:96] or not pages or not size:
        return "ok"
    if held < pages * size:
        return f"the file holds {held // size} of its {pages} pages"
    return "ok"


def _head_mac(key: bytes, records: int, last: bytes, meta: bytes) -> str:
    message = f"pokertable-journal-head:{records}:{last.hex()}:{meta.hex()}".encode()
    return hmac.digest(key, message, "sha256").hex()


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
    :param key: The controller's secret: keeps the head file after every
        record and checks it in :meth:`verify` (``None``: chain only).
    :param read_only: Open an existing journal without changing it (``audit
        verify``); a missing file is an error, never created.
    :param check: Run SQLite's ``quick_check`` of every page on open. ``pokertable
        serve`` opens without it and runs :func:`check_whole` on a thread once the
        table is back in play (reading a 5,000-hand file after a power cut is most of
        a restart); a file cut short is still found at once (its header names more
        pages than it holds).
    """

    def __init__(
        self,
        path: str,
        clock: Any = time.time,
        key: bytes | None = None,
        read_only: bool = False,
        check: bool = True,
    ) -> None:
        self.path = path
        self.head_path = path + ".head"
        self.key = key
        self.read_only = read_only
        self._clock = clock
        if read_only and not os.path.isfile(path):
            raise JournalError(f"There is no journal at {path}; check the path.")
        try:
            # A file cut short is found before SQLite reads any of it (from its header).
            status = "ok" if check else _short(path)
            if status != "ok":
                raise JournalError(
                    f"The journal {path} is damaged ({status}). The table stays stopped; run "
                    "'pokertable audit salvage' to copy the valid records to a new journal."
                )
            # One thread at a time (the controller's loop); the loop may not be the opener's.
            if read_only:
                uri = f"file:{os.path.abspath(path)}?mode=ro"
                self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
            else:
                self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
            if check:  # one line per problem: the first three, on one line
                lines = [r[0] for r in self._db.execute("PRAGMA quick_check(3)")]
                status = (
                    "ok"
                    if lines == ["ok"]
                    else "; ".join(" ".join(str(line).split()) for line in lines)
                )
            if status != "ok":
                raise JournalError(
                    f"The journal {path} is damaged ({status}). The table stays stopped; run "
                    "'pokertable audit salvage' to copy the valid records to a new journal."
                )
            if not read_only:
                self._db.executescript(_SCHEMA)
            row = self._db.execute(
                "SELECT id, hash FROM events ORDER BY id DESC LIMIT 1"
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise JournalError(
                f"The journal {path} cannot be read ({exc}). The table stays stopped; run "
                "'pokertable audit salvage' to copy the valid records to a new journal."
            ) from exc
        self._last_id: int = row[0] if row else 0
        self._last_hash: bytes = row[1] if row else GENESIS
        self._head_fd: int | None = None
        self.defer_head = False
        """Leave an event's signed head for :meth:`sync_head` (the controller's loop
        calls it once that event's views are out); the next record writes it first,
        so the head is never more than one record behind (issue 15)."""
        self._head_due = False
        self._meta_cache: bytes | None = None
        """The metadata's digest for the head, kept until the metadata changes."""

    def close(self) -> None:
        """Write a head still due, close the database (and the head file).

        A head that cannot be written now is left one record behind, which a
        restart accepts (as after a power cut between a record and its head).
        """
        with contextlib.suppress(JournalError):
            self.sync_head()
        if self._head_fd is not None:
            os.close(self._head_fd)
            self._head_fd = None
        self._db.close()

    # ------------------------------------------------------------ metadata

    def set_meta(self, key: str, value: Any) -> None:
        """Store a setting of the table (its configuration) with the journal, in the chain."""
        packed = msgpack.packb(value)
        self._write(META_KIND, msgpack.packb({"kind": META_KIND, "key": key, "value": value}),
                    meta=(key, packed))  # fmt: skip

    def meta(self, key: str, default: Any = None) -> Any:
        """A stored setting, or ``default``."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return msgpack.unpackb(row[0]) if row else default

    # ------------------------------------------------------------ events

    def append(self, event: te.TableEvent) -> int:
        """Commit ``event`` durably and return its record number."""
        return self._write(event.kind, msgpack.packb(event_records.to_record(event)))

    def _write(self, kind: str, record: bytes, meta: tuple[str, bytes] | None = None) -> int:
        """Commit one chained record (and a metadata row with it); keep the head."""
        self.sync_head()  # never two records after the signed head
        number = self._last_id + 1
        stamp = float(self._clock())
        digest = _digest_v2(self._last_hash, stamp, kind, record)
        row = (number, stamp, kind, record, self._last_hash, digest)
        try:
            if meta is None:  # one statement: its own transaction
                self._db.execute(_INSERT, row)
            else:
                self._write_with_meta(row, meta)
        except sqlite3.Error as exc:
            raise JournalError(
                f"The journal {self.path} cannot be written ({exc}); record {number} "
                f"({kind}) was not recorded."
            ) from exc
        self._last_id, self._last_hash = number, digest
        if meta is not None:
            self._meta_cache = None
        if self.key is not None:
            if self.defer_head and meta is None:
                self._head_due = True
            else:
                self._write_head()
        return number

    def sync_head(self) -> None:
        """Write the signed head an event left due (:attr:`defer_head`); else nothing.

        :raises JournalError: if the head cannot be written (it stays due).
        """
        if self._head_due:
            self._write_head()
            self._head_due = False

    def _write_with_meta(self, row: tuple[Any, ...], meta: tuple[str, bytes]) -> None:
        """Commit a record and its metadata row in one transaction."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute(_INSERT, row)
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", meta)
            self._db.execute("COMMIT")
        except BaseException:
            # SQLite may already have rolled back (a full disk does): a failed ROLLBACK
            # must not hide the real error.
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise

    def _meta_digest(self, fresh: bool = False) -> bytes:
        """The digest of the ``meta`` table (read again only after :meth:`set_meta`,
        or with ``fresh``, as verification does)."""
        if self._meta_cache is None or fresh:
            rows = self._db.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
            self._meta_cache = hashlib.sha256(msgpack.packb([[k, v] for k, v in rows])).digest()
        return self._meta_cache

    def _write_head(self) -> None:
        """Write the keyed head (records, last hash, metadata digest) and sync it."""
        assert self.key is not None
        meta = self._meta_digest()
        head = {
            "records": self._last_id,
            "hash": self._last_hash.hex(),
            "meta": meta.hex(),
            "mac": _head_mac(self.key, self._last_id, self._last_hash, meta),
        }
        # Overwritten in place, padded to one 512-byte sector and synced: a power cut
        # leaves the old head or the new one (no rename whose directory entry may be
        # lost), so at most the one record committed just before it is after the head.
        data = json.dumps(head).encode().ljust(HEAD_BYTES)
        try:
            if self._head_fd is None:  # opened once, kept open until close()
                created = not os.path.exists(self.head_path)
                self._head_fd = os.open(self.head_path, os.O_WRONLY | os.O_CREAT, 0o600)
                if created:  # the new name itself must survive a power cut
                    folder = os.open(os.path.dirname(os.path.abspath(self.head_path)), os.O_RDONLY)
                    try:
                        os.fsync(folder)
                    finally:
                        os.close(folder)
            os.pwrite(self._head_fd, data, 0)
            # The data and what reading it needs (the size, on the first write), not the
            # times: a quarter less of the event's time in the kernel (issue 15).
            os.fdatasync(self._head_fd)
        except OSError as exc:
            raise JournalError(
                f"The journal's head {self.head_path} cannot be written ({exc})."
            ) from exc

    def sign_head(self) -> None:
        """Sign the head of a journal that has none yet (the first start with a key).

        :raises JournalError: if the chain is broken (nothing is signed then).
        """
        report = self.verify(check_head=False)
        if not report.ok:
            raise JournalError(f"The journal {self.path} cannot be signed: {report.problem}.")
        rows = self._db.execute("SELECT event_id, hash, state, digest FROM snapshots").fetchall()
        for number, chain, blob, digest in rows:  # snapshots written without the key
            if not isinstance(blob, bytes) or _digest(chain, blob) != digest:
                raise JournalError(
                    f"The snapshot at record {number} of {self.path} cannot be signed: it does "
                    "not match the journal."
                )
            self._db.execute(
                "UPDATE snapshots SET digest = ? WHERE event_id = ?",
                (self._snapshot_digest(chain, blob), number),
            )
        self._write_head()

    def __len__(self) -> int:
        return self._last_id

    @property
    def seq_base(self) -> int:
        """Records before this file (archived by rotation): record ``n`` here is number
        ``seq_base + n`` of the table's whole life, the sequence the floor sees."""
        return int(self.meta("seq_base", 0))

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
                (
                    self._last_id,
                    self._last_hash,
                    blob,
                    self._snapshot_digest(self._last_hash, blob),
                ),
            )
            self._db.execute(
                "DELETE FROM snapshots WHERE event_id NOT IN "
                "(SELECT event_id FROM snapshots ORDER BY event_id DESC LIMIT ?)",
                (KEEP_SNAPSHOTS,),
            )
        return self._last_id

    def _snapshot_digest(self, chain: bytes, blob: bytes) -> bytes:
        """A snapshot's digest: keyed (HMAC-SHA256) when the journal has the key, so a
        snapshot edited and its digest recomputed is found."""
        if self.key is None:
            return _digest(chain, blob)
        return hmac.new(self.key, b"snapshot" + chain + blob, hashlib.sha256).digest()

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
        if chain != expected or not hmac.compare_digest(self._snapshot_digest(chain, blob), digest):
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
        for kind, record in self._db.execute(
            "SELECT kind, record FROM events WHERE id > ? ORDER BY id", (after,)
        ):
            if kind != META_KIND:
                yield event_records.from_record(msgpack.unpackb(record))

    def verify(self, after: int = 0, check_head: bool = True) -> VerifyReport:
        """Check that no record was edited, inserted or deleted (from record ``after``
        on), that the metadata is what the chain says (a full check, ``after=0``),
        and (with the key) that the head matches the signed one."""
        prev = GENESIS
        upgraded = False
        if after:
            row = self._db.execute(
                "SELECT hash, time, kind, record, prev FROM events WHERE id = ?", (after,)
            ).fetchone()
            if row is None or not isinstance(row[0], bytes):
                return VerifyReport(0, False, f"record {after} is missing", after)
            prev = row[0]
            # Records after one in the second form must be in it too.
            upgraded = (
                isinstance(row[3], bytes)
                and isinstance(row[4], bytes)
                and (
                    prev == _digest_v2(row[4], row[1], row[2], row[3])
                    if isinstance(row[1], int | float) and isinstance(row[2], str)
                    else False
                )
            )
        expected = after + 1
        count = after
        chained: dict[str, bytes] = {}
        for row in self._db.execute(
            "SELECT id, time, kind, record, prev, hash FROM events WHERE id > ? ORDER BY id",
            (after,),
        ):
            number, kind, record = row[0], row[2], row[3]
            if number != expected:
                return VerifyReport(count, False, f"record {expected} is missing", expected)
            problem, upgraded = _link_problem(prev, row, upgraded)
            if problem:
                return VerifyReport(count, False, problem, number)
            if kind == META_KIND:
                try:
                    entry = msgpack.unpackb(record)
                    chained[str(entry["key"])] = msgpack.packb(entry["value"])
                except (ValueError, TypeError, KeyError, msgpack.ExtraData,
                        msgpack.FormatError, msgpack.StackError):  # fmt: skip
                    return VerifyReport(count, False, "the metadata record cannot be read", number)
            prev, expected, count = row[5], expected + 1, count + 1
        # The chained metadata records are all read only in a full check.
        for key, value in self._db.execute("SELECT key, value FROM meta") if not after else ():
            if chained.get(key) != value:
                return VerifyReport(
                    count, False, f"the metadata '{key}' was edited outside the chain"
                )
        if check_head and self.key is not None:
            problem = self._check_head(count)
            if problem:
                return VerifyReport(count, False, problem)
        return VerifyReport(count, True)

    def _check_head(self, count: int) -> str:
        """What is wrong with the head file, or ``""``."""
        assert self.key is not None
        try:
            with open(self.head_path, "rb") as handle:
                head = json.loads(handle.read().rstrip(b" "))
            records, last = int(head["records"]), bytes.fromhex(head["hash"])
            meta, mac = bytes.fromhex(head["meta"]), str(head["mac"])
        except FileNotFoundError:
            if count == 0:
                return ""
            return f"the signed head {self.head_path} is missing"
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return f"the signed head {self.head_path} cannot be read ({exc})"
        if not hmac.compare_digest(mac, _head_mac(self.key, records, last, meta)):
            return "the signed head was altered or signed with another key"
        if records > count:
            return f"{records - count} record(s) were removed from the end (truncation)"
        row = self._db.execute("SELECT hash FROM events WHERE id = ?", (records,)).fetchone()
        if (row[0] if row else GENESIS) != last:
            return f"the chain was recomputed: record {records} differs from the signed head"
        if records < count - 1:
            # One record may be committed just before a crash, before its head was synced.
            return f"{count - records} record(s) were added after the signed head"
        if records == count and meta != self._meta_digest(fresh=True):
            return "the metadata differs from the signed head"
        return ""


def check_whole(path: str) -> VerifyReport:
    """Everything ``audit verify`` checks but the head, on a connection of its own:
    SQLite's ``quick_check`` of every page, then the whole chain and the metadata.

    ``pokertable serve`` runs it on a thread while the table plays (the head moves
    on with every record, and was checked against the chain at start by
    :func:`firmware.service.recovery.restore`). Never raises: a journal that cannot
    be read is a failed report.
    """
    try:
        journal = Journal(path, read_only=True)
    except JournalError as exc:
        return VerifyReport(0, False, str(exc))
    try:
        return journal.verify(check_head=False)
    except sqlite3.DatabaseError as exc:
        return VerifyReport(0, False, f"the journal {path} cannot be read ({exc})")
    finally:
        journal.close()


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
    prev, kept, upgraded = GENESIS, 0, False
    for row in rows:
        number, stamp, kind, record, _stored_prev, digest = row
        if number != kept + 1:
            break
        problem, upgraded = _link_problem(prev, row, upgraded)
        if problem:
            break
        out._db.execute(
            "INSERT INTO events (id, time, kind, record, prev, hash) VALUES (?, ?, ?, ?, ?, ?)",
            (number, stamp, kind, record, prev, digest),
        )
        prev, kept = digest, kept + 1
    out.close()
    lost = len(rows) - kept
    return VerifyReport(kept, lost == 0, f"{lost} record(s) after the damage were dropped")
