"""The simulated table behind ``make run``: the real controller on simulated devices.

The table is driven exactly as on real hardware: a :class:`~firmware.service.controller.Controller`
owns a :class:`~firmware.table.table.Table` and the simulated devices
(:mod:`hal_sim.fakes`) chosen by configuration. A simulated dealer shuffles,
cuts and draws cards from the simulated shoe when the table asks for them;
bots at the seats act through the engine's legal actions; each finished
hand is printed in Spanish or English.

With a display (``DISPLAY`` or ``WAYLAND_DISPLAY`` set, not under pytest or
CI), :func:`run_sim` also serves the table over the table protocol on a Unix
socket in a private temporary directory, with fresh per-terminal secrets,
and opens two ``pokertable screen`` windows: the dealer console and the seat
screen of seat 1, which a person plays. The simulated dealer keeps dealing and
the bots play the other seats, at a pace a person can follow; the hand waits
for the person's taps. Closing the seat window ends the run after the current
hand (a bot finishes it). ``POKERTABLE_SCREENS=1`` forces the screens (tests
use SDL's dummy driver), ``POKERTABLE_SCREENS=0`` forbids them.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from firmware.engine.bots import RandomBot
from firmware.engine.events import BetRaise, CheckCall, Fold, Muck, Show
from firmware.engine.hand import Phase
from firmware.engine.showdown import auto_showdown_event
from firmware.hal.backends import build_devices
from firmware.i18n import tr
from firmware.protocol.auth import StaffDirectory, TerminalSecrets
from firmware.protocol.server import TableServer
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.views.narrate import narrate
from hal_sim.fakes import FakeShoe, default_card_tag

PLAYERS = ("Ana", "Bruno", "Carmen", "Diego", "Elena", "Fabio")

SIM_DEVICES: dict[str, dict[str, Any]] = {
    "shoe": {"kind": "shoe", "backend": "sim"},
    "trays": {"kind": "trays", "backend": "sim", "zones": ["bank", "pot"]},
    "buttons": {
        "kind": "buttons",
        "backend": "sim",
        "buttons": ["dealer.misdeal", "dealer.pause"],
        "leds": [f"seat{i}.{what}" for i in range(1, 7) for what in ("turn", "button")],
    },
    "readers": {"kind": "readers", "backend": "sim", "readers": ["console"]},
}
"""The simulated devices of ``make run``, as a ``[devices]`` configuration section."""


def screens_wanted(env: Mapping[str, str] | None = None) -> bool:
    """Whether :func:`run_sim` opens the screens: forced by ``POKERTABLE_SCREENS``
    (``1``/``0``), otherwise when a display is available outside pytest and CI."""
    env = os.environ if env is None else env
    forced = env.get("POKERTABLE_SCREENS", "").strip()
    if forced:
        return forced not in ("0", "no", "false")
    if env.get("PYTEST_CURRENT_TEST") or env.get("CI"):
        return False
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


@dataclass(frozen=True)
class Pace:
    """Seconds the simulated table waits before each kind of step with screens open,
    so a person can follow it (all zero: as fast as possible, for tests)."""

    card: float = 0.15
    bot: float = 0.9
    between_hands: float = 2.5
    waiting: float = 0.1
    """How often to look again while the person at the screen is to act."""
    showdown: float = 12.0
    """How long the person may take to show or muck before the dealer tables the hand."""


FAST = Pace(0.0, 0.0, 0.0, 0.01, 0.0)
"""No pauses: the screens mode as fast as the table goes (tests)."""


class Terminal(Protocol):
    """A screen started for a run: a ``pokertable screen`` process, or a test's stand-in."""

    def poll(self) -> int | None:
        """``None`` while the screen is open, then its exit code (0: closed by its user)."""

    def stop(self) -> int | None:
        """Close the screen and return its exit code."""


Launcher = Callable[[str, str], Terminal]
"""Starts the screen of one terminal (``seat1``, ``console``) from a configuration file."""


