"""End to end: a seat screen tap travels over the real socket to the controller,
and every connected screen receives the new state."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import threading
import time
from typing import Any

import pygame

from firmware.protocol.auth import StaffDirectory, TerminalSecrets
from firmware.protocol.client import TableClient
from firmware.protocol.server import TableServer
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from ui.link import ClientLink, main_screen
from ui.seat import SeatScreen

SECRETS = {
    "seat1": "s1-0123456789abcdef",
    "seat2": "s2-0123456789abcdef",
    "console": "co-0123456789abcdef",
}


def wait_view(link: ClientLink, accept: Any, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for message in link.receive():
            if message.get("type") == "view" and accept(message):
                return message
        time.sleep(0.01)
    raise AssertionError("the expected view never arrived")


def test_a_tap_on_a_seat_screen_reaches_the_controller_and_every_screen(tmp_path) -> None:  # type: ignore[no-untyped-def]
    table = Table(TableConfig("home", profile_options("home"), Stakes()), deck_ready=True)
    for seat in (1, 2, 3):
        table.apply(te.SitDown(seat, f"P{seat}", 200))
    table.apply(te.SetButton(1))
    controller = Controller(table, {}, TagRegistry(":memory:"))
    sock = str(tmp_path / "table.sock")
    server = TableServer(controller, TerminalSecrets(SECRETS), StaffDirectory(), unix_path=sock)
    server.start()
    loop = threading.Thread(target=controller.run, daemon=True)
    loop.start()
    links = []
    try:
        for terminal in ("seat1", "seat2"):
            client = TableClient.unix(sock)
            client.hello(terminal, SECRETS[terminal], "en")
            links.append(ClientLink(client))
        for event in [te.Shuffle(), te.Cut(), *(te.CardDrawn(c) for c in range(6))]:
            controller.call_soon(lambda e=event: controller.apply(e))
        seat1, seat2 = links
        view = wait_view(seat1, lambda v: v.get("legal") is not None)
        pygame.init()
        screen = SeatScreen(view, surface=pygame.display.set_mode((800, 480)))
        screen.draw()
        fold = screen.button_rect("fold")
        out: list[dict[str, Any]] = []
        for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
            out += screen.handle(pygame.event.Event(kind, pos=fold.center, button=1))
        assert out == [{"type": "act", "action": "fold"}]
        seat1.send(out[0])

        def folded(v: dict[str, Any]) -> bool:
            return any(s["seat"] == 1 and s["status"] == "folded" for s in v["table"]["seats"])

        wait_view(seat1, folded)
        wait_view(seat2, folded)  # the other screen sees it too
        assert table.hand is not None and table.hand.hand.folded[table.hand.position(1)]
    finally:
        for link in links:
            link.close()
        controller.stop()
        loop.join(5)
        server.stop()
        pygame.quit()


def test_screen_command_says_what_is_missing(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    config = tmp_path / "table.toml"
    config.write_text('[table]\nprofile = "home"\n')
    assert main_screen(["--seat", "3", "--config", str(config)]) == 2
    assert "[terminals] seat3" in capsys.readouterr().err
    missing = str(tmp_path / "nobody.sock")
    assert main_screen(["--seat", "3", "--socket", missing, "--secret", "x" * 16]) == 1
    assert "is pokertable serve running" in capsys.readouterr().err
