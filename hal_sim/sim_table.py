"""The simulated table behind ``make run``: the real controller on simulated devices.

The table is driven exactly as on real hardware: a :class:`~firmware.controller.Controller`
owns a :class:`~firmware.table.table.Table` and the simulated devices
(:mod:`hal_sim.fakes`) chosen by configuration. A simulated dealer shuffles,
cuts and draws cards from the simulated shoe when the table asks for them;
bots at the seats act through the engine's legal actions; each finished
hand is printed in Spanish or English.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from firmware.bots import RandomBot
from firmware.controller import Controller
from firmware.events import BetRaise, CheckCall, Fold, Show
from firmware.hal.backends import build_devices
from firmware.hand import Phase
from firmware.i18n import tr
from firmware.narrate import narrate
from firmware.registry import TagRegistry
from firmware.showdown import auto_showdown_event
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
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


class SimulatedTable:
    """A table of bots on simulated devices, run by the real controller.

    :param seed: Seed for a reproducible run (the shoe and the bots); ``None``
        shuffles with the cryptographic random source.
    :param say: Where each finished hand's lines go.
    """

    def __init__(
        self,
        seed: int | None = None,
        lang: str = "es",
        say: Callable[[str], None] = print,
        profile: str = "home",
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
        for seat, name in enumerate(PLAYERS, start=1):
            self.controller.apply(te.SitDown(seat, name, self.buy_in))
        self.table.hand_listeners.append(self._told)

    def _told(self, record: dict[str, Any], hand: Any) -> None:
        for line in narrate(record, self.lang):
            self.say(line)
        self.say("")

    def step(self) -> None:
        """Do what the dealer or the player to act would do next."""
        table, ctl = self.table, self.controller
        th = table.hand
        if th is None:
            for number, seat in table.seating.seats.items():
                if seat.busted and not seat.rebuy:
                    ctl.apply(te.Rebuy(number, self.buy_in))
                    self.rebuys += 1
                    self.say(
                        "  " + tr("table.rebuy", self.lang, name=seat.player, amount=self.buy_in)
                    )
            self.shoe.load()  # the dealer shuffles a fresh deck into the shoe
            ctl.apply(te.Shuffle())
            ctl.apply(te.Cut())
            return
        role, _ = th.next_card_role()
        if role != "none":
            self.shoe.draw(1)  # the read reaches the controller through its queue
            return
        hand = th.hand
        if hand.phase is Phase.BETTING and hand.actor is not None:
            event = self.bot.decide(hand.legal_actions())
            seat = th.seat(hand.actor)
            if isinstance(event, Fold):
                ctl.apply(te.Act(seat, "fold"))
            elif isinstance(event, CheckCall):
                ctl.apply(te.Act(seat, "call" if hand.legal_actions().call_amount else "check"))
            else:
                assert isinstance(event, BetRaise)
                ctl.apply(te.Act(seat, "raise", event.to))
        elif hand.phase is Phase.SHOWDOWN:
            shown = auto_showdown_event(hand)
            seat = th.seat(shown.player)
            if isinstance(shown, Show):
                ctl.apply(te.ShowCards(seat, shown.cards))
            else:
                ctl.apply(te.MuckCards(seat))

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
        chips = sum(s.stack + s.rebuy for s in self.table.seating.seats.values())
        ok = chips == self.buy_in * (len(PLAYERS) + self.rebuys)
        self.say(tr("table.summary", self.lang, hands=hands, chips=chips, ok=ok))
        return ok


def run_sim(hands: int, lang: str = "es", seed: int | None = None) -> int:
    """Run the simulated table for ``hands`` hands and print them; 0 if chips were conserved."""
    ok = SimulatedTable(seed=seed, lang=lang).run(hands)
    sys.stdout.flush()
    return 0 if ok else 1
