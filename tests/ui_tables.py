"""Real tournament tables for the screen tests: set up and played with the table's events.

The screenshots (``test_ui_game_screens.py``) and the Spanish walk of every
page (``test_ui_spanish.py``) render the views the firmware computes for a
real table; both need a ``tda-tournament`` table with two levels around a
break, a controller, cards dealt in order from card 0, and a hand played to
its end (checking or calling, the showdown's cards shown in the order the
rules ask).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from firmware.hal import Device
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.table.tournament import LevelSchedule
from firmware.views.rules import to_show


class TournamentRun:
    """A ``tda-tournament`` table at ``small``/``big`` for 20 minutes, a 10-minute break,
    then twice the blinds for 20 minutes; with a tag registry and a controller.

    :param options: house options over the profile's (``action_timer_seconds=30``...).
    :param devices: the controller's devices (none: a table without hardware).
    """

    def __init__(
        self,
        small: int,
        big: int,
        devices: Mapping[str, Device] | None = None,
        **options: Any,
    ) -> None:
        schedule = LevelSchedule.from_dicts(
            [
                {"small_blind": small, "big_blind": big, "minutes": 20},
                {"break_minutes": 10},
                {"small_blind": 2 * small, "big_blind": 2 * big, "minutes": 20},
            ]
        )
        config = TableConfig(
            "tda-tournament",
            profile_options("tda-tournament", **options),
            Stakes(small_blind=small, big_blind=big),
        )
        self.table = Table(config, deck_ready=True, schedule=schedule)
        self.registry = TagRegistry(":memory:")
        self.controller = Controller(
            self.table, dict(devices or {}), self.registry, tick_seconds=3600
        )
        self.card = 0

    def draw(self) -> None:
        """The next card (0, 1, 2...) comes out of the shoe."""
        self.table.apply(te.CardDrawn(self.card))
        self.card += 1

    def play_out(self, stop_at_showdown: bool = False) -> None:
        """Play the hand to its end: each player checks or calls, cards are drawn as the
        hand asks, and at the showdown each hand is shown in the rules' order (or stop
        there)."""
        while self.table.hand is not None:
            th = self.table.hand
            if th.hand.actor is not None and th.hand.phase.value == "betting":
                seat = th.seat(th.hand.actor)
                legal = th.hand.legal_actions()
                self.table.apply(te.Act(seat, "check" if legal.can_check else "call"))
            elif th.hand.phase.value == "showdown":
                if stop_at_showdown:
                    return
                seat = to_show(th)
                assert seat is not None
                cards = tuple(c for c in th.hand.hole[th.position(seat)] if c is not None)
                self.table.apply(te.ShowCards(seat, cards))
            else:
                self.draw()

    def close(self) -> None:
        """Close the tag registry."""
        self.registry.close()