class ScreenProcess:
    """A ``pokertable screen`` subprocess reading its socket and secret from ``config``.

    The secret travels in a private file, not on the command line (where ``ps`` shows it).
    """

    POSITIONS: ClassVar[dict[str, str]] = {"console": "860,40"}
    """Where each window opens (pygame's ``SDL_VIDEO_WINDOW_POS``): side by side."""

    def __init__(self, terminal: str, config: str, lang: str = "es") -> None:
        who = ["--console"] if terminal == "console" else ["--seat", terminal.removeprefix("seat")]
        env = dict(os.environ, PYGAME_HIDE_SUPPORT_PROMPT="1")
        env["SDL_VIDEO_WINDOW_POS"] = self.POSITIONS.get(terminal, "40,40")
        command = [sys.executable, "-m", "firmware.cli.main", "screen", *who]
        self.process = subprocess.Popen(
            [*command, "--config", config, "--lang", lang], env=env, stdout=subprocess.DEVNULL
        )

    def poll(self) -> int | None:
        """``None`` while the window is open, then the exit code."""
        return self.process.poll()

    def stop(self, timeout: float = 5.0) -> int | None:
        """Ask the screen to close (SIGTERM closes it like its close button); kill it if it
        does not within ``timeout`` seconds."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


class SimulatedTable:
    """A table of bots on simulated devices, run by the real controller.

    :param seed: Seed for a reproducible run (the shoe and the bots); ``None``
        shuffles with the cryptographic random source.
    :param say: Where each finished hand's lines go.
    :param human: A seat a person plays from its screen: the bots do not act for it
        and the hand waits for its action (see :meth:`run_with_screens`).
    """

    def __init__(
        self,
        seed: int | None = None,
        lang: str = "es",
        say: Callable[[str], None] = print,
        profile: str = "home",
        human: int | None = None,
    ) -> None:
        self.rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()
        self.lang = lang
        self.say = say
        config = TableConfig(profile, profile_options(profile), Stakes(small_blind=1, big_blind=2))
        self.table = Table(config, deck_ready=True)
        devices = build_devices(SIM_DEVICES)
        shoe = devices["shoe"]
        assert isinstance(shoe, FakeShoe)
        shoe._rng = self.rng  # the simulated dealer's shuffles follow the run's seed
        self.shoe = shoe
        registry = TagRegistry(":memory:")
        registry.learn_deck([default_card_tag(c) for c in range(52)], order=list(range(52)))
        self.controller = Controller(self.table, devices, registry)
        self.bot = RandomBot(self.rng)
        self.buy_in = 200
        self.rebuys = 0
        self.human = human
        self.waiting_for_human = threading.Event()
        """Set while the hand waits for the person's action (tests watch it)."""
        self.showdown_patience = 0.0
        """Seconds the person may take to show or muck before the dealer does it for them."""
        self._showdown_since: float | None = None
        for seat, name in enumerate(PLAYERS, start=1):
            self.controller.apply(te.SitDown(seat, name, self.buy_in))
        self.table.hand_listeners.append(self._told)

    def _told(self, record: dict[str, Any], hand: Any) -> None:
        for line in narrate(record, self.lang):
            self.say(line)
        self.say("")

    def step(self) -> str:
        """Do what the dealer or the player to act would do next; return what it was
        (``shuffle``, ``card``, ``bot``, ``showdown``, ``wait`` for the person, ``none``)."""
        table, ctl = self.table, self.controller
        th = table.hand
        self.waiting_for_human.clear()
        if th is None:
            for number, sitting in table.seating.seats.items():
                if sitting.busted and not sitting.rebuy:
                    ctl.apply(te.Rebuy(number, self.buy_in))
                    self.rebuys += 1
                    self.say(
                        "  " + tr("table.rebuy", self.lang, name=sitting.player, amount=self.buy_in)
                    )
            self.shoe.load()  # the dealer shuffles a fresh deck into the shoe
            ctl.apply(te.Shuffle())
            ctl.apply(te.Cut())
            return "shuffle"
        role, _ = th.next_card_role()
        if role != "none":
            self.shoe.draw(1)  # the read reaches the controller through its queue
            return "card"
        hand = th.hand
        if hand.phase is Phase.BETTING and hand.actor is not None:
            seat = th.seat(hand.actor)
            if seat == self.human:
                self.waiting_for_human.set()
                return "wait"  # the person acts from the seat screen
            event = self.bot.decide(hand.legal_actions())
            if isinstance(event, Fold):
                ctl.apply(te.Act(seat, "fold"))
            elif isinstance(event, CheckCall):
                ctl.apply(te.Act(seat, "call" if hand.legal_actions().call_amount else "check"))
            else:
                assert isinstance(event, BetRaise)
                ctl.apply(te.Act(seat, "raise", event.to))
            return "bot"
        if hand.phase is Phase.SHOWDOWN:
            shown = auto_showdown_event(hand)
            assert isinstance(shown, Show | Muck)
            seat = th.seat(shown.player)
            if seat == self.human and self._patient():
                self.waiting_for_human.set()
                return "wait"  # the person may show or muck from the screen
            self._showdown_since = None
            if isinstance(shown, Show):
                ctl.apply(te.ShowCards(seat, shown.cards))
            else:
                ctl.apply(te.MuckCards(seat))
            return "showdown"
        return "none"

    def _patient(self) -> bool:
        """Whether to keep waiting for the person's show or muck (then the dealer tables
        the hand as the rules would)."""
        now = time.monotonic()
        if self._showdown_since is None:
            self._showdown_since = now
        return now - self._showdown_since < self.showdown_patience

    def run(self, hands: int) -> bool:
        """Play ``hands`` hands through the controller loop; True if chips were conserved."""
        ctl = self.controller
        ctl.start()
        target = len(self.table.records) + hands

        def again() -> None:
            if len(self.table.records) < target:
                self.step()
                ctl.call_soon(again)

        ctl.call_soon(again)
        try:
            ctl.run(until=lambda: len(self.table.records) >= target)
        finally:
            ctl.shutdown()
        return self._summary(hands)

    @staticmethod
    def _await_screens(
        server: TableServer, terminals: list[Terminal], names: list[str], timeout: float = 30.0
    ) -> None:
        """Wait until each screen has said hello (or has exited), so the first hand is not
        dealt before the windows are open; after ``timeout`` seconds, play on regardless."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with server._clients_lock:  # the server's own lock for its client table
                connected = {c.terminal for c in server.clients.values()}
            pending = [
                n
                for n, t in zip(names, terminals, strict=True)
                if n not in connected and t.poll() is None
            ]
            if not pending:
                return
            time.sleep(0.05)

    def _summary(self, hands: int) -> bool:
        chips = sum(s.stack + s.rebuy for s in self.table.seating.seats.values())
        ok = chips == self.buy_in * (len(PLAYERS) + self.rebuys)
        self.say(tr("table.summary", self.lang, hands=hands, chips=chips, ok=ok))
        return ok

    def run_with_screens(
        self,
        hands: int,
        launch: Launcher | None = None,
        pace: Pace = Pace(),
        linger: float = 0.0,
    ) -> bool:
        """Play up to ``hands`` hands with the console and the seat screen of
        :attr:`human` connected over the table protocol; True if chips were conserved.

        The run ends when the hands are played, or after the current hand once the seat
        window is closed (a bot finishes it). The screens are closed at the end, after
        ``linger`` seconds to see the last hand.

        :param launch: Starts a terminal's screen (default: a ``pokertable screen`` process).
        :param pace: Pauses between steps, so a person can follow the table.
        """
        human = self.human
        if human is None:
            raise ValueError("run_with_screens needs the seat a person plays (human=...).")
        if launch is None:
            lang = self.lang
            launch = lambda terminal, config: ScreenProcess(terminal, config, lang)  # noqa: E731
        ctl = self.controller
        self.showdown_patience = pace.showdown
        directory = tempfile.mkdtemp(prefix="pokertable-")  # mode 0700: ours only
        socket_path = os.path.join(directory, "table.sock")
        seat_terminal = f"seat{human}"
        keys = {name: secrets.token_urlsafe(24) for name in (seat_terminal, "console")}
        config = os.path.join(directory, "screens.toml")
        fd = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(f"[server]\nsocket = {json.dumps(socket_path)}\n\n[terminals]\n")
            handle.writelines(f"{name} = {json.dumps(key)}\n" for name, key in keys.items())
        server = TableServer(ctl, TerminalSecrets(keys), StaffDirectory(), unix_path=socket_path)
        terminals: list[Terminal] = []
        timer: threading.Timer | None = None
        first = len(self.table.records)
        target = first + hands

        def played() -> bool:
            return len(self.table.records) >= target

        def again() -> None:
            nonlocal timer, target
            if played():
                return
            if self.human is not None and terminals and (code := terminals[0].poll()) is not None:
                if code == 0:  # closed by the person: end after this hand
                    target = min(target, len(self.table.records) + (self.table.hand is not None))
                    self.say(tr("sim.screens.closed", self.lang, seat=human))
                else:
                    self.say(tr("sim.screens.failed", self.lang, seat=human, code=code))
                self.human = None
                if played():
                    return
            what = self.step()
            delay = {
                "card": pace.card,
                "bot": pace.bot,
                "showdown": pace.bot,
                "shuffle": pace.between_hands,
                "wait": pace.waiting,
            }.get(what, 0.0)
            if delay <= 0:
                ctl.call_soon(again)
            else:
                timer = threading.Timer(delay, ctl.call_soon, (again,))
                timer.daemon = True
                timer.start()

        try:
            ctl.start()
            server.start()
            terminals.append(launch(seat_terminal, config))
            terminals.append(launch("console", config))
            self._await_screens(server, terminals, [seat_terminal, "console"])
            name = self.table.seating.seats[human].player
            self.say(tr("sim.screens.start", self.lang, seat=human, name=name))
            ctl.call_soon(again)
            ctl.run(until=played)
            if linger > 0 and terminals[0].poll() is None:
                threading.Event().wait(linger)
        finally:
            if timer is not None:
                timer.cancel()
            for terminal in terminals:
                terminal.stop()
            server.stop()
            ctl.shutdown()
            self.human = human
            with contextlib.suppress(OSError):
                shutil.rmtree(directory)
        return self._summary(len(self.table.records) - first)


def run_sim(hands: int, lang: str = "es", seed: int | None = None) -> int:
    """Run the simulated table for ``hands`` hands and print them; 0 if chips were conserved.

    With a display (:func:`screens_wanted`) seat 1 is played from its seat screen and the
    dealer console is open; without one the bots play every seat.
    """
    if screens_wanted():
        table = SimulatedTable(seed=seed, lang=lang, human=1)
        ok = table.run_with_screens(hands, linger=5.0)
    else:
        ok = SimulatedTable(seed=seed, lang=lang).run(hands)
    sys.stdout.flush()
    return 0 if ok else 1
