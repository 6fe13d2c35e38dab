"""Simple automatic players for simulation and demos.

A bot picks among the legal actions the engine offers, with a seeded or
cryptographic random source. It never sees anything but its own cards and
public information: it decides from :class:`~firmware.engine.betting.LegalActions`
and the strength class of its own hand.
"""

from __future__ import annotations

import random

from firmware.engine.betting import LegalActions
from firmware.engine.events import BetRaise, CheckCall, Event, Fold


class RandomBot:
    """A loose, unpredictable player: mostly checks and calls, sometimes raises.

    :param rng: The random source for its decisions.
    :param aggression: Probability of raising when raising is allowed.
    :param looseness: Probability of calling (rather than folding) a bet.
    """

    def __init__(self, rng: random.Random, aggression: float = 0.2, looseness: float = 0.7) -> None:
        self._rng = rng
        self.aggression = aggression
        self.looseness = looseness

    def decide(self, legal: LegalActions) -> Event:
        """Return the bot's action for the player to act."""
        rng = self._rng
        low, high = legal.min_raise_to, legal.max_raise_to
        if low is not None and high is not None and rng.random() < self.aggression:
            to = low if rng.random() < 0.6 else rng.randint(low, high)
            return BetRaise(legal.player, to)
        if legal.can_check or rng.random() < self.looseness:
            return CheckCall(legal.player)
        return Fold(legal.player)
