"""Back in play after a power cut: recovery time and ``pokertable serve`` time to ready.

Usage::

    .venv/bin/python bench/bench_recovery.py [--hands 100,10000] [--repeat 5] [--dir DIR]

For each session length, plays that many random hands (the table soak) into
a journal in ``DIR/<hands>/`` the way ``pokertable serve`` keeps it (a
snapshot every ``snapshot_every_hands`` = 10 hands, rotation every 5,000
hands; written with ``synchronous=OFF`` only to generate the session
quickly), stopping 9 hands after a snapshot, the longest tail (100 becomes
99; 10,000 becomes 9,999, whose live journal holds the 4,999 hands since the
rotation at 5,000, the largest a live journal gets). Then, on that
file:

* **recovery**: open the journal + :func:`firmware.service.recovery.restore`
  (newest snapshot, verify and replay the tail), min / median of ``--repeat``;
* **full replay**: the same after deleting the snapshots from a copy (what
  recovery cost before snapshots; the journal's live file holds at most the
  5,000 hands since its last rotation);
* **serve ready**: a fresh ``pokertable serve`` process on that data folder,
  from start to systemd's ``READY=1`` (imports, configuration, recovery,
  devices), min / median of 3, and the CPU time the process had used by then
  (``/proc``, 10 ms ticks), which the other work on the machine hardly changes.

Not part of pytest. Lines starting with ``RATIO`` are collected by ``run_all.py``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware.service.journal import (  # noqa: E402
    Journal,
    check_whole,
    load_or_create_key,
    read_key,
)
from firmware.service.recovery import restore  # noqa: E402
from firmware.service.retention import Retention, after_hand  # noqa: E402
from hal_sim.table_soak import Soak  # noqa: E402


def fast(journal: Journal) -> Journal:
    """Generation only: skip the fsync per commit (recovery reads the same file)."""
    journal._db.execute("PRAGMA synchronous=OFF")
    return journal


def play_session(folder: Path, hands: int, reuse: bool = False) -> int:
    """Play ``hands`` hands into ``folder/journal.sqlite`` as serve keeps it; return the records.

    With ``reuse``, a session of that length already played into ``folder`` (its
    ``played`` file says so) is kept as it is.
    """
    marker = folder / "played"
    if reuse and marker.exists() and marker.read_text(encoding="utf-8") == str(hands):
        journal = Journal(str(folder / "journal.sqlite"))
        records = len(journal)
        journal.close()
        return records
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    policy = Retention()
    soak = Soak("casino-cash", seed=1, journal=fast(Journal(str(folder / "journal.sqlite"))))
    count = [0]

    def retain(record: object, hand: object) -> None:
        count[0] += 1
        assert soak.journal is not None
        journal = after_hand(soak.journal, soak.table, policy, count[0])
        if journal is not soak.journal:
            soak.journal, count[0] = fast(journal), 0

    soak.table.hand_listeners.append(retain)
    for _ in range(hands):
        soak.play_hand()
    assert soak.journal is not None
    records = len(soak.journal)
    soak.journal.close()
    # Signed as serve signs a journal on its first start with a key (head file,
    # keyed snapshot digests), so recovery and serve read what a table keeps.
    key = load_or_create_key(str(folder / "journal.key"))
    signed = Journal(str(folder / "journal.sqlite"), key=key)
    signed.sign_head()
    signed.close()
    (folder / "table.toml").write_text('[table]\nprofile = "casino-cash"\n', encoding="utf-8")
    marker.write_text(str(hands), encoding="utf-8")
    return records


def evict(folder: Path) -> None:
    """Drop ``folder``'s files from the page cache, as after a power cut (only these files:
    the interpreter and the firmware's own files stay cached)."""
    for name in os.listdir(folder):
        if not (folder / name).is_file():
            continue
        fd = os.open(folder / name, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def time_restore(
    path: Path, repeat: int, check: bool, key: bytes | None = None
) -> tuple[float, float]:
    """(min, median) seconds of opening the journal and restoring the table, the journal
    evicted from the page cache before each; ``check``: with SQLite's page check on open."""
    times = []
    for _ in range(repeat):
        evict(path.parent)
        start = time.perf_counter()
        journal = Journal(str(path), key=key, check=check)
        restore(journal)
        times.append(time.perf_counter() - start)
        journal.close()
    return min(times), statistics.median(times)


def time_whole_check(path: Path, repeat: int) -> tuple[float, float]:
    """(min, median) seconds of :func:`check_whole` (what serve runs beside the table)."""
    times = []
    for _ in range(repeat):
        evict(path.parent)
        start = time.perf_counter()
        report = check_whole(str(path))
        times.append(time.perf_counter() - start)
        if not report.ok:
            raise SystemExit(f"The journal {path} fails its check: {report.problem}.")
    return min(times), statistics.median(times)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_ready(folder: Path, repeat: int) -> tuple[float, float, float]:
    """(min, median) seconds from starting ``pokertable serve`` to its READY=1, and the
    least CPU time it used to get there (unlike wall time, hardly affected by load)."""
    times, cpu = [], []
    for run in range(repeat):
        notify = folder / f"notify-{run}.sock"
        notify.unlink(missing_ok=True)  # left by an interrupted run
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(notify))
        sock.settimeout(30)
        env = dict(os.environ, NOTIFY_SOCKET=str(notify))
        evict(folder)
        start = time.perf_counter()
        command = [sys.executable, "-m", "firmware.cli.main", "serve"]
        proc = subprocess.Popen(
            [*command, "--config", str(folder / "table.toml"), "--data", str(folder)],
            env=env,
            cwd=ROOT,
        )
        try:
            while not sock.recv(4096).startswith(b"READY=1"):
                pass
            times.append(time.perf_counter() - start)
            cpu.append(cpu_seconds(proc.pid))
        finally:
            proc.terminate()
            proc.wait()
            sock.close()
            notify.unlink()
    return min(times), statistics.median(times), min(cpu)


