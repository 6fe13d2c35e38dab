"""Seating edge cases and refusals found by mutation testing of ``firmware/table/seating.py``.

Each test names a behaviour that a surviving mutant changed without any other
test failing (docs/testing.md).
"""

from __future__ import annotations

import pathlib

import pytest

from firmware.engine.hand import Hand
from firmware.errors import IllegalAction
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.script import run_script
from firmware.table.seating import HandPlan, Seating
from firmware.table.seating_floor import button_draw
from firmware.table.snapshot import table_state
from tests.kit import deal


def _seating(
    profile: str, seats: tuple[int, ...], stakes: Stakes | None = None, **opts: object
) -> Seating:
    s = Seating(TableConfig(profile, profile_options(profile, **opts), stakes or Stakes()))
    for seat in seats:
        s.sit(seat, f"P{seat}", 200)
    return s


def _play(s: Seating, busted: tuple[int, ...] = ()) -> HandPlan:
    plan = s.plan_hand()
    s.begin_hand(plan)
    stacks = tuple(
        0 if x in busted else c for x, c in zip(plan.seats, plan.start.stacks, strict=True)
    )
    s.finish_hand(plan, stacks)
    return plan


def _by_seat(plan: HandPlan, values: tuple[int, ...]) -> dict[int, int]:
    return {x: v for x, v in zip(plan.seats, values, strict=True) if v}


def test_tda_6_with_a_dead_small_blind_an_arrival_after_the_big_blind_plays() -> None:
    """When nobody posts the small blind (the last big blind is gone), a player arriving
    after the new big blind is dealt in: only the places between the button and the big
    blind make an arrival wait."""
    s = _seating("tda-tournament", (1, 2, 3, 4))
    _play(s, busted=(3,))  # button 1, blinds 2 and 3; the big blind busts
    s.cash_out(3)
    s.sit(6, "New", 200)
    plan = s.plan_hand()
    assert plan.small_blind_seat is None and plan.big_blind_seat == 4
    assert 6 in plan.seats


def test_tda_8_absent_players_sit_out_under_a_dead_button_when_not_dealt_in() -> None:
    """With the dead button but absent players not dealt in (house option), an away
    player is left out and the others play."""
    s = _seating("tda-tournament", (1, 2, 3, 4), absent_dealt_in=False)
    s.set_away(3)
    plan = s.plan_hand()
    assert set(plan.seats) == {1, 2, 4}


def test_cc_12_button_moves_on_when_last_small_blind_left() -> None:
    """Forward button: when last hand's small blind has left, the button goes to the next
    player who has played here, clockwise from the old button."""
    s = _seating("casino-cash", (1, 2, 3, 4))
    first = _play(s)
    assert (first.button, first.small_blind_seat) == (1, 2)
    s.cash_out(2)
    plan = s.plan_hand()
    assert plan.button == 3


def test_antes_for_everyone_or_the_big_blind_ante() -> None:
    """An ante is posted by every player; a big-blind ante only by the big blind, as
    dead money."""
    s = _seating("tda-tournament", (1, 2, 3), Stakes(small_blind=1, big_blind=2, ante=1))
    plan = s.plan_hand()
    assert _by_seat(plan, plan.start.antes) == {1: 1, 2: 1, 3: 1}
    assert _by_seat(plan, plan.start.dead) == {}
    stakes = Stakes(small_blind=1, big_blind=2, ante=2, big_blind_ante=True)
    s = _seating("tda-tournament", (1, 2, 3), stakes)
    plan = s.plan_hand()
    assert _by_seat(plan, plan.start.antes) == {}
    assert _by_seat(plan, plan.start.dead) == {plan.big_blind_seat: 2}


def test_every_seat_up_to_the_last_can_be_taken() -> None:
    """Seats are numbered 1 to max_seats, both ends included."""
    s = _seating("casino-cash", ())
    s.sit(1, "First", 200)
    s.sit(10, "Last", 200)
    with pytest.raises(IllegalAction, match="Seat 11") as caught:
        s.sit(11, "Nobody", 200)
    assert caught.value.key == "error.table.no_seat"


