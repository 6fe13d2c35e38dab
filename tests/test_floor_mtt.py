"""The floor's tournament procedures over many tables (pure; no servers)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from firmware.errors import ConfigError, IllegalAction
from firmware.floor.tournament import mtt
from firmware.i18n import tr


def _room(draw: dict[str, mtt.Seat[str]]) -> dict[str, dict[int, str]]:
    room: dict[str, dict[int, str]] = {}
    for player, seat in draw.items():
        room.setdefault(seat.table, {})[seat.seat] = player
    return room


def test_tda_13_draw_over_all_tables_is_even_and_uses_each_seat_once() -> None:
    """Forty-seven players at six tables of nine: every seat distinct, no table
    more than one player fuller than another."""
    players = [f"p{i}" for i in range(47)]
    draw = mtt.draw_over_tables(players, ["A", "B", "C", "D", "E", "F"], 9, random.Random(3))
    assert sorted(draw) == sorted(players)
    assert len({(s.table, s.seat) for s in draw.values()}) == 47
    counts = Counter(s.table for s in draw.values())
    assert max(counts.values()) - min(counts.values()) <= 1
    assert all(1 <= s.seat <= 9 for s in draw.values())


def test_tda_13_draw_is_random_every_player_can_land_anywhere() -> None:
    """Over many draws one player reaches every table and both the top and bottom seats."""
    rng = random.Random(11)
    tables_seen, seats_seen = set(), set()
    for _ in range(400):
        draw = mtt.draw_over_tables(["ana", "b", "c", "d", "e"], ["A", "B", "C"], 4, rng)
        tables_seen.add(draw["ana"].table)
        seats_seen.add(draw["ana"].seat)
    assert tables_seen == {"A", "B", "C"}
    assert seats_seen == {1, 2, 3, 4}


def test_tda_13_draw_refuses_more_players_than_seats() -> None:
    with pytest.raises(IllegalAction, match="open more tables"):
        mtt.draw_over_tables([f"p{i}" for i in range(10)], ["A"], 9, random.Random(1))


def test_tda_13_late_entry_goes_to_a_shortest_table() -> None:
    room = {"A": {1: "a", 2: "b", 3: "c"}, "B": {1: "d", 5: "e"}, "C": {2: "f", 3: "g", 4: "h"}}
    for seed in range(20):
        seat = mtt.draw_late_seat(room, 6, random.Random(seed))
        assert seat.table == "B" and seat.seat not in room["B"]


def test_tda_24_a_table_breaks_when_the_rest_fit_one_table_fewer() -> None:
    """Nineteen players at three tables of nine need three: nothing breaks; at
    eighteen the first table of the break order breaks and its players are
    spread over the others, which stay balanced."""
    rng = random.Random(5)
    draw = mtt.draw_over_tables([f"p{i}" for i in range(19)], ["T1", "T2", "T3"], 9, rng)
    room = _room(draw)
    assert mtt.table_to_break(room, 9, ["T3", "T2", "T1"]) is None
    victim_table = next(t for t in room if len(room[t]) == 7)
    room[victim_table].pop(next(iter(room[victim_table])))
    broken = mtt.table_to_break(room, 9, ["T3", "T2", "T1"])
    assert broken == "T3"
    moves = mtt.break_table(room, "T3", 9, rng)
    assert sorted(m.player for m in moves) == sorted(room["T3"].values())
    after = {t: dict(s) for t, s in room.items() if t != "T3"}
    for move in moves:
        assert move.to_seat not in after[move.to_table]
        assert "TDA-24" in move.reason
        after[move.to_table][move.to_seat] = move.player
    assert sorted(len(s) for s in after.values()) == [9, 9]


def test_tda_25_balancing_moves_until_no_table_is_two_short() -> None:
    room = {
        "A": {s: f"a{s}" for s in range(1, 10)},
        "B": {s: f"b{s}" for s in (1, 2, 3, 4, 5, 6)},
        "C": {s: f"c{s}" for s in (1, 2, 3, 4, 5)},
    }
    moves = mtt.balance_room(room, {"A": 3, "B": 3, "C": 3}, seats_per_table=9)
    counts = Counter({t: len(s) for t, s in room.items()})
    for move in moves:
        counts[move.from_table] -= 1
        counts[move.to_table] += 1
        assert move.reason.startswith("TDA-25")
    assert max(counts.values()) - min(counts.values()) <= 1
    assert sum(counts.values()) == 20
    # The first move is the player who is big blind next at the fullest table.
    assert moves[0].player == "a4" and moves[0].to_table == "C"


def test_hg_4_balancing_keeps_the_position_relative_to_the_button() -> None:
    room = {"A": {s: f"a{s}" for s in range(1, 10)}, "B": {1: "b1", 2: "b2", 4: "b4", 5: "b5"}}
    moves = mtt.balance_room(room, {"A": 3, "B": 5}, {"A": 1, "B": 2}, "hg", 9)
    assert moves and all(m.reason.startswith("HG-4") for m in moves)
    first = moves[0]
    # Empty seat 6 at B is 4 after its button (2); seat 5 at A is 4 after its button (1).
    assert (first.to_seat, first.from_seat) == (6, 5)


def test_hg_5_final_table_draws_every_seat_again() -> None:
    room = {"A": {1: "a", 7: "b", 9: "c"}, "B": {2: "d", 3: "e"}}
    seats = mtt.final_table_draw(room, "A", 9, random.Random(2))
    assert sorted(seats) == ["a", "b", "c", "d", "e"]
    assert len(set(seats.values())) == 5
    assert mtt.table_to_break(room, 9, ["B", "A"]) == "B"


def test_floor_pay_payouts_add_up_to_the_pool() -> None:
    for entries in (2, 7, 18, 45, 1000):
        shares = mtt.payout_percentages(entries)
        for pool in (0, 999, 12_345, 1_000_003):
            amounts = mtt.payouts(pool, shares, unit=5)
            assert sum(amounts) == pool
            assert amounts == sorted(amounts, reverse=True) or pool < 100
    assert mtt.payouts(1000, (50, 30, 20)) == [500, 300, 200]


def test_floor_hfh_starts_on_the_bubble_and_tables_wait_for_each_other() -> None:
    assert mtt.hand_for_hand_due(10, 9) and not mtt.hand_for_hand_due(12, 9)
    hfh = mtt.HandForHand(frozenset({"A", "B"}))
    assert hfh.may_deal("A")
    assert not hfh.hand_finished("A")
    assert not hfh.may_deal("A")  # A waits for B
    assert hfh.hand_finished("B")
    assert hfh.may_deal("A") and hfh.round == 2


def test_floor_hfh_a_table_breaking_mid_round_still_ends_the_round() -> None:
    """The 1,000-player stall: A and B finished the round's hand, C broke (TDA-24)
    while still playing its own: the round ends when C's hand does, and the next
    round is A's and B's alone."""
    hfh = mtt.HandForHand(frozenset({"A", "B", "C"}))
    assert not hfh.hand_finished("A") and not hfh.hand_finished("B")
    assert not hfh.table_broke("C", frozenset({"A", "B"}), playing=True)
    assert not hfh.may_deal("A") and not hfh.may_deal("B")  # they wait for C's hand
    assert hfh.hand_finished("C") and hfh.round == 2  # C's hand ends the round
    assert hfh.tables == {"A", "B", "C"}  # until the director starts round 2 without C
    # C broke before it dealt its hand of the round: the round ends with the break.
    idle = mtt.HandForHand(frozenset({"A", "B", "C"}))
    assert not idle.hand_finished("A") and not idle.hand_finished("B")
    assert idle.table_broke("C", frozenset({"A", "B"}), playing=False) and idle.round == 2
    # C had finished its hand: the round goes on with A and B.
    done = mtt.HandForHand(frozenset({"A", "B", "C"}))
    assert not done.hand_finished("C")
    assert not done.table_broke("C", frozenset({"A", "B"}), playing=False)
    assert done.tables == {"A", "B"} and not done.hand_finished("A")
    assert done.hand_finished("B") and done.round == 2


def test_floor_hfh_busts_at_two_tables_in_one_round_share_the_places() -> None:
    """Four players left, three paid (50/30/20 of 1000): two bust in the same
    hand-for-hand round at different tables: they share places 3 and 4."""
    st = mtt.Standings(entries=4, prizes=mtt.payouts(1000, (50, 30, 20)))
    st.eliminate([mtt.Bust("x", "A", 10, 500, round=1), mtt.Bust("y", "B", 8, 900, round=1)])
    assert st.places == {"x": 3, "y": 3}
    assert st.won == {"x": 100, "y": 100}
    st.eliminate([mtt.Bust("z", "A", 11, 100)])
    st.winner("w")
    assert st.places["z"] == 2 and st.places["w"] == 1
    assert sum(st.won.values()) == 1000


def test_floor_hfh_busts_at_one_table_rank_by_starting_chips() -> None:
    st = mtt.Standings(entries=5, prizes=mtt.payouts(1000, (50, 30, 20)))
    st.eliminate([mtt.Bust("big", "A", 3, 900), mtt.Bust("small", "A", 3, 200)])
    assert st.places == {"small": 5, "big": 4}
    assert st.won == {}
    with pytest.raises(IllegalAction, match="only in hand-for-hand"):
        st.eliminate([mtt.Bust("p", "A", 4, 1), mtt.Bust("q", "B", 4, 1)])


def test_places_follow_the_moment_each_hand_ended_not_the_order_reported() -> None:
    """A bust reported late (its table was cut off, or the floor had not ingested the
    hand) takes the place its hand's end gives it; the places already given move."""
    st = mtt.Standings(entries=5, prizes=mtt.payouts(1000, (50, 30, 20)))
    st.eliminate([mtt.Bust("later", "B", 7, 500, at=200.0)])
    assert st.places == {"later": 5}
    st.eliminate([mtt.Bust("earlier", "A", 3, 900, at=100.0)])
    assert st.places == {"earlier": 5, "later": 4}
    st.eliminate([mtt.Bust("last", "A", 4, 50, at=300.0)])
    assert st.places["last"] == 3 and st.won == {"last": 200}


