"""Simulated tables for the floor: the real controller, journal and floor link, bots and a
virtual deck, several tables in one process.

Each :class:`SimTable` is a real :class:`~firmware.service.controller.Controller`
(without devices) owning a real :class:`~firmware.table.table.Table`, a real
journal on disk and, when a floor is configured, a real
:class:`~firmware.service.floorlink.FloorLink`. A simulated dealer shuffles a
virtual deck and deals; bots act through the engine's legal actions. The
floor's commands reach the table through the link exactly as on a real table.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from firmware.engine.bots import RandomBot
from firmware.engine.events import BetRaise, CheckCall, Fold, Muck, Show
from firmware.engine.hand import Phase
from firmware.engine.showdown import auto_showdown_event
from firmware.service.controller import Controller
from firmware.service.controller_state import Alert
from firmware.service.floorlink import FloorLink
from firmware.service.floorwire import FloorConfig
from firmware.service.journal import Journal
from firmware.service.recovery import restore, schedule_entries, store_table_setup
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.table.tournament import LevelSchedule

log = logging.getLogger(__name__)

DEMO_LEVELS: list[dict[str, Any]] = [
    {"small_blind": 25, "big_blind": 50, "minutes": 1},
    {"small_blind": 50, "big_blind": 100, "minutes": 1},
    {"small_blind": 100, "big_blind": 200, "ante": 200, "big_blind_ante": True, "minutes": 1},
    {"break_minutes": 1},
    {"small_blind": 200, "big_blind": 400, "ante": 400, "big_blind_ante": True, "minutes": 1},
    {"small_blind": 400, "big_blind": 800, "ante": 800, "big_blind_ante": True, "minutes": 1},
    {"small_blind": 1000, "big_blind": 2000, "ante": 2000, "big_blind_ante": True, "minutes": 1},
    {"small_blind": 2500, "big_blind": 5000, "ante": 5000, "big_blind_ante": True, "minutes": 60},
]
"""A fast blind structure for demonstrations and tests (one-minute levels)."""


class Pacer:
    """One thread that wakes simulated tables when their next step is due.

    A paced table does not sleep on its controller's thread (the floor's
    commands would wait behind the sleep): it asks the pacer to queue its next
    step on that thread after a delay. One pacer serves every table of a
    process, so a process of many slow tables needs one extra thread, not one
    per table. A step that raises is logged and the pacer goes on with the
    others: one table's fault never stops the other tables of the process.
    """

    def __init__(self) -> None:
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._count = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def later(self, delay: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` (on the pacer's thread) after ``delay`` seconds."""
        with self._cond:
            heapq.heappush(self._due, (time.monotonic() + delay, next(self._count), fn))
            self._cond.notify()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pacer", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._due or self._due[0][0] > time.monotonic():
                    wait = self._due[0][0] - time.monotonic() if self._due else None
                    self._cond.wait(wait)
                _, _, fn = heapq.heappop(self._due)
            try:
                fn()
            except Exception:  # one step's fault must not stop every paced table
                log.exception("A paced step failed; the pacer goes on with the other tables.")


PACER = Pacer()
"""The process's pacer (its thread starts with the first paced step)."""

WAIT = 0.05
"""Seconds a table with nothing to deal waits before it looks again."""
STEP_FAILED_KEY = "alert.sim_step_failed"
"""The catalog key of the alert a failed step raises."""


