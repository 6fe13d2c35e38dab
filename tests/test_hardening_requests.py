"""No request can stop the table, and nobody acts beyond their role (issue 11, items 1-2).

Against a real controller, journal and server on a Unix socket (as
``pokertable serve`` assembles them):

* every table event kind is tried through every request type from every
  role, with its fields, with ``kind`` added and with the fields only the
  server fills; only the declared allow-list ever reaches the journal;
* thousands of randomly typed requests of every kind each get ``ok`` or
  ``refused``, the server stays up, and a restart from the journal rebuilds
  the same table;
* restore skips (and reports) a journaled event the table refuses instead of
  stopping, and a fault on the controller's loop pauses the table instead of
  ending it.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.protocol.client import TableClient
from firmware.protocol.limits import Limits
from firmware.protocol.schema import REQUESTS, Field, allowed_events
from firmware.service.journal import Journal
from firmware.service.recovery import restore
from firmware.table import event_records
from firmware.table import events as te
from tests.hardening_kit import JournaledRig, answer, table_fingerprint

SEAT_EVENTS = {
    "act",
    "advance",
    "declare_raise",
    "sit_out",
    "seat_rebuy",
    "show",
    "muck",
    "floor_call",
}
DEALER_EVENTS = {
    "exposed", "misdeal", "face_up", "premature", "burn_error", "empty_seat_dealt", "marked",
    "kill", "shuffle", "cut", "deck_step", "deck_change", "repair_card", "withdraw_card", "sit",
    "away", "cash_out", "set_button", "deck_empty", "chip_race", "clock",
    "sit_out", "rebuy",  # the console's game page: sit a player out or back, a rebuy (issue 12)
    "draw_button", "floor_answer",  # the draw for the button, a call for the floor answered
}  # fmt: skip
FLOOR_EVENTS = DEALER_EVENTS | {"adjust_stack", "award_pot", "void", "undo", "penalty", "levels"}
EXPECTED = {
    "seat": SEAT_EVENTS,
    "console": set(),  # nobody logged in
    "dealer": DEALER_EVENTS,
    "floor": FLOOR_EVENTS,
    "technician": set(),
}
"""The allow-list, written out: a change to who may do what must change this test too."""

SAMPLE = {
    "seat": 2, "card": "Ah", "cards": ["Ah", "Kd"], "reason": "test", "case": "a",
    "player": "Zoe", "chips": 100, "action": "call", "amount": 4, "step": "face_down",
    "by": "dealer", "old": 1, "new": 5, "penalty": "warning", "seats": [1], "out": True,
    "away": True, "rounds": 1, "next_hand": False, "wait_for_big_blind": False,
    "owes_big_blind": False, "now": 5.0, "scan": [], "staff": "Mallory", "state": {},
}  # fmt: skip
"""A plausible value for every table event field, to build each kind's fields."""
SERVER_ONLY = {"now", "scan", "staff", "state"}


@pytest.fixture
def rig(tmp_path: pathlib.Path) -> Iterator[JournaledRig]:
    # These tests send requests back to back, faster than any screen: no rate limit.
    r = JournaledRig(tmp_path, limits=Limits(rate=1e6, burst=10**6))
    r.seat_players(3)
    yield r
    r.stop()


def journaled(rig: JournaledRig) -> list[str]:
    """The kinds in the journal, in order (read through a second connection)."""
    reader = Journal(rig.journal.path)
    try:
        return [e.kind for e in reader.events()]
    finally:
        reader.close()


def test_the_declared_allow_list_is_the_written_one() -> None:
    """The schema's mapping from requests to events, per role, is exactly the list above."""
    for role, kinds in EXPECTED.items():
        assert allowed_events(role) == kinds, role
    for spec in REQUESTS.values():
        assert "kind" not in spec.fields and not set(spec.fields) & (SERVER_ONLY - {"state"})


