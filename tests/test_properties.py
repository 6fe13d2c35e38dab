"""Property tests (Hypothesis): chips are conserved and journals replay exactly.

Random hands are played by our engine alone, with every action drawn by
Hypothesis among the legal ones (fold, check/call, any raise amount in
range, show or muck at the showdown).
"""

from __future__ import annotations

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.engine.events import (
    BetRaise,
    CheckCall,
    DealBoard,
    DealHole,
    Fold,
    Muck,
    Show,
    StartHand,
    from_record,
    to_record,
)
from firmware.engine.hand import Hand, Phase
from firmware.engine.rules import GameKind, HandConfig, Structure
from firmware.errors import IllegalAction


@st.composite
def starts(draw: st.DrawFn) -> StartHand:
    n = draw(st.integers(2, 10))
    bb = draw(st.sampled_from([2, 10, 100]))
    structure = draw(st.sampled_from(list(Structure)))
    game = draw(st.sampled_from(list(GameKind)))
    stacks = draw(st.lists(st.integers(1, 300 * bb), min_size=n, max_size=n))
    ante = draw(st.integers(0, bb))
    kind = draw(st.sampled_from(["none", "uniform", "dead"]))
    blinds = [0] * n
    if n == 2:
        blinds[0], blinds[1] = bb, bb // 2
    else:
        blinds[0], blinds[1] = bb // 2, bb
    antes = [ante] * n if kind == "uniform" else [0] * n
    dead = [0] * n
    if kind == "dead":
        dead[0 if n == 2 else 1] = ante
    return StartHand(
        HandConfig(structure, game, min_bet=bb),
        tuple(range(1, n + 1)),
        tuple(f"p{i}" for i in range(n)),
        tuple(stacks),
        tuple(antes),
        tuple(blinds),
        tuple(dead),
    )


def _check_total(hand: Hand, total: int) -> None:
    assert sum(hand.stacks) + hand.pot_total == total


@settings(max_examples=300, deadline=None)
@given(start=starts(), data=st.data())
def test_chips_conserved_and_journal_replays(start: StartHand, data: st.DataObject) -> None:
    hand = Hand.start(start)
    total = sum(start.stacks)
    _check_total(hand, total)
    deck = data.draw(st.permutations(list(range(52))))
    cards = iter(deck)
    for player in range(hand.player_count):
        hand.apply(DealHole(player, (next(cards), next(cards))))
        _check_total(hand, total)
    while hand.phase is not Phase.COMPLETE:
        if hand.phase is Phase.BETTING:
            legal = hand.legal_actions()
            options = ["call", "fold"] + (["raise"] if legal.can_raise else [])
            choice = data.draw(st.sampled_from(options))
            if choice == "raise":
                assert legal.min_raise_to is not None and legal.max_raise_to is not None
                to = data.draw(st.integers(legal.min_raise_to, legal.max_raise_to))
                hand.apply(BetRaise(legal.player, to))
            elif choice == "fold":
                hand.apply(Fold(legal.player))
            else:
                hand.apply(CheckCall(legal.player))
        elif hand.phase is Phase.BOARD:
            need = 3 if hand.street == 0 else 1
            hand.apply(DealBoard(tuple(next(cards) for _ in range(need))))
        else:
            player = hand.expected()[1]
            assert player is not None
            shown = tuple(c for c in hand.hole[player] if c is not None)
            if data.draw(st.booleans()):
                try:
                    hand.apply(Muck(player))
                except IllegalAction:
                    hand.apply(Show(player, shown))
            else:
                hand.apply(Show(player, shown))
        if hand.phase is not Phase.COMPLETE:
            _check_total(hand, total)
    assert hand.result is not None
    assert sum(hand.result.finishing_stacks) == sum(start.stacks)
    assert sum(hand.stacks) == total and hand.pot_total == 0
    assert all(s >= 0 for s in hand.result.finishing_stacks)
    journal = [from_record(msgpack.unpackb(msgpack.packb(to_record(e)))) for e in hand.events]
    assert Hand.replay(journal).snapshot() == hand.snapshot()
