"""Betting rules of the engine, one test (or more) per rule ID (docs/rules.md)."""

import pytest

from firmware.engine.betting import interpret_chip_bet
from firmware.engine.events import BetRaise, CheckCall, DealHole
from firmware.engine.hand import Hand, Phase
from firmware.engine.rules import GameKind, Structure, limit_blinds
from firmware.errors import IllegalAction
from tests.kit import act, board, deal, start

HOLES6 = ("AhAd", "KhKd", "QhQd", "JhJd", "ThTd", "9h9d")


def six_handed(stacks: int = 1000, **kw: object) -> object:
    hand = start([stacks] * 6, **kw)  # type: ignore[arg-type]
    deal(hand, *HOLES6)
    return hand


# ---------------------------------------------------------------- CC rules


def test_cc_2_deal_starts_left_of_button_one_card_at_a_time() -> None:
    """CC-2: dealing starts with the player at the button's left and goes clockwise, one card at a
    time.
    """
    hand = start([100, 100, 100, 100])
    order = []
    cards = iter(range(8))
    while hand.phase is Phase.DEALING:
        what, who = hand.expected()
        assert what == "hole" and who is not None
        order.append(who)
        hand.apply(DealHole(who, (next(cards),)))
    assert order == [0, 1, 2, 3, 0, 1, 2, 3]


def test_cc_3_limit_blinds_are_half_the_lower_limit_rounded_down() -> None:
    """CC-3: in limit games the small blind is half the lower limit rounded down (15-30 gives 7) and
    the big blind is the lower limit.
    """
    assert limit_blinds(15) == (7, 15)
    assert limit_blinds(5) == (2, 5)
    assert limit_blinds(100) == (50, 100)


def test_cc_4_first_to_act_preflop_is_left_of_big_blind_and_cannot_check() -> None:
    """CC-4: before the flop the player left of the big blind acts first and may fold, call or
    raise, but not check.
    """
    hand = six_handed()
    assert hand.actor == 2
    legal = hand.legal_actions()
    assert not legal.can_check
    assert legal.call_amount == 2
    assert legal.can_raise and legal.can_fold
    with pytest.raises(IllegalAction, match="not seat 4's turn"):
        hand.apply(CheckCall(3))


def test_cc_5_big_blind_option_when_nobody_raised() -> None:
    """CC-5: when nobody raised before the flop, the big blind may still check or raise."""
    hand = six_handed()
    act(hand, "c", "c", "c", "c", "c")  # seats 2..5 call, small blind completes
    assert hand.actor == 1
    legal = hand.legal_actions()
    assert legal.can_check and legal.call_amount == 0
    assert legal.min_raise_to == 4
    act(hand, "r4")
    assert hand.phase is Phase.BETTING and hand.actor == 2


def test_cc_6_flop_is_burn_and_three_cards_first_active_left_of_button_acts() -> None:
    """CC-6: the flop is one burn and three board cards; the first active player left of the button
    acts first after it.
    """
    hand = six_handed()
    act(hand, "c", "c", "c", "f", "f", "c")  # button (5) folds, small blind folds
    assert hand.phase is Phase.BOARD and hand.expected() == ("board", 3)
    with pytest.raises(IllegalAction, match="takes 3 board"):
        board(hand, "2c3c")
    board(hand, "2c3c4c", burn="5c")
    assert hand.burns and len(hand.board) == 3
    assert hand.actor == 1  # small blind folded: the big blind is first left of the button


def test_cc_7_fixed_limit_small_bet_then_big_bet() -> None:
    """CC-7: fixed limit bets the lower limit before and on the flop, and the upper limit on the
    turn and river.
    """
    hand = start([1000] * 3, structure=Structure.FIXED_LIMIT, min_bet=10, blinds=(5, 10, 0))
    deal(hand, "AhAd", "KhKd", "QhQd")
    legal = hand.legal_actions()
    assert (legal.min_raise_to, legal.max_raise_to) == (20, 20)
    with pytest.raises(IllegalAction, match="more than the fixed bet size; the most allowed is 20"):
        hand.apply(BetRaise(2, 25))
    act(hand, "c", "c", "c")
    board(hand, "2c3c4d")
    assert (hand.legal_actions().min_raise_to, hand.legal_actions().max_raise_to) == (10, 10)
    act(hand, "r10", "r20", "c", "c")
    board(hand, "9s")
    assert (hand.legal_actions().min_raise_to, hand.legal_actions().max_raise_to) == (20, 20)
    act(hand, "r20", "r40")
    assert hand.legal_actions().min_raise_to == 60