def test_floor_late_more_entries_move_the_places_and_grow_the_prizes() -> None:
    """Entries added after a bust (late registration, re-entry) push the busted entry's
    place down and the prizes follow the new pool (FLOOR-LATE, FLOOR-PAY)."""
    st = mtt.Standings(entries=4, prizes=mtt.payouts(400, mtt.payout_percentages(4)))
    st.eliminate([mtt.Bust("ana", "A", 1, 100, at=1.0)])
    assert st.places == {"ana": 4}
    st.add_entries(1, mtt.payouts(500, mtt.payout_percentages(5)))
    assert st.places == {"ana": 5} and st.entries == 5 and sum(st.prizes) == 500
    assert mtt.entry_name("ana", 1) == "ana" and mtt.entry_name("ana", 2) == "ana #2"


def test_floor_late_entry_window_re_entry_only_after_the_bust_and_a_maximum() -> None:
    rules = mtt.EntryRules(late_until_level=3, max_entries=2)
    rules.check(level=3, entries=0, playing=False)  # a late registration in level 3
    rules.check(level=2, entries=1, playing=False)  # a re-entry after the bust
    with pytest.raises(IllegalAction, match="closed at the end of level 3"):
        rules.check(level=4, entries=0, playing=False)  # level 4, or the break before it
    with pytest.raises(IllegalAction, match="only after his last entry is eliminated"):
        rules.check(level=1, entries=1, playing=True)
    with pytest.raises(IllegalAction, match="at most 2 entries per player"):
        rules.check(level=1, entries=2, playing=False)
    with pytest.raises(IllegalAction, match="no entries after the start"):
        mtt.EntryRules().check(level=1, entries=0, playing=False)  # no late entries