def test_buy_ins_and_rebuys_of_one_chip() -> None:
    """One chip is a whole number of chips: a buy-in of one is refused only for being
    below the minimum, and a rebuy of one chip on top of a stack below the table's
    maximum is accepted (CC-16 checks the maximum on rebuys too)."""
    s = _seating("casino-cash", (), max_buy_in_multiple=100)
    s.sit(1, "P1", 150)
    with pytest.raises(IllegalAction, match="The minimum buy-in is 20") as caught:
        s.check_buy_in(1)
    assert caught.value.key == "error.table.buy_in_low"
    with pytest.raises(IllegalAction, match="A buy-in must be a whole number of chips, not 0"):
        s.check_buy_in(0)
    with pytest.raises(IllegalAction, match="maximum buy-in at this table is 200") as caught:
        s.check_buy_in(201)
    assert caught.value.key == "error.table.buy_in_high"
    s.declare_rebuy(1, 1)
    assert s.seats[1].rebuy == 1
    with pytest.raises(IllegalAction, match="A rebuy must be a whole number of chips, not 0"):
        s.declare_rebuy(1, 0)


@pytest.mark.parametrize(
    ("act", "message", "key"),
    [
        (
            lambda s: s.buy_button(1),
            "Buying the button is not allowed at this table (HG-16 is a house option).",
            "error.table.no_buy_button",
        ),
        (
            lambda s: s.straddle(1),
            "Straddles are not allowed at this table (house option).",
            "error.table.no_straddle",
        ),
    ],
)
def test_house_options_that_are_off_are_refused(act: object, message: str, key: str) -> None:
    """A house option that is off is refused in a sentence that says it is one."""
    s = _seating("tda-tournament", (1, 2))
    with pytest.raises(IllegalAction) as caught:
        act(s)  # type: ignore[operator]
    assert str(caught.value) == message and caught.value.key == key


def test_refusals_during_and_before_a_hand() -> None:
    """Nobody leaves with chips during a hand; a busted player must rebuy or leave; a
    hand needs two players."""
    s = _seating("casino-cash", (1, 2))
    plan = s.plan_hand()
    s.begin_hand(plan)
    with pytest.raises(IllegalAction) as caught:
        s.cash_out(1)
    assert str(caught.value) == (
        "Nobody can leave with chips during a hand (PE-4); cash out after the hand."
    )
    s.finish_hand(plan, (0, 400) if plan.seats[0] == 1 else (400, 0))
    with pytest.raises(IllegalAction) as caught:
        s.plan_hand()
    assert str(caught.value) == (
        "Seat 1 (P1) is out of chips and must rebuy or leave before the next hand is dealt (HG-13)."
    )
    s.cash_out(1)
    with pytest.raises(IllegalAction) as caught:
        s.plan_hand()
    assert caught.value.key == "error.hand.too_few"


def test_tda_24_under_a_dead_button_one_of_two_arrivals_waits_and_the_other_plays() -> None:
    """TDA-24 keeps an arrival between the button and the blinds out only while a hand
    can still be dealt without him: with a dead button and a dead small blind, two
    new players on seats 3 and 4 between the button (2) and the big blind (7) and three
    live in all, seat 3 waits and seat 4 plays against the big blind; keeping both out
    would leave a one-seat hand."""
    s = _seating("tda-tournament", (1, 2, 6, 7))
    first = _play(s, busted=(1, 2, 6))  # button 1, blinds 2 and 6; all three bust
    assert (first.button, first.small_blind_seat, first.big_blind_seat) == (1, 2, 6)
    for x in (1, 2, 6):
        s.cash_out(x)
    s.sit(3, "New3", 200)
    s.sit(4, "New4", 200)
    plan = s.plan_hand()
    assert plan.seats == (4, 7)
    assert (plan.button, plan.small_blind_seat, plan.big_blind_seat) == (2, None, 7)
    assert "seat 3 arrived between the button and the blinds (TDA-24)" in plan.notes
    assert not any("seat 4" in note for note in plan.notes)


def test_hg_13_a_player_out_of_chips_buys_in_again_within_the_limits() -> None:
    """HG-13 with CC-16: a player who lost his last chip does not add on to nothing; his
    rebuy is a new buy-in, held to the table's minimum (20 at blinds 1/2) and maximum
    (200 here), the parts he declares counted together. A player with chips adds on:
    no minimum, only the maximum."""
    s = _seating("casino-cash", (), max_buy_in_multiple=100)
    for seat in (1, 2, 3):
        s.sit(seat, f"P{seat}", 150)
    _play(s, busted=(2,))
    assert s.seats[2].stack == 0
    with pytest.raises(IllegalAction, match=r"minimum buy-in is 20 .*; 19 is not enough") as low:
        s.declare_rebuy(2, 19)
    assert low.value.key == "error.table.buy_in_low"
    assert s.seats[2].rebuy == 0
    s.declare_rebuy(2, 150)
    with pytest.raises(IllegalAction, match="maximum buy-in at this table is 200; 210") as high:
        s.declare_rebuy(2, 60)
    assert high.value.key == "error.table.buy_in_high"
    s.declare_rebuy(2, 50)
    assert s.seats[2].rebuy == 200
    s.declare_rebuy(1, 5)  # seat 1 still has 150 chips: an add-on of 5 is fine
    assert s.seats[1].rebuy == 5
    plan = s.plan_hand()
    assert plan.start.stacks[plan.seats.index(2)] == 200


