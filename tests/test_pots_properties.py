"""Pots over every small case: chips are conserved, no pot is empty, only live hands win.

Written against the survivors of mutation testing (docs/testing.md): each
property below failed for at least one surviving mutant of
``firmware/engine/pots.py``.
"""

from __future__ import annotations

import itertools
import random

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
            # Side pots narrow outwards: each one's players can win the one before,
            # and some player of the one before cannot win it (so no two pots have
            # the same players, and build_pots never needs to merge two).
            assert set(second.eligible) < set(first.eligible), (matched, live, dead, pots)


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


def _pots_level_by_level(matched: list[int], dead: int, live: list[bool]) -> list[Pot]:
    """The pots as the rule reads them: each live level closes a pot, every player pays
    into it up to that level (the reference ``build_pots`` is checked against)."""
    live_players = [i for i in range(len(matched)) if live[i]]
    live_levels = {matched[i] for i in live_players}
    cap = max(live_levels, default=0)
    levels = sorted(live_levels - {0})
    top = max(matched, default=0)
    if top > cap:
        levels = [*levels[:-1], top]
    pots: list[Pot] = []
    if dead and (not levels or 0 in live_levels):
        pots.append(Pot(dead, tuple(live_players)))
        dead = 0
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - previous for c in matched if c > previous)
        eligible = tuple(i for i in live_players if matched[i] >= min(level, cap))
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount, eligible)
        else:
            pots.append(Pot(amount + dead, eligible))
            dead = 0
        previous = level
    return pots


def test_pots_are_the_level_by_level_reading() -> None:
    """``build_pots`` walks the contributions once, in order; it gives the pots of the
    level-by-level reading in every small case and in 20,000 random ten-player ones."""
    cases = [(list(m), list(v), d) for m, v, d in CASES]
    cases += [
        (list(m), list(v), d)
        for m in itertools.product((0, 1, 3, 4), repeat=4)
        for v in itertools.product((True, False), repeat=4)
        for d in (0, 2)
    ]
    rng = random.Random(15)
    for _ in range(20_000):
        n = rng.randint(2, 10)
        matched = [rng.choice((0, rng.randint(1, 40), rng.randint(1, 5000))) for _ in range(n)]
        cases.append((matched, [rng.random() < 0.7 for _ in range(n)], rng.choice((0, 0, 7))))
    several = 0
    for matched, live, dead in cases:
        got = build_pots(matched, dead, live)
        assert got == _pots_level_by_level(matched, dead, live), (matched, live, dead)
        several += len(got) > 2
    assert several > 5_000  # side pots of side pots, not only the one-pot case
