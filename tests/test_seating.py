"""Seats, buy-ins, the button and the blinds across hands (table procedures)."""

import pytest

from firmware.errors import ConfigError, IllegalAction
from firmware.table.options import Stakes, TableConfig, load_table_config, profile_options
from firmware.table.seating import HandPlan, Seating


def seating(
    profile: str = "casino-cash", players: int = 4, chips: int = 200, **opts: object
) -> Seating:
    config = TableConfig(profile, profile_options(profile, **opts), Stakes())
    s = Seating(config)
    for seat in range(1, players + 1):
        s.sit(seat, f"P{seat}", chips)
    return s


def play(s: Seating, finishing: dict[int, int] | None = None) -> HandPlan:
    """Plan a hand and finish it with the given stacks (default: unchanged)."""
    plan = s.plan_hand()
    s.begin_hand(plan)
    pairs = zip(plan.seats, plan.start.stacks, strict=True)
    stacks = tuple((finishing or {}).get(x, stack) for x, stack in pairs)
    s.finish_hand(plan, stacks)
    return plan


def blinds_by_seat(plan: HandPlan) -> dict[int, int]:
    return {x: b for x, b in zip(plan.seats, plan.start.blinds, strict=True) if b}


def dead_by_seat(plan: HandPlan) -> dict[int, int]:
    return {x: d for x, d in zip(plan.seats, plan.start.dead, strict=True) if d}


# ------------------------------------------------------------------ seats


def test_cc_16_ten_seats_at_most_and_minimum_buy_in() -> None:
    """CC-16: at most ten players per table; a buy-in is at least ten times the lower limit."""
    s = seating(players=0)
    with pytest.raises(IllegalAction, match="seats 1 to 10"):
        s.sit(11, "X", 200)
    with pytest.raises(IllegalAction, match="minimum buy-in is 20"):
        s.sit(1, "X", 19)
    s.sit(1, "X", 20)
    with pytest.raises(ConfigError, match="max_seats"):
        profile_options("casino-cash", max_seats=11)


def test_pe_4_one_player_per_seat_and_one_seat_per_player() -> None:
    """PE-4: one player per seat and one seat per player."""
    s = seating(players=2)
    with pytest.raises(IllegalAction, match="taken"):
        s.sit(1, "Z", 200)
    with pytest.raises(IllegalAction, match="one position only"):
        s.sit(5, "P1", 200)


def test_pe_4_table_stakes_no_chips_leave_during_a_hand() -> None:
    """PE-4: no chips are bought or removed during a hand; buy-ins wait for its end."""
    s = seating(players=3)
    plan = s.plan_hand()
    s.begin_hand(plan)
    with pytest.raises(IllegalAction, match="PE-4"):
        s.cash_out(2)
    s.declare_rebuy(2, 100)  # declared now, it joins the stack only at the next hand
    assert s.seats[2].stack == 200
    s.finish_hand(plan, plan.start.stacks)
    nxt = s.plan_hand()
    assert nxt.start.stacks[nxt.seats.index(2)] == 300


def test_hg_6_cash_out_whole_stack_and_wait_before_coming_back() -> None:
    """HG-6: a cash player takes all his chips or none, and waits the house's time before sitting
    again.
    """
    s = seating(players=3)
    with pytest.raises(IllegalAction, match="HG-6"):
        s.remove_chips(2, 50)
    assert s.cash_out(2, now=1000.0) == 200
    assert 2 not in s.seats
    with pytest.raises(IllegalAction, match=r"in 21 minute"):
        s.sit(4, "P2", 200, now=1000.0 + 10 * 60)
    s.sit(4, "P2", 200, now=1000.0 + 30 * 60)


def test_hg_7_no_chip_transfers_between_players() -> None:
    """HG-7: chips come only from the dealer or the cashier, never from another player."""
    s = seating(players=2)
    with pytest.raises(IllegalAction, match="HG-7"):
        s.transfer(1, 2, 50)
    assert [x.stack for x in s.seats.values()] == [200, 200]


def test_tda_18_declared_rebuy_is_binding_and_plays_behind() -> None:
    """TDA-18: a rebuy declared before the hand is binding; those chips play as if on the table."""
    s = seating(players=3)
    s.declare_rebuy(3, 100)
    plan = s.plan_hand()
    assert plan.start.stacks[plan.seats.index(3)] == 300


def test_hg_13_busted_player_must_decide_before_next_hand() -> None:
    """HG-13: a busted player must decide on a rebuy before the next hand is dealt."""
    s = seating(players=3)
    play(s, {2: 0, 3: 400})
    assert s.seats[2].busted
    with pytest.raises(IllegalAction, match="HG-13"):
        s.plan_hand()
    s.declare_rebuy(2, 200)
    plan = s.plan_hand()
    assert 2 in plan.seats