def main() -> int:
    """Run the recovery benchmark and print one row per session length."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", default="100,10000", help="comma-separated session lengths")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", default=None, help="folder for the sessions (default: temp)")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep a session already played into DIR/<hands>/ instead of playing it again",
    )
    parser.add_argument(
        "--full-up-to",
        type=int,
        default=2000,
        help="replay the whole live journal (snapshots deleted) only for sessions up to "
        "this many hands (2000; a 4,999-hand live journal takes a minute or more)",
    )
    parser.add_argument(
        "--generate-only", action="store_true", help="play the sessions, measure nothing"
    )
    args = parser.parse_args()
    base = Path(args.dir or tempfile.mkdtemp(prefix="pokertable-recovery-"))
    print(
        "seconds, min / median, journal files evicted from the page cache before each run; "
        "tail = records replayed after the newest snapshot"
    )
    header = f"{'hands':>8s} {'records':>8s} {'tail':>5s} {'recovery':>13s} {'page check':>13s}"
    print(
        f"{header} {'whole check':>13s} {'full replay':>13s} {'serve ready':>13s} {'its CPU':>7s}"
    )
    for hands in (int(h) for h in args.hands.split(",")):
        hands = hands - hands % 10 - 1 if hands % 10 == 0 else hands  # 9 after a snapshot
        folder = base / str(hands)
        records = play_session(folder, hands, args.reuse)
        if args.generate_only:
            print(f"{hands:8d} {records:8d} played into {folder}", flush=True)
            continue
        path = folder / "journal.sqlite"
        key = read_key(str(folder / "journal.key"))
        newest = Journal(str(path), key=key).latest_snapshot()
        tail = records - (newest[0] if newest else 0)
        ours = time_restore(path, args.repeat, check=False, key=key)
        checked = time_restore(path, args.repeat, check=True, key=key)
        whole = time_whole_check(path, max(1, args.repeat // 2))
        full_cell = "-"
        if hands <= args.full_up_to:
            copy = folder / "full.sqlite"
            shutil.copy(path, copy)
            db = sqlite3.connect(copy)
            db.execute("DELETE FROM snapshots")
            db.commit()
            db.close()
            full = time_restore(copy, max(1, args.repeat // 2), check=True)
            copy.unlink()
            full_cell = f"{full[0]:.3f}/{full[1]:.3f}"
        ready = time_ready(folder, 3)

        def cell(pair: tuple[float, float]) -> str:
            return f"{pair[0]:.3f}/{pair[1]:.3f}"

        print(
            f"{hands:8d} {records:8d} {tail:5d} {cell(ours):>13s} {cell(checked):>13s} "
            f"{cell(whole):>13s} {full_cell:>13s} {cell(ready[:2]):>13s} {ready[2]:7.2f}",
            flush=True,
        )
        print(f"RATIO|recovery after {hands} hands (s, min)|{ours[0]:.3f}|< 0.5")
        print(f"RATIO|serve ready after {hands} hands (s, min)|{ready[0]:.3f}|< 1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
