"""JACKPOT: the bad beat, the jackpot drop and the high hand, decided from the cards.

Every qualifying rule is tried with a hand that just qualifies and one that just
misses; the properties check that shares are conserved and that suits do not matter.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.engine.cards import Card, parse_cards
from firmware.errors import CardError, ConfigError
from firmware.i18n import CATALOG, tr
from firmware.table.jackpot import (
    JackpotRules,
    Showdown,
    bad_beat,
    high_hand,
    hole_cards_playing,
    jackpot_drop,
    parse_jackpot,
)
from firmware.table.script import run_script

ROYAL = "KcQc"
"""The winner's cards on the boards below with ace, ten and jack of clubs: a royal flush."""


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def showdown(
    board: str, hands: Mapping[int, str], dealt: int = 4, pot: int = 400, **kw: Any
) -> Showdown:
    seats = tuple(range(1, dealt + 1))
    return Showdown(cards(board), {s: cards(h) for s, h in hands.items()}, seats, pot, **kw)


def rules(**kw: Any) -> JackpotRules:
    base: dict[str, Any] = {"min_players_dealt": 4}
    return parse_jackpot(base | kw)


# --------------------------------------------------------------------------
# The configuration
# --------------------------------------------------------------------------


def test_the_defaults_and_a_full_section_parse() -> None:
    r = parse_jackpot({})
    assert (r.qualifying_hand, r.both_hole_cards, r.pocket_pair_for_quads) == ("AAATT", True, True)
    assert r.describe("en") == "Full house, aces full of tens"
    assert r.describe("es") == "Full de ases y dieces"
    r = parse_jackpot(
        {
            "qualifying_hand": "88882",
            "both_hole_cards": False,
            "pocket_pair_for_quads": False,
            "min_players_dealt": 6,
            "min_pot": 100,
            "loser_percent": 40,
            "winner_percent": 20,
            "table_percent": 20,
            "reserve_percent": 20,
            "drop_percent": 5,
            "drop_cap": 100,
            "drop_min_pot": 20,
            "high_hand": "KKKKA",
            "high_hand_both_hole_cards": False,
            "high_hand_minutes": 30,
        }
    )
    assert r.describe("en") == "Four of a kind, eights" and r.high_hand_minutes == 30
    assert parse_jackpot({"qualifying_hand": "98765s"}).describe("en") == (
        "Straight flush, nine high"
    )