def test_a_straddle_acts_last_even_when_a_returning_player_posts_as_much() -> None:
    """At 2/2 with live missed blinds, a player back from sitting out posts big and small
    blind, 4 chips, as much as the straddle: the action before the flop still starts
    left of the straddler (seat 4), not left of the returning player."""
    s = _seating(
        "casino-cash",
        (1, 2, 3, 4, 5, 6),
        Stakes(small_blind=2, big_blind=2),
        straddle=True,
        dead_small_blind=False,
    )
    _play(s)
    s.sit_out(5)
    _play(s)
    _play(s)  # seat 5 sat out in the big blind's place: he owes it
    s.sit_out(5, False)
    _play(s)  # he waits for the button to pass
    s.straddle(3)
    plan = s.plan_hand()
    assert plan.button == 6 and plan.big_blind_seat == 2
    assert _by_seat(plan, plan.start.blinds) == {1: 2, 2: 2, 3: 4, 5: 4}
    hand = Hand.start(plan.start)
    deal(hand, "AsKs", "AhKh", "AdKd", "AcKc", "QsJs", "QhJh")
    assert hand.actor is not None and plan.seats[hand.actor] == 4


@pytest.mark.parametrize("profile", ["casino-cash", "tda-tournament"])
def test_pe_4_a_hand_for_one_player_is_refused_with_the_sentence_that_says_to_wait(
    profile: str,
) -> None:
    """PE-4: with one player who has chips, under the forward and the dead button alike,
    the dealer reads the whole sentence (why, and what to do) and the screens the
    catalog's key."""
    s = _seating(profile, (3,))
    with pytest.raises(IllegalAction) as caught:
        s.plan_hand()
    assert str(caught.value) == (
        "A hand needs at least two players with chips (PE-4); wait for another player."
    )
    assert caught.value.key == "error.hand.too_few"


def test_pe_4_a_second_seat_for_the_same_player_is_refused_by_name_and_key() -> None:
    """PE-4: one seat per player, the same name in another case and spacing included;
    the refusal names the player as the dealer typed him and carries its catalog key
    (the Spanish screen shows the Spanish sentence)."""
    s = _seating("casino-cash", ())
    s.sit(1, "Ana Perez", 200)
    with pytest.raises(IllegalAction) as caught:
        s.sit(5, "ANA  perez", 200)
    assert str(caught.value) == (
        "ANA  perez already has a seat; a player plays one position only (PE-4)."
    )
    assert caught.value.key == "error.table.two_seats"
    assert set(s.seats) == {1}


def test_hg_16_a_player_who_has_played_cannot_buy_the_button() -> None:
    """HG-16 is for a player who has just sat down: at a table that allows it, a seat
    that has already played a hand is refused in a sentence that names the seat."""
    s = _seating("home", (1, 2, 3))
    _play(s)
    s.sit(5, "New", 200)
    with pytest.raises(IllegalAction) as caught:
        s.buy_button(1)
    assert str(caught.value) == (
        "Only a player who has just sat down can buy the button; seat 1 has already played (HG-16)."
    )
    assert caught.value.key == "error.table.no_buy_button"
    s.buy_button(5)  # the new player may
    assert s.plan_hand().button == 5


def test_hg_16_a_bought_button_is_spent_and_the_snapshot_records_no_buyer() -> None:
    """HG-16 buys the button for one hand: once that hand is dealt no purchase is
    pending, and the snapshot that starts a rotated journal records none (null, as at
    a table where nobody bought), not a value in place of a seat number."""
    script = pathlib.Path(__file__).parent / "scenarios" / "hg_16_buy_button.txt"
    table, _ = run_script(script.read_text(encoding="utf-8"))
    assert table.seating.button == 6
    assert table_state(table)["button_buyer"] is None


def test_tda_6_under_the_dead_button_the_first_hand_uses_the_drawn_button() -> None:
    """TDA-13 then TDA-6: at a tournament table the draw for the button gives seat 3
    the highest card; the first hand puts the button there (blinds 4 and 1), not on the
    lowest seat."""
    s = _seating("tda-tournament", (1, 2, 3, 4))
    result = button_draw(s, (1, 2, 3, 4), (10, 20, 51, 30), 0, 0.0)
    assert result.button == 3
    plan = s.plan_hand()
    assert (plan.button, plan.small_blind_seat, plan.big_blind_seat) == (3, 4, 1)