def _capped_round(game: GameKind, players: int) -> object:
    hand = start(
        [1000] * players,
        structure=Structure.FIXED_LIMIT,
        min_bet=10,
        game=game,
        blinds=(10, 5) if players == 2 else (5, 10) + (0,) * (players - 2),
    )
    deal(hand, *HOLES6[:players])
    return hand


def test_cc_8_fixed_limit_cap_big_blind_counts_as_the_bet() -> None:
    """CC-8: one bet and three raises per round; before the flop the big blind counts as the bet."""
    hand = _capped_round(GameKind.CASH, 3)
    act(hand, "r20", "r30", "r40")  # BB + three raises = four bets
    legal = hand.legal_actions()
    assert not legal.can_raise
    assert "capped" in (legal.raise_refusal or "")
    with pytest.raises(IllegalAction, match="capped"):
        act(hand, "r50")


def test_cc_8_no_cap_heads_up_in_cash_games() -> None:
    """CC-8: in a cash game raises are unlimited when exactly two players are in the hand."""
    hand = _capped_round(GameKind.CASH, 2)
    act(hand, "r20", "r30", "r40", "r50", "r60", "r70")
    assert hand.legal_actions().min_raise_to == 80


def test_cc_8_cap_kept_heads_up_in_tournaments() -> None:
    """CC-8: in a tournament the raise cap stays even with two players."""
    hand = _capped_round(GameKind.TOURNAMENT, 2)
    act(hand, "r20", "r30", "r40")
    assert not hand.legal_actions().can_raise


def test_cc_8_no_cap_when_two_remain_after_folds_in_cash() -> None:
    """CC-8: in a cash game the cap lifts as soon as folds leave two players in the hand."""
    hand = _capped_round(GameKind.CASH, 3)
    act(hand, "r20", "f", "r30", "r40")
    assert hand.legal_actions().can_raise


def test_cc_8_short_all_in_does_not_count_as_a_raise() -> None:
    """CC-8: an all-in short of a full bet does not count toward the raise cap."""
    hand = start(
        [1000, 1000, 25],
        structure=Structure.FIXED_LIMIT,
        min_bet=10,
        game=GameKind.CASH,
    )
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "r20")  # player 2 raises: second bet
    act(hand, "r30")  # small blind: third bet
    act(hand, "r40")  # big blind: fourth bet (cap)
    assert hand.full_bets == 4
    hand2 = start([1000, 1000, 1000, 24], structure=Structure.FIXED_LIMIT, min_bet=10)
    deal(hand2, "AhAd", "KhKd", "QhQd", "JhJd")
    act(hand2, "r20", "r24")  # player 3 all-in for 24: less than half a raise over 20
    assert hand2.full_bets == 2
    assert hand2.legal_actions().min_raise_to == 30


def test_cc_9_turn_and_river_burn_one_card_action_left_of_button() -> None:
    """CC-9: the turn and the river are each one burn and one card; the action starts left of the
    button.
    """
    hand = six_handed()
    act(hand, "c", "c", "c", "c", "c", "c")
    board(hand, "2c3c4c", burn="5c")
    act(hand, *["c"] * 6)
    with pytest.raises(IllegalAction, match="takes 1 board"):
        board(hand, "7s8s")
    board(hand, "7s", burn="6s")
    assert hand.actor == 0
    act(hand, *["c"] * 6)
    board(hand, "8s", burn="9s")
    assert hand.actor == 0 and len(hand.burns) == 3


# --------------------------------------------------------------- TDA rules


def test_tda_10_minimum_raise_is_the_largest_full_raise() -> None:
    """TDA-10: a raise must be at least the largest full bet or raise made in the round."""
    hand = six_handed()
    act(hand, "r10")  # raise of 8
    assert hand.legal_actions().min_raise_to == 18
    act(hand, "r40")  # raise of 30
    assert hand.legal_actions().min_raise_to == 70
    with pytest.raises(IllegalAction, match="smallest bet or raise allowed is to 70"):
        act(hand, "r60")


def test_tda_10_short_all_in_does_not_reopen_betting() -> None:
    """TDA-10: an all-in that is less than a full raise does not reopen raising for players who
    already acted.
    """
    hand = start([1000, 1000, 1000, 150])
    deal(hand, "AhAd", "KhKd", "QhQd", "JhJd")
    act(hand, "r100", "r150")  # player 3 all-in: a raise of 50, short of the full 98
    act(hand, "c", "c")  # blinds call
    assert hand.actor == 2
    legal = hand.legal_actions()
    assert not legal.can_raise
    assert "not reopened" in (legal.raise_refusal or "")
    assert legal.call_amount == 50


