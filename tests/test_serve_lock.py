"""One controller per data folder, a power cut is not damage, ``status`` finds a hand start.

Real ``pokertable serve`` processes on private folders and sockets (issue 23 item 7,
issue 27 item 4): a second ``serve`` on a live data folder is refused with a sentence
naming the running one and changes nothing of it; records left in SQLite's
write-ahead log by a writer killed with SIGKILL open as a healthy journal, while a
file cut short is still refused; ``pokertable status`` finds a ``serve`` started by
hand without ``--status``.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from firmware.cli.init import main_init
from firmware.cli.serve_lock import ServeLock, lock_held, running_controllers
from firmware.cli.status import main_status
from firmware.protocol.client import TableClient
from firmware.service.journal import Journal, JournalError

POKERTABLE = pathlib.Path(sys.executable).parent / "pokertable"


def write_table(tmp_path: pathlib.Path) -> pathlib.Path:
    config = tmp_path / "table.toml"
    assert (
        main_init(
            ["--seats", "2", "--socket", str(tmp_path / "table.sock"), "--socket-group", "",
             "--secrets-dir", str(tmp_path / "terminals"), "--output", str(config)]
        )
        == 0
    )  # fmt: skip
    return config


def environment(tmp_path: pathlib.Path) -> dict[str, str]:
    runtime = tmp_path / "run"
    runtime.mkdir(exist_ok=True)
    return dict(os.environ, JOURNAL_STREAM="", XDG_RUNTIME_DIR=str(runtime), LANG="C.UTF-8")


def start_serve(tmp_path: pathlib.Path, *extra: str) -> subprocess.Popen[str]:
    """A ``serve`` on ``tmp_path``'s data folder, returned once it listens."""
    config = tmp_path / "table.toml"
    if not config.exists():
        write_table(tmp_path)
    serve = subprocess.Popen(
        [str(POKERTABLE), "serve", "--config", str(config), "--data", str(tmp_path / "d"), *extra],
        stderr=subprocess.PIPE,
        text=True,
        env=environment(tmp_path),
    )
    assert serve.stderr is not None
    for line in serve.stderr:
        if "Table started" in line or "Table restored" in line:
            return serve
    serve.kill()
    raise AssertionError(f"serve did not start (exit {serve.wait()})")


