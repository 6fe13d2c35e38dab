"""docs/run-the-game.md, step by step, against the real service built from its configuration.

The two TOML blocks of the walkthrough are written to a folder as they stand
(only the socket moves into the test's folder); ``pokertable serve``'s
``build`` assembles the controller, the virtual deck and the protocol server
from them. A console client logs in with the PIN of the walkthrough, seats
two players with their buy-ins, sets the button and starts the level clock;
the seats see the level; a hand is played from the seats on the virtual deck;
one player is cashed out. Every step is checked in the views and the journal.
Waits are on messages, with generous deadlock guards only.
"""

from __future__ import annotations

import pathlib
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from firmware.cli.serve import build
from firmware.protocol.client import TableClient
from firmware.service.controller import Controller
from firmware.service.journal import Journal
from firmware.table import events as te

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "run-the-game.md"
GUARD = 30.0
Msg = dict[str, Any]


def blocks() -> list[str]:
    return re.findall(r"^```toml\n(.*?)^```", DOC.read_text(), flags=re.M | re.S)


class Service:
    def __init__(self, folder: pathlib.Path) -> None:
        levels, table = blocks()
        (folder / "levels.toml").write_text(levels)
        self.socket = str(folder / "table.sock")
        table = table.replace('"/tmp/pokertable/table.sock"', f'"{self.socket}"')
        self.secrets = dict(re.findall(r'^(\w+) = "(\w+-secret-\d+)"', table, flags=re.M))
        (folder / "table.toml").write_text(table)
        ready = threading.Event()
        built: dict[str, Any] = {}

        def serve() -> None:
            # As pokertable serve does: build, start and run on one thread (SQLite's rule).
            controller, journals, _ = build(str(folder / "table.toml"), str(folder / "d"))
            built.update(controller=controller, journals=journals)
            controller.start()
            for service in controller.services:
                service.start()
            ready.set()
            try:
                controller.run()
            finally:
                for service in controller.services:
                    service.stop()
                controller.shutdown()
                journals["journal"].close()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        assert ready.wait(GUARD), "the service did not start"
        self.controller: Controller = built["controller"]
        self.journal_path = str(folder / "d" / "journal.sqlite")
        self.clients: list[TableClient] = []

    def connect(self, terminal: str) -> TableClient:
        client = TableClient.unix(self.socket)
        client.hello(terminal, self.secrets[terminal], "es")
        self.clients.append(client)
        return client

    def close(self) -> None:
        if not self.thread.is_alive():
            return
        for client in self.clients:
            client.close()
        self.controller.stop()
        self.thread.join(GUARD)


@pytest.fixture
def service(tmp_path: pathlib.Path) -> Iterator[Service]:
    s = Service(tmp_path)
    yield s
    s.close()


def until(client: TableClient, want: Callable[[Msg], bool]) -> Msg:
    """The next view for which ``want`` holds; a refusal on the way fails the test."""

    def check(message: Msg) -> bool:
        assert message["type"] != "refused", message
        return message["type"] == "view" and want(message)

    return client.wait_for(check, GUARD)


def seats(view: Msg) -> dict[int, Msg]:
    return {int(s["seat"]): s for s in view["table"]["seats"]}


