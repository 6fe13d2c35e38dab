"""Main and side pots, and how each pot is split.

Pure functions over contribution lists, so the rules can be read and tested
apart from the hand's state machine.

Contributions come in two kinds. *Matched* chips (uniform antes, blinds,
bets) build pots by levels: a player who put in ``L`` chips can win at most
``L`` from each opponent (HG-1, HG-2, HG-3, HG-18). *Dead* chips (a dead
small blind, a big-blind ante) go straight into the main pot.

>>> pots = build_pots([100, 300, 300], dead=0, live=[True, True, True])
>>> [(p.amount, p.eligible) for p in pots]
[(300, (0, 1, 2)), (400, (1, 2))]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from firmware.rules import OddChips


@dataclass(frozen=True)
class Pot:
    """One pot: its amount and the players who may win it (position indices)."""

    amount: int
    eligible: tuple[int, ...]


def build_pots(matched: Sequence[int], dead: int, live: Sequence[bool]) -> list[Pot]:
    """Build the main pot and side pots of any depth.

    :param matched: Total matched chips each player put in during the hand.
    :param dead: Dead money, added to the main pot.
    :param live: Whether each player still holds a hand (not folded).
    :return: The pots from the main pot outwards. Each level of a live
        player's contribution closes a pot; every player, folded or not,
        pays into each pot up to that level. Adjacent levels with the same
        eligible players are one pot.
    """
    levels = sorted({matched[i] for i in range(len(matched)) if live[i] and matched[i] > 0})
    top = max(matched, default=0)
    if levels and top > levels[-1]:
        # Chips above the highest live level (cannot happen once uncalled
        # bets are returned) still belong to the highest pot.
        levels[-1] = top
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in matched)
        eligible = tuple(
            i
            for i in range(len(matched))
            if live[i] and matched[i] >= min(level, _cap(matched, live))
        )
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount, eligible)
        else:
            pots.append(Pot(amount, eligible))
        previous = level
    if dead:
        if pots:
            pots[0] = Pot(pots[0].amount + dead, pots[0].eligible)
        else:
            everyone = tuple(i for i in range(len(matched)) if live[i])
            pots.append(Pot(dead, everyone))
    return pots


def _cap(matched: Sequence[int], live: Sequence[bool]) -> int:
    """Return the highest matched level among live players."""
    return max((matched[i] for i in range(len(matched)) if live[i]), default=0)


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