def test_config_unknown_option_is_an_error_naming_it() -> None:
    with pytest.raises(ConfigError, match="reentry_wait_minuts"):
        load_table_config('[table]\nprofile = "home"\n[options]\nreentry_wait_minuts = 5\n')
    with pytest.raises(ConfigError, match="colour"):
        load_table_config('[table]\nprofile = "home"\ncolour = "red"\n')
    cfg = load_table_config(
        '[table]\nprofile = "casino-cash"\nstructure = "FL"\nsmall_blind = 5\nbig_blind = 10\n'
        "[options]\nreentry_wait_minutes = 45\n"
    )
    assert cfg.options.reentry_wait_minutes == 45 and cfg.stakes.big_blind == 10


# ------------------------------------------------------------ button / blinds


def test_cc_12_forward_button_goes_to_last_hands_small_blind() -> None:
    """CC-12: the button moves forward to the player who posted the small blind in the previous
    hand.
    """
    s = seating(players=4)
    first = play(s)
    assert (first.button, first.small_blind_seat, first.big_blind_seat) == (1, 2, 3)
    second = play(s)
    assert (second.button, second.small_blind_seat, second.big_blind_seat) == (2, 3, 4)
    third = play(s)
    assert (third.button, third.small_blind_seat, third.big_blind_seat) == (3, 4, 1)
    assert blinds_by_seat(third) == {4: 1, 1: 2}


def test_cc_13_new_player_posts_a_live_big_blind_or_waits() -> None:
    """CC-13: a new player left of the big blind may post a live big blind to play at once, or wait
    for the big blind.
    """
    s = seating(players=4)
    play(s)  # button 1, blinds 2 and 3
    s.sit(6, "New", 200)  # seat 6 is after seat 4, before the button's next seats
    plan = play(s)  # button 2, blinds 3 and 4: seat 6 is neither
    assert blinds_by_seat(plan)[6] == 2
    s2 = seating(players=4)
    play(s2)
    s2.sit(6, "New", 200)
    s2.seats[6].wait_for_big_blind = True
    plan2 = s2.plan_hand()
    assert 6 not in plan2.seats
    assert any("CC-13" in note for note in plan2.notes)


def test_cc_13_new_player_between_button_and_blinds_waits() -> None:
    """CC-13: a new player between the button and the blinds waits until the button passes."""
    config = TableConfig("casino-cash", profile_options("casino-cash"), Stakes())
    s = Seating(config)
    for seat in (1, 3, 5, 7):
        s.sit(seat, f"P{seat}", 200)
    play(s)  # button 1, blinds 3 and 5
    s.sit(4, "New", 200)  # next hand: button 3, small blind would be seat 4
    plan = s.plan_hand()
    assert 4 not in plan.seats
    assert (plan.button, plan.small_blind_seat, plan.big_blind_seat) == (3, 5, 7)


def test_cc_14_hg_15_missed_big_blind_marker_then_posts_live_and_dead() -> None:
    """CC-14/HG-15: a seat that missed the big blind gets an ML marker and on return posts both
    blinds: the small part dead, the big part live.
    """
    s = seating(players=5)
    play(s)  # button 1, blinds 2, 3
    s.sit_out(4)
    plan = play(s)  # button 2: small blind 3, seat 4 sits out in the big blind's place
    assert 4 not in plan.seats and plan.big_blind_seat == 5
    assert s.seats[4].markers == "ML"
    s.sit_out(4, False)
    plan = play(s)  # button 3: seat 4 would be the small blind, so it waits (HG-15)
    assert 4 not in plan.seats and s.seats[4].markers == "ML"
    plan = s.plan_hand()  # button 5, blinds 1 and 2: the button has passed seat 4
    i = plan.seats.index(4)
    assert plan.start.blinds[i] == 2 and plan.start.dead[i] == 1  # posts 3: 2 live, 1 dead
    s.begin_hand(plan)
    assert s.seats[4].markers == ""


def test_cc_15_missed_small_blind_marker_posts_dead_small_blind() -> None:
    """CC-15: a seat that missed the small blind gets an MS marker and returns after the button
    passes, posting a dead small blind.
    """
    s = seating(players=5)
    play(s)  # button 1, blinds 2, 3
    s.sit_out(3)
    plan = play(s)  # button 2: seat 3 sits out in the small blind's place
    assert s.seats[3].markers == "MS"
    assert 3 not in plan.seats
    s.sit_out(3, False)
    plan = s.plan_hand()
    i = plan.seats.index(3)
    assert plan.start.blinds[i] == 0 and plan.start.dead[i] == 1