class SimTable:
    """One simulated table with its own journal, optionally linked to a floor.

    :param table_id: The table's id on the floor.
    :param data_dir: Its own data folder (journal, link cursor).
    :param floor: The ``[floor]`` set-up, or ``None`` for a table on its own.
    :param seats: Seats at the table (2-10).
    :param levels: Blind levels (a tournament table) or ``None`` (cash, 1/2).
    :param seed: Seed of the deck and the bots.
    :param pace: Mean seconds between the dealer's and the bots' steps (0: as fast as
        possible; about 1.0: a human table, one card or action a second). Each wait
        is drawn between half and one and a half times the mean.
    """

    def __init__(
        self,
        table_id: str,
        data_dir: str,
        floor: FloorConfig | None = None,
        seats: int = 9,
        levels: list[dict[str, Any]] | None = None,
        seed: int | None = None,
        pace: float = 0.0,
    ) -> None:
        os.makedirs(data_dir, exist_ok=True)
        self.table_id = table_id
        self.rng = random.Random(seed) if seed is not None else random.SystemRandom()
        self.pace = pace
        self._jitter = random.Random(seed)
        profile = "tda-tournament" if levels is not None else "home"
        options = profile_options(profile, max_seats=seats)
        config = TableConfig(profile, options, Stakes(small_blind=1, big_blind=2))
        schedule = None
        if levels is not None:
            schedule = LevelSchedule.from_dicts(levels)
        self.journal = Journal(os.path.join(data_dir, "journal.sqlite"))
        self.restored = self.journal.meta("table") is not None
        """The table was rebuilt from a journal already in ``data_dir`` (a restarted room
        goes on where it was; its own set-up, not the arguments, holds then)."""
        if self.restored:
            self.table = restore(self.journal)
        else:
            store_table_setup(self.journal, config, True, schedule_entries(schedule))
            self.table = Table(config, deck_ready=True, schedule=schedule)
        self.controller = Controller(self.table, {}, TagRegistry(":memory:"), journal=self._journal)
        self.link: FloorLink | None = None
        if floor is not None:
            self.link = FloorLink(
                floor,
                self.journal.path,
                data_dir,
                self.table,
                self.controller.submit,
                self.controller.call_soon,
                self.controller.table_time,
            )
            self.controller.listeners.append(self.link.after_event)
            self.link.watch(self.controller.alerts, self.controller.state.faults)
            self.link.on_deal = self._deal
        self.bot = RandomBot(self.rng)
        self.buy_in = 200
        """A cash table's rebuy after a player busts."""
        self.deck: list[int] = self._rest_of_deck()
        """The virtual shoe: cards not yet drawn in the hand being played."""
        self.dealing = threading.Event()
        """Set while the dealer deals hands (cleared: the table waits, e.g. hand-for-hand)."""
        self.dealing.set()
        self.hands_to_play: int | None = None
        """Stop dealing after this many more hands (``None``: no limit)."""
        self._thread: threading.Thread | None = None
        self.running = False
        """Whether the dealer and the bots play (between :meth:`start` and :meth:`stop`)."""
        self.fault = ""
        """The last step's error, while steps keep failing ("" when the last one worked)."""
        self.faults = 0
        """Steps that raised (each reported; the table goes on trying)."""

    def _rest_of_deck(self) -> list[int]:
        """The cards a restored hand has not drawn yet, shuffled (none between hands)."""
        th = self.table.hand
        if th is None:
            return []
        seen = {d.card for d in th.draws}
        deck = [card for card in range(52) if card not in seen]
        self.rng.shuffle(deck)
        return deck

    def _journal(self, event: te.TableEvent) -> None:
        self.journal.append(event)
        if self.link is not None:
            self.link.wake()

    def _deal(self, hands: int | None) -> None:
        self.hands_to_play = hands

    # ------------------------------------------------------------ set-up (before start)

    def seat(self, players: Mapping[int, tuple[str, int]]) -> None:
        """Seat players directly (a table without a floor); on the table's thread."""
        for seat, (name, chips) in players.items():
            self.controller.apply(te.SitDown(seat, name, chips))

    # ------------------------------------------------------------ the dealer and the bots

    def step(self) -> str:
        """The dealer's or a bot's next move: ``shuffle``, ``card``, ``bot``, ``showdown``,
        ``wait`` (nobody to deal to, dealing held, or a tournament break) or ``none``."""
        table, ctl = self.table, self.controller
        th = table.hand
        if th is None:
            if table.levels is None:  # a cash table: the busted buy again
                for number, sitting in table.seating.seats.items():
                    if sitting.busted and not sitting.rebuy:
                        ctl.apply(te.Rebuy(number, self.buy_in))
            # A rebuy waiting for the next hand counts (it joins the stack when the hand
            # starts): a busted player who bought again is dealt in, or a table where one
            # player won every chip would wait for ever.
            live = [
                s
                for s in table.seating.seats.values()
                if s.stack + s.rebuy > 0 and not s.sitting_out
            ]
            if len(live) < 2 or not self.dealing.is_set() or self.hands_to_play == 0:
                return "wait"
            levels = table.levels
            if (
                levels is not None
                and levels.started_at is not None
                and levels.current(table.now).on_break
            ):
                # The dealer reads the clock: no shuffle the table would refuse (TDA-17),
                # and no refusal alert for the floor every WAIT seconds of the break.
                return "wait"
            self.deck = list(range(52))
            self.rng.shuffle(self.deck)
            if not ctl.apply(te.Shuffle()):
                return "wait"
            ctl.apply(te.Cut())
            if self.hands_to_play is not None:
                self.hands_to_play -= 1
            return "shuffle"
        role, _ = th.next_card_role()
        if role != "none":
            seen = {d.card for d in th.draws}
            card = next(c for c in self.deck if c not in seen)
            self.deck.remove(card)
            ctl.apply(te.CardDrawn(card))
            return "card"
        hand = th.hand
        if hand.phase is Phase.BETTING and hand.actor is not None:
            seat = th.seat(hand.actor)
            legal = hand.legal_actions()
            event = self.bot.decide(legal)
            if isinstance(event, Fold):
                ctl.apply(te.Act(seat, "fold"))
            elif isinstance(event, CheckCall):
                ctl.apply(te.Act(seat, "call" if legal.call_amount else "check"))
            else:
                assert isinstance(event, BetRaise)
                ctl.apply(te.Act(seat, "raise", event.to))
            return "bot"
        if hand.phase is Phase.SHOWDOWN:
            shown = auto_showdown_event(hand)
            assert isinstance(shown, Show | Muck)
            seat = th.seat(shown.player)
            if isinstance(shown, Show):
                ctl.apply(te.ShowCards(seat, shown.cards))
            else:
                ctl.apply(te.MuckCards(seat))
            return "showdown"
        return "none"

    # ------------------------------------------------------------ running

    def start(self) -> None:
        """Run the table on its own thread (and its floor link)."""
        if self.link is not None:
            self.link.start()
        self.controller.start()
        self.running = True

        def again() -> None:
            try:
                what = self.step()
            except Exception as exc:  # reported, then tried again: never a silent stop
                self._step_failed(exc)
                what = "wait"
            else:
                self.fault = ""
            if what in ("wait", "none"):
                PACER.later(WAIT, queue)  # nothing to do: commands and ticks go on meanwhile
            elif self.pace:
                PACER.later(self.pace * self._jitter.uniform(0.5, 1.5), queue)
            else:
                queue()

        def queue() -> None:
            if self.running:
                self.controller.call_soon(again)

        self.controller.call_soon(again)
        self._thread = threading.Thread(
            target=self.controller.run, name=f"table-{self.table_id}", daemon=True
        )
        self._thread.start()

    def _step_failed(self, exc: Exception) -> None:
        """A step of the dealer or a bot raised: log it and alert the table's console (and
        through the link the floor), once per distinct fault while it lasts; the table
        looks again after :data:`WAIT` (the floor's commands may have changed things)."""
        self.faults += 1
        error = f"{type(exc).__name__}: {exc}"
        if error == self.fault:
            return
        self.fault = error
        log.error(
            "The simulated table %s failed a step (%s); it tries again.",
            self.table_id,
            error,
            exc_info=exc,
        )
        self.controller.alerts.append(
            Alert(
                self.controller.table_time(),
                f"The simulated table {self.table_id} failed a step ({error}); it tries "
                "again. Report this fault with the log.",
                None,
                STEP_FAILED_KEY,
                {"table": self.table_id, "error": error},
            )
        )

    def stop(self) -> None:
        """Stop the table (the journal keeps everything) and its link."""
        self.running = False
        self.controller.stop()
        if self._thread is not None:
            self._thread.join(30)
        if self.link is not None:
            self.link.stop()
        self.controller.shutdown()
        self.journal.close()

    def chips(self) -> int:
        """Chips at the table now (stacks, plus the pot of a hand in play)."""
        total = sum(s.stack for s in self.table.seating.seats.values())
        th = self.table.hand
        if th is not None:
            total = sum(th.hand.stacks) + th.hand.pot_total
            seated = set(th.plan.seats)
            total += sum(s.stack for n, s in self.table.seating.seats.items() if n not in seated)
        return total
