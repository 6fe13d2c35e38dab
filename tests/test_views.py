"""Views for one audience: cards, legal actions with presets, prompt, recall, devices."""

from __future__ import annotations

import pathlib

from firmware.engine.cards import parse_card
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.views.audience import console_view, redact, seat_view, technician_view


def table_with_hand() -> Table:
    config = TableConfig("casino-cash", profile_options("casino-cash"), Stakes(1, 2))
    table = Table(config, deck_ready=True)
    for seat, name in ((1, "Ana"), (2, "Bruno"), (3, "Carmen")):
        table.apply(te.SitDown(seat, name, 200))
    table.apply(te.Shuffle())
    table.apply(te.Cut())
    card = 0
    while table.hand is not None and table.hand.next_card_role()[0] == "hole":
        table.apply(te.CardDrawn(card))
        card += 1
    return table


def hole(table: Table, seat: int) -> list[str]:
    th = table.hand
    assert th is not None
    from firmware.engine.cards import format_card

    return [format_card(c) for c in th.hand.hole[th.position(seat)] if c is not None]


def test_seat_sees_own_cards_and_face_down_others() -> None:
    table = table_with_hand()
    view = seat_view(table, 1, "en")
    rows = {r["seat"]: r for r in view["table"]["seats"]}
    assert rows[1]["cards"] == hole(table, 1)
    assert rows[2]["cards"] == ["??", "??"] and rows[3]["cards"] == ["??", "??"]
    console = console_view(table, "en")
    assert all(c == "??" for r in console["table"]["seats"] for c in r["cards"])


def test_legal_actions_and_presets_only_for_the_seat_to_act() -> None:
    table = table_with_hand()
    th = table.hand
    assert th is not None and th.hand.actor is not None
    to_act = th.seat(th.hand.actor)
    other = next(x for x in (1, 2, 3) if x != to_act)
    assert seat_view(table, other, "en")["legal"] is None
    view = seat_view(table, to_act, "en")
    legal = view["legal"]
    assert legal["call"] == 2 and legal["check"] is False
    assert legal["min_raise"] == 4 and legal["max_raise"] == 200
    # A pot raise: call 2, then raise by the pot after the call.
    after_call = view["table"]["pot_total"] + 2
    assert legal["presets"] == {
        "min": 4,
        "half_pot": max(4, 2 + after_call // 2),
        "pot": 2 + after_call,
        "all_in": 200,
    }


def test_prompt_is_translated() -> None:
    table = table_with_hand()
    th = table.hand
    assert th is not None and th.hand.actor is not None
    seat = th.seat(th.hand.actor)
    assert console_view(table, "en")["console"]["prompt"] == f"Seat {seat} to act."
    assert console_view(table, "es")["console"]["prompt"] == f"Le toca actuar al asiento {seat}."


def test_after_the_hand_winners_distribution_and_recall() -> None:
    table = table_with_hand()
    th = table.hand
    assert th is not None
    while table.hand is not None and table.hand.hand.actor is not None:
        table.apply(te.Act(table.hand.seat(table.hand.hand.actor), "fold"))
    console = console_view(table, "es")
    assert console["table"]["hand"] is None and console["table"]["phase"] == "idle"
    won = console["table"]["winners"]
    assert len(won) == 1 and won[0]["amount"] == table.records[-1]["pots"][0]["amount"]
    assert console["console"]["distribution"][0]["pot"] == "Bote principal"
    recall = seat_view(table, 1, "en")["recall"]
    assert len(recall) == 1 and recall[0]["hole"]
    others = [h for seat, h in recall[0]["shown"].items() if seat != "1"]
    assert others == []  # nobody showed: no other seat's cards


def test_technician_view_has_devices_only(tmp_path: pathlib.Path) -> None:
    table = table_with_hand()
    registry = TagRegistry(str(tmp_path / "t.db"))
    controller = Controller(table, {}, registry)
    view = technician_view(controller)
    assert "table" not in view and view["devices"] == []
    registry.close()


def test_redact_hides_unlisted_cards_in_text() -> None:
    assert redact("Show Ah, it is the burn card; 7c stays", {"Ah"}) == (
        "Show Ah, it is the burn card; ?? stays"
    )
    assert redact("missing AhKd", {"Kd"}) == "missing ??Kd"
    assert parse_card("Ah") >= 0
