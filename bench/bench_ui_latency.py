"""Tap-to-every-screen latency through the real sockets.

One process holds the controller (its loop on a thread), the table server on a Unix
socket (its asyncio thread) and seven screens - six :class:`~ui.seat.SeatScreen` and
the :class:`~ui.console.ConsoleScreen`, each with its own :class:`~ui.link.ClientLink`
and rendering with SDL's dummy driver onto its own 800x480 surface.

Each measured action is a real tap: ``MOUSEBUTTONDOWN`` and ``MOUSEBUTTONUP`` on the
fold/check/call button of the screen whose turn it is, the message the screen produces
sent over its socket, applied by the controller, and a view pushed to every screen. The
latency of an action runs from the tap until the *last* of the seven screens has
received the view reflecting it and redrawn. Between actions the harness deals the
cards the table asks for (not timed) and waits until every screen is up to date.

All seven screens draw in this one process, one after the other, so the figure is
pessimistic for screens that each run on their own core or board.

    .venv/bin/python bench/bench_ui_latency.py [--actions 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import pygame

from firmware.engine.events import Muck, Show
from firmware.engine.hand import Phase
from firmware.engine.showdown import auto_showdown_event
from firmware.protocol.auth import StaffDirectory, TerminalSecrets
from firmware.protocol.client import TableClient
from firmware.protocol.server import TableServer
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from ui.app import make_screen
from ui.link import ClientLink
from ui.widgets import Screen

SEATS = 6
BUY_IN = 200
TERMINALS = [*(f"seat{i}" for i in range(1, SEATS + 1)), "console"]

View = dict[str, Any]


def signature(view: View) -> tuple[Any, ...]:
    """What every audience's view shows of the table's progress (changes with any action)."""
    t = view.get("table") or {}
    seats = tuple((s["seat"], s["stack"], s["bet"], s["status"]) for s in t.get("seats") or [])
    return (t.get("hand"), t.get("phase"), t.get("street"), t.get("actor"), seats)


class Dealer:
    """Deals what the table asks for, on the controller's loop thread, until a seat is to act."""

    def __init__(self, controller: Controller, rng: random.Random) -> None:
        self.ctl, self.rng = controller, rng
        self.deck: list[int] = []

    def until_a_seat_acts(self) -> None:
        """Shuffle, deal, settle showdowns until the table waits for a seat's action."""
        table, ctl = self.ctl.table, self.ctl
        while True:
            th = table.hand
            if th is None:
                for number, sitting in table.seating.seats.items():
                    if sitting.busted and not sitting.rebuy:
                        ctl.apply(te.Rebuy(number, BUY_IN))
                self.deck = list(range(52))
                self.rng.shuffle(self.deck)
                ctl.apply(te.Shuffle())
                ctl.apply(te.Cut())
                continue
            role, _ = th.next_card_role()
            if role != "none":
                ctl.apply(te.CardDrawn(self.deck.pop()))
                continue
            hand = th.hand
            if hand.phase is Phase.BETTING and hand.actor is not None:
                return
            if hand.phase is Phase.SHOWDOWN:
                shown = auto_showdown_event(hand)
                assert isinstance(shown, Show | Muck)
                seat = th.seat(shown.player)
                if isinstance(shown, Show):
                    ctl.apply(te.ShowCards(seat, shown.cards))
                else:
                    ctl.apply(te.MuckCards(seat))
                continue
            raise RuntimeError(f"The table is stuck in {hand.phase}.")


class Screens:
    """The seven screens and their links; :meth:`pump` takes in what arrived and redraws."""

    def __init__(self, links: dict[str, ClientLink]) -> None:
        self.links = links
        self.screens: dict[str, Screen] = {}
        self.draw_times: list[float] = []

    def pump(self) -> float:
        """Receive every link's messages, redraw the screens with a new view; return when
        the last redraw finished (``perf_counter``), 0.0 if nothing arrived."""
        last = 0.0
        for name, link in self.links.items():
            views = []
            for message in link.receive():
                if message["type"] == "refused":
                    raise RuntimeError(f"{name}: refused: {message['reason']}")
                if message["type"] == "alert":
                    raise RuntimeError(f"{name}: {message['text']}")
                if message["type"] == "view":
                    views.append(message)
            if not views:
                continue
            start = time.perf_counter()
            screen = self.screens.get(name)
            if screen is None:
                screen = self.screens[name] = make_screen(views[-1], pygame.Surface((800, 480)))
            else:
                screen.set_view(views[-1])
            screen.draw()
            last = time.perf_counter()
            self.draw_times.append(last - start)
        return last

    def signatures(self) -> set[tuple[Any, ...]]:
        """The distinct table states the screens show."""
        return {signature(s.view) for s in self.screens.values()}

    def wait(self, done: Any, timeout: float = 30.0) -> float:
        """Pump until ``done()``; return the time of the last redraw."""
        deadline = time.monotonic() + timeout
        last = 0.0
        while True:
            last = max(last, self.pump())
            if done():
                return last
            if time.monotonic() > deadline:
                raise RuntimeError("The screens did not reach the expected state in time.")
            time.sleep(0.0002)