def test_the_walkthrough_seats_two_players_runs_a_level_plays_a_hand_and_cashes_out(
    service: Service,
) -> None:
    console = service.connect("console")
    until(console, lambda v: bool(v["console"].get("card_present")))  # the badge in the reader
    console.send({"type": "login", "pin": "2222"})
    until(console, lambda v: (v.get("staff") or {}).get("role") == "floor")
    # Step 3: seat two players with their buy-ins, set the button.
    console.send({"type": "report", "report": "sit", "seat": 1, "player": "Ana", "chips": 5000})
    console.send({"type": "report", "report": "sit", "seat": 2, "player": "Bruno", "chips": 3000})
    console.send({"type": "report", "report": "set_button", "seat": 1})
    view = until(console, lambda v: len(v["table"]["seats"]) == 2)
    assert {n: (s["name"], s["stack"]) for n, s in seats(view).items()} == {
        1: ("Ana", 5000),
        2: ("Bruno", 3000),
    }
    assert {d["name"]: d["label"] for d in view["devices"]}["deck"] == "Baraja virtual"
    # Step 4: the level clock, seen on the seats.
    seat1, seat2 = service.connect("seat1"), service.connect("seat2")
    console.send({"type": "override", "override": "levels", "action": "start"})
    level = until(seat1, lambda v: v.get("level") is not None)["level"]
    assert (level["number"], level["small_blind"], level["big_blind"]) == (1, 50, 100)
    assert 0 < level["seconds_left"] <= 1200
    # Step 5: "New hand" shuffles; the virtual deck deals; the seats check or call.
    console.send({"type": "report", "report": "shuffle"})
    players = {1: seat1, 2: seat2}

    def turn(v: Msg) -> bool:  # someone must act or show, or the hand is over
        t = v["table"]
        return t["actor"] is not None or t.get("to_show") is not None or bool(t["winners"])

    view = until(console, turn)
    while not (view["table"]["winners"] and view["table"]["hand"] is None):
        t = view["table"]
        if t["actor"] is not None:
            who = t["actor"]
            legal = until(players[who], lambda v: v.get("legal") is not None)["legal"]
            act = {"action": "check"} if legal.get("check") else {"action": "call"}
            players[who].send({"type": "act", "amount": legal.get("call", 0), **act})
        elif t.get("to_show") is not None:  # the showdown: table the hand
            who = t["to_show"]
            own = until(players[who], lambda v, w=who: v["table"].get("to_show") == w)
            players[who].send({"type": "show", "cards": seats(own)[who]["cards"]})
        key = (t["hand"], t["phase"], t["actor"], t.get("to_show"), t["street"])
        # Views are coalesced: wait for any newer state, then decide from it.
        view = until(
            console,
            lambda v, k=key: (
                turn(v)  # type: ignore[misc]
                and (
                    v["table"]["hand"],
                    v["table"]["phase"],
                    v["table"]["actor"],
                    v["table"].get("to_show"),
                    v["table"]["street"],
                )
                != k
            ),
        )
    stacks = {n: s["stack"] for n, s in seats(view).items()}
    assert sum(stacks.values()) == 8000  # chips are conserved
    # Step 6: cash Bruno out.
    console.send({"type": "report", "report": "cash_out", "seat": 2})
    view = until(console, lambda v: 2 not in seats(v))
    service.close()
    stored = Journal(service.journal_path)
    try:
        journal = list(stored.events())
    finally:
        stored.close()
    assert te.SitDown(1, "Ana", 5000) in journal and te.CashOut(2) in journal
    assert te.LevelClock("start") in journal


def test_section_7_seats_by_card_draws_the_button_and_a_floor_call_survives_a_restart(
    tmp_path: pathlib.Path,
) -> None:
    """The walkthrough's section 7 on the same configuration: Bruno's card on seat 2's
    (simulated) reader seats him by the directory's name; the table draws for the button;
    seat 2's call for the floor is still open after the controller restarts, and the floor
    answers it then."""
    service = Service(tmp_path)
    try:
        console = service.connect("console")
        until(console, lambda v: bool(v["console"].get("card_present")))
        console.send({"type": "login", "pin": "2222"})
        until(console, lambda v: (v.get("staff") or {}).get("role") == "floor")
        console.send({"type": "report", "report": "sit", "seat": 1, "player": "Ana", "chips": 5000})
        readers = service.controller.devices["readers"]
        service.controller.call_soon(lambda: readers.insert("seat2", "player:P-000124"))  # type: ignore[attr-defined]
        view = until(console, lambda v: bool(v["console"].get("player_cards")))
        assert view["console"]["player_cards"] == [
            {"reader": "seat2", "seat": 2, "card": "P-000124", "name": "Bruno Gil"}
        ]
        console.send(
            {"type": "report", "report": "sit_card", "reader": "seat2", "seat": 2, "chips": 3000}
        )
        view = until(console, lambda v: 2 in seats(v))
        assert seats(view)[2]["name"] == "Bruno Gil"
        console.send({"type": "report", "report": "draw_button"})
        draw = until(console, lambda v: v["table"].get("button_draw") is not None)
        draw = draw["table"]["button_draw"]
        seat2 = service.connect("seat2")
        seat2.send({"type": "call_floor"})
        until(console, lambda v: bool(v["console"].get("floor_calls")))
    finally:
        service.close()
    # The controller restarts on the same data: the call is still open, the draw the same.
    again = Service(tmp_path)
    try:
        console = again.connect("console")
        until(console, lambda v: bool(v["console"].get("card_present")))
        console.send({"type": "login", "pin": "2222"})
        view = until(console, lambda v: (v.get("staff") or {}).get("role") == "floor")
        assert [c["seat"] for c in view["console"]["floor_calls"]] == [2]
        assert view["table"]["button_draw"] == draw
        console.send({"type": "report", "report": "answer_floor", "seat": 2})
        until(console, lambda v: v["console"].get("floor_calls") == [])
    finally:
        again.close()
    stored = Journal(again.journal_path)
    try:
        journal = list(stored.events())
    finally:
        stored.close()
    assert te.SitDown(2, "Bruno Gil", 3000, card="P-000124") in journal
    assert te.FloorCall(2) in journal
    assert [e for e in journal if isinstance(e, te.FloorAnswer)] == [te.FloorAnswer(2, "Flor")]
    (drawn,) = [e for e in journal if isinstance(e, te.DrawButton)]
    assert drawn.seats == (1, 2) and draw["button"] in (1, 2)
