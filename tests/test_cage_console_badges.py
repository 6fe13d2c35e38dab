"""Two different badges at the console before a bank movement is journaled (TABLE-BANK).

A real table, journal and server (:class:`tests.hardening_kit.JournaledRig`): the
dealer, logged in with his badge in the console's reader, proposes; the same badge
cannot confirm (a sentence, in the console's language, and nothing journaled); the
floor, logged in on the same console with her own badge, confirms, and the journal
holds the movement with both badges.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import pytest

from firmware.hal import IdCardInserted
from firmware.i18n import tr
from firmware.protocol.client import TableClient
from firmware.table import event_records
from tests.hardening_kit import BADGES, GUARD, JournaledRig, answer


@pytest.fixture
def rig(tmp_path: pathlib.Path) -> Iterator[JournaledRig]:
    made = JournaledRig(tmp_path)
    yield made
    made.stop()


def _bank_records(rig: JournaledRig) -> list[dict[str, Any]]:
    return [
        event_records.to_record(e)
        for e in rig.journal.events()
        if e.kind.startswith(("bank", "shift"))
    ]


def _switch(rig: JournaledRig, client: TableClient, role: str) -> None:
    """The logged-in person logs out; ``role`` puts their badge in and logs in."""
    client.send({"type": "logout"})
    client.wait_for(lambda m: m["type"] == "welcome" and m.get("role") is None, GUARD)
    badge, pin = BADGES[role]
    rig.controller.post(IdCardInserted("console-reader", 0.0, "console", badge))
    rig.on_loop(lambda: None)
    client.send({"type": "login", "pin": pin})
    reply = client.wait_for(lambda m: m["type"] in ("welcome", "refused"), GUARD)
    assert reply.get("role") == role, reply


def _view_bank(client: TableClient, want: Any) -> dict[str, Any]:
    view = client.wait_for(lambda m: m["type"] == "view" and want(m.get("bank")), GUARD)
    return dict(view["bank"])


def test_a_fill_needs_a_second_different_badge(rig: JournaledRig) -> None:
    rig.seat_players(3, 200)
    console = rig.console("dealer")
    console.send({"type": "language", "lang": "es"})
    assert answer(console) == {"type": "ok", "request": "language"}
    console.send({"type": "bank", "action": "open", "amount": 5000})
    assert answer(console)["type"] == "ok"
    waiting = _view_bank(console, lambda b: b and b.get("pending"))
    assert waiting["pending"] == {"action": "open", "amount": 5000, "name": "Dealer"}
    console.send({"type": "bank_confirm"})  # the proposer's own badge
    refused = answer(console)
    assert refused["type"] == "refused" and refused["key"] == "error.bank.same_badge"
    assert refused["reason"] == tr("error.bank.same_badge", "es")
    assert _bank_records(rig) == []  # nothing journaled
    _switch(rig, console, "floor")
    console.send({"type": "bank_confirm"})
    assert answer(console) == {"type": "ok", "request": "bank_confirm"}
    assert _bank_records(rig) == [
        {"kind": "bank_open", "amount": 5000, "staff": ["BADGE-DEALER", "BADGE-FLOOR"]}
    ]
    bank = _view_bank(console, lambda b: b and b.get("open") and not b.get("pending"))
    assert bank["tray"] == 5000 and bank["seats"] == 600 and bank["expected"] == 5600


def test_a_count_adds_the_seats_to_the_tray_and_records_the_difference(
    rig: JournaledRig,
) -> None:
    rig.seat_players(2, 300)
    console = rig.console("floor")
    console.send({"type": "bank", "action": "open", "amount": 1000})
    assert answer(console)["type"] == "ok"
    _switch(rig, console, "dealer")
    console.send({"type": "bank_confirm"})
    assert answer(console)["type"] == "ok"
    console.send({"type": "bank", "action": "count", "amount": 995})  # a 5 chip short
    assert answer(console)["type"] == "ok"
    _switch(rig, console, "floor")
    console.send({"type": "bank_confirm"})
    assert answer(console)["type"] == "ok"
    count = _bank_records(rig)[-1]
    console.send({"type": "bank", "action": "count", "amount": 995})  # closed, nothing since
    assert answer(console)["key"] == "error.bank.counted_twice"
    console.send({"type": "bank", "action": "credit", "amount": 1001})  # above the tray
    assert answer(console)["key"] == "error.bank.credit_high"
    assert count == {
        "kind": "shift_count",
        "counted": 995 + 600,
        "expected": 1000 + 600,
        "staff": ["BADGE-DEALER", "BADGE-FLOOR"],
    }


def test_a_refused_movement_journals_nothing_and_a_cancel_drops_it(rig: JournaledRig) -> None:
    console = rig.console("dealer")
    console.send({"type": "bank", "action": "fill", "amount": 500})  # no bank open
    refused = answer(console)
    assert refused["type"] == "refused" and refused["key"] == "error.bank.not_open"
    console.send({"type": "bank", "action": "open", "amount": 100})
    assert answer(console)["type"] == "ok"
    console.send({"type": "bank", "action": "credit", "amount": 100})
    busy = answer(console)
    assert busy["type"] == "refused" and busy["key"] == "protocol.bank.waiting"
    _switch(rig, console, "floor")
    assert _bank_records(rig) == []
    console.send({"type": "bank_cancel"})
    assert answer(console)["type"] == "ok"
    console.send({"type": "bank_confirm"})
    assert answer(console)["key"] == "protocol.bank.nothing"
    assert _bank_records(rig) == []


def test_nobody_logged_in_and_a_seat_cannot_touch_the_bank(rig: JournaledRig) -> None:
    console = rig.console(None)
    console.send({"type": "bank", "action": "open", "amount": 100})
    assert answer(console)["key"] == "protocol.permission.report"
    seat = rig.connect("seat1")
    seat.send({"type": "bank_confirm"})
    assert answer(seat)["type"] == "refused"
    assert _bank_records(rig) == []
