"""Pots over every small case: chips are conserved, no pot is empty, only live hands win.

Written against the survivors of mutation testing (docs/testing.md): each
property below failed for at least one surviving mutant of
``firmware/engine/pots.py``.
"""

from __future__ import annotations

import itertools

import pytest

from firmware.engine.pots import Pot, build_pots, split_pot

CASES = [
    (matched, live, dead)
    for n in (1, 2, 3)
    for matched in itertools.product((0, 1, 2, 5), repeat=n)
    for live in itertools.product((True, False), repeat=n)
    for dead in (0, 1, 3)
]


@pytest.mark.parametrize("dead", [0, 1, 3])
def test_every_chip_is_in_exactly_one_pot(dead: int) -> None:
    """Whatever was put in (matched chips and dead money) is in the pots, no more and
    no less, even when every hand is folded or killed and nobody can win."""
    for matched, live, d in CASES:
        if d != dead:
            continue
        pots = build_pots(list(matched), dead, list(live))
        assert sum(p.amount for p in pots) == sum(matched) + dead, (matched, live, dead)


def test_no_pot_is_empty_and_only_live_hands_may_win() -> None:
    """A pot always holds chips, and its eligible players are live hands that matched
    at least the pot's level (HG-1, HG-2)."""
    for matched, live, dead in CASES:
        pots = build_pots(list(matched), dead, list(live))
        for pot in pots:
            assert pot.amount > 0, (matched, live, dead, pots)
            assert all(live[i] for i in pot.eligible), (matched, live, dead, pots)
        for first, second in itertools.pairwise(pots):
            # Side pots narrow outwards: each one's players can win the one before.
            assert set(second.eligible) <= set(first.eligible), (matched, live, dead, pots)


def test_nothing_put_in_makes_no_pot() -> None:
    """No player, or nobody put anything in: there is no pot at all."""
    assert build_pots([], 0, []) == []
    assert build_pots([0, 0], 0, [True, True]) == []
    assert build_pots([0, 0], 2, [True, True]) == [Pot(2, (0, 1))]


def test_everyone_folded_the_chips_stay_in_one_pot() -> None:
    """With no live hand left (every hand killed), the chips are still one pot: the floor
    decides who gets it, none of it disappears."""
    assert build_pots([1, 1], 0, [False, False]) == [Pot(2, ())]
    assert build_pots([0, 0], 3, [False, False]) == [Pot(3, ())]


def test_a_pot_split_needs_a_winner() -> None:
    """Splitting a pot between nobody is refused with a sentence, not a crash."""
    with pytest.raises(ValueError, match=r"^A pot needs at least one winner to be split\.$"):
        split_pot(10, [], chip_unit=1)
