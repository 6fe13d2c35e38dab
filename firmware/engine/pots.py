"""Main and side pots, and how each pot is split.

Pure functions over contribution lists, so the rules can be read and tested
apart from the hand's state machine.

Contributions come in two kinds. *Matched* chips (uniform antes, blinds,
bets) build pots by levels: a player who put in ``L`` chips can win at most
``L`` from each opponent (HG-1, HG-2, HG-3, HG-18). *Dead* chips (a dead
small blind, a big-blind ante) go straight into the main pot, which every
live player can win.

>>> pots = build_pots([100, 300, 300], dead=0, live=[True, True, True])
>>> [(p.amount, p.eligible) for p in pots]
[(300, (0, 1, 2)), (400, (1, 2))]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from firmware.engine.rules import OddChips


@dataclass(frozen=True)
class Pot:
    """One pot: its amount and the players who may win it (position indices)."""

    amount: int
    eligible: tuple[int, ...]

    def __init__(self, amount: int, eligible: tuple[int, ...]) -> None:
        # Spelled out so that the compiled build compiles it (see firmware.engine.events).
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "eligible", eligible)


def build_pots(matched: Sequence[int], dead: int, live: Sequence[bool]) -> list[Pot]:
    """Build the main pot and side pots of any depth.

    :param matched: Total matched chips each player put in during the hand.
    :param dead: Dead money (a dead small blind, big-blind antes).
    :param live: Whether each player still holds a hand (not folded).
    :return: The pots from the main pot outwards. Each level of a live
        player's contribution closes a pot; every player, folded or not,
        pays into each pot up to that level; each pot's eligible players are
        a strict part of the one before. Dead money goes to a pot every live
        player can win: it joins the first level's pot, unless a live player
        matched nothing (all-in from dead money alone), in which case it is
        the main pot on its own.

    >>> [(p.amount, p.eligible) for p in build_pots([0, 5, 5], dead=2, live=[True] * 3)]
    [(2, (0, 1, 2)), (10, (1, 2))]
    """
    n = len(matched)
    live_players = [i for i in range(n) if live[i]]
    live_levels = {matched[i] for i in live_players}
    if len(live_levels) == 1:
        # Every live player matched the same amount (no side pot, the usual case):
        # one pot of everything, which every live player can win. The general
        # reading below gives the same (matched chips are never negative).
        amount = sum(matched) + dead
        return [Pot(amount, tuple(live_players))] if amount else []
    cap = max(live_levels, default=0)
    levels = sorted(live_levels - {0})
    ordered = sorted(matched)
    top = ordered[-1] if n else 0
    if top > cap:
        # Chips above the highest live level (a killed hand's bet, which is
        # not returned) still belong to the highest pot, which the live
        # players at that level can win.
        if levels:
            levels[-1] = top
        else:
            levels = [top]
    pots: list[Pot] = []
    if dead and (not levels or 0 in live_levels):
        pots.append(Pot(dead, tuple(live_players)))
        dead = 0
    # A pot from the level before to ``level`` holds what every player put in
    # between the two: F(level) - F(before), where F(x) = sum(min(c, x) for c in
    # matched), walked up the contributions in order (F(0) is 0).
    k = 0
    below = 0  # the contributions under the level reached
    taken = 0  # F(the level before)
    for level in levels:
        while k < n and ordered[k] < level:
            below += ordered[k]
            k += 1
        reached = below + level * (n - k)
        amount = reached - taken
        taken = reached
        bar = level if level < cap else cap
        # Each pot's eligible players are fewer than the one before: a level below
        # the cap is some live player's whole contribution (he is eligible here, not
        # above), and the dead-money pot holds a live player who matched nothing.
        # So two pots never have the same eligible players and none is merged.
        eligible = tuple([i for i in live_players if matched[i] >= bar])
        pots.append(Pot(amount + dead, eligible))
        dead = 0
    return pots


def split_pot(
    amount: int,
    winners: Sequence[int],
    chip_unit: int,
    odd_chips: OddChips = OddChips.FIRST_LEFT_OF_BUTTON,
) -> dict[int, int]:
    """Split ``amount`` between ``winners`` (TDA-3, TDA-4).

    The pot is divided in units of the smallest chip in play. Leftover units
    (and any amount smaller than one unit) go to the first winner to the left
    of the button, that is the winner with the lowest position index; with
    :attr:`OddChips.ONE_EACH_FROM_BUTTON` one unit each goes to successive
    winners from there.

    >>> split_pot(125, [2, 0], chip_unit=25)
    {0: 75, 2: 50}
    >>> split_pot(100, [0, 1, 2], chip_unit=25, odd_chips=OddChips.ONE_EACH_FROM_BUTTON)
    {0: 50, 1: 25, 2: 25}
    """
    order = sorted(set(winners))
    if not order:
        raise ValueError("A pot needs at least one winner to be split.")
    units, below_unit = divmod(amount, chip_unit)
    each, left_over = divmod(units, len(order))
    shares = {player: each * chip_unit for player in order}
    if odd_chips is OddChips.FIRST_LEFT_OF_BUTTON:
        shares[order[0]] += left_over * chip_unit
    else:
        for player in order[:left_over]:
            shares[player] += chip_unit
    shares[order[0]] += below_unit
    return shares
