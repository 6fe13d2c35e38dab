"""Screens come back (issue 23, item 6): Ctrl-C on ``serve`` no longer blacks them out.

A real ``pokertable serve`` and a real ``pokertable screen`` (SDL's dummy
driver) on a private socket: when the controller is stopped the screen stays
up, says it is reconnecting and retries with backoff; when a controller is
started again on the same data folder, the screen is welcomed again (the
controller lists it as connected) and goes on with its page.
"""

from __future__ import annotations

import os
import pathlib
import queue
import signal
import socket
import subprocess
import threading
from itertools import islice

import pygame

from firmware.protocol.client import TableClient
from tests.test_serve_lock import POKERTABLE, environment, start_serve, stop
from ui.app import draw_reconnecting
from ui.link import ClientLink, retry_delays


def lines_of(process: subprocess.Popen[str]) -> queue.Queue[str]:
    """Standard error's lines, read on a thread (the test waits on the queue)."""
    out: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            out.put(line)
        out.put("")  # the end

    threading.Thread(target=read, daemon=True).start()
    return out


def wait_line(lines: queue.Queue[str], text: str) -> str:
    """The first line holding ``text`` (a guard of 120 s against a hang, not a limit)."""
    seen = []
    while True:
        line = lines.get(timeout=120)
        seen.append(line)
        if text in line:
            return line
        assert line, f"the screen ended before saying {text!r}: {seen}"


def connected(tmp_path: pathlib.Path, terminal: str) -> None:
    """Wait until the controller lists ``terminal`` as connected (``pokertable status``)."""
    for _ in range(2000):
        shown = subprocess.run(
            [str(POKERTABLE), "status", "--data", str(tmp_path / "d"), "--json"],
            capture_output=True, text=True, timeout=120, check=False,
            env=environment(tmp_path),
        )  # fmt: skip
        if shown.returncode == 0 and f'"{terminal}"' in shown.stdout:
            return
    raise AssertionError(f"{terminal} never showed as connected")


def test_a_screen_waits_for_a_stopped_controller_and_comes_back_with_it(
    tmp_path: pathlib.Path,
) -> None:
    serve = start_serve(tmp_path)
    env = dict(environment(tmp_path), SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    screen = subprocess.Popen(
        [str(POKERTABLE), "screen", "--seat", "1", "--socket", str(tmp_path / "table.sock"),
         "--secret-file", str(tmp_path / "terminals" / "seat1.secret"), "--lang", "es"],
        stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    said = lines_of(screen)
    try:
        connected(tmp_path, "seat1")
        serve.send_signal(signal.SIGINT)  # Ctrl-C where it was started
        assert serve.wait(60) == 0
        assert "reconectando" in wait_line(said, "reconectando")
        assert screen.poll() is None  # still up, saying so
        serve = start_serve(tmp_path)  # the controller is back
        wait_line(said, "ha vuelto")
        connected(tmp_path, "seat1")
        assert screen.poll() is None
    finally:
        screen.send_signal(signal.SIGTERM)
        code = screen.wait(60)
        stop(serve)
    assert code == 0


def test_the_backoff_doubles_to_ten_seconds() -> None:
    assert list(islice(retry_delays(), 8)) == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 10.0]


def test_the_reconnecting_notice_is_drawn_in_the_screens_language() -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    pygame.init()
    surface = pygame.Surface((800, 480))
    surface.fill((0, 80, 0))
    assert draw_reconnecting(surface, "es") == "Reconectando con la mesa…"
    assert draw_reconnecting(surface, "en") == "Reconnecting to the table…"
    assert surface.get_at((400, 240))[:3] != (0, 80, 0)  # the band is over the page
    assert surface.get_at((400, 20))[:3] == (0, 80, 0)  # the page stays under it


def test_the_language_chosen_on_the_screen_survives_a_reconnect() -> None:
    """The player switched the seat to English; the controller restarts. The new
    connection's hello says the command line's language: the link says the chosen one
    again, or every view (and so the screen) would go back to Spanish."""
    ours, theirs = socket.socketpair()
    back_ours, back_theirs = socket.socketpair()
    made: list[TableClient] = []

    def connect() -> TableClient:
        client = TableClient(back_ours)
        made.append(client)
        return client

    back = threading.Event()
    link = ClientLink(
        TableClient(ours),
        connect,
        delays=lambda: iter([0.0] * 3),
        on_state=lambda state: back.set() if state == "back" else None,
    )
    controller = TableClient(theirs)
    try:
        link.send({"type": "language", "lang": "en"})
        assert controller.recv() == {"type": "language", "lang": "en"}
        theirs.close()  # the controller stops
        restarted = TableClient(back_theirs)
        assert restarted.recv() == {"type": "language", "lang": "en"}
        assert back.wait(120)  # a guard against a hang, not a time limit
        assert made and link.reconnects == 1
    finally:
        link.close()
        back_theirs.close()