@pytest.mark.soak
def test_every_event_kind_through_every_request_type_for_every_role(
    rig: JournaledRig,
) -> None:
    """Only the role's allow-list reaches the journal; ``kind`` and server fields never pass."""
    types = sorted({name.split(":")[0] for name in REQUESTS} - {"login", "logout"})
    for role in EXPECTED:
        client = (
            rig.connect("seat1")
            if role == "seat"
            else rig.console(None if role == "console" else role)
        )
        accepted = 0
        for kind, cls in sorted(event_records.TABLE_EVENT_TYPES.items()):
            names = [f.name for f in dataclasses.fields(cls)]
            clean = {n: SAMPLE[n] for n in names if n in SAMPLE and n not in SERVER_ONLY}
            server = {n: SAMPLE[n] for n in names if n in SERVER_ONLY}
            variants = [(clean, True), ({**clean, "kind": kind}, False)]
            if server:
                variants.append(({**clean, **server}, False))
            for request in [*types, kind]:
                for fields, may_pass in variants:
                    message = {"type": request, **fields}
                    if request in ("report", "override"):
                        message[request] = kind
                    before = len(journaled(rig))
                    client.send(message)
                    reply = answer(client)
                    assert reply["type"] in ("ok", "refused"), (role, message, reply)
                    if reply["type"] == "refused":
                        assert reply["reason"] and reply["key"], reply
                    added = journaled(rig)[before:]
                    assert set(added) <= EXPECTED[role], (role, message, added)
                    if not may_pass:
                        assert reply["type"] == "refused", (role, message, reply)
                        assert reply["key"].startswith("protocol."), (role, message, reply)
                        assert not added, (role, message, added)
                    accepted += bool(added)
        if EXPECTED[role]:
            assert accepted, f"the {role} role could not make any of its requests"
        client.close()
        rig.clients.remove(client)


# ---------------------------------------------------------------- fuzz

FIELD_NAMES = sorted(
    {name for spec in REQUESTS.values() for name in spec.fields}
    | {"kind", "staff", "now", "scan", "report", "override", "type", "state", "__class__"}
)
TYPES = [*sorted({name.split(":")[0] for name in REQUESTS} - {"logout"}), "draw", "restore"]
SUBS = [*sorted({name.split(":")[1] for name in REQUESTS if ":" in name}), "draw", "tick"]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.integers(min_value=-3, max_value=60)
    | st.floats(allow_nan=True)
    | st.text(max_size=12)
    | st.sampled_from(["Ah", "Kd", "2c", "call", "raise", "a", "face_down", "warning", "1"])
    | st.binary(max_size=8)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6,
)  # fmt: skip


def field_value(spec: Field) -> st.SearchStrategy[Any]:
    """Values of the right type for a declared field, in range and a little out of it."""
    if spec.kind == "seat":
        return st.integers(0, 11)
    if spec.kind == "int":
        return st.integers(-1, 60) | st.integers(spec.low, min(spec.high, 500))
    if spec.kind == "flag":
        return st.booleans()
    if spec.kind == "text":
        # Mostly printable names and reasons (the schema refuses control and invisible
        # characters), sometimes any text at all.
        printable = st.text(st.characters(whitelist_categories=("L", "N", "P")), max_size=8)
        return st.one_of(printable, printable, printable, st.text(min_size=0, max_size=8))
    if spec.kind == "choice":
        return st.sampled_from(spec.choices)
    card = st.integers(0, 51) | st.sampled_from(["Ah", "Kd", "Qs", "2c", "Tc"])
    if spec.kind == "card":
        return card
    if spec.kind == "cards":
        return st.lists(card, min_size=0, max_size=3)
    return st.lists(st.integers(0, 11), min_size=0, max_size=3)


@st.composite
def shaped(draw: st.DrawFn) -> dict[str, Any]:
    """A declared request with fields of the right types (most values valid)."""
    name = draw(st.sampled_from(sorted(n for n in REQUESTS if n not in ("logout", "login"))))
    kind, _, sub = name.partition(":")
    message: dict[str, Any] = {"type": kind}
    if sub:
        message[kind] = sub
    for field_name, spec in REQUESTS[name].fields.items():
        if spec.required or draw(st.booleans()):
            message[field_name] = draw(field_value(spec))
    return message


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        return draw(shaped())
    kind = draw(st.sampled_from(TYPES) | st.text(min_size=1, max_size=8))
    message: dict[str, Any] = {"type": kind}
    if kind in ("report", "override") and draw(st.booleans()):
        message[kind] = draw(st.sampled_from(SUBS) | values)
    for name in draw(st.lists(st.sampled_from(FIELD_NAMES), max_size=5, unique=True)):
        if name != "type":
            message[name] = draw(values)
    return message


