"""The data directory's room: free space, and whether the disk takes a write.

The journal pauses the table when it cannot be written (a full disk); the
controller then asks :func:`storage_has_room` every tick and resumes when it
says yes. The diagnostics report :func:`free_bytes` as their first item.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator

from firmware.errors import PokerTableError

MIN_FREE_BYTES = 4 * 1024 * 1024
"""Free space the data directory needs before a paused journal is written again."""

PROBE_BYTES = 64 * 1024


def free_bytes(path: str) -> int:
    """Bytes an unprivileged writer may still use under ``path``.

    :raises OSError: if ``path`` cannot be read.
    """
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize


def storage_has_room(data_dir: str, need: int = MIN_FREE_BYTES) -> bool:
    """Whether ``data_dir`` has ``need`` bytes free and takes a write.

    A test file of 64 KiB is written, synced and removed: free space alone
    does not prove that the disk takes writes (a failing SD card).
    """
    probe = os.path.join(data_dir, ".space-probe")
    try:
        if free_bytes(data_dir) < need:
            return False
        with open(probe, "wb") as handle:
            handle.write(b"\0" * PROBE_BYTES)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.remove(probe)
    return True


class DamagedDatabase(PokerTableError, sqlite3.DatabaseError):
    """A database file of the data directory that SQLite cannot read (still a
    :class:`sqlite3.DatabaseError` for the callers that fall back on one)."""


@contextlib.contextmanager
def opening(path: str, what: str) -> Iterator[None]:
    """Turn SQLite's bare "file is not a database" while opening ``path`` into a sentence
    that names the file (``what``: "hand history", "meters"...) and what to do."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise DamagedDatabase(
            f"The {what} {path} cannot be read ({exc}): it is damaged or not one of the "
            "table's databases. Restore it from a backup, or move it aside and restart the "
            "table to begin a new, empty one."
        ) from None


__all__ = ["MIN_FREE_BYTES", "DamagedDatabase", "free_bytes", "opening", "storage_has_room"]
