"""The house's rake, for comparing our results with a cash game's recorded winnings.

Our engine conserves chips: the pots go to the winners whole. A card room
takes a rake from each pot first, so the ``winnings`` (and
``finishing_stacks``) a cash-game history records are smaller than ours by the
rake. :class:`Rake` models the usual rule: a percentage of the pot, rounded
down to the chip unit, at most a cap, and nothing when the hand ends before
the flop ("no flop, no drop"). :func:`take_rake` splits it over the pots in
proportion to their size (largest remainders first) and, as card rooms do,
splits what is left of each pot equally among its winners, odd chips to the
first in position order.
"""

from __future__ import annotations

from decimal import Decimal

from firmware.engine.rules import RakePolicy
from firmware.engine.state import HandResult
from firmware.errors import ConfigError


def rake_from_percent(
    percent: Decimal, cap: int | None = None, no_flop_no_drop: bool = True
) -> RakePolicy:
    """The table's :class:`~firmware.engine.rules.RakePolicy` for a rake given in percent
    (``pokertable replay --rake 5``): one implementation of the rake for the table and
    for other rooms' files.

    :param percent: Share of the pot taken, in percent, to the hundredth (``5``, ``2.5``).
    :param cap: Most chips taken from one hand (``None``: no cap), in chip units.
    :param no_flop_no_drop: Take nothing when no flop was dealt.
    :raises ConfigError: for a percentage outside 0 to 100 or finer than a hundredth.

    >>> rake_from_percent(Decimal("2.5"), 3)
    RakePolicy(basis_points=250, cap=3, no_flop_no_drop=True, min_pot=0)
    """
    points = percent * 100
    if not percent.is_finite() or points != points.to_integral_value() or not 0 <= percent <= 100:
        raise ConfigError(
            f"A rake is a percentage from 0 to 100 in hundredths at most (5, 2.5, 4.75), "
            f"not {percent}.",
            key="config.rake.percent",
            value=str(percent),
        )
    if cap == 0:  # a cap of nothing takes nothing
        return RakePolicy(0, 0, no_flop_no_drop)
    return RakePolicy(int(points), cap or 0, no_flop_no_drop)


def _split(total: int, weights: list[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (largest remainders, then earlier first)."""
    whole = sum(weights)
    if whole == 0 or total == 0:
        return [0] * len(weights)
    parts = [total * w // whole for w in weights]
    order = sorted(range(len(weights)), key=lambda i: (-(total * weights[i] % whole), i))
    for i in order[: total - sum(parts)]:
        parts[i] += 1
    return parts


def pot_rakes(amounts: list[int], total: int) -> list[int]:
    """The rake ``total`` split over pots of ``amounts`` in proportion to their size."""
    return _split(total, amounts)


def net_shares(shares: tuple[tuple[int, int], ...], rake: int) -> list[int]:
    """What each winner of a pot collects once ``rake`` is taken from it.

    The rest of the pot is split equally, odd chips to the first winners in
    position order (left of the button first), as card rooms do.
    """
    if not rake:
        return [chips for _player, chips in shares]
    net = sum(chips for _player, chips in shares) - rake
    count = len(shares)
    order = sorted(range(count), key=lambda k: shares[k][0])
    out = [net // count] * count
    for k in order[: net - (net // count) * count]:
        out[k] += 1
    return out


def take_rake(
    result: HandResult, board_cards: int, rake: RakePolicy
) -> tuple[int, tuple[int, ...]]:
    """The rake of a hand and what it takes from each player's winnings.

    :returns: ``(rake, taken)`` where ``taken[i]`` is subtracted from player
        ``i``'s winnings and finishing stack.
    """
    pots = [pot for pot in result.pots if pot.amount]
    total = rake.hand_rake(sum(pot.amount for pot in pots), board_cards)
    taken = [0] * len(result.finishing_stacks)
    for pot, share in zip(pots, pot_rakes([pot.amount for pot in pots], total), strict=True):
        for (player, chips), net in zip(pot.shares, net_shares(pot.shares, share), strict=True):
            taken[player] += chips - net
    return total, tuple(taken)


def winnings(result: HandResult, players: int) -> tuple[int, ...]:
    """Chips each player collected from the pots (before any rake)."""
    won = [0] * players
    for pot in result.pots:
        for player, chips in pot.shares:
            won[player] += chips
    return tuple(won)
