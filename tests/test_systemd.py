"""Deployment: the units verify, and the service talks to systemd's notify socket.

The notify tests own a datagram socket as NOTIFY_SOCKET and run the real
``pokertable serve`` in a subprocess (recipe 4.3 in the shared notes).
"""

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
UNITS = sorted((ROOT / "systemd").glob("*.service"))
POKERTABLE = pathlib.Path(sys.executable).parent / "pokertable"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
@pytest.mark.parametrize("unit", UNITS, ids=[u.name for u in UNITS])
def test_unit_passes_systemd_analyze_verify(unit: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # Point ExecStart at this checkout's command so verify can check it exists, and
    # put all our units on the unit path so their dependencies resolve.
    for other in UNITS:
        text = other.read_text().replace("/opt/pokertable/venv/bin/pokertable", str(POKERTABLE))
        (tmp_path / other.name).write_text(text)
    env = dict(os.environ, SYSTEMD_UNIT_PATH=f"{tmp_path}:")
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(tmp_path / unit.name)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    problems = [
        line
        for line in (result.stdout + result.stderr).splitlines()
        if unit.name in line or "pokertable" in line
    ]
    assert result.returncode == 0 and not problems, result.stdout + result.stderr


def test_controller_unit_is_hardened_and_watched() -> None:
    text = (ROOT / "systemd" / "pokertable.service").read_text()
    for setting in (
        "Type=notify",
        "WatchdogSec=",
        "Restart=on-failure",
        "User=pokertable",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
    ):
        assert setting in text


def collect(sock: socket.socket, seconds: float) -> list[tuple[float, str]]:
    """Every notification received during ``seconds``, with its arrival time."""
    messages = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            data = sock.recv(4096)
        except TimeoutError:
            continue
        messages.append((time.monotonic(), data.decode()))
    return messages


def collect_until(
    sock: socket.socket, done: Callable[[list[str]], bool], patience: float = 120.0
) -> list[tuple[float, str]]:
    """Notifications until ``done(texts)`` holds; ``patience`` only ends a hung run.

    The service's start and its pings take as long as the machine needs (a loaded
    CI machine is slow); the test waits for the events, never for a fixed time.
    """
    messages: list[tuple[float, str]] = []
    end = time.monotonic() + patience
    while not done([m for _, m in messages]) and time.monotonic() < end:
        try:
            data = sock.recv(4096)
        except TimeoutError:
            continue
        messages.append((time.monotonic(), data.decode()))
    return messages


def pings_after_ready(texts: list[str]) -> int:
    """How many watchdog pings arrived after the READY notification."""
    if "READY=1" not in [t.split("\n")[0] for t in texts]:
        return 0
    first = next(i for i, t in enumerate(texts) if t.startswith("READY=1"))
    return texts[first + 1 :].count("WATCHDOG=1")


@pytest.fixture
def notify_socket(tmp_path: pathlib.Path):  # type: ignore[no-untyped-def]
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.05)
    yield sock, path
    sock.close()


def start_service(tmp_path: pathlib.Path, notify: str, **extra: str) -> subprocess.Popen[bytes]:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nprofile = "home"\n')
    env = dict(os.environ, NOTIFY_SOCKET=notify, WATCHDOG_USEC="200000", **extra)
    env.pop("WATCHDOG_PID", None)
    return subprocess.Popen(
        [str(POKERTABLE), "serve", "--config", str(config), "--data", str(tmp_path / "data")],
        env=env,
    )


def test_ready_then_watchdog_pings_then_stopping(notify_socket, tmp_path) -> None:  # type: ignore[no-untyped-def]
    sock, path = notify_socket
    proc = start_service(tmp_path, path)
    try:
        messages = collect_until(sock, lambda texts: pings_after_ready(texts) >= 5)
        texts = [m for _, m in messages]
        assert texts and texts[0].startswith("READY=1"), texts
        assert pings_after_ready(texts) >= 5
        proc.send_signal(signal.SIGTERM)
        stopping = collect_until(sock, lambda texts: "STOPPING=1" in texts)
        assert "STOPPING=1" in [m for _, m in stopping]
        assert proc.wait(60) == 0
    finally:
        proc.kill()


def test_a_stuck_main_loop_stops_the_watchdog_pings(notify_socket, tmp_path) -> None:  # type: ignore[no-untyped-def]
    sock, path = notify_socket
    proc = start_service(tmp_path, path, POKERTABLE_FAULT="hang")
    try:
        messages = collect_until(sock, lambda texts: any(m.startswith("READY=1") for m in texts))
        # The watchdog interval is 0.2 s (WATCHDOG_USEC): a live loop pings about
        # ten times in two seconds, however slow the machine, a stuck one never.
        messages += collect(sock, 2.0)
        texts = [m for _, m in messages]
        assert texts and texts[0].startswith("READY=1"), texts
        assert texts.count("WATCHDOG=1") <= 1  # at most the ping before the loop got stuck
    finally:
        proc.kill()
        proc.wait(10)


def test_a_device_that_cannot_open_stops_startup_with_its_name(tmp_path) -> None:  # type: ignore[no-untyped-def]
    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\nprofile = "home"\n[devices.shoe]\nkind = "shoe"\nbackend = "serial"\n'
        'port = "/dev/pokertable-no-such-port"\n'
    )
    result = subprocess.run(
        [str(POKERTABLE), "serve", "--config", str(config), "--data", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "shoe" in result.stderr and "no-such-port" in result.stderr