def move_on(rig: JournaledRig, card: int) -> None:
    """A step of ordinary play between the random requests (on the loop thread): shuffle
    and cut, the player to act calls, or the shoe draws ``card`` (a duplicate is refused)."""
    table, controller = rig.table, rig.controller
    if table.hand is None and not table.deck.ready:
        # A deck change was asked: the dealer runs the new-deck checklist (PE-2) with a
        # clean scan, so the random requests' order cannot end play for good.
        if not table.deck.checklist:
            withdrawn = set(table.deck.withdrawn)
            scan = tuple(c for c in range(52) if c not in withdrawn)
            controller.apply(te.DeckStep("show", scan))
        for step in ("face_down", "scramble", "shuffle", "cut"):
            if step not in table.deck.checklist:
                controller.apply(te.DeckStep(step))
        return
    if table.hand is None and table.deck.needs_repair:
        # Marked cards found by the random reports: the dealer replaces them (HG-11).
        controller.apply(te.RepairCard(table.deck.needs_repair[0]))
        return
    if table.hand is None:
        for seat in (1, 2, 3):
            if table.seating.seats.get(seat) is not None and table.seating.seats[seat].sitting_out:
                controller.apply(te.SitOut(seat, False))  # the players come back to play
            if table.seating.seats.get(seat) is None:
                controller.apply(te.SitDown(seat, f"P{seat}", 200))
            elif table.seating.seats[seat].stack == 0:
                controller.apply(te.Rebuy(seat, 200))
        controller.apply(te.Shuffle())
        controller.apply(te.Cut())
        return
    actor = table.hand.hand.actor
    if actor is not None and card % 3:
        controller.apply(te.Act(table.hand.seat(actor), "call"))
    elif not controller.apply(te.CardDrawn(card)) and card % 2:
        controller.apply(te.VoidByFloor("stuck", staff="fuzz"))


def test_thousands_of_random_requests_are_answered_and_a_restart_rebuilds_the_table(
    rig: JournaledRig,
) -> None:
    """Every random request is answered ``ok`` or ``refused``; the server and the loop stay
    up; no fault of the firmware; restarting from the journal gives the same table."""
    clients: dict[str, TableClient] = {f"seat{n}": rig.connect(f"seat{n}") for n in (1, 2, 3)}
    clients["console"] = rig.console("floor")
    answers: dict[str, int] = {"ok": 0, "refused": 0}
    keys: dict[str, int] = {}

    @settings(
        max_examples=2000,
        deadline=None,
        database=None,
        derandomize=True,  # the same requests every run: the figures below are stable
        suppress_health_check=list(HealthCheck),
    )
    @given(
        terminal=st.sampled_from([*sorted(clients), "shoe", "shoe"]),
        message=requests(),
        card=st.integers(0, 51),
        fit=st.booleans(),
    )
    def one(terminal: str, message: dict[str, Any], card: int, fit: bool) -> None:
        if fit and terminal != "shoe":  # often from a terminal whose role may send it
            staff = message["type"] in ("report", "override", "login", "language")
            terminal = "console" if staff else terminal.replace("console", "seat2")
        if terminal == "shoe":  # the dealer and the players move the game on
            rig.on_loop(lambda: move_on(rig, card))
            return
        client = clients[terminal]
        client.send(message)
        reply = answer(client)
        if message["type"] == "login":
            assert reply["type"] in ("welcome", "refused"), (message, reply)
        else:
            assert reply["type"] in ("ok", "refused"), (message, reply)
        if reply["type"] == "refused":
            assert reply["reason"].endswith(".") and reply["key"], reply
            assert reply["key"] not in ("table.internal", "table.refused_fault"), (message, reply)
        answers[reply["type"] if reply["type"] != "welcome" else "ok"] += 1
        keys[str(reply.get("key"))] = keys.get(str(reply.get("key")), 0) + 1

    one()
    assert rig.thread.is_alive() and not rig.controller.state.stops
    assert answers["ok"] > 30 and answers["refused"] > 1000, sorted(
        keys.items(), key=lambda kv: -kv[1]
    )
    played = (len(journaled(rig)), rig.table.hand_number)
    # The fuzz must have played real hands, not only been refused: 145 events and 18
    # hands when written; 99 and 9 once dealers may also sit players out (issue 12) and
    # buy-ins respect the maximum (CC-16), which the random requests now run into; 92 and
    # 4 once the technician's diag_export joined the request types (the derandomised
    # draws all shift with a new type). Since the requests of issue 12's second round
    # shifted the order again, the dealer's walk (move_on) also runs the new-deck
    # checklist, repairs marked cards and brings players back, so a random deck change,
    # marked card or sit-out cannot end play for good (9 to 11 hands in runs under load).
    assert played[0] > 50 and played[1] > 5, played
    # The table still plays: a legitimate request is applied.
    live = rig.restart()
    assert rig.problems == []
    assert table_fingerprint(rig.table) == live