def test_hg_15_returning_player_in_the_small_blind_waits_for_the_button() -> None:
    """HG-15: nobody comes back between the blinds; a returning player in the small blind waits for
    the button to pass.
    """
    s = seating(players=4)
    play(s)  # button 1, blinds 2, 3
    s.sit_out(3)
    play(s)  # button 2, seat 3 misses the small blind (MS)
    s.sit_out(3, False)
    s.button, s.last_small_blind = 1, 2  # force the next button to seat 2 again
    plan = s.plan_hand()
    assert 3 not in plan.seats
    assert s.seats[3].markers == "MS"


def test_tda_6_dead_button_when_the_small_blind_busts() -> None:
    """TDA-6: when the player due the button is gone, the button stays on the empty seat one more
    hand (dead button).
    """
    s = seating("tda-tournament", players=4)
    first = play(s, {2: 0})  # button 1, blinds 2 and 3; seat 2 busts
    del s.seats[2]
    assert (first.button, first.small_blind_seat, first.big_blind_seat) == (1, 2, 3)
    plan = play(s)
    # The big blind moves on to 4; the small blind is last hand's big blind (3); the
    # button is last hand's small blind seat (2), now empty: a dead button.
    assert (plan.button, plan.small_blind_seat, plan.big_blind_seat) == (2, 3, 4)
    assert 2 not in plan.seats


def test_tda_6_no_small_blind_when_the_big_blind_busts() -> None:
    """TDA-6: the big blind always advances; when that leaves nobody in the small blind, no small
    blind is posted.
    """
    s = seating("tda-tournament", players=4)
    play(s, {3: 0})  # seat 3, the big blind, busts
    del s.seats[3]
    plan = play(s)
    assert plan.big_blind_seat == 4 and plan.small_blind_seat is None
    assert blinds_by_seat(plan) == {4: 2}
    assert plan.button == 2


def test_tda_35_heads_up_transition_nobody_posts_big_blind_twice() -> None:
    """TDA-35: when play goes heads-up the button is placed so that nobody posts the big blind twice
    in a row.
    """
    s = seating("tda-tournament", players=3)
    first = play(s, {1: 0})  # button 1, blinds 2 and 3; the button busts
    del s.seats[1]
    assert first.big_blind_seat == 3
    plan = play(s)
    assert plan.big_blind_seat == 2  # seat 3 was big blind last hand
    assert plan.button == plan.small_blind_seat == 3
    assert plan.seats == (2, 3)  # engine order: big blind first, the button last
    assert plan.start.blinds == (2, 1)


def test_tda_24_arrival_between_button_and_small_blind_sits_out_a_hand() -> None:
    """TDA-24: a player moved in between the button and the small blind sits out one hand; anywhere
    else he takes his new seat's obligations.
    """
    config = TableConfig("tda-tournament", profile_options("tda-tournament"), Stakes())
    s = Seating(config)
    for seat in (1, 2, 5, 6):
        s.sit(seat, f"P{seat}", 200)
    play(s)  # button 1, blinds 2 and 5
    s.sit(3, "Moved", 200)  # next hand: button 2, small blind 5: seat 3 lies between
    plan = s.plan_hand()
    assert 3 not in plan.seats
    assert any("TDA-24" in note for note in plan.notes)


def test_tda_8_hg_17_absent_players_are_dealt_in_in_tournaments() -> None:
    """TDA-8/HG-17: in tournaments absent players are dealt in and post their blinds; their hands
    are killed when the deal ends.
    """
    s = seating("tda-tournament", players=3)
    s.set_away(3)
    plan = s.plan_hand()
    assert 3 in plan.seats and plan.seats.index(3) in plan.absent


def test_hg_18_stack_below_small_blind_is_all_in_in_home_games() -> None:
    """HG-18 (home option): a stack below the small blind is automatically all-in next hand."""
    config = TableConfig("home", profile_options("home"), Stakes(small_blind=5, big_blind=10))
    s = Seating(config)
    for seat in (1, 2, 3, 4):
        s.sit(seat, f"P{seat}", 200)
    s.seats[4].stack = 3  # below the small blind; seat 4 is the button in the first hand
    plan = s.plan_hand()
    assert plan.start.blinds[plan.seats.index(4)] == 3


def test_pe_4_fewer_than_two_players_cannot_start() -> None:
    """PE-4: a hand cannot start with fewer than two players."""
    s = seating(players=2)
    s.sit_out(2)
    with pytest.raises(IllegalAction, match="at least two players"):
        s.plan_hand()