def test_tda_10_short_all_ins_that_add_up_to_a_full_raise_reopen() -> None:
    """TDA-10: several short all-ins that together reach a full raise do reopen the betting."""
    hand = start([1000, 1000, 1000, 150, 200])
    deal(hand, "AhAd", "KhKd", "QhQd", "JhJd", "ThTd")
    act(hand, "r100", "r150", "r200")  # two short all-ins: +50 and +50 = a full 100
    act(hand, "c", "c")
    assert hand.actor == 2
    assert hand.legal_actions().can_raise


def test_tda_10_player_who_has_not_acted_may_raise_over_a_short_all_in() -> None:
    """TDA-10: a player who has not yet acted in the round may raise over a short all-in."""
    hand = start([1000, 1000, 1000, 150])
    deal(hand, "AhAd", "KhKd", "QhQd", "JhJd")
    act(hand, "r100", "r150")
    assert hand.actor == 0
    assert hand.legal_actions().min_raise_to == 248  # 150 + the last full raise (98)


def test_tda_10_player_who_checked_may_raise_over_a_short_all_in_opening_bet() -> None:
    """TDA-10: a player who checked may raise when a short all-in opens the betting, since he faced
    no bet before.
    """
    hand = start([1000, 80, 1000], blinds=(25, 50, 0), min_bet=50)
    deal(hand, "AhAd", "KhKd", "QhQd")
    act(hand, "c", "c", "c")  # button calls, small blind completes, big blind checks
    board(hand, "2c7d9s")
    act(hand, "c", "r30", "c")  # check; big blind all-in for 30 (short of 50); call
    # Player 0 checked: he faced no wager, so the short opening bet is reopened to him.
    assert hand.actor == 0
    legal = hand.legal_actions()
    assert legal.can_raise and legal.raise_refusal is None
    assert (legal.min_raise_to, legal.max_raise_to) == (80, 950)
    act(hand, "r80")
    assert hand.current_bet == 80


def test_tda_10_physical_chips_half_a_raise_forces_a_full_raise() -> None:
    """TDA-10: with physical chips, putting in half a raise or more beyond a call obliges a full
    raise; less is a call with the excess returned.
    """
    hand = six_handed()
    act(hand, "r10")  # last full raise 8; player 3 faces 10
    event, back = interpret_chip_bet(hand, 3, 14)  # 4 extra = 50% of 8
    assert event == BetRaise(3, 18) and back == 0
    event, back = interpret_chip_bet(hand, 3, 13)  # 3 extra < 50%: a call, 3 returned
    assert event == CheckCall(3) and back == 3
    event, back = interpret_chip_bet(hand, 3, 30)
    assert event == BetRaise(3, 30) and back == 0
    with pytest.raises(IllegalAction, match="do not cover the call"):
        interpret_chip_bet(hand, 3, 5)


def test_tda_26_no_limit_allows_unlimited_raises() -> None:
    """TDA-26: in no-limit there is no cap on the number of raises; each must be at least the
    previous raise.
    """
    hand = start([100_000, 100_000])
    deal(hand, "AhAd", "KhKd")
    to = 2
    for _ in range(12):
        legal = hand.legal_actions()
        assert legal.can_raise
        to = legal.min_raise_to or 0
        act(hand, f"r{to}")
    assert hand.current_bet == to and hand.full_bets == 13


def test_tda_35_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    """TDA-35: heads-up the button posts the small blind, acts first before the flop and last after
    it.
    """
    hand = start([100, 100])  # index 0 big blind, index 1 button
    assert hand.bets == [2, 1]
    deal(hand, "AhAd", "KhKd")
    assert hand.actor == 1
    act(hand, "c", "c")
    board(hand, "2c3c4d")
    assert hand.actor == 0
    act(hand, "c")
    assert hand.actor == 1


def test_pot_limit_maximum_is_the_pot_after_calling() -> None:
    hand = start([1000] * 3, structure=Structure.POT_LIMIT)
    deal(hand, "AhAd", "KhKd", "QhQd")
    assert hand.legal_actions().max_raise_to == 7  # call 2, pot 5, raise 5
    act(hand, "r7")
    assert hand.legal_actions().max_raise_to == 23  # call 6 -> pot 16, raise 16 over 7


def test_pe_4_a_hand_needs_two_players_one_per_seat() -> None:
    """PE-4: a hand needs at least two players, and one player never holds two seats."""
    with pytest.raises(IllegalAction, match="at least two players"):
        start([100])
    from firmware.engine.events import StartHand
    from firmware.engine.hand import Hand
    from firmware.engine.rules import HandConfig

    with pytest.raises(IllegalAction, match="share a seat"):
        Hand.start(
            StartHand(
                HandConfig(Structure.NO_LIMIT),
                seats=(3, 3),
                names=("a", "b"),
                stacks=(10, 10),
                antes=(0, 0),
                blinds=(2, 1),
                dead=(0, 0),
            )
        )
    with pytest.raises(IllegalAction, match="must have chips"):
        start([100, 0, 100])