def _refusal(act: Callable[[], object]) -> tuple[str, str | None, dict[str, object]]:
    with pytest.raises(IllegalAction) as refused:
        act()
    return str(refused.value), refused.value.key, refused.value.params


@pytest.mark.parametrize(
    ("rules", "level", "entries", "playing", "refusal"),
    [
        (
            mtt.EntryRules(),
            1,
            0,
            False,
            ("This tournament takes no entries after the start.", "floor.entry.none", {}),
        ),
        (
            mtt.EntryRules(late_until_level=3, max_entries=2),
            4,
            0,
            False,
            (
                "Late registration and re-entry closed at the end of level 3.",
                "floor.entry.closed",
                {"level": 3},
            ),
        ),
        (
            mtt.EntryRules(late_until_level=3, max_entries=2),
            2,
            1,
            True,
            (
                "A player re-enters only after his last entry is eliminated.",
                "floor.entry.playing",
                {},
            ),
        ),
        (
            mtt.EntryRules(late_until_level=3, max_entries=1),
            2,
            1,
            False,
            (
                "This tournament takes at most 1 entry per player.",
                "floor.entry.max_one",
                {"max": 1},
            ),
        ),
        (
            mtt.EntryRules(late_until_level=3, max_entries=3),
            2,
            3,
            False,
            (
                "This tournament takes at most 3 entries per player.",
                "floor.entry.max",
                {"max": 3},
            ),
        ),
    ],
)
def test_floor_late_entry_refusals_word_for_word(
    rules: mtt.EntryRules,
    level: int,
    entries: int,
    playing: bool,
    refusal: tuple[str, str, dict[str, object]],
) -> None:
    """The registration desk shows each refusal from its key and parameters (one entry
    and several read differently in Spanish), so all three are pinned."""
    assert _refusal(lambda: rules.check(level=level, entries=entries, playing=playing)) == refusal
    _, key, params = refusal
    for lang in ("en", "es"):
        assert "{" not in tr(key, lang, **params)


def test_tda_24_each_move_of_a_breaking_table_names_the_seat_left() -> None:
    """The floor's move slip says where the player gets up as well as where he sits."""
    room = {"A": {1: "a1", 2: "a2"}, "B": {3: "b3", 7: "b7"}, "C": {4: "c4", 9: "c9"}}
    moves = mtt.break_table(room, "C", 9, random.Random(1))
    assert {(m.player, m.from_table, m.from_seat) for m in moves} == {
        ("c4", "C", 4),
        ("c9", "C", 9),
    }
    assert all(m.to_table in ("A", "B") and 1 <= m.to_seat <= 9 for m in moves)


