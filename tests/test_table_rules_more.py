"""More table rules: buy-in and blinds (CC-1), the per-hand cut (PE-3), arrivals owing
the big blind (TDA-22), chips leaving the table (TDA-23) and the conduct rules the
firmware supports through views, penalties and the audit log."""

import pytest

from firmware.engine.cards import parse_cards
from firmware.errors import IllegalAction
from firmware.hal import ChipsChanged
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.views.audience import seat_view


def table(profile: str = "casino-cash", seats: int = 3) -> Table:
    t = Table(TableConfig(profile, profile_options(profile), Stakes()), deck_ready=True)
    for seat in range(1, seats + 1):
        t.apply(te.SitDown(seat, f"P{seat}", 200))
    t.apply(te.SetButton(1))
    return t


def deal(t: Table, cards: str = "AhKd7cAsKh2d") -> None:
    t.apply(te.Shuffle())
    t.apply(te.Cut())
    for card in parse_cards(cards):
        t.apply(te.CardDrawn(card))


def test_cc_1_players_buy_in_before_cards_and_blinds_are_posted_automatically() -> None:
    """CC-1: a seat needs chips to be dealt in; the chosen players' blinds are posted."""
    t = table()
    with pytest.raises(IllegalAction, match="whole number of chips"):
        t.apply(te.SitDown(4, "Broke", 0))
    with pytest.raises(IllegalAction, match="minimum buy-in"):
        t.apply(te.SitDown(4, "Short", 10))
    deal(t)
    assert t.hand is not None
    assert t.hand.hand.bets[:2] == [1, 2]  # small and big blind, posted without any action


def test_pe_3_every_hand_is_shuffled_then_cut_before_the_deal() -> None:
    """PE-3: the hand starts at the shuffle (TDA-17) and no card is dealt before the cut."""
    t = table()
    with pytest.raises(IllegalAction, match="Shuffle first"):
        t.apply(te.Cut())
    t.apply(te.Shuffle())
    with pytest.raises(IllegalAction, match="Cut the deck"):
        t.apply(te.CardDrawn(0))
    t.apply(te.Cut())
    t.apply(te.CardDrawn(0))
    assert t.hand is not None and len(t.hand.draws) == 1


def test_tda_22_player_moved_owing_the_big_blind_posts_it_at_the_new_table() -> None:
    """TDA-22, HG-15: blind obligations follow a player moved from a broken table."""
    t = table("tda-tournament", seats=4)
    deal(t, "2c3c4c5c6c7c8c9c")
    for action in ("fold", "fold", "fold"):
        t.apply(te.Act(t.hand.seat(t.hand.hand.actor), action))  # type: ignore[union-attr]
    t.apply(te.SitDown(6, "Moved", 300, owes_big_blind=True))
    t.apply(te.Shuffle())
    assert t.hand is not None
    position = t.hand.plan.seats.index(6)
    assert t.hand.plan.start.blinds[position] == 2  # posts the big blind it owes
    assert t.hand.plan.big_blind_seat != 6


def test_tda_23_chips_leaving_the_table_during_a_hand_alert_the_floor(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """TDA-23: chips must stay in view; chips that vanish from the trays mid-hand raise an alert."""
    registry = TagRegistry(str(tmp_path / "tags.sqlite"))
    registry.add_chip_range("1000", "1FFF", 25)
    t = table()
    controller = Controller(t, {}, registry)
    controller.post(ChipsChanged("trays", 0.0, "seat2.stack", frozenset({"1001", "1002"})))
    controller.run_pending()
    deal(t)
    controller.post(ChipsChanged("trays", 1.0, "seat2.stack", frozenset({"1001"})))
    controller.run_pending()
    assert "TDA-23" in controller.alerts[-1].text and "worth 25" in controller.alerts[-1].text


def test_tda_12_a_seat_never_sees_another_seats_hole_cards() -> None:
    """TDA-12: one player to a hand, no disclosure: each screen shows only its own cards."""
    t = table()
    deal(t)
    view = seat_view(t, 2, "en")
    own = next(s for s in view["table"]["seats"] if s["seat"] == 2)
    others = [s for s in view["table"]["seats"] if s["seat"] != 2]
    assert own["cards"] == ["Ah", "As"]
    assert all(card == "??" for s in others for card in s["cards"])


def test_tda_20_cards_speak_whatever_the_order_players_show() -> None:
    """TDA-20: statements about a hand do not bind; only the tabled cards decide."""
    t = table(seats=2)
    deal(t, "KhAs2cAd")  # heads-up: seat 2 (big blind) gets Kh 2c, seat 1 (button) As Ad
    t.apply(te.Act(1, "call"))
    t.apply(te.Act(2, "check"))
    t.apply(te.CardDrawn(parse_cards("8d")[0]))  # burn
    for card in parse_cards("3d4h9s"):
        t.apply(te.CardDrawn(card))
    t.apply(te.Act(2, "check"))
    t.apply(te.Act(1, "check"))
    for burn, card in (("8c", "Tc"), ("8h", "Js")):
        t.apply(te.CardDrawn(parse_cards(burn)[0]))
        t.apply(te.CardDrawn(parse_cards(card)[0]))
        t.apply(te.Act(2, "check"))
        t.apply(te.Act(1, "check"))
    t.apply(te.ShowCards(2, tuple(parse_cards("Kh2c"))))  # shows first, "claims" nothing
    t.apply(te.ShowCards(1, tuple(parse_cards("AsAd"))))
    assert t.records[-1]["pots"][0]["winners"] == [1]


@pytest.mark.parametrize(
    "rule, reason",
    [
        ("TDA-15", "phone at the table during a hand"),
        ("TDA-36", "repeated etiquette breach"),
        ("TDA-38", "left the table with action pending"),
    ],
)
def test_conduct_rules_are_enforced_by_audited_penalties(rule: str, reason: str) -> None:
    """TDA-15, TDA-36, TDA-38: conduct rules are enforced by the floor's penalties, audited."""
    t = table("tda-tournament")
    t.apply(te.GivePenalty(2, "warning", f"{rule}: {reason}"))
    t.apply(te.GivePenalty(3, "rounds", f"{rule}: {reason}", rounds=1))
    assert [entry.reason for entry in t.audit[-2:]] == [f"{rule}: {reason}"] * 2
    with pytest.raises(IllegalAction, match="needs a reason"):
        t.apply(te.GivePenalty(2, "warning", " "))
