"""pokertable serve with screens on their own boards: TCP with TLS and client certificates."""

import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

from firmware.protocol.client import TableClient
from tests.test_protocol import client_context, make_ca, make_cert

POKERTABLE = pathlib.Path(sys.executable).parent / "pokertable"
SECRET = "seat1-secret-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_refuses_tcp_without_tls(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nprofile = "home"\n[server]\ntcp_port = 7777\n')
    result = subprocess.run(
        [str(POKERTABLE), "serve", "--config", str(config), "--data", str(tmp_path / "d")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 78  # a configuration error: the unit does not restart
    assert "tcp_port needs TLS" in result.stderr and "client_ca" in result.stderr


def test_a_seat_board_connects_over_tls_with_its_certificate(tmp_path: pathlib.Path) -> None:
    make_ca(tmp_path, "ca")
    make_cert(tmp_path, "controller", "ca", server=True)
    make_cert(tmp_path, "seat1", "ca")
    port = free_port()
    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\nprofile = "home"\n'
        f'[server]\ntcp_host = "127.0.0.1"\ntcp_port = {port}\n'
        f'cert = "{tmp_path / "controller.pem"}"\nkey = "{tmp_path / "controller.key"}"\n'
        f'client_ca = "{tmp_path / "ca.pem"}"\n'
        f'[terminals]\nseat1 = "{SECRET}"\n'
    )
    proc = subprocess.Popen(
        [str(POKERTABLE), "serve", "--config", str(config), "--data", str(tmp_path / "d")],
        env={k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"},
    )
    try:
        client = None
        deadline = time.monotonic() + 30
        while client is None and time.monotonic() < deadline:
            try:
                client = TableClient.tls("127.0.0.1", port, client_context(tmp_path, "seat1"))
            except OSError:
                time.sleep(0.1)
        assert client is not None, "the service never listened"
        client.hello("seat1", SECRET, "en")
        welcome = client.wait_for(lambda m: m["type"] == "welcome", 10)
        assert welcome["terminal"] == "seat1"
        view = client.wait_for(lambda m: m["type"] == "view", 10)
        assert view["audience"] == "seat" and view["seat"] == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0


def test_a_seat_board_screen_with_a_wrong_secret_is_refused_over_tls(
    tmp_path: pathlib.Path,
) -> None:
    make_ca(tmp_path, "ca")
    make_cert(tmp_path, "controller", "ca", server=True)
    make_cert(tmp_path, "seat1", "ca")
    port = free_port()
    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\nprofile = "home"\n'
        f'[server]\ntcp_host = "127.0.0.1"\ntcp_port = {port}\n'
        f'cert = "{tmp_path / "controller.pem"}"\nkey = "{tmp_path / "controller.key"}"\n'
        f'client_ca = "{tmp_path / "ca.pem"}"\n'
        f'[terminals]\nseat1 = "{SECRET}"\n'
    )
    proc = subprocess.Popen(
        [str(POKERTABLE), "serve", "--config", str(config), "--data", str(tmp_path / "d")],
        env={k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # the start line: listening
            if "Table started" in line:
                break
        (tmp_path / "wrong.secret").write_text("seat1-wrong-secret-0000\n")
        result = subprocess.run(
            [
                str(POKERTABLE), "screen", "--seat", "1", "--host", "127.0.0.1",
                "--port", str(port), "--cert", str(tmp_path / "seat1.pem"),
                "--key", str(tmp_path / "seat1.key"), "--ca", str(tmp_path / "ca.pem"),
                "--secret-file", str(tmp_path / "wrong.secret"),
            ],
            capture_output=True, text=True, timeout=60, check=False,
            env=dict(os.environ, SDL_VIDEODRIVER="dummy"),
        )  # fmt: skip
        assert result.returncode == 78, result.stderr
        assert "refused seat1" in result.stderr and "Traceback" not in result.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
