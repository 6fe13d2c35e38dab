"""Protections a card room relies on that no other test reached (issue 17).

Each test here was written against a mutant that removed the protection and
left the rest of the suite passing: the docstring says the rule in words.
"""

from __future__ import annotations

import pytest

from firmware.engine.betting import interpret_chip_bet, interpret_single_chip
from firmware.engine.cards import parse_cards
from firmware.engine.events import BetRaise, CheckCall, Muck, Show
from firmware.engine.hand import Phase
from firmware.engine.rules import GameKind, Structure
from firmware.errors import IllegalAction
from firmware.protocol.auth import AuthError, StaffDirectory
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.script import run_script
from firmware.table.seating import HandPlan, Seating
from tests.kit import act, board, deal, start

# ---------------------------------------------------------------- showdown


def _at_showdown_heads_up():  # type: ignore[no-untyped-def]
    hand = start([100, 100])
    deal(hand, "AhAd", "KhKd")
    act(hand, "c", "c")
    board(hand, "2c7d9s")
    act(hand, "c", "c")
    board(hand, "Tc")
    act(hand, "c", "c")
    board(hand, "3h")
    act(hand, "c", "c")
    assert hand.phase is Phase.SHOWDOWN
    return hand


def test_tda_40_a_player_cannot_show_cards_he_was_never_dealt() -> None:
    """A player whose two hole cards were read may table only those two cards:
    showing any other card (here a pair of queens he never held) is refused and
    changes nothing, so nobody can win a pot with cards from outside his hand."""
    hand = _at_showdown_heads_up()
    first = hand.showdown_order[0]
    with pytest.raises(IllegalAction, match="cannot show cards it was not dealt"):
        hand.apply(Show(first, tuple(parse_cards("QcQs"))))
    with pytest.raises(IllegalAction, match="cannot show cards it was not dealt"):
        hand.apply(Show(first, tuple(parse_cards("AhQs"))))  # one of his, one not
    assert hand.shown[first] is None
    assert hand.phase is Phase.SHOWDOWN


def test_tda_40_showing_an_undealt_pair_is_refused_at_the_table() -> None:
    """The same refusal through the table: the script's show line with cards the
    seat was not dealt is refused, and the seat's real cards then win."""
    text = """
profile casino-cash
stakes NL 1/2
deck-ready
seat 1 Ana 200
seat 2 Bruno 200
button 1
shuffle
cut
draw Ah Kd As Kh
1 call
2 check
draw 3c Qd Jd 2c
2 check
1 check
draw 4h 2s
2 check
1 check
draw 5h 8c
2 check
1 check
expect error was not dealt
show 2 QhQs
show 2 AhAs
show 1 KdKh
expect stacks 1=198 2=202
"""
    _, records = run_script(text)
    shows = [a for a in records[0]["actions"] if a["action"] == "show"]
    assert [(a["seat"], a["cards"]) for a in shows] == [(2, "AhAs"), (1, "KdKh")]


def test_uncontested_pot_is_awarded_without_the_winner_showing() -> None:
    """When every other contender mucks, the last hand left wins the pot without
    being tabled: nobody is asked to show a hand that nobody contests."""
    hand = _at_showdown_heads_up()
    first, second = hand.showdown_order
    hand.apply(Muck(first))
    assert hand.phase is Phase.COMPLETE
    assert hand.shown[second] is None
    assert hand.result is not None
    assert [p.winners for p in hand.result.pots] == [(second,)]
    assert hand.stacks[second] == 102 and hand.stacks[first] == 98


def test_last_of_three_contenders_wins_unshown_after_two_mucks() -> None:
    """Three hands reach the showdown; the first two in showdown order muck:
    the third wins the whole pot without tabling his cards."""
    hand = start([100, 100, 100])
    deal(hand, "2h3d", "4h5d", "7h8d")
    act(hand, "c", "c", "c")
    for cards in ("AcKcQc", "Js", "9c"):
        board(hand, cards)
        act(hand, "c", "c", "c")
    assert hand.phase is Phase.SHOWDOWN
    first, second, third = hand.showdown_order
    hand.apply(Muck(first))
    assert hand.phase is Phase.SHOWDOWN  # two hands still contend
    hand.apply(Muck(second))
    assert hand.phase is Phase.COMPLETE
    assert hand.shown[third] is None
    assert hand.result is not None
    assert [p.winners for p in hand.result.pots] == [(third,)]
    assert hand.stacks[third] == 104


# ---------------------------------------------------------------- physical chips (TDA-10)


def test_tda_10_physical_opening_bet_below_the_minimum_is_forced_up() -> None:
    """Chips opening the betting after the flop for less than the minimum bet
    (here one chip when the minimum is the big blind of 2) make a bet of the
    minimum: the player must add the rest; nothing is handed back."""
    hand = start([1000] * 2)
    deal(hand, "AhAd", "KhKd")
    act(hand, "c", "c")
    board(hand, "2c7d9h")
    assert hand.current_bet == 0
    event, back = interpret_chip_bet(hand, hand.actor, 1)  # type: ignore[arg-type]
    assert event == BetRaise(hand.actor, 2) and back == 0  # type: ignore[arg-type]


