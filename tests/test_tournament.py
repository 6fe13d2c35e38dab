"""Tournament procedures: levels (TDA-17), penalties (TDA-7, TDA-31), draws
(TDA-13, HG-5) and balancing (TDA-25, HG-4)."""

import logging
import random
from collections import Counter

import pytest

from firmware.engine.cards import parse_card
from firmware.engine.rules import Structure
from firmware.errors import ConfigError, IllegalAction
from firmware.table.draws import draw_for_button, draw_seats, suggest_move, table_should_pause
from firmware.table.options import Stakes
from firmware.table.penalties import Penalty, PenaltyBook, PenaltyKind, hands_to_miss
from firmware.table.tournament import Level, LevelSchedule, TournamentClock

LEVELS = [
    {"small_blind": 25, "big_blind": 50, "minutes": 20},
    {"small_blind": 50, "big_blind": 100, "minutes": 20},
    {"break_minutes": 10},
    {"small_blind": 100, "big_blind": 200, "ante": 200, "big_blind_ante": True, "minutes": 15},
]


def schedule() -> LevelSchedule:
    return LevelSchedule.from_dicts(LEVELS, chip_unit=25)


# ------------------------------------------------------------------ levels


def test_tda_17_level_at_gives_index_level_and_seconds_left() -> None:
    """TDA-17: the schedule tells which level is in force at a moment and how many seconds it has
    left.
    """
    s = schedule()
    assert s.level_at(0.0) == (0, Level(25, 50, 0, False, 20.0), 1200.0)
    assert s.level_at(1199.5)[0] == 0
    assert s.level_at(1200.0) == (1, Level(50, 100, 0, False, 20.0), 1200.0)
    assert s.level_at(2499.0, paused_seconds=100.0) == (1, Level(50, 100, 0, False, 20.0), 1.0)
    assert s.level_at(2400.0)[0] == 2  # the break: shows the level that follows it
    pos = s.position(2700.0)
    assert pos.on_break and pos.break_seconds_left == 300.0 and pos.number == 3
    assert s.level_at(3000.0)[2] == 900.0
    assert s.level_at(99999.0) == (2, s.levels[2], 0.0)  # the last level goes on


def test_tda_17_schedule_loads_from_toml() -> None:
    """TDA-17: the blind structure loads from the table configuration."""
    text = """
structure = "FL"
chip_unit = 5
[[levels]]
small_blind = 5
big_blind = 10
minutes = 15
[[levels]]
break_minutes = 5
[[levels]]
small_blind = 10
big_blind = 20
ante = 5
minutes = 15
"""
    s = LevelSchedule.from_toml(text)
    assert s.breaks == {1: 5.0}
    assert s.stakes(s.levels[1]) == Stakes(Structure.FIXED_LIMIT, 10, 20, 5, False, 40, 5)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (
            [{"small_blind": 50, "big_blind": 100, "minutes": 20}] * 2
            + [{"small_blind": 25, "big_blind": 50, "minutes": 20}],
            "Level 3 has blinds 25/50, lower than the level before",
        ),
        ([{"small_blind": 50, "big_blind": 100, "minutes": 0}], "Level 1 must last a positive"),
        (
            [
                {"small_blind": 5, "big_blind": 10, "minutes": 5},
                {"small_blind": 20, "big_blind": 10, "minutes": 5},
            ],
            "Level 2 has a small blind",
        ),
        ([{"small_blind": 5, "big_blnd": 10, "minutes": 5}], "Level 1 has unknown key"),
        ([{"break_minutes": 5}, {"small_blind": 5, "big_blind": 10, "minutes": 5}], "break"),
        ([], "no levels"),
        ([{"small_blind": 5, "big_blind": "10", "minutes": 5}], "level 1 big_blind"),
    ],
)
def test_tda_17_bad_schedules_are_refused_naming_the_level(
    entries: list[dict[str, object]], message: str
) -> None:
    """TDA-17: a blind structure with a bad level is refused with a sentence naming that level."""
    with pytest.raises(ConfigError, match=message):
        LevelSchedule.from_dicts(entries)


def test_tda_17_level_change_during_a_hand_does_not_change_that_hands_stakes() -> None:
    """TDA-17: a level that ends during a hand takes effect on the next hand, not this one."""
    clock = TournamentClock(schedule())
    clock.start(1000.0)
    hand_started_at = 2190.0  # shuffle 10 s before level 1 ends at 2200
    before = clock.stakes_for_hand(hand_started_at)
    assert clock.current(2230.0).number == 2  # the level changes while the hand is played
    assert clock.stakes_for_hand(hand_started_at) == before
    assert (before.small_blind, before.big_blind, before.chip_unit) == (25, 50, 25)
    after = clock.stakes_for_hand(2235.0)  # the next hand's shuffle
    assert (after.small_blind, after.big_blind) == (50, 100)