@pytest.mark.parametrize(
    ("section", "key", "words"),
    [
        ({"loser_percent": 60}, "config.jackpot.shares", "sum to 110"),
        ({"reserve_percent": 0}, "config.jackpot.shares", "sum to 90"),
        (
            {"loser_percent": 110, "reserve_percent": -20},
            "config.jackpot.shares",
            "0 or more and sum to 100",
        ),
        ({"qualifying_hand": "AAAAA"}, "config.jackpot.hand", "'AAAAA'"),
        ({"qualifying_hand": "AAT"}, "config.jackpot.hand", "five ranks"),
        ({"qualifying_hand": "AAATTs"}, "config.jackpot.hand", "five different ranks"),
        ({"qualifying_hand": "AAAT1"}, "config.jackpot.hand", "not a hand code"),
        ({"high_hand": "KK"}, "config.jackpot.hand", "'KK'"),
        ({"min_players_dealt": 1}, "config.jackpot.range", "from 2 to 10, not 1"),
        ({"drop_percent": 101}, "config.jackpot.range", "from 0 to 100"),
        ({"min_pot": -1}, "config.jackpot.range", "min_pot"),
        ({"high_hand_minutes": 0}, "config.jackpot.range", "high_hand_minutes"),
        ({"bad_beat": True}, "config.jackpot.unknown", "no option 'bad_beat'"),
        ({"min_pot": True}, "config.jackpot.type", "a whole number, not True"),
        ({"both_hole_cards": "yes"}, "config.jackpot.type", "true or false"),
        ({"qualifying_hand": 5}, "config.jackpot.type", "a text"),
        ({"min_pot": 10**13}, "config.jackpot.type", "min_pot"),
    ],
)
def test_a_bad_section_gets_one_sentence_in_both_languages(
    section: dict[str, Any], key: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_jackpot(section)
    message = str(caught.value)
    assert words in message and message.endswith(".") and "\n" not in message
    assert caught.value.key == key
    params = {k: (v["text"] if isinstance(v, dict) else v) for k, v in caught.value.params.items()}
    assert tr(key, "en", **params) == message
    assert tr(key, "es", **params) != message and key in CATALOG


def test_a_section_that_is_not_a_table_is_refused() -> None:
    with pytest.raises(ConfigError, match="must be a section") as caught:
        parse_jackpot(["AAATT"])
    assert caught.value.key == "config.jackpot.not_table"


# --------------------------------------------------------------------------
# Qualifying rules: just qualifies, just misses
# --------------------------------------------------------------------------


def test_aces_full_of_tens_qualifies_and_aces_full_of_nines_misses() -> None:
    board = "AsAc9cTcJc"
    verdict = bad_beat(rules(), showdown(board, {1: "AhTd", 2: ROYAL}), fund=1000)
    assert verdict.qualifies and verdict.losers == (1,) and verdict.winners == (2,)
    assert verdict.loser_hand is not None
    assert verdict.loser_hand.describe("en") == "Full house, aces full of tens"
    assert verdict.loser_hand.describe("es") == "Full de ases y dieces"
    verdict = bad_beat(rules(), showdown(board, {1: "Ah9d", 2: ROYAL}), fund=1000)
    assert not verdict.qualifies and verdict.reason == "jackpot.verdict.too_weak"
    assert verdict.payouts == {} and verdict.reserve == 1000


def test_a_board_that_counterfeits_a_hole_card() -> None:
    """The board pairs the loser's ten: aces full of tens without the ten in his hand."""
    counterfeit = showdown("AsAcTcThJc", {1: "AhTd", 2: ROYAL})
    assert hole_cards_playing(counterfeit.board, counterfeit.hole[1]) == (True, False)
    verdict = bad_beat(rules(), counterfeit)
    assert not verdict.qualifies and verdict.reason == "jackpot.verdict.counterfeit"
    assert bad_beat(rules(both_hole_cards=False), counterfeit).qualifies
    # The same hand where the board holds one ten only: both cards play.
    assert bad_beat(rules(), showdown("AsAc9cTcJc", {1: "AhTd", 2: ROYAL})).qualifies


def test_a_kicker_that_plays_and_one_that_does_not() -> None:
    """Four eights, the fourth in the loser's hand: his other card plays only as a kicker
    better than the board's ten."""
    four_eights = {"qualifying_hand": "88882", "pocket_pair_for_quads": False}
    board = "8c8d8h9hTh"
    kicker = showdown(board, {1: "8sAc", 2: "JhQh"})
    assert hole_cards_playing(kicker.board, kicker.hole[1]) == (True, True)
    assert bad_beat(rules(**four_eights), kicker).qualifies
    no_kicker = showdown(board, {1: "8s7c", 2: "JhQh"})
    verdict = bad_beat(rules(**four_eights), no_kicker)
    assert not verdict.qualifies and verdict.reason == "jackpot.verdict.counterfeit"
    assert bad_beat(rules(**four_eights, both_hole_cards=False), no_kicker).qualifies


def test_a_pocket_pair_whose_cards_stand_in_for_each_other_still_plays() -> None:
    """Pocket tens on A-A-A-T-3: the board alone is only three aces; either ten in the
    hand makes aces full of tens with the board's ten. Neither ten is needed on its own
    (the other stands in), yet the hand is not the board's: one hole card plays, not
    both. Without "both hole cards" it qualifies; with it, the reason is the counterfeit."""
    hand = showdown("AcAdAhTd3c", {1: "TsTh", 2: "As2d"})
    assert bad_beat(rules(both_hole_cards=False), hand).qualifies
    verdict = bad_beat(rules(), hand)
    assert not verdict.qualifies and verdict.reason == "jackpot.verdict.counterfeit"
    high = rules(high_hand="AAATT", high_hand_both_hole_cards=False)
    found = high_hand(high, [showdown("AcAdAhTd3c", {1: "TsTh", 2: "Ks2d"}, finished_wall=5)], 0)
    assert found.holders == ((0, 1),)


def test_four_of_a_kind_needs_a_pocket_pair() -> None:
    four_eights = {"qualifying_hand": "88882"}
    one_eight = bad_beat(rules(**four_eights), showdown("8c8d8h9hTh", {1: "8sAc", 2: "JhQh"}))
    assert not one_eight.qualifies and one_eight.reason == "jackpot.verdict.pocket_pair"
    pocket = showdown("8c8d9hThJh", {1: "8h8s", 2: "QhKh"})
    assert bad_beat(rules(**four_eights), pocket).qualifies


def test_four_of_a_kind_on_the_board_never_qualifies() -> None:
    """The loser's queen plays as a kicker, but the four eights are the board's."""
    quads = showdown("8c8d8h8s2c", {1: "Qh3c", 2: "Ah4c"})
    for options in ({}, {"both_hole_cards": False, "pocket_pair_for_quads": False}):
        verdict = bad_beat(rules(qualifying_hand="88882", **options), quads)
        assert not verdict.qualifies and verdict.reason == "jackpot.verdict.board_quads"
    assert bad_beat(rules(qualifying_hand="AAATT", both_hole_cards=False), quads).reason == (
        "jackpot.verdict.board_quads"
    )


def test_a_hand_that_plays_the_board_never_qualifies() -> None:
    """A royal flush on the board ties everyone; a full house on it plays for the loser."""
    board_full = showdown("AsAcAhTcTh", {1: "2d3d", 2: "AdKc"})
    verdict = bad_beat(rules(both_hole_cards=False), board_full)
    assert not verdict.qualifies and verdict.reason == "jackpot.verdict.board_plays"
    tie = showdown("AsKsQsJsTs", {1: "2d3d", 2: "4c5c"})
    assert bad_beat(rules(), tie).reason == "jackpot.verdict.no_loser"


@pytest.mark.parametrize(("dealt", "ok"), [(4, True), (3, False)])
def test_minimum_players_dealt_just_met_and_just_missed(dealt: int, ok: bool) -> None:
    verdict = bad_beat(rules(), showdown("AsAc9cTcJc", {1: "AhTd", 2: ROYAL}, dealt=dealt))
    assert verdict.qualifies is ok
    assert ok or verdict.reason == "jackpot.verdict.few_players"


@pytest.mark.parametrize(("pot", "ok"), [(300, True), (299, False)])
def test_minimum_pot_just_met_and_just_missed(pot: int, ok: bool) -> None:
    hand = showdown("AsAc9cTcJc", {1: "AhTd", 2: ROYAL}, pot=pot)
    verdict = bad_beat(rules(min_pot=300), hand)
    assert verdict.qualifies is ok
    assert ok or verdict.reason == "jackpot.verdict.small_pot"


def test_no_showdown_no_jackpot() -> None:
    """A hand that ends before the river, or with one hand tabled, does not qualify."""
    before_river = showdown("AsAc9cTc", {1: "AhTd", 2: ROYAL})
    one_hand = showdown("AsAc9cTcJc", {1: "AhTd"})
    for hand in (before_river, one_hand):
        verdict = bad_beat(rules(), hand, fund=500)
        assert not verdict.qualifies and verdict.reason == "jackpot.verdict.no_showdown"
        assert verdict.reserve == 500


def test_the_best_qualifying_losing_hand_is_the_loser() -> None:
    """Three hands tabled: the loser is the best hand that lost, not the worst."""
    hand = showdown("AsAc9cTcJc", {1: "AhTd", 2: ROYAL, 3: "Ad9d"}, dealt=6)
    verdict = bad_beat(rules(), hand, fund=1000)
    assert verdict.losers == (1,) and verdict.winners == (2,)
    # Two losing hands qualify: aces full of jacks is the loser, not aces full of tens.
    hand = showdown("AsAc9cTcJc", {1: "AhTd", 2: ROYAL, 3: "AdJd"}, dealt=6)
    verdict = bad_beat(rules(), hand, fund=1000)
    assert verdict.losers == (3,) and verdict.payouts[3] == 500 and verdict.payouts[1] == 150 // 4
    # The best losing hand decides: aces full of nines is not aces full of tens.
    hand = showdown("AsAc9cTcJc", {1: "Ah9d", 2: ROYAL, 3: "2d2h"}, dealt=6)
    assert bad_beat(rules(), hand).reason == "jackpot.verdict.too_weak"


# --------------------------------------------------------------------------
# Shares
# --------------------------------------------------------------------------


def test_shares_in_chips_rounded_down_the_rest_to_the_reserve() -> None:
    hand = showdown("AsAc9cTcJc", {1: "AhTd", 2: ROYAL}, dealt=6)
    verdict = bad_beat(rules(), hand, fund=1001)
    # 50 % loser, 25 % winner, 15 % shared by the four others, 10 % reserve.
    assert verdict.payouts == {1: 500, 2: 250, 3: 37, 4: 37, 5: 37, 6: 37}
    assert verdict.reserve == 1001 - 500 - 250 - 4 * 37
    # In chips of 5: every share a multiple of 5.
    verdict = bad_beat(rules(), hand, fund=1001, unit=5)
    assert verdict.payouts == {1: 500, 2: 250, 3: 35, 4: 35, 5: 35, 6: 35}
    assert verdict.reserve == 1001 - 500 - 250 - 4 * 35


def test_heads_up_the_table_share_goes_to_the_reserve() -> None:
    hand = showdown("AsAc9cTcJc", {1: "AhTd", 2: ROYAL}, dealt=2)
    verdict = bad_beat(rules(min_players_dealt=2), hand, fund=1000)
    assert verdict.payouts == {1: 500, 2: 250} and verdict.reserve == 250


def test_a_bad_fund_is_refused_with_a_sentence() -> None:
    hand = showdown("AsAc9cTcJc", {1: "AhTd", 2: ROYAL})
    with pytest.raises(CardError, match="0 or more chips"):
        bad_beat(rules(), hand, fund=-1)
    with pytest.raises(CardError, match="two hole cards"):
        showdown("AsAc9cTcJc", {1: "AhTd", 7: ROYAL})
    with pytest.raises(CardError, match="appears twice"):
        showdown("AsAc9cTcJc", {1: "AhTd", 2: "AhQc"})


# --------------------------------------------------------------------------
# Drop and high hand
# --------------------------------------------------------------------------


def test_the_jackpot_drop_per_qualifying_pot() -> None:
    r = rules(drop_percent=10, drop_cap=50, drop_min_pot=100)
    assert jackpot_drop(r, 99, flop=True) == 0
    assert jackpot_drop(r, 100, flop=True) == 10
    assert jackpot_drop(r, 1000, flop=True) == 50
    assert jackpot_drop(r, 1000, flop=False) == 0
    assert jackpot_drop(r, 140, flop=True, unit=5) == 10
    assert jackpot_drop(rules(drop_percent=100), 7, flop=True) == 7
    assert jackpot_drop(rules(), 1000, flop=True) == 0


def test_high_hand_of_the_hour_best_in_the_window_ties_split() -> None:
    r = rules(high_hand="KKKQQ")
    hour = 3600.0 * 500
    hands = [
        # Kings full of queens just qualifies (hand 1, seat 1).
        showdown("KsKcQc2d3h", {1: "KhQd", 2: "4c5c"}, number=1, finished_wall=hour + 10),
        # Kings full of jacks misses.
        showdown("KsKcJc2d3h", {1: "KhJd", 2: "4c5c"}, number=2, finished_wall=hour + 20),
        # Four sevens with a pocket pair: the best, twice in one window (hands 3 and 4).
        showdown("7c7d2s9hJc", {3: "7h7s", 1: "AcAd"}, number=3, finished_wall=hour + 30),
        showdown("7c7d2s9hJc", {4: "7h7s", 1: "AcAd"}, number=4, finished_wall=hour + 3599),
        # Better, but an hour later: another window.
        showdown("AcAd2s9hJc", {2: "AhAs", 1: "3c4c"}, number=5, finished_wall=hour + 3600),
    ]
    result = high_hand(r, hands, hour, prize=101)
    assert result.holders == ((3, 3), (4, 4))
    assert result.hand is not None and result.hand.describe("en") == "Four of a kind, sevens"
    assert result.shares == {(3, 3): 50, (4, 4): 50} and result.left == 1
    only_first = high_hand(r, hands[:2], hour, prize=100)
    assert only_first.holders == ((1, 1),) and only_first.left == 0
    assert high_hand(r, hands[1:2], hour, prize=100).holders == ()
    assert high_hand(rules(), hands, hour, prize=100).holders == ()  # no promotion


def test_the_high_hand_needs_its_hole_cards() -> None:
    """Quads on the board are nobody's high hand; a counterfeit card does not play."""
    r = rules(high_hand="KKKQQ")
    board_quads = showdown("9c9d9h9sAc", {1: "Kh2c", 2: "3c4c"}, number=1, finished_wall=5)
    counterfeit = showdown("AsAcTcThJc", {1: "AhTd", 2: "2c3c"}, number=2, finished_wall=6)
    assert high_hand(r, [board_quads, counterfeit], 0.0).holders == ()
    loose = rules(high_hand="KKKQQ", high_hand_both_hole_cards=False)
    assert high_hand(loose, [board_quads, counterfeit], 0.0).holders == ((2, 1),)


# --------------------------------------------------------------------------
# From a played hand's record
# --------------------------------------------------------------------------

PLAYED = """profile casino-cash
stakes NL 1/2
deck-ready
seat 1 Ana 200
seat 2 Bruno 200
seat 3 Carla 200
seat 4 Dora 200
button 1
shuffle
cut
draw Ah Kc 2d 3h {ten} Qc 7s 4h
4 fold
1 fold
2 raise 200
3 call
draw 5d As Ac 9c
draw 6d Tc
draw 8s Jc
"""


@pytest.mark.parametrize(("ten", "ok"), [("Td", True), ("9d", False)])
def test_a_played_all_in_decided_from_its_record(ten: str, ok: bool) -> None:
    """Bruno's aces full lose all-in to Carla's royal flush, both hands turned up (TDA-9)."""
    _, records = run_script(PLAYED.format(ten=ten))
    hand = Showdown.from_record(records[-1])
    assert hand.dealt == (1, 2, 3, 4) and sorted(hand.hole) == [2, 3] and hand.pot == 400
    verdict = bad_beat(rules(), hand, fund=10_000)
    assert verdict.qualifies is ok
    if ok:
        assert verdict.losers == (2,) and verdict.winners == (3,)
        assert verdict.payouts == {2: 5000, 3: 2500, 1: 750, 4: 750}


def test_a_hand_shown_with_one_card_is_not_tabled() -> None:
    """Only hands shown with both cards (or turned up by rule) are at the showdown."""
    _, records = run_script(PLAYED.format(ten="Td"))
    record = dict(records[-1])
    one = {"seat": 4, "action": "show", "street": 3, "cards": "2d"}
    both = {"seat": 1, "action": "show", "street": 3, "cards": "3h4h"}
    record["actions"] = [*record["actions"], one, both]
    assert sorted(Showdown.from_record(record).hole) == [1, 2, 3]


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------

CODES = ["75432", "22543", "TT986", "AAKK2", "555AK", "AKQJ9", "AKQJ9s", "AAATT", "88882"]


@st.composite
def deals(draw: st.DrawFn) -> tuple[Showdown, JackpotRules, int, int]:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    deck = list(range(52))
    rng.shuffle(deck)
    dealt = draw(st.integers(2, 10))
    tabled = draw(st.integers(2, dealt))
    hole = {s: (deck[5 + 2 * s], deck[6 + 2 * s]) for s in range(1, tabled + 1)}
    hand = Showdown(tuple(deck[:5]), hole, tuple(range(1, dealt + 1)), draw(st.integers(0, 999)))
    loser = draw(st.integers(0, 100))
    winner = draw(st.integers(0, 100 - loser))
    shares = [loser, winner, draw(st.integers(0, 100 - loser - winner))]
    r = parse_jackpot(
        {
            "qualifying_hand": draw(st.sampled_from(CODES)),
            "both_hole_cards": draw(st.booleans()),
            "pocket_pair_for_quads": draw(st.booleans()),
            "min_players_dealt": 2,
            "loser_percent": shares[0],
            "winner_percent": shares[1],
            "table_percent": shares[2],
            "reserve_percent": 100 - sum(shares),
        }
    )
    return hand, r, draw(st.integers(0, 10**9)), draw(st.sampled_from([1, 5, 25]))


def permuted(hand: Showdown, perm: list[int]) -> Showdown:
    def move(c: Card) -> Card:
        return c & ~3 | perm[c & 3]

    return Showdown(
        tuple(move(c) for c in hand.board),
        {s: tuple(move(c) for c in pair) for s, pair in hand.hole.items()},
        hand.dealt,
        hand.pot,
    )


@settings(max_examples=200, deadline=None)
@given(deals(), st.permutations([0, 1, 2, 3]))
def test_shares_are_conserved_and_suits_do_not_matter(
    deal: tuple[Showdown, JackpotRules, int, int], perm: list[int]
) -> None:
    hand, r, fund, unit = deal
    verdict = bad_beat(r, hand, fund, unit)
    assert sum(verdict.payouts.values()) + verdict.reserve == fund
    assert all(v >= 0 and v % unit == 0 for v in verdict.payouts.values())
    assert verdict.reserve >= 0 and set(verdict.payouts) <= set(hand.dealt)
    again = bad_beat(r, permuted(hand, perm), fund, unit)
    assert (again.qualifies, again.reason, again.losers, again.winners) == (
        verdict.qualifies,
        verdict.reason,
        verdict.losers,
        verdict.winners,
    )
    assert again.payouts == verdict.payouts


@settings(max_examples=200, deadline=None)
@given(deals())
def test_looser_rules_never_disqualify_a_qualifying_hand(
    deal: tuple[Showdown, JackpotRules, int, int],
) -> None:
    """What qualifies still qualifies without "both hole cards", without the pocket pair
    and with a weaker qualifying hand; the losers are beaten by the winners."""
    hand, r, fund, unit = deal
    verdict = bad_beat(r, hand, fund, unit)
    if not verdict.qualifies:
        return
    assert not set(verdict.losers) & set(verdict.winners)
    loose = parse_jackpot(
        {"qualifying_hand": "75432", "both_hole_cards": False, "pocket_pair_for_quads": False}
        | {"min_players_dealt": 2}
    )
    assert bad_beat(loose, hand).qualifies


def test_the_module_examples_run() -> None:
    """The docstrings' examples (the counterfeit ten, the hand codes) are true."""
    import doctest

    from firmware.table import jackpot

    result = doctest.testmod(jackpot)
    assert result.attempted >= 5 and result.failed == 0