def test_tda_10_physical_opening_bet_at_the_minimum_or_more_is_taken_as_is() -> None:
    """An opening bet of at least the minimum is a bet of exactly those chips."""
    hand = start([1000] * 2)
    deal(hand, "AhAd", "KhKd")
    act(hand, "c", "c")
    board(hand, "2c7d9h")
    player = hand.actor
    assert player is not None
    assert interpret_chip_bet(hand, player, 2) == (BetRaise(player, 2), 0)
    assert interpret_chip_bet(hand, player, 7) == (BetRaise(player, 7), 0)


def test_tda_10_chips_over_a_call_when_raising_is_closed_are_a_call() -> None:
    """When raising is not open to a player (a short all-in did not reopen it),
    chips beyond the call are a call and the excess goes back to him."""
    hand = start([1000, 1000, 1000, 14], blinds=(1, 2, 0, 0))
    deal(hand, "AhAd", "KhKd", "QhQd", "JhJd")
    act(hand, "r10")  # player 2 raises to 10
    act(hand, "r14")  # player 3 all-in for 14: 4 more, short of a full raise of 8
    act(hand, "c", "c")  # the blinds call 14
    player = hand.actor
    assert player == 2  # the raiser faces only the short all-in
    legal = hand.legal_actions()
    assert legal.raise_refusal is not None and not legal.can_raise
    event, back = interpret_chip_bet(hand, player, 40)
    assert event == CheckCall(player)
    assert back == 40 - 14
    event, back = interpret_single_chip(hand, player, 100, declared_raise=True)
    assert event == CheckCall(player)
    assert back == 10 + 100 - 14


# ---------------------------------------------------------------- fixed limit with a straddle


def _fixed_limit_straddled():  # type: ignore[no-untyped-def]
    # 10/20 fixed limit, four players: blinds 10 and 20, a live straddle of 40.
    hand = start(
        [1000] * 4,
        blinds=(10, 20, 40, 0),
        structure=Structure.FIXED_LIMIT,
        min_bet=20,
        game=GameKind.CASH,
    )
    deal(hand, "AhAd", "KhKd", "QhQd", "JhJd")
    return hand


def test_cc_8_fixed_limit_raise_over_a_straddle_is_one_full_bet() -> None:
    """In fixed limit a straddle of two big blinds is the first raise of the
    round; a raise over it adds one more full bet (to 60 at 10/20), never a
    chip or two ("to 41")."""
    hand = _fixed_limit_straddled()
    legal = hand.legal_actions()
    assert (legal.min_raise_to, legal.max_raise_to) == (60, 60)
    with pytest.raises(IllegalAction, match="smallest bet or raise allowed is to 60"):
        act(hand, "r41")
    act(hand, "r60")
    assert hand.current_bet == 60


def test_cc_8_fixed_limit_straddle_counts_towards_the_cap() -> None:
    """The straddle counts as a raise towards the cap of one bet and three
    raises (CC-8): after big blind, straddle and two raises nobody may raise."""
    hand = _fixed_limit_straddled()
    act(hand, "r60", "r80")  # big blind 20, straddle 40, 60, 80: four full bets
    legal = hand.legal_actions()
    assert legal.raise_refusal is not None and "capped" in legal.raise_refusal
    assert not legal.can_raise


def test_cc_8_fixed_limit_without_a_straddle_raises_to_two_bets() -> None:
    """Without a straddle the first raise preflop is to two small bets (40 at 10/20)."""
    hand = start(
        [1000] * 3,
        blinds=(10, 20, 0),
        structure=Structure.FIXED_LIMIT,
        min_bet=20,
        game=GameKind.CASH,
    )
    deal(hand, "AhAd", "KhKd", "QhQd")
    legal = hand.legal_actions()
    assert (legal.min_raise_to, legal.max_raise_to) == (40, 40)


# ---------------------------------------------------------------- PIN failures


def _directory() -> tuple[StaffDirectory, list[float]]:
    now = [0.0]
    staff = StaffDirectory(clock=lambda: now[0], max_failures=3, lockout_seconds=60)
    staff.add("B1", "Ana", "floor", "2468")
    return staff, now


def _fail(staff: StaffDirectory, times: int) -> None:
    for _ in range(times):
        with pytest.raises(AuthError, match="Wrong badge or PIN; try again"):
            staff.login("B1", "0000")


def test_a_successful_login_clears_the_failure_count() -> None:
    """Failed logins lock a badge only when they come in a row: a successful
    login starts the count again, so two failures, a success and two more
    failures do not lock it (the limit here is three)."""
    staff, _ = _directory()
    _fail(staff, 2)
    assert staff.login("B1", "2468").name == "Ana"
    _fail(staff, 2)
    assert staff.login("B1", "2468").name == "Ana"
    _fail(staff, 2)
    with pytest.raises(AuthError, match="is locked for 60 seconds"):
        staff.login("B1", "0000")