def test_tda_17_a_hand_shuffled_at_the_exact_level_end_uses_the_new_level() -> None:
    """TDA-17: a hand starts when the shuffle starts; shuffled at the exact end of a level, it plays
    the new level.
    """
    clock = TournamentClock(schedule())
    clock.start(0.0)
    assert clock.stakes_for_hand(1200.0).big_blind == 100


def test_tda_17_pauses_push_the_level_change_back() -> None:
    """TDA-17: pausing the clock pushes the level change back by the pause."""
    clock = TournamentClock(schedule())
    clock.start(0.0)
    clock.pause(600.0)
    assert clock.current(5000.0).seconds_left == 600.0  # still paused
    clock.resume(700.0)
    assert clock.running_seconds(1250.0) == 1150.0
    assert clock.stakes_for_hand(1250.0).big_blind == 50
    assert clock.stakes_for_hand(1300.0).big_blind == 100
    assert clock.stakes_for_hand(650.0).big_blind == 50  # a time inside the pause


def test_tda_17_big_blind_ante_level_gives_stakes_and_breaks_refuse_hands() -> None:
    """TDA-17: a big-blind-ante level gives its stakes, and no hand starts during a break."""
    clock = TournamentClock(schedule())
    clock.start(0.0)
    with pytest.raises(IllegalAction, match="break"):
        clock.stakes_for_hand(2500.0)
    stakes = clock.stakes_for_hand(3000.0)
    assert (stakes.big_blind, stakes.ante, stakes.big_blind_ante) == (200, 200, True)
    with pytest.raises(IllegalAction, match="not started"):
        TournamentClock(schedule()).current(0.0)


# ------------------------------------------------------------------ penalties


def test_tda_7_rounds_are_one_hand_per_player_at_the_table_times_rounds() -> None:
    """TDA-7: a round of penalty is one hand per player at the table when it is given, the offender
    included, times the rounds.
    """
    assert hands_to_miss(1, 9) == 9
    assert hands_to_miss(3, 6) == 18
    assert hands_to_miss(4, 10) == 40
    for bad in (0, 5):
        with pytest.raises(IllegalAction, match="one, two, three or four rounds"):
            hands_to_miss(bad, 9)


def test_tda_7_penalised_seat_is_dealt_in_and_killed_until_the_count_runs_out() -> None:
    """TDA-7: a penalised seat is dealt in and pays its blinds and antes, and its hand is killed
    until the count runs out.
    """
    book = PenaltyBook()
    record = book.give(4, Penalty(PenaltyKind.ROUNDS, 1), "threw cards off the table", 50.0, 3)
    assert record.hands_total == 3 and not record.kill_now
    assert book.is_serving(4) and book.hands_left(4) == 3
    killed = []
    for _ in range(4):
        killed.append(book.hand_dealt([1, 4, 7]))
        book.hand_over()
    assert killed == [frozenset({4})] * 3 + [frozenset()]
    assert not book.is_serving(4)
    assert book.records[0].reason == "threw cards off the table"
    assert book.records[0].given_at == 50.0


def test_tda_7_only_hands_the_seat_is_dealt_count() -> None:
    """TDA-7: only hands the penalised seat is dealt count toward the penalty."""
    book = PenaltyBook()
    book.give(2, Penalty(PenaltyKind.ROUNDS, 1), "abuse", 0.0, 2)
    assert book.hand_dealt([1, 3]) == frozenset()
    book.hand_over()
    assert book.hands_left(2) == 2


def test_tda_7_penalty_given_during_a_hand_kills_it_and_counts_it() -> None:
    """TDA-7: a penalty given during a hand kills that hand and counts it."""
    book = PenaltyBook()
    book.hand_dealt([1, 2, 3])
    record = book.give(2, Penalty(PenaltyKind.ROUNDS, 1), "abusive language", 10.0, 3)
    assert record.kill_now and book.is_serving(2)
    assert book.hands_left(2) == 2


