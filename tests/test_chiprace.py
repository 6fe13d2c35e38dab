"""Colouring up with a chip race (TDA-2, HG-19), with the guide's worked examples."""

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware.engine.cards import Card, parse_card
from firmware.errors import CardError, ConfigError
from firmware.table.chiprace import chip_race, chips_to_race


def scripted(*cards: str) -> Callable[[], Card]:
    """A card source that deals ``cards`` in order and fails if asked for more."""
    deck = iter(parse_card(c) for c in cards)
    return lambda: next(deck)


def test_hg_19_ten_25_chips_become_two_100_chips_with_two_25_left_over() -> None:
    """HG-19: whole amounts are exchanged directly when colouring up; ten 25 chips make two 100
    chips and two 25 chips are left to race.
    """
    result = chip_race({1: 10, 2: 4}, 25, 100, scripted("2c", "3c"), round_up=True)
    assert result.exchanged == {1: 2, 2: 1}
    assert result.odd_chips == {1: 2, 2: 0}
    assert result.cards == {1: (parse_card("2c"), parse_card("3c")), 2: ()}
    # the two odd 25s (50) are raced for one 100 chip; seat 1 is the only racer
    assert result.chips_raced == 1
    assert result.higher_chips == {1: 3, 2: 1}
    assert result.rounding_difference == 50


def _thirteen_odd_chips(round_up: bool) -> object:
    # Odd chips: seats 1-4 three each, seat 5 one: 13 x 25 = 325 (HG-19's example).
    # Dealt a round at a time from seat 1: 1 2 3 4 5, 1 2 3 4, 1 2 3 4.
    deal = scripted(
        *("Ah", "Kc", "Kh", "7c", "Qd"),
        *("As", "3c", "5c", "8c"),
        *("2c", "4c", "6c", "9c"),
    )
    return chip_race(
        {1: 3, 2: 7, 3: 3, 4: 3, 5: 1},
        25,
        100,
        deal,
        round_up=round_up,
        other_chips={1: 1000, 2: 1000, 3: 1000, 4: 1000},
    )


def test_hg_19_thirteen_odd_25_chips_race_four_100_chips_one_per_player() -> None:
    """HG-19: the odd chips of all players are totalled and raced; thirteen 25 chips become four 100
    chips, and nobody wins more than one.
    """
    result = _thirteen_odd_chips(round_up=True)
    assert result.odd_value == 325
    assert result.chips_raced == 4
    # seat 1 holds both aces but wins one chip only; kings by suit: Kh (3) before Kc (2)
    assert result.won == {1: 1, 2: 1, 3: 1, 4: 0, 5: 1}
    assert [s.seat for s in result.steps if s.kind == "win"] == [1, 3, 2, 5]
    assert result.higher_chips == {1: 1, 2: 2, 3: 1, 4: 0, 5: 1}
    assert result.cards[1] == tuple(parse_card(c) for c in ("Ah", "As", "2c"))
    assert result.rounding_difference == 75
    assert result.guaranteed == ()
    assert result.difference == 75


def test_tda_2_rounding_to_nearest_races_three_chips_and_nobody_is_raced_out() -> None:
    """TDA-2: with rounding to the nearest chip the race gives out three chips, and a player whose
    only chip loses still receives one higher chip.
    """
    result = _thirteen_odd_chips(round_up=False)
    assert result.chips_raced == 3
    assert result.won == {1: 1, 2: 1, 3: 1, 4: 0, 5: 0}
    # seat 5's only chip was an odd chip and it lost: it gets one 100 chip anyway
    assert result.guaranteed == (5,)
    assert result.higher_chips[5] == 1
    assert result.rounding_difference == -25
    assert result.guarantee_value == 100
    assert result.difference == 75


def test_tda_2_chips_to_race_rounds_up_or_to_the_nearest_chip() -> None:
    """TDA-2/HG-19: the raced total is rounded up (the guide's reading) or to the nearest higher
    chip, as the profile says.
    """
    assert chips_to_race(325, 100, round_up=True) == 4
    assert chips_to_race(325, 100, round_up=False) == 3
    assert chips_to_race(350, 100, round_up=False) == 4
    assert chips_to_race(349, 100, round_up=False) == 3
    assert chips_to_race(300, 100, round_up=False) == 3
    assert chips_to_race(300, 100, round_up=True) == 3
    assert chips_to_race(0, 100, round_up=True) == 0