def test_tda_25_balancing_six_seat_tables_uses_seats_one_to_six_only() -> None:
    """At six-seat tables the seat closest after the big blind wraps from seat 6 to
    seat 2, never to a seat 7 the table does not have."""
    room = {"A": {s: f"a{s}" for s in range(1, 7)}, "B": {1: "b1", 6: "b6"}}
    moves = mtt.balance_room(room, {"A": 3, "B": 6}, seats_per_table=6)
    assert [(m.to_table, m.to_seat) for m in moves] == [("B", 2), ("B", 3)]
    assert all(1 <= m.from_seat <= 6 for m in moves)


def test_hg_5_the_final_table_draw_uses_every_seat_of_the_table_and_no_other() -> None:
    """Nine players at a nine-seat final table take seats 1 to 9; a tenth cannot sit."""
    room = {"A": {s: f"a{s}" for s in range(1, 6)}, "B": {s: f"b{s}" for s in range(1, 5)}}
    seats = mtt.final_table_draw(room, "A", 9, random.Random(4))
    assert sorted(seats.values()) == list(range(1, 10))
    room["B"][5] = "b5"
    assert _refusal(lambda: mtt.final_table_draw(room, "A", 9, random.Random(4))) == (
        "10 players do not fit at the final table of 9 seats.",
        None,
        {},
    )


def test_the_winner_is_recorded_only_with_one_player_left_word_for_word() -> None:
    st = mtt.Standings(entries=3, prizes=[70, 30])
    assert _refusal(lambda: st.winner("a")) == (
        "The winner is recorded when exactly one player is left.",
        None,
        {},
    )


def test_floor_hfh_two_tables_breaking_at_once_each_close_their_own_round() -> None:
    """C and D break together while A and B have finished the round's hand and
    neither C's nor D's hand is done: C's break leaves the round open for D until D's
    own break is reported, which ends it."""
    hfh = mtt.HandForHand(frozenset({"A", "B", "C", "D"}))
    assert not hfh.hand_finished("A") and not hfh.hand_finished("B")
    assert not hfh.table_broke("C", frozenset({"A", "B"}), playing=False)
    assert hfh.round == 1 and not hfh.may_deal("A")
    assert hfh.table_broke("D", frozenset({"A", "B"}), playing=False)
    assert hfh.round == 2 and hfh.tables == {"A", "B"}


def test_floor_pay_a_row_covers_up_to_and_including_its_entry_count() -> None:
    """Six entries still pay two places (the row "up to 6"), seven pay three; a house
    table without a last row for any count is refused, saying what is missing."""
    assert mtt.payout_percentages(6) == (70, 30)
    assert mtt.payout_percentages(7) == (50, 30, 20)
    assert mtt.payout_percentages(10) == (50, 30, 20)
    assert mtt.payout_percentages(11) == (40, 25, 15, 12, 8)
    with pytest.raises(ConfigError) as caught:
        mtt.payout_percentages(11, ((10, (60, 40)),))
    assert str(caught.value) == (
        "The payout table needs a last row that covers any number of entries."
    )


def test_floor_pay_amounts_are_whole_chip_units_and_the_remainder_goes_to_first() -> None:
    """With a unit of 7 every place below the first is a whole number of units, the
    first takes what rounding left over, and nothing is lost; a place may be given a
    share of 0, only a negative share is refused."""
    amounts = mtt.payouts(1000, (50, 30, 20), unit=7)
    assert amounts == [510, 294, 196]
    assert all(type(a) is int for a in amounts) and sum(amounts) == 1000
    assert mtt.payouts(1000, (100, 0)) == [1000, 0]
    with pytest.raises(ConfigError):
        mtt.payouts(1000, (101, -1))


def test_floor_hfh_tied_places_share_the_odd_unit_to_the_first_and_lose_nothing() -> None:
    """Places 2 and 3 pay 26 and 25: two players tied for them get 26 and 25."""
    st = mtt.Standings(entries=4, prizes=[49, 26, 25])
    assert st.prize_for(2, 2) == [26, 25]
    st.eliminate([mtt.Bust("d", "A", 3, 100)])
    st.eliminate([mtt.Bust("b", "A", 7, 300, round=2), mtt.Bust("c", "B", 9, 200, round=2)])
    assert sorted(st.won.values()) == [25, 26]


def test_the_last_player_cannot_be_eliminated_word_for_word() -> None:
    st = mtt.Standings(entries=2, prizes=[100])
    assert _refusal(
        lambda: st.eliminate([mtt.Bust("a", "A", 1, 100), mtt.Bust("b", "A", 1, 50)])
    ) == (
        "At least one player must stay in the tournament.",
        None,
        {},
    )