# ---------------------------------------------------------------- restore and the loop


def test_restore_skips_and_reports_a_journaled_event_the_table_refuses(
    tmp_path: pathlib.Path,
) -> None:
    """An old journal holding a refused event (the crash loop of issue 11) restores anyway."""
    rig = JournaledRig(tmp_path)
    rig.seat_players(3)
    rig.stop()
    journal = Journal(str(tmp_path / "journal.sqlite"))
    journal.append(te.Act(2, "raise", 40))  # no hand: refused by the table
    journal.append(te.ChipRace(25, 30, ()))  # the chip race of the issue
    journal.append(te.SitDown(4, "Dora", 150))
    journal.close()
    rig = JournaledRig(tmp_path)
    try:
        assert len(rig.problems) == 2, rig.problems
        assert all("Recovery skipped journal event" in p for p in rig.problems)
        assert rig.table.seating.seats[4].stack == 150
    finally:
        rig.stop()


def test_restore_replays_again_without_an_event_that_raised_a_fault(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault (not a refusal) in the middle of an event is undone by replaying without it."""
    rig = JournaledRig(tmp_path)
    rig.seat_players(3)
    rig.stop()
    from firmware.table.table import Table

    original = Table._between_hands

    def half_apply(self: Table, event: te.TableEvent) -> None:
        if isinstance(event, te.SitDown) and event.seat == 2:
            self.seating.seats[1].stack = 999_999  # a half-applied change, then a fault
            raise KeyError("a fault of the firmware")
        original(self, event)

    monkeypatch.setattr(Table, "_between_hands", half_apply)
    problems: list[str] = []
    journal = Journal(str(tmp_path / "journal.sqlite"))
    table = restore(journal, problems)
    journal.close()
    # Event 1 is the wall-clock anchor (issue 23), then seats 1, 2 and 3.
    assert len(problems) == 1 and "event 3 (sit)" in problems[0], problems
    assert table.seating.seats[1].stack == 200 and 2 not in table.seating.seats
    assert table.seating.seats[3].stack == 200


def test_a_fault_on_the_loop_pauses_the_table_instead_of_ending_it(rig: JournaledRig) -> None:
    """An unexpected exception pauses the table with an alert; ``resume`` clears it."""

    def broken() -> None:
        raise ZeroDivisionError("a fault of the firmware")

    rig.controller.call_soon(broken)
    rig.on_loop(lambda: None)
    assert rig.thread.is_alive()
    assert "error" in rig.controller.state.stops and rig.controller.paused
    assert "internal error" in rig.controller.alerts[-1].text
    console = rig.console("dealer")
    console.send({"type": "report", "report": "resume"})
    assert answer(console) == {"type": "ok", "request": "report:resume"}
    assert not rig.controller.state.stops and not rig.controller.paused


def test_nothing_refused_is_journaled(rig: JournaledRig) -> None:
    """A request the table refuses leaves the journal as it was; an accepted one is in it."""
    seat = rig.connect("seat2")
    before = journaled(rig)
    seat.send({"type": "act", "action": "raise", "amount": 40})  # no hand in progress
    assert answer(seat)["type"] == "refused"
    assert journaled(rig) == before
    seat.send({"type": "sit_out"})
    assert answer(seat) == {"type": "ok", "request": "sit_out"}
    assert journaled(rig) == [*before, "sit_out"]
