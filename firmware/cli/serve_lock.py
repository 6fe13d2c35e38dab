"""One controller per data folder, and where ``pokertable status`` finds it.

``pokertable serve`` takes an exclusive ``flock`` on ``serve.lock`` in its data
folder before it reads or writes anything else there (journal, key, head,
history, meters, socket). A second ``serve`` on the same folder is refused
with a sentence naming the running one (its process id and when it started)
and touches nothing: it has opened no journal and bound no socket, so its
exit removes nothing of the running controller's.

The lock file also says where the controller writes its status, and each
running controller leaves a small entry in the user's runtime folder
(``$XDG_RUNTIME_DIR/pokertable``, else ``/tmp/pokertable-UID``), so
``pokertable status`` finds a ``serve`` started by hand without being told
the file. The kernel drops the lock when the process ends (even on ``kill
-9``), so a stale lock file never keeps a table stopped.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import stat
from pathlib import Path
from typing import Any

from firmware.cli.lang import keyed
from firmware.errors import PokerTableError

LOCK_NAME = "serve.lock"
"""The lock file's name in the data folder."""
STATUS_NAME = "status.json"
"""The status file's name in the data folder (a controller started by hand)."""


class AlreadyRunning(PokerTableError, OSError):
    """Another controller holds the data folder's lock."""


def runtime_dir() -> Path:
    """The user's runtime folder for the controllers' entries (not created here)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base):
        return Path(base) / "pokertable"
    return Path(f"/tmp/pokertable-{os.getuid()}")


def _ours(folder: Path) -> bool:
    """Whether ``folder`` is a real folder of this user that nobody else may write
    (in /tmp another user could have made it first, or a link in its place)."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


def started_text(started: float) -> str:
    """When a controller started, as the machine's local time with its zone."""
    moment = datetime.datetime.fromtimestamp(started, datetime.UTC).astimezone()
    return moment.strftime("%Y-%m-%d %H:%M:%S %Z")


def read_lock(path: Path) -> dict[str, Any]:
    """The lock file's contents (``{}`` when missing, empty or unreadable)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def lock_held(data_dir: str) -> bool | None:
    """Whether a controller holds the lock of the data folder ``data_dir`` now (``None``:
    this system does not say). Read from the kernel's list of locks, without taking the
    lock even for a moment (a ``serve`` starting then would be refused): a process id
    alone proves nothing after a reboot, when another process may have been given it."""
    try:
        info = os.stat(Path(data_dir) / LOCK_NAME)
    except FileNotFoundError:
        return False
    except OSError:
        return None
    # Matched on the inode alone: some file systems (btrfs, overlayfs) show another device
    # number there than stat() does; a stranger's lock on an equal inode elsewhere only
    # errs toward "running", as the process id alone did.
    inode = f":{info.st_ino}"
    try:
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in table.splitlines():
        # "12: FLOCK  ADVISORY  WRITE 4242 b3:02:131074 0 EOF" (waiters read "12: -> FLOCK")
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5].endswith(inode):
            return True
    return False


class ServeLock:
    """The data folder's lock, held from :meth:`acquire` until :meth:`release`
    (or the process's end).

    :param data_dir: The controller's data folder (created 0700 if missing).
    """

    def __init__(self, data_dir: str) -> None:
        self.data_dir = os.path.abspath(data_dir)
        self.path = Path(self.data_dir) / LOCK_NAME
        self._fd: int | None = None
        self._entry: Path | None = None

    def acquire(self, config: str, status: str | None, started: float) -> None:
        """Take the lock and write who holds it.

        :raises AlreadyRunning: if another process holds it (nothing was changed).
        """
        os.makedirs(self.data_dir, mode=0o700, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = read_lock(self.path)
            pid = holder.get("pid", "?")
            when = holder.get("started")
            raise keyed(
                AlreadyRunning,
                "cli.serve.locked",
                data=self.data_dir,
                pid=pid,
                started=started_text(when) if isinstance(when, int | float) else "?",
            ) from None
        self._fd = fd
        holder = {
            "pid": os.getpid(),
            "started": started,
            "config": os.path.abspath(config),
            "data": self.data_dir,
            "status": os.path.abspath(status) if status else None,
        }
        data = json.dumps(holder).encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
        self._register(holder)

    def _register(self, holder: dict[str, Any]) -> None:
        """Leave an entry for ``pokertable status`` in the runtime folder (best effort:
        a controller whose runtime folder cannot be written still runs)."""
        folder = runtime_dir()
        with contextlib.suppress(OSError):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not _ours(folder):
                return
            entry = folder / f"serve-{os.getpid()}.json"
            entry.write_text(json.dumps(holder), encoding="utf-8")
            self._entry = entry

    def release(self) -> None:
        """Drop the runtime entry and the lock (the lock file itself stays: removing a
        locked file would let a third process lock a new one beside a waiting second)."""
        if self._entry is not None:
            self._entry.unlink(missing_ok=True)
            self._entry = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def running_controllers() -> list[dict[str, Any]]:
    """The entries of this user's running controllers (entries of ended ones are dropped)."""
    found: list[dict[str, Any]] = []
    folder = runtime_dir()
    if not _ours(folder):
        return found
    try:
        entries = sorted(folder.glob("serve-*.json"))
    except OSError:
        return found
    for entry in entries:
        holder = read_lock(entry)
        pid = holder.get("pid")
        data = holder.get("data")
        held = lock_held(data) if isinstance(data, str) else None
        if isinstance(pid, int) and Path(f"/proc/{pid}").exists() and held is not False:
            found.append(holder)
        else:
            with contextlib.suppress(OSError):
                entry.unlink()
    return found


__all__ = [
    "LOCK_NAME",
    "STATUS_NAME",
    "AlreadyRunning",
    "ServeLock",
    "lock_held",
    "read_lock",
    "running_controllers",
    "runtime_dir",
    "started_text",
]