def test_pe_4_table_stakes_only_chips_on_the_table_play() -> None:
    """PE-4: table stakes: only the chips on the table when the hand starts can be bet."""
    hand = start([50, 1000])
    deal(hand, "AhAd", "KhKd")
    act(hand, "r1000")  # the button shoves 1000; the big blind has only 50 on the table
    assert hand.legal_actions().call_amount == 48
    act(hand, "c")
    assert hand.stacks == [0, 950]  # the uncalled 950 is back, nothing beyond 50 plays


def test_live_big_blind_out_of_position_keeps_the_order_cc_4_hg_15_cc_13() -> None:
    """CC-4, HG-15, CC-13: a returning player's live big blind at position 4 does not
    move the first action: it starts left of the table's big blind, and the extra
    blind keeps his option (he may check) when nobody raised."""
    hand = start([100] * 6, blinds=(1, 2, 0, 0, 2, 0), big_blind=1)
    deal(hand, "2c3c", "4c5c", "6c7c", "8c9c", "TcJc", "QcKc")
    assert hand.actor == 2
    act(hand, "c", "c")
    assert hand.actor == 4
    assert hand.legal_actions().can_check
    act(hand, "c", "f", "c")
    assert hand.actor == 1 and hand.legal_actions().can_check
    # Without the table's big blind the last highest blind opens (old journals).
    old = start([100] * 6, blinds=(1, 2, 0, 0, 2, 0))
    deal(old, "2c3c", "4c5c", "6c7c", "8c9c", "TcJc", "QcKc")
    assert old.actor == 5


def test_the_big_blind_must_be_a_player_of_the_hand() -> None:
    """A start naming a big blind outside the hand is refused with a sentence."""
    with pytest.raises(IllegalAction, match="big blind must be one of the 3 players"):
        start([100] * 3, big_blind=3)


def _limit_all_in(all_in: int, percent: int = 50) -> Hand:
    """Fixed limit 5/10, four players: player 2 raises to 20, player 3 is all-in."""
    hand = start(
        [1000, 1000, 1000, all_in], structure=Structure.FIXED_LIMIT, min_bet=10, raise_cap=9
    )
    if percent != 50:
        from dataclasses import replace

        from firmware.engine.events import StartHand

        first = hand.events[0]
        assert isinstance(first, StartHand)
        config = replace(first.config, limit_all_in_percent=percent)
        hand = Hand.start(replace(first, config=config))
    deal(hand, "AhAd", "KhKd", "QhQd", "JhJd")
    act(hand, "r20", f"r{all_in}")
    return hand


def test_tda_47b_limit_all_in_of_half_a_bet_counts_as_a_full_raise() -> None:
    """TDA 47B (TDA-10's 50%): in fixed limit an all-in of at least half a bet over
    the last full bet counts as a full raise: the next raise is a full bet above it,
    it counts toward the cap, and it reopens the betting to the player who raised."""
    hand = _limit_all_in(25)  # 5 over 20: half of the 10 bet
    assert hand.full_bets == 3
    assert hand.legal_actions().min_raise_to == 35
    act(hand, "c", "c")  # the blinds call 25
    assert hand.actor == 2
    assert hand.legal_actions().min_raise_to == 35  # reopened to the first raiser
    act(hand, "r35")
    assert hand.full_bets == 4


def test_tda_47b_limit_all_in_under_half_a_bet_is_called_or_completed() -> None:
    """TDA 47B: an all-in of less than half a bet may be called or completed to the
    full bet, and does not reopen the betting to a player who already acted."""
    hand = _limit_all_in(24)  # 4 over 20: less than half
    assert hand.full_bets == 2
    assert hand.legal_actions().min_raise_to == 30  # completing to the full raise
    act(hand, "c", "c")
    assert hand.actor == 2
    actions = hand.legal_actions()
    assert actions.min_raise_to is None and actions.call_amount == 4
    assert actions.raise_refusal is not None and "less than half a bet" in actions.raise_refusal
    completed = _limit_all_in(24)
    act(completed, "r30", "c")  # the small blind completes: a full raise reopens
    assert completed.actor == 2 and completed.legal_actions().min_raise_to == 40


def test_tda_47b_threshold_is_a_house_option() -> None:
    """With limit_all_in_percent = 100 only a complete raise counts: the all-in to 25
    neither reopens nor moves the next raise off the bet levels."""
    hand = _limit_all_in(25, percent=100)
    assert hand.full_bets == 2
    assert hand.legal_actions().min_raise_to == 30
    act(hand, "c", "c")
    assert hand.legal_actions().min_raise_to is None