def test_a_lock_expires_with_a_fresh_failure_count() -> None:
    """A lock lasts exactly its time; afterwards the badge has the full number
    of attempts again (not one), and the next run of failures locks it anew."""
    staff, now = _directory()
    _fail(staff, 2)
    with pytest.raises(AuthError, match="is locked for 60 seconds"):
        staff.login("B1", "0000")
    now[0] = 59.0
    with pytest.raises(AuthError, match="try again in 1 seconds"):
        staff.login("B1", "2468")
    now[0] = 60.0  # the lock ends at 60 seconds exactly
    _fail(staff, 2)
    with pytest.raises(AuthError, match="is locked for 60 seconds"):
        staff.login("B1", "0000")
    now[0] = 121.0
    assert staff.login("B1", "2468").name == "Ana"


def test_an_unknown_badge_counts_failures_and_locks_too() -> None:
    """Guessing badges is counted like guessing PINs: an unknown badge locks too."""
    staff, _ = _directory()
    for _ in range(2):
        with pytest.raises(AuthError, match="try again"):
            staff.login("B9", "1111")
    with pytest.raises(AuthError, match="is locked for 60 seconds"):
        staff.login("B9", "1111")


# ---------------------------------------------------------------- planning: the dead-button flag


def _seating(profile: str, seats: tuple[int, ...]) -> Seating:
    s = Seating(TableConfig(profile, profile_options(profile), Stakes()))
    for seat in seats:
        s.sit(seat, f"P{seat}", 200)
    return s


def _play(s: Seating) -> HandPlan:
    plan = s.plan_hand()
    s.begin_hand(plan)
    s.finish_hand(plan, plan.start.stacks)
    return plan


def _blinds(plan: HandPlan) -> dict[int, int]:
    return {x: b for x, b in zip(plan.seats, plan.start.blinds, strict=True) if b}


def test_tda_24_first_hand_with_a_dead_button_posts_only_the_two_blinds() -> None:
    """Under the dead button (tournaments) a player new at the table plays at
    once without posting: the first hand has a small and a big blind only."""
    plan = _seating("tda-tournament", (1, 2, 3, 4)).plan_hand()
    assert (plan.button, plan.small_blind_seat, plan.big_blind_seat) == (1, 2, 3)
    assert _blinds(plan) == {2: 1, 3: 2}


def test_tda_24_arrival_after_the_blinds_plays_without_posting_with_a_dead_button() -> None:
    """Later hands under the dead button: a player arriving anywhere but between
    the button and the small blind is dealt in at once and posts nothing."""
    s = _seating("tda-tournament", (1, 2, 3, 4))
    _play(s)  # button 1, blinds 2 and 3
    s.sit(6, "New", 200)  # next hand: button 2, blinds 3 and 4; seat 6 is after them
    plan = s.plan_hand()
    assert 6 in plan.seats
    assert _blinds(plan) == {3: 1, 4: 2}


def test_cc_13_forward_button_new_player_posts_a_live_big_blind() -> None:
    """With a forward button (cash) a new player outside the blinds posts a
    live big blind to play at once."""
    s = _seating("casino-cash", (1, 2, 3, 4))
    _play(s)
    s.sit(6, "New", 200)
    plan = s.plan_hand()
    assert _blinds(plan) == {3: 1, 4: 2, 6: 2}


def test_hg_16_bought_button_keeps_a_new_players_big_blind() -> None:
    """When a player buys the button (HG-16) he pays both blinds and the blind
    positions post nothing; another new player still posts his live big blind."""
    s = Seating(
        TableConfig("casino-cash", profile_options("casino-cash", buy_button=True), Stakes())
    )
    for seat in (1, 2, 3, 4):
        s.sit(seat, f"P{seat}", 200)
    _play(s)
    s.sit(6, "Buyer", 200)
    s.sit(8, "Other", 200)
    s.buy_button(6)
    plan = s.plan_hand()
    assert plan.button == 6
    assert _blinds(plan) == {6: 2, 8: 2}


def test_tda_24_arrival_in_the_button_place_waits_with_three_players() -> None:
    """Two players heads-up and a third arriving at the place the button comes
    to (between the button and the small blind): he waits a hand; the two play
    on heads-up with the big blind moving on, nobody posting it twice."""
    s = _seating("tda-tournament", (1, 5))
    first = _play(s)  # heads-up: seat 1 button and small blind, seat 5 big blind
    assert (first.button, first.big_blind_seat) == (1, 5)
    s.sit(3, "Moved", 200)
    plan = s.plan_hand()
    assert 3 not in plan.seats
    assert any("TDA-24" in note for note in plan.notes)
    assert plan.big_blind_seat == 1
    assert _blinds(plan) == {5: 1, 1: 2}


def test_tda_24_arrival_between_the_blinds_plays_with_three_players() -> None:
    """An arrival between the small and the big blind is dealt in at once."""
    s = _seating("tda-tournament", (1, 5))
    _play(s)
    s.sit(7, "Late", 200)  # next hand: small blind 5, big blind 1; seat 7 is between
    plan = s.plan_hand()
    assert set(plan.seats) == {1, 5, 7}
    assert not any("TDA-24" in note for note in plan.notes)