def tap(screen: Screen, button: str) -> list[View]:
    """Press and release ``button`` on ``screen``; return the messages the tap produced."""
    rect = screen.button_rect(button)
    if rect is None:
        raise RuntimeError(f"No {button!r} button on the screen.")
    out: list[View] = []
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        out += screen.handle(pygame.event.Event(kind, pos=rect.center, button=1))
    return out


def measure(actions: int, warmup: int, seed: int) -> tuple[list[float], list[float]]:
    """Run ``warmup + actions`` taps; return the latencies (s) and the redraw times (s)."""
    rng = random.Random(seed)
    table = Table(
        TableConfig("home", profile_options("home"), Stakes(small_blind=1, big_blind=2)),
        deck_ready=True,
    )
    for seat in range(1, SEATS + 1):
        table.apply(te.SitDown(seat, f"Player {seat}", BUY_IN))
    controller = Controller(table, {}, TagRegistry(":memory:"))
    secrets = {name: f"{name}-secret-{rng.getrandbits(64):016x}" for name in TERMINALS}
    directory = tempfile.mkdtemp(prefix="pokertable-bench-")
    server = TableServer(
        controller,
        TerminalSecrets(secrets),
        StaffDirectory(),
        unix_path=os.path.join(directory, "table.sock"),
    )
    server.start()
    loop = threading.Thread(target=controller.run, name="controller", daemon=True)
    loop.start()
    pygame.init()
    pygame.display.set_mode((1, 1))
    links: dict[str, ClientLink] = {}
    dealer = Dealer(controller, rng)
    latencies: list[float] = []
    try:
        for name in TERMINALS:
            client = TableClient.unix(server.unix_path or "")
            client.hello(name, secrets[name], "en")
            links[name] = ClientLink(client)
        screens = Screens(links)
        screens.wait(lambda: len(screens.screens) == len(TERMINALS))
        for n in range(warmup + actions):
            controller.call_soon(dealer.until_a_seat_acts)

            def ready() -> bool:
                actor = [s for s in screens.screens.values() if s.view.get("legal")]
                return len(actor) == 1 and len(screens.signatures()) == 1

            screens.wait(ready)
            actor = next(s for s in screens.screens.values() if s.view.get("legal"))
            legal = actor.view["legal"]
            passive = "check" if legal.get("check") else "call"
            button = "fold" if legal.get("fold") and rng.random() < 0.25 else passive
            before = signature(actor.view)
            start = time.perf_counter()
            out = tap(actor, button)
            if len(out) != 1 or out[0]["type"] != "act":
                raise RuntimeError(f"The tap on {button!r} produced {out}.")
            links[f"seat{actor.view['seat']}"].send(out[0])
            end = screens.wait(lambda b=before: b not in screens.signatures())
            if n >= warmup:
                latencies.append(end - start)
    finally:
        for link in links.values():
            link.close()
        controller.stop()
        loop.join(5)
        server.stop()
        os.rmdir(directory)
        pygame.quit()
    return latencies, screens.draw_times


def main(argv: list[str] | None = None) -> int:
    """Measure and print the median, 99th percentile and maximum tap-to-all-screens latency."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=1000, help="measured taps (1000)")
    parser.add_argument("--warmup", type=int, default=20, help="taps not measured (20)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the cards and choices")
    args = parser.parse_args(argv)
    latencies, draws = measure(args.actions, args.warmup, args.seed)
    ms = sorted(x * 1000 for x in latencies)
    p99 = ms[max(0, round(0.99 * len(ms)) - 1)]
    print(f"{len(ms)} taps, {len(TERMINALS)} screens (6 seats + console), one process:")
    print(
        f"  tap -> last screen redrawn: median {statistics.median(ms):.2f} ms, "
        f"p99 {p99:.2f} ms, max {ms[-1]:.2f} ms (goal: p99 < 50 ms)"
    )
    print(
        f"  one screen's redraw: median {statistics.median(draws) * 1000:.2f} ms "
        f"({len(draws)} redraws)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
