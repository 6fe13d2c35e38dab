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

from firmware.service.journal import Journal  # noqa: E402
from firmware.service.recovery import restore  # noqa: E402
from firmware.service.retention import Retention, after_hand  # noqa: E402
from hal_sim.table_soak import Soak  # noqa: E402


def fast(journal: Journal) -> Journal:
    """Generation only: skip the fsync per commit (recovery reads the same file)."""
    journal._db.execute("PRAGMA synchronous=OFF")
    return journal


def play_session(folder: Path, hands: int) -> int:
    """Play ``hands`` hands into ``folder/journal.sqlite`` as serve keeps it; return the records."""
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
    (folder / "table.toml").write_text('[table]\nprofile = "casino-cash"\n', encoding="utf-8")
    return records


def time_restore(path: Path, repeat: int) -> tuple[float, float]:
    """(min, median) seconds of opening the journal and restoring the table."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        journal = Journal(str(path))
        restore(journal)
        times.append(time.perf_counter() - start)
        journal.close()
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
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(notify))
        sock.settimeout(30)
        env = dict(os.environ, NOTIFY_SOCKET=str(notify))
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
    args = parser.parse_args()
    base = Path(args.dir or tempfile.mkdtemp(prefix="pokertable-recovery-"))
    print("seconds, min / median; tail = records replayed after the newest snapshot")
    header = f"{'hands':>8s} {'records':>8s} {'tail':>5s} {'recovery':>15s}"
    print(f"{header} {'full replay':>15s} {'serve ready':>15s} {'its CPU':>7s}")
    for hands in (int(h) for h in args.hands.split(",")):
        hands = hands - hands % 10 - 1 if hands % 10 == 0 else hands  # 9 after a snapshot
        folder = base / str(hands)
        records = play_session(folder, hands)
        path = folder / "journal.sqlite"
        newest = Journal(str(path)).latest_snapshot()
        tail = records - (newest[0] if newest else 0)
        ours = time_restore(path, args.repeat)
        copy = folder / "full.sqlite"
        shutil.copy(path, copy)
        db = sqlite3.connect(copy)
        db.execute("DELETE FROM snapshots")
        db.commit()
        db.close()
        full = time_restore(copy, max(1, args.repeat // 2))
        copy.unlink()
        ready = time_ready(folder, 3)
        print(
            f"{hands:8d} {records:8d} {tail:5d} {ours[0]:7.3f}/{ours[1]:7.3f} "
            f"{full[0]:7.3f}/{full[1]:7.3f} {ready[0]:7.3f}/{ready[1]:7.3f} {ready[2]:7.2f}"
        )
        print(f"RATIO|recovery after {hands} hands (s, min)|{ours[0]:.3f}|< 0.5")
        print(f"RATIO|serve ready after {hands} hands (s, min)|{ready[0]:.3f}|< 1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
