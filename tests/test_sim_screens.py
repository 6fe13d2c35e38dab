"""``make run`` with a display: the simulated table served to a seat screen and the console.

Headless here: SDL's dummy video driver, ``POKERTABLE_SCREENS=1``. The person at
seat 1 is either a scripted client on the real socket (it folds or calls when the
seat is to act) or the real ``pokertable screen`` process, closed mid-hand.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import tomllib
from collections.abc import Callable
from typing import Any

import pytest

from firmware.protocol.client import ClientClosed, TableClient
from hal_sim.sim_table import FAST, ScreenProcess, SimulatedTable, Terminal, screens_wanted

HUMAN = 1


@pytest.fixture(autouse=True)
def _headless_screens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("POKERTABLE_SCREENS", "1")


class ScriptedPlayer:
    """Seat 1's person, scripted: on the real socket, folds or calls (checks) on its turn."""

    def __init__(self, terminal: str, config: str, seed: int = 5) -> None:
        with open(config, "rb") as handle:
            data = tomllib.load(handle)
        self.client = TableClient.unix(data["server"]["socket"])
        self.client.hello(terminal, data["terminals"][terminal], "en")
        self.rng = random.Random(seed)
        self.acted: list[str] = []
        self.refused: list[dict[str, Any]] = []
        self.views = 0
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._play, daemon=True)
        self._thread.start()

    def _play(self) -> None:
        done: tuple[Any, ...] = ()
        while not self._stopped.is_set():
            try:
                message = self.client.recv(timeout=0.2)
            except TimeoutError:
                continue
            except (ClientClosed, OSError):
                return
            if message["type"] == "refused":
                self.refused.append(message)
            if message["type"] != "view":
                continue
            self.views += 1
            legal, table = message.get("legal"), message["table"]
            turn = (table["hand"], table["street"], table["pot_total"])
            if not legal or table["actor"] != HUMAN or turn == done:
                continue
            done = turn  # one decision per turn, however many views show it
            if legal.get("check"):
                act = {"type": "act", "action": "check"}
            elif legal.get("call") and self.rng.random() < 0.6:
                act = {"type": "act", "action": "call", "amount": legal["call"]}
            else:
                act = {"type": "act", "action": "fold"}
            self.acted.append(act["action"])
            self.client.send(act)

    def poll(self) -> int | None:
        """Open until stopped (the person never closes the window)."""
        return 0 if self._stopped.is_set() else None

    def stop(self) -> int | None:
        """Leave the table."""
        self._stopped.set()
        self._thread.join(5)
        self.client.close()
        return 0


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Poll ``condition`` until it holds (a hang guard, not a timing check)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def catches_sigterm(pid: int) -> bool:
    """Whether process ``pid`` has a SIGTERM handler (the screen's run loop is up)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return False


def test_screens_are_wanted_with_a_display_but_not_under_pytest_or_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert screens_wanted({"DISPLAY": ":0"})
    assert screens_wanted({"WAYLAND_DISPLAY": "wayland-0"})
    assert not screens_wanted({})
    assert not screens_wanted({"DISPLAY": ":0", "PYTEST_CURRENT_TEST": "t"})
    assert not screens_wanted({"DISPLAY": ":0", "CI": "true"})
    assert screens_wanted({"POKERTABLE_SCREENS": "1", "CI": "true"})
    assert not screens_wanted({"POKERTABLE_SCREENS": "0", "DISPLAY": ":0"})
    monkeypatch.delenv("POKERTABLE_SCREENS")
    monkeypatch.setenv("DISPLAY", ":0")
    assert not screens_wanted()  # this test run: pytest, even with a display


def test_a_scripted_person_at_seat_1_plays_through_the_socket_with_the_console_open() -> None:
    started: dict[str, Any] = {}

    def launch(terminal: str, config: str) -> Terminal:
        assert os.stat(config).st_mode & 0o077 == 0  # the secrets are ours only
        if terminal == "console":
            console = ScreenProcess(terminal, config, "en")  # the real console
            assert wait_until(lambda: catches_sigterm(console.process.pid))  # its loop is up
            started[terminal] = console
        else:
            started[terminal] = ScriptedPlayer(terminal, config)
        return started[terminal]  # type: ignore[no-any-return]

    lines: list[str] = []
    sim = SimulatedTable(seed=11, lang="en", say=lines.append, human=HUMAN)
    assert sim.run_with_screens(6, launch=launch, pace=FAST)
    player, console = started["seat1"], started["console"]
    assert len(sim.table.records) == 6
    assert sum(1 for line in lines if line.startswith("Hand #")) == 6
    assert lines[-1].endswith("(conserved: True)")
    assert player.acted and not player.refused  # the person acted, always in turn
    # Seat 1's actions are exactly the person's: the bots never acted for it.
    seat1 = [a["action"] for r in sim.table.records for a in r["actions"] if a["seat"] == HUMAN]
    as_recorded = {"fold": "fold", "check": "check_call", "call": "check_call"}
    assert seat1 == [as_recorded[a] for a in player.acted]
    assert console.process.returncode == 0  # closed cleanly by SIGTERM, not killed
    assert sim.human == HUMAN


def test_closing_the_seat_window_ends_the_run_after_the_current_hand() -> None:
    started: dict[str, ScreenProcess] = {}

    def launch(terminal: str, config: str) -> Terminal:
        screen = started[terminal] = ScreenProcess(terminal, config, "en")
        assert wait_until(lambda: catches_sigterm(screen.process.pid))  # its loop is up
        return screen

    lines: list[str] = []
    sim = SimulatedTable(seed=4, lang="en", say=lines.append, human=HUMAN)
    result: list[bool] = []
    runner = threading.Thread(
        target=lambda: result.append(sim.run_with_screens(50, launch=launch, pace=FAST)),
        daemon=True,
    )
    runner.start()
    try:
        # The hand waits for seat 1, whose real screen is connected.
        assert sim.waiting_for_human.wait(60)
        seat = started["seat1"]
        assert seat.poll() is None
        assert seat.stop() == 0  # the window closes (SIGTERM acts as the close button)
    finally:
        runner.join(60)
        for screen in started.values():
            screen.stop()  # only if the run failed to close them
    assert not runner.is_alive()
    assert result == [True]  # chips conserved
    assert len(sim.table.records) == 1  # a bot finished that hand, then the run ended
    assert sim.table.hand is None
    assert "Seat 1 window closed: a bot finishes the hand." in lines
    assert started["console"].process.returncode == 0


def test_the_hand_waits_for_the_person_to_act_and_to_show_or_muck() -> None:
    from firmware.engine.hand import Phase
    from firmware.table import events as te

    sim = SimulatedTable(seed=2, lang="en", say=lambda line: None, human=HUMAN)
    sim.showdown_patience = 1e9  # the person takes their time at the showdown
    ctl = sim.controller
    ctl.start()
    seen: set[str] = set()
    try:
        while len(sim.table.records) < 30 and "showdown-wait" not in seen:
            what = sim.step()
            ctl.run_pending()
            hand = sim.table.hand
            if what != "wait":
                continue
            assert hand is not None and sim.waiting_for_human.is_set()
            if hand.hand.phase is Phase.SHOWDOWN:
                seen.add("showdown-wait")
                break
            seen.add("act-wait")
            actor = hand.hand.actor
            assert actor is not None and hand.seat(actor) == HUMAN  # nobody acted for seat 1
            legal = hand.hand.legal_actions()
            ctl.apply(te.Act(HUMAN, "call" if legal.call_amount else "check"))
        assert seen == {"act-wait", "showdown-wait"}
        sim.showdown_patience = 0.0  # time is up: the dealer tables the hand for them
        assert sim.step() == "showdown"
    finally:
        ctl.shutdown()
