"""Rulings on a hand: killing a hand (TDA-28, TDA-29, TDA-8) and voiding it."""

import msgpack
import pytest

from firmware.engine.cards import parse_cards
from firmware.engine.events import CheckCall, KillHand, Show, VoidHand, from_record, to_record
from firmware.engine.hand import Hand, Phase
from firmware.errors import IllegalAction
from tests.kit import act, board, deal, start


def test_tda_28_killed_unprotected_hand_gets_back_only_an_uncalled_raise() -> None:
    """TDA-28: a hand killed by the dealer gets no redress, except that a raise nobody called is
    returned.
    """
    hand = start([1000] * 4)
    deal(hand, "AhAd", "KhKd", "QhQd", "JhJd")
    act(hand, "r50")  # player 2 raises to 50; nobody has called yet
    hand.apply(KillHand(2, "unprotected hand mucked by the dealer"))
    assert hand.folded[2]
    assert hand.stacks[2] == 998  # the raise beyond the big blind's 2 is returned
    assert hand.actor == 3
    assert hand.total_chips == 4000


def test_tda_28_called_chips_stay_in_the_pot() -> None:
    """TDA-28: chips that were called stay in the pot when the hand is killed."""
    hand = start([1000] * 3)
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r50", "c")  # small blind calls the raise
    hand.apply(KillHand(2, "unprotected hand"))
    assert hand.stacks[2] == 950
    assert hand.actor == 1


def test_tda_8_absent_player_killed_when_deal_ends_blinds_stay_in_pot() -> None:
    """TDA-8: a player not in his seat when the deal ends has his hand killed; his blinds and antes
    stay in the pot.
    """
    hand = start([1000] * 3)
    deal(hand, "AhAd")
    hand.apply(KillHand(0, "not seated when the deal ended"))
    deal_rest = [("KhKd", 1), ("QhQd", 2)]
    from firmware.engine.events import DealHole

    for cards, player in deal_rest:
        hand.apply(DealHole(player, tuple(parse_cards(cards))))
    assert hand.phase is Phase.BETTING and hand.actor == 2
    act(hand, "f")
    assert hand.result is not None
    assert hand.result.finishing_stacks == (999, 1001, 1000)  # small blind stays in the pot


def test_tda_29_tabled_winning_hand_cannot_be_killed() -> None:
    """TDA-29: a tabled hand that obviously wins cannot be killed."""
    hand = start([100, 100])
    deal(hand, "AhAd", "2c7d")
    act(hand, "c", "c")
    for cards in ("3h4h9s", "Td", "Jc"):
        board(hand, cards)
        act(hand, "c", "c")
    hand.apply(Show(0, tuple(parse_cards("AhAd"))))
    with pytest.raises(IllegalAction, match="TDA-29"):
        hand.apply(KillHand(0, "dealer mucked it"))


def test_void_hand_returns_every_chip_exactly() -> None:
    hand = start([1000, 7, 500, 300], antes=5, dead=(0, 0, 0, 2))
    deal(hand, "AhAd", "KhKd", "QhQd", "JhJd")
    act(hand, "r100", "c", "c")
    hand.apply(VoidHand("misdeal: two cards exposed"))
    assert hand.phase is Phase.COMPLETE and hand.voided
    assert hand.result is not None
    assert hand.result.finishing_stacks == (1000, 7, 500, 300)
    with pytest.raises(IllegalAction, match="hand is over"):
        hand.apply(CheckCall(1))


def test_void_needs_a_reason() -> None:
    hand = start([100, 100])
    with pytest.raises(IllegalAction, match="reason"):
        hand.apply(VoidHand("  "))


def test_rulings_replay_through_msgpack() -> None:
    hand = start([1000] * 3)
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r50")
    hand.apply(KillHand(0, "clock expired"))
    records = [msgpack.unpackb(msgpack.packb(to_record(e))) for e in hand.events]
    again = Hand.replay(from_record(r) for r in records)
    assert again.snapshot() == hand.snapshot()


def test_tda_9_hands_turned_up_when_a_kill_between_streets_ends_the_betting() -> None:
    """TDA-9: a kill that leaves nobody able to bet turns every live hand up."""
    hand = start([1000, 100, 1000])
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "c", "r100", "c", "c")  # player 1 all-in for 100; the others call
    board(hand, "2c7d9h")
    act(hand, "c", "c")  # players 0 and 2 check: the turn is due
    assert hand.phase is Phase.BOARD and not hand.cards_up
    hand.apply(KillHand(2, "unprotected hand between streets"))
    assert hand.cards_up  # only player 0 has chips left: no more betting
