"""A rebuy asked for on a seat's own screen cannot create chips (HG-13, CC-16).

The dealer's rebuy is made with the money in the dealer's hand; a seat's own
request is not, so the table takes it only at a cash table, from a player out of
chips, within the table's buy-in limits. Review found a seat sending
``rebuy`` with a billion chips and getting them.
"""

from collections.abc import Callable

import pytest

from firmware.errors import IllegalAction
from firmware.protocol.schema import REQUESTS
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.script import run_script
from firmware.table.seating import Seating

HEAD = "stakes NL 1/2\ndeck-ready\nseat 1 Ana 200\nseat 2 Bruno 200\nbutton 1\n"
BUST = "shuffle\ncut\ndraw Ah Kd As Kh\n1 allin\n2 call\ndraw 2c 7d 9h Jc 3s 4d 8c 5h\n"
"""Hand one: Ana (seat 1, button and small blind heads-up) all in with kings, busted by
Bruno's aces (heads-up the big blind is dealt first)."""


def test_the_seat_request_is_the_seat_rebuy_event() -> None:
    """The seat's ``rebuy`` request builds the checked event, the dealer's the plain one."""
    assert REQUESTS["rebuy"].event is te.SeatRebuy
    assert REQUESTS["report:rebuy"].event is te.Rebuy


def busted_cash_table(options: str = "") -> object:
    table, _ = run_script("profile casino-cash\n" + options + HEAD + BUST)
    assert table.seating.seats[1].stack == 0
    return table


def test_hg_13_a_busted_cash_player_rebuys_from_his_seat_within_the_limits() -> None:
    table = busted_cash_table()
    # casino-cash: 10 big blinds minimum, no maximum: up to the biggest stack (Bruno's 400)
    with pytest.raises(IllegalAction):
        table.apply(te.SeatRebuy(1, 401))
    table.apply(te.SeatRebuy(1, 400))
    assert table.seating.seats[1].rebuy == 400


def test_hg_13_a_billion_chips_from_the_seat_screen_is_refused() -> None:
    table = busted_cash_table()
    with pytest.raises(IllegalAction) as refused:
        table.apply(te.SeatRebuy(1, 10**9))
    assert refused.value.key == "error.rebuy.own_high"
    assert table.seating.seats[1].rebuy == 0
    table.apply(te.Rebuy(1, 10_000))  # the dealer, who has the money, may
    assert table.seating.seats[1].rebuy == 10_000


def test_cc_16_the_seat_may_ask_up_to_the_tables_maximum_buy_in() -> None:
    table = busted_cash_table("option max_buy_in_multiple 100\n")
    with pytest.raises(IllegalAction):
        table.apply(te.SeatRebuy(1, 201))
    table.apply(te.SeatRebuy(1, 200))
    assert table.seating.seats[1].rebuy == 200


def test_hg_13_a_player_with_chips_asks_the_dealer_for_an_add_on() -> None:
    table, _ = run_script("profile casino-cash\n" + HEAD)
    with pytest.raises(IllegalAction) as refused:
        table.apply(te.SeatRebuy(2, 20))
    assert refused.value.key == "error.rebuy.own_not_busted"


def test_a_tournament_rebuy_is_never_made_from_the_seat_screen() -> None:
    table, _ = run_script("profile tda-tournament\n" + HEAD + BUST)
    with pytest.raises(IllegalAction) as refused:
        table.apply(te.SeatRebuy(1, 200))
    assert refused.value.key == "error.rebuy.own_tournament"


def test_two_seat_requests_cannot_stack_up() -> None:
    """A second request before the hand would add to the first: refused."""
    table = busted_cash_table()
    table.apply(te.SeatRebuy(1, 20))
    with pytest.raises(IllegalAction):
        table.apply(te.SeatRebuy(1, 20))
    assert table.seating.seats[1].rebuy == 20


def _busted_seating(profile: str, **opts: object) -> Seating:
    """Three players with 200; seat 1 loses everything in the first hand."""
    s = Seating(TableConfig(profile, profile_options(profile, **opts), Stakes()))
    for seat in (1, 2, 3):
        s.sit(seat, f"P{seat}", 200)
    plan = s.plan_hand()
    s.begin_hand(plan)
    s.finish_hand(plan, tuple(0 if x == 1 else 200 for x in plan.seats))
    return s


def _refusal(act: Callable[[], object]) -> tuple[str, str | None, dict[str, object]]:
    with pytest.raises(IllegalAction) as refused:
        act()
    return str(refused.value), refused.value.key, refused.value.params


def test_hg_13_the_seat_screens_limit_counts_chips_already_bought_by_others() -> None:
    """Without a table maximum the seat may ask for up to the biggest stack at the table,
    a rebuy another player has declared counted in it (seat 2: 200 + 100); the refusal
    names the most and the amount asked, for the seat's screen to translate."""
    s = _busted_seating("casino-cash")
    s.declare_rebuy(2, 100)  # the dealer's add-on for seat 2: 300 in play next hand
    assert _refusal(lambda: s.declare_rebuy(1, 301, own=True)) == (
        "A rebuy asked for on the seat's screen may be at most 300 chips; for 301, ask the dealer.",
        "error.rebuy.own_high",
        {"most": 300, "amount": 301},
    )
    s.declare_rebuy(1, 300, own=True)
    assert s.seats[1].rebuy == 300


def test_hg_13_one_chip_is_chips_and_one_request_a_hand_word_for_word() -> None:
    """At a cash table with no minimum buy-in a player with a single chip still has chips,
    and a busted player's request of one chip is his one request before the hand: both
    are sent to the dealer, naming the seat."""
    s = _busted_seating("casino-cash", min_buy_in_multiple=0)
    s.sit(4, "P4", 1)
    sentence = (
        "Seat {n} may ask for a rebuy on its screen only when out of chips (HG-13); for an "
        "add-on, ask the dealer."
    )
    assert _refusal(lambda: s.declare_rebuy(4, 10, own=True)) == (
        sentence.format(n=4),
        "error.rebuy.own_not_busted",
        {"seat": 4},
    )
    s.declare_rebuy(1, 1, own=True)
    assert _refusal(lambda: s.declare_rebuy(1, 1, own=True)) == (
        sentence.format(n=1),
        "error.rebuy.own_not_busted",
        {"seat": 1},
    )
    assert s.seats[1].rebuy == 1


def test_a_tournament_seat_screen_refusal_word_for_word() -> None:
    """At a tournament table the refusal says where a rebuy is made."""
    s = _busted_seating("tda-tournament")
    assert _refusal(lambda: s.declare_rebuy(1, 200, own=True)) == (
        "At a tournament table a rebuy is made with the dealer or the floor, not from the "
        "seat's screen.",
        "error.rebuy.own_tournament",
        {},
    )