def test_tda_2_cards_are_dealt_clockwise_from_seat_1() -> None:
    """TDA-2: race cards are dealt one per odd chip, clockwise starting from seat 1."""
    result = chip_race({7: 1, 2: 1, 4: 2}, 5, 25, scripted("2c", "3c", "4c", "5c"))
    assert result.cards == {
        2: (parse_card("2c"),),
        4: (parse_card("3c"), parse_card("5c")),
        7: (parse_card("4c"),),
    }


def test_hg_19_dealing_can_start_at_the_dealers_left() -> None:
    """HG-19: the guide starts dealing the race cards at the dealer's left; the procedure supports
    that starting seat.
    """
    # button on seat 4: the dealer's left is seat 5, so 7 then 2 then 4
    result = chip_race({7: 1, 2: 1, 4: 1}, 5, 25, scripted("2c", "3c", "4c"), start_seat=5)
    assert result.cards == {7: (parse_card("2c"),), 2: (parse_card("3c"),), 4: (parse_card("4c"),)}


def test_hg_19_ties_in_rank_go_to_spades_then_hearts_then_diamonds_then_clubs() -> None:
    """HG-19: equal race cards are ordered by suit: spades, hearts, diamonds, then clubs."""
    # four odd 25s (100): one chip raced; all four cards are tens
    for winner_card, winner in (("Ts", 3), ("Th", 1)):
        order = ["Th", "Td", "Ts", "Tc"] if winner == 3 else ["Th", "Td", "Tc", "9s"]
        result = chip_race({1: 1, 2: 1, 3: 1, 4: 1}, 25, 100, scripted(*order))
        assert result.won[winner] == 1, winner_card
        assert sum(result.won.values()) == 1


def test_tda_2_a_player_with_other_chips_can_lose_the_race() -> None:
    """TDA-2: only a player left with no chip at all is protected; one who keeps other chips may
    lose the race and get nothing.
    """
    race = chip_race({1: 1, 2: 1}, 25, 100, scripted("As", "2c"), other_chips={1: 500, 2: 500})
    assert race.won == {1: 1, 2: 0}
    assert race.guaranteed == ()
    assert race.higher_chips == {1: 1, 2: 0}


def test_tda_2_race_rejects_bad_denominations_counts_and_cards() -> None:
    """TDA-2: a race with a colour-up chip that is not a multiple, negative counts or repeated cards
    is refused with a sentence.
    """
    with pytest.raises(ConfigError, match="whole multiple"):
        chip_race({1: 3}, 25, 60, scripted("2c"))
    with pytest.raises(ConfigError, match="larger"):
        chip_race({1: 3}, 100, 25, scripted("2c"))
    with pytest.raises(ConfigError, match="Seat 0"):
        chip_race({0: 3}, 25, 100, scripted("2c"))
    with pytest.raises(CardError, match="twice"):
        chip_race({1: 1, 2: 1}, 25, 100, scripted("2c", "2c"))
    with pytest.raises(CardError, match="not a card"):
        chip_race({1: 1}, 25, 100, lambda: 52)


def test_hg_19_every_step_is_recorded_for_the_console() -> None:
    """HG-19: each exchange and each race card is recorded so the console can show the dealer every
    step.
    """
    result = _thirteen_odd_chips(round_up=True)
    kinds = [step.kind for step in result.steps]
    assert kinds.count("exchange") == 5
    assert kinds.count("deal") == 5
    assert kinds.count("win") == 4
    assert "total" in kinds and "rounding" in kinds
    total = next(s for s in result.steps if s.kind == "total")
    assert "13 odd chips of 25 = 325: 4 x 100 to race" in total.text


@given(
    counts=st.dictionaries(st.integers(1, 10), st.integers(0, 30), min_size=1, max_size=10),
    ratio=st.sampled_from([2, 4, 5]),
    round_up=st.booleans(),
)
def test_tda_2_value_is_conserved_but_for_the_reported_rounding_and_guarantee(
    counts: dict[int, int], ratio: int, round_up: bool
) -> None:
    """TDA-2: colouring up keeps the total value except for the rounding and the no-race-out
    guarantee, which are reported.
    """
    deck = iter(range(52))
    result = chip_race(counts, 25, 25 * ratio, lambda: next(deck), round_up=round_up)
    assert result.difference == result.rounding_difference + result.guarantee_value
    assert all(won in (0, 1) for won in result.won.values())
    assert sum(result.won.values()) == result.chips_raced
    assert all(result.higher_chips[s] >= 1 for s in counts if counts[s])  # nobody raced out
    assert sum(len(c) for c in result.cards.values()) == sum(result.odd_chips.values())