def test_tda_31_showing_cards_penalty_starts_next_hand_and_leaves_this_hand_live() -> None:
    """TDA-31: a penalty for showing cards starts next hand; the current hand stays live."""
    book = PenaltyBook()
    book.hand_dealt([1, 2, 3, 4])
    record = book.give(
        3,
        Penalty(PenaltyKind.ROUNDS, 1),
        "showed cards during play",
        12.0,
        4,
        starts_next_hand=True,
    )
    assert record.deferred and not record.kill_now
    assert not book.is_serving(3)  # the current hand stays live
    assert book.hands_left(3) == 4
    book.hand_over()
    assert not book.is_serving(3)
    assert book.hand_dealt([1, 2, 3, 4]) == frozenset({3})
    assert book.hands_left(3) == 3


def test_tda_7_warning_and_penalty_need_a_reason() -> None:
    """TDA-7: warnings and penalties are refused without a stated reason."""
    book = PenaltyBook()
    warning = book.give(1, Penalty(PenaltyKind.WARNING), "slow play", 0.0, 9)
    assert warning.hands_total == 0 and not book.is_serving(1)
    with pytest.raises(IllegalAction, match="needs a reason") as info:
        book.give(1, Penalty(PenaltyKind.ROUNDS, 1), "   ", 0.0, 9)
    assert info.value.key == "error.ruling.no_reason"
    with pytest.raises(IllegalAction, match="A warning has no rounds"):
        Penalty(PenaltyKind.WARNING, rounds=2)


def test_tda_7_disqualification_removes_the_chips_from_play_and_ends_other_penalties() -> None:
    """TDA-7: a disqualified player's chips are removed from play (recorded) and his other penalties
    end.
    """
    book = PenaltyBook()
    book.give(6, Penalty(PenaltyKind.ROUNDS, 2), "soft play", 0.0, 8)
    assert book.disqualify(6, "chip dumping (TDA-33)", 90.0, chips=12_500) == 12_500
    assert book.is_disqualified(6)
    assert book.chips_removed == 12_500
    assert book.hands_left(6) == 0
    assert book.records[-1].chips_removed == 12_500
    with pytest.raises(IllegalAction, match="already disqualified"):
        book.give(6, Penalty(PenaltyKind.WARNING), "again", 91.0, 8)


# ------------------------------------------------------------------ draws


def test_tda_13_seat_draw_is_a_random_assignment_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """TDA-13: seats are drawn at random and the draw is logged."""
    players = [f"p{i}" for i in range(7)]
    with caplog.at_level(logging.INFO, logger="firmware.table.draws"):
        result = draw_seats(players, list(range(1, 11)), random.Random(1))
    assert set(result) == set(players)
    assert len(set(result.values())) == 7 and set(result.values()) <= set(range(1, 11))
    assert "Seat draw (TDA-13)" in caplog.text
    assert all(f"{p} -> {s}" in caplog.text for p, s in result.items())
    assert draw_seats(players, list(range(1, 11)), random.Random(1)) == result  # seeded


def test_tda_13_seat_draw_is_uniform() -> None:
    """TDA-13: every seat is equally likely in the draw (a statistical check with a fixed seed)."""
    rng = random.Random(20240607)
    seats = list(range(1, 10))
    runs = 9000
    counts: Counter[tuple[str, int]] = Counter()
    pairs: Counter[tuple[int, int]] = Counter()
    for _ in range(runs):
        draw = draw_seats(["a", "b", "c"], seats, rng)
        pairs[draw["a"], draw["b"]] += 1
        for player, seat in draw.items():
            counts[player, seat] += 1
    expected = runs / len(seats)
    for player in "abc":
        chi2 = sum((counts[player, s] - expected) ** 2 / expected for s in seats)
        assert chi2 < 26.1, (player, chi2)  # 8 degrees of freedom, p = 0.001
    # the joint seats of two players: 72 equally likely pairs, never the same seat
    assert len(pairs) == 72 and all(a != b for a, b in pairs)
    expected_pair = runs / 72
    chi2 = sum((n - expected_pair) ** 2 / expected_pair for n in pairs.values())
    assert chi2 < 113.0, chi2  # 71 degrees of freedom, p = 0.001


def test_hg_5_breaking_to_one_table_gives_every_player_a_distinct_seat() -> None:
    """HG-5: when play breaks to one table, every remaining player gets a distinct seat by a new
    draw.
    """
    players = [f"p{i}" for i in range(10)]
    result = draw_seats(players, list(range(1, 11)), random.SystemRandom())
    assert sorted(result.values()) == list(range(1, 11))
    with pytest.raises(IllegalAction, match="cannot be seated"):
        draw_seats([*players, "extra"], list(range(1, 11)), random.Random(0))