def snapshot_of(folder: pathlib.Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file of a data folder: inode, size and contents."""
    return {
        p.name: (p.stat().st_ino, p.stat().st_size, p.read_bytes())
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.endswith(("-wal", "-shm"))
    }


def stop(serve: subprocess.Popen[str]) -> int:
    serve.send_signal(signal.SIGTERM)
    return serve.wait(60)


def test_a_second_serve_on_a_live_data_folder_is_refused_and_touches_nothing(
    tmp_path: pathlib.Path,
) -> None:
    first = start_serve(tmp_path)
    try:
        socket = tmp_path / "table.sock"
        inode = socket.stat().st_ino
        while not (tmp_path / "d" / "status.json").exists():  # written on the loop's turn
            assert first.poll() is None
            time.sleep(0.05)
        before = snapshot_of(tmp_path / "d")
        assert "journal.sqlite" in before and "serve.lock" in before
        for lang, sentence in (("en", "another controller is already running"),
                               ("es", "ya hay otro controlador en marcha")):  # fmt: skip
            second = subprocess.run(
                [str(POKERTABLE), "serve", "--config", str(tmp_path / "table.toml"),
                 "--data", str(tmp_path / "d"), "--lang", lang],
                capture_output=True, text=True, timeout=120, check=False,
                env=environment(tmp_path),
            )  # fmt: skip
            assert second.returncode == 1, second.stderr
            assert sentence in second.stderr and f"{first.pid}" in second.stderr
            assert "damaged" not in second.stderr and "Traceback" not in second.stderr
        # The running controller's socket and files are exactly as they were ...
        assert socket.stat().st_ino == inode
        assert snapshot_of(tmp_path / "d") == before
        # ... and a screen started now still reaches it.
        client = TableClient.unix(str(socket))
        secret = (tmp_path / "terminals" / "console.secret").read_text().strip()
        client.hello("console", secret, "en")
        assert client.wait_for(lambda m: m["type"] == "welcome", 30)["terminal"] == "console"
        client.sock.close()
    finally:
        assert stop(first) == 0
    # Once the first has stopped, the folder is free again (the lock died with it).
    again = start_serve(tmp_path)
    assert stop(again) == 0


def test_a_lock_left_by_a_killed_controller_does_not_keep_the_table_stopped(
    tmp_path: pathlib.Path,
) -> None:
    first = start_serve(tmp_path)
    first.kill()  # SIGKILL: the lock file stays, the kernel's lock does not
    first.wait(60)
    assert (tmp_path / "d" / "serve.lock").exists()
    second = start_serve(tmp_path)
    assert stop(second) == 0


def test_status_finds_a_serve_started_by_hand_without_a_status_option(
    tmp_path: pathlib.Path,
) -> None:
    serve = start_serve(tmp_path)
    env = environment(tmp_path)
    try:
        shown = None
        for _ in range(600):  # the status file is written on the loop's next turn
            shown = subprocess.run(
                [str(POKERTABLE), "status", "--lang", "es"],
                capture_output=True, text=True, timeout=120, check=False, env=env,
            )  # fmt: skip
            if shown.returncode == 0:
                break
            serve_alive = serve.poll() is None
            assert serve_alive
        assert shown is not None and shown.returncode == 0, shown.stderr
        assert "Mesa (casino-cash)" in shown.stdout and "no está en marcha" not in shown.stdout
        by_folder = subprocess.run(
            [str(POKERTABLE), "status", "--data", str(tmp_path / "d")],
            capture_output=True, text=True, timeout=120, check=False, env=env,
        )  # fmt: skip
        assert by_folder.returncode == 0 and "Table (casino-cash)" in by_folder.stdout
    finally:
        assert stop(serve) == 0
    gone = subprocess.run(
        [str(POKERTABLE), "status"],
        capture_output=True, text=True, timeout=120, check=False, env=env,
    )  # fmt: skip
    assert gone.returncode == 3 and "not running" in gone.stderr


def test_status_of_a_data_folder_whose_lock_nobody_holds_says_the_controller_is_gone(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A power cut leaves ``status.json`` and the lock file in the data folder; after the
    reboot the process id they name may belong to another process (here: this one)."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir()
    data = tmp_path / "d"
    data.mkdir(mode=0o700)
    status = data / "status.json"
    status.write_text(json.dumps({"pid": os.getpid(), "table": {}}), encoding="utf-8")
    left = {"pid": os.getpid(), "started": 1.0, "data": str(data), "status": str(status)}
    (data / "serve.lock").write_text(json.dumps(left), encoding="utf-8")
    (tmp_path / "run" / "pokertable").mkdir(mode=0o700)
    (tmp_path / "run" / "pokertable" / f"serve-{os.getpid()}.json").write_text(
        json.dumps(left), encoding="utf-8"
    )
    assert lock_held(str(data)) is False
    assert main_status(["--data", str(data), "--json"]) == 3
    assert "is gone" in capsys.readouterr().err
    assert running_controllers() == []  # the runtime entry left behind is dropped too
    lock = ServeLock(str(data))
    lock.acquire(str(tmp_path / "table.toml"), str(status), time.time())
    try:
        assert lock_held(str(data)) is True
        assert main_status(["--data", str(data), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["pid"] == os.getpid()
        assert [h["data"] for h in running_controllers()] == [str(data)]
    finally:
        lock.release()
    assert lock_held(str(data)) is False


WRITER = textwrap.dedent(
    """
    import os, sys
    from firmware.service.journal import Journal
    from hal_sim.table_soak import run_soak
    journal = Journal(sys.argv[1], key=b"k" * 32)
    journal.defer_head = False
    run_soak("casino-cash", int(sys.argv[2]), seed=3, journal=journal)
    print(len(journal), flush=True)
    sys.stdin.read()  # killed here, before any checkpoint or close
    """
)


@pytest.mark.parametrize("hands", [0, 1, 3])
def test_records_left_in_the_wal_by_a_power_cut_open_as_a_healthy_journal(
    tmp_path: pathlib.Path, hands: int
) -> None:
    path = tmp_path / "journal.sqlite"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(hands)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        cwd=pathlib.Path(__file__).resolve().parent.parent,
    )  # fmt: skip
    assert writer.stdout is not None
    records = int(writer.stdout.readline())
    writer.kill()  # as a power cut would: no checkpoint, no close
    writer.wait(60)
    wal = pathlib.Path(str(path) + "-wal")
    assert wal.exists() and wal.stat().st_size > 0  # the records are still in the WAL
    # The situation of the issue: SQLite's page count (with the WAL) exceeds the main file.
    probe = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    pages, size = (probe.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "page_size"))
    probe.close()
    assert pages * size > path.stat().st_size
    journal = Journal(str(path), key=b"k" * 32, check=False)  # serve's open
    assert len(journal) == records > 0
    assert journal.verify().ok
    journal.close()


def test_a_file_cut_short_is_still_refused(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "journal.sqlite"
    journal = Journal(str(path))
    from hal_sim.table_soak import run_soak

    run_soak("casino-cash", 10, seed=3, journal=journal)
    journal.close()  # folded into the main file
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size * 2 // 3)
    with pytest.raises(JournalError, match=r"damaged \(the file holds \d+ of its \d+ pages"):
        Journal(str(path), check=False)