def test_tda_13_button_draw_highest_card_wins_ties_by_suit(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """TDA-13: the button goes to the highest card drawn, ties broken by suit."""
    cards = iter(parse_card(c) for c in ["Kd", "Ah", "As", "7c"])
    players = {8: "d", 1: "a", 3: "b", 5: "c"}
    with caplog.at_level(logging.INFO, logger="firmware.table.draws"):
        draw = draw_for_button(players, random.Random(0), deal=lambda: next(cards))
    assert draw.order == (1, 3, 5, 8)  # clockwise from seat 1
    assert draw.cards == {1: parse_card("Kd"), 3: parse_card("Ah"), 5: parse_card("As"), 8: 20}
    assert draw.button == 5  # the ace of spades beats the ace of hearts
    assert "the button goes to seat 5" in caplog.text


def test_tda_13_button_draw_from_a_shuffled_deck_is_seeded() -> None:
    """TDA-13: the button draw uses a shuffled deck from the given random source, so a seeded test
    is reproducible.
    """
    players = {1: "a", 2: "b", 3: "c"}
    first = draw_for_button(players, random.Random(3))
    assert first == draw_for_button(players, random.Random(3))
    assert first.button == max(first.cards, key=lambda s: first.cards[s])
    assert len(set(first.cards.values())) == 3


# ------------------------------------------------------------------ balancing


def _tables() -> dict[str, dict[int, str]]:
    full = {s: f"a{s}" for s in range(1, 10)}  # 9 players, seat 10 empty
    short = {s: f"b{s}" for s in (1, 2, 3, 5, 6, 8)}  # 6 players
    return {"A": full, "B": short}


def test_tda_25_moves_the_next_big_blind_to_the_seat_closest_to_the_big_blind() -> None:
    """TDA-25: balancing moves the player who will be big blind next, to the seat closest to the big
    blind at the short table.
    """
    move = suggest_move(_tables(), big_blinds={"A": 4, "B": 3})
    assert move is not None
    assert (move.player, move.from_table, move.from_seat) == ("a5", "A", 5)
    assert (move.to_table, move.to_seat) == ("B", 4)
    assert "TDA-25" in move.reason


def test_tda_25_next_big_blind_skips_empty_seats_and_wraps() -> None:
    """TDA-25: finding the next big blind skips empty seats and wraps around the table."""
    tables = _tables()
    move = suggest_move(tables, big_blinds={"A": 9, "B": 8})
    assert move is not None
    assert (move.from_seat, move.to_seat) == (1, 9)


def test_tda_25_no_move_when_tables_differ_by_one_or_less() -> None:
    """TDA-25: tables that differ by one player or less are balanced; nobody moves."""
    tables = {"A": {1: "x", 2: "y", 3: "z"}, "B": {1: "u", 2: "v"}}
    assert suggest_move(tables, big_blinds={"A": 1, "B": 1}) is None


def test_tda_25_table_short_three_players_pauses() -> None:
    """TDA-25: play stops at a table short three or more players until it is balanced."""
    counts = {"A": 9, "B": 6, "C": 7}
    assert table_should_pause(counts, "B")
    assert not table_should_pause(counts, "C")
    assert not table_should_pause(counts, "A")


def test_hg_4_moves_the_player_in_the_same_position_relative_to_the_button() -> None:
    """HG-4: the player moved is the one in the same position relative to the button as the empty
    seat, so nobody pays or skips blinds twice.
    """
    # B's chosen empty seat is 4, three seats after its button (1); at A the
    # player three seats after the button (6) is seat 9
    move = suggest_move(
        _tables(), big_blinds={"A": 8, "B": 3}, buttons={"A": 6, "B": 1}, method="hg"
    )
    assert move is not None
    assert (move.from_seat, move.to_seat, move.player) == (9, 4, "a9")
    assert "HG-4" in move.reason


def test_hg_4_takes_the_nearest_position_closer_to_the_button_when_it_is_empty() -> None:
    """HG-4: when that position is empty, the nearest position closer to the button is taken."""
    tables = _tables()
    del tables["A"][9]
    tables["A"][10] = "a10"
    tables["B"].pop(8)  # keep B short enough: 9 against 5
    move = suggest_move(tables, big_blinds={"A": 8, "B": 3}, buttons={"A": 6, "B": 1}, method="hg")
    assert move is not None
    assert (move.from_seat, move.to_seat) == (8, 4)  # seats 8 and 10 tie; 8 is nearer the button
    with pytest.raises(ConfigError, match="button"):
        suggest_move(tables, big_blinds={"A": 8, "B": 3}, method="hg")
