"""The screens against the real server: every message a tap produces is a shape the server takes.

Each test builds a table state with table events, connects the real
:class:`~ui.console.ConsoleScreen` or :class:`~ui.seat.SeatScreen` to a live
:class:`~firmware.protocol.server.TableServer` (Unix socket), feeds the screen
the views the server pushes, taps through a flow, sends what the screen
produced and checks two things:

* the server took the shape: no ``refused`` with a protocol key (unknown
  request, report or override, wrong or unknown fields, permission). A refusal
  by the table's rules (``error.*``) is fine in some states;
* the right table event reached the table (its log) or the controller.

Waiting uses generous deadlock guards only, never a time limit on the result.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import pathlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pygame
import pytest

from firmware.errors import IllegalAction
from firmware.hal import IdCardInserted
from firmware.protocol.auth import StaffDirectory, TerminalSecrets
from firmware.protocol.client import TableClient
from firmware.protocol.framing import Decoder, encode
from firmware.protocol.server import TableServer
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from tests.test_ui_seat import tap
from ui.console import ConsoleScreen
from ui.seat import SeatScreen
from ui.widgets import Screen

pytestmark = pytest.mark.xdist_group("ui_server_contract")

SECRETS = {f"seat{n}": f"seat{n}-secret-0123456789" for n in (1, 2, 3)}
SECRETS["console"] = "console-secret-0123456789"
BADGES = {"dealer": ("BADGE-D", "Dani", "1111"), "floor": ("BADGE-F", "Flor", "2222")}
GUARD = 20.0
"""Deadlock guard for a reply (seconds); tests never assert how long anything took."""
_RIGS: dict[int, tuple[Rig, str]] = {}
"""Each connected test client's rig and terminal name, for :func:`exchange`."""
ACCEPTED_PROTOCOL_KEYS: set[str] = set()
"""Protocol refusals the contract documents for a well-formed request."""


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


class Rig:
    """A table on its controller loop, a server on a Unix socket, screens as clients."""

    def __init__(self, tmp: pathlib.Path, stacks: tuple[int, ...] = (200, 200, 200)) -> None:
        config = TableConfig(
            "casino-cash", profile_options("casino-cash"), Stakes(small_blind=1, big_blind=2)
        )
        self.table = Table(config, deck_ready=True)
        for seat, chips in enumerate(stacks, 1):
            self.table.apply(te.SitDown(seat, f"P{seat}", 200))
            if chips != 200:
                self.table.apply(te.AdjustStack(seat, chips, "test setup"))
        self.table.apply(te.SetButton(1))
        self.registry = TagRegistry(":memory:")
        self.controller = Controller(self.table, {}, self.registry, tick_seconds=3600)
        staff = StaffDirectory()
        for role, (badge, name, pin) in BADGES.items():
            staff.add(badge, name, role, pin)
        self.socket = str(tmp / "table.sock")
        self.server = TableServer(
            self.controller, TerminalSecrets(SECRETS), staff, unix_path=self.socket
        )
        self.server.start()
        self.thread = threading.Thread(target=self.controller.run, daemon=True)
        self.thread.start()
        self.clients: list[TableClient] = []

    def on_loop(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the controller loop and wait for it."""
        done = threading.Event()

        def run() -> None:
            try:
                fn()
            finally:
                done.set()

        self.controller.call_soon(run)
        assert done.wait(GUARD), "the controller loop did not run the call"

    def connect(self, terminal: str) -> TableClient:
        client = TableClient.unix(self.socket)
        self.clients.append(client)
        _RIGS[id(client)] = (self, terminal)
        client.hello(terminal, SECRETS[terminal], "en")
        return client

    def view(self, terminal: str) -> dict[str, Any]:
        """The connection's view as the server computes it now, through the wire codec."""
        states = [c for c in self.server.clients.values() if c.terminal == terminal]
        assert len(states) == 1, f"{terminal} is not connected once"
        found: list[dict[str, Any]] = []

        def run() -> None:
            view = self.server.view_for(states[0])
            assert view is not None, f"{terminal} has no view"
            (decoded,) = Decoder().feed(encode(view))
            found.append(decoded)

        self.on_loop(run)
        assert found, "the view was not computed"
        return found[0]

    def close(self) -> None:
        for client in self.clients:
            _RIGS.pop(id(client), None)
            client.close()
        self.server.stop()
        self.controller.stop()
        self.thread.join(GUARD)
        self.registry.close()


@pytest.fixture
def rig(tmp_path: pathlib.Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.close()


MARKER = {"type": "language", "lang": "xx"}
"""A request the server refuses at once on its own thread (a language it does not have)."""
MARKER_KEYS = ("protocol.fields", "protocol.language")
"""The keys of the marker's refusal (a field check; a language check before it)."""


def _until_marker(client: TableClient) -> list[dict[str, Any]]:
    """Send :data:`MARKER`; return the refusals that arrive before its own refusal.

    The server handles one connection's messages in order and its refusals keep
    their order (views may be coalesced, refusals never are), so the marker's
    refusal comes after every refusal queued before the marker was handled.
    """
    client.send(MARKER)
    refusals: list[dict[str, Any]] = []
    while True:
        reply = client.recv(GUARD)
        if reply["type"] != "refused":
            continue
        if reply["key"] in MARKER_KEYS and reply["params"].get("field") == "lang":
            return refusals
        refusals.append(reply)


def exchange(
    client: TableClient, message: dict[str, Any], lang: str = "en"
) -> tuple[list[dict[str, Any]], Any]:
    """Send ``message``; return the refusals it drew and the client's view after it.

    Explicit synchronisation, no timing assumption (issue 17: the former barrier,
    two views in alternating languages, failed under load because the server
    keeps only a client's newest unsent view and stale views could pass it):

    1. a marker after ``message``: once its refusal is back, the server has
       handled ``message`` and queued its table event on the controller loop;
    2. a call run on the controller loop: the event has been applied and any
       refusal of it handed to the server thread;
    3. a second marker: every such refusal is now received;
    4. the view is computed on the controller loop by the server's own
       :meth:`TableServer.view_for`, and passes through the wire codec.

    ``lang`` is kept for the callers; the view is in the connection's language.
    """
    rig, terminal = _RIGS[id(client)]
    client.send(message)
    refusals = _until_marker(client)
    rig.on_loop(lambda: None)
    refusals += _until_marker(client)
    return refusals, rig.view(terminal)


def send_all(
    client: TableClient, screen: Screen, messages: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Send each message; fail on a protocol-level refusal; feed the newest view back."""
    assert messages, "the flow produced no message"
    refusals: list[dict[str, Any]] = []
    for message in messages:
        got, view = exchange(client, message, screen.lang)
        for r in got:
            assert (
                not (r["key"] or "").startswith("protocol.") or r["key"] in ACCEPTED_PROTOCOL_KEYS
            ), (
                message,
                r,
            )
        refusals += got
        screen.set_view(view)
    return refusals


def taps(screen: Screen, *ids: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for id in ids:
        out += tap(screen, id)
    return out


def first_view(client: TableClient) -> dict[str, Any]:
    return client.wait_for(lambda m: m["type"] == "view", GUARD)


def console(rig: Rig, role: str | None = "floor") -> tuple[TableClient, ConsoleScreen]:
    """The console, logged in through its own login page (badge in the reader + PIN keypad)."""
    client = rig.connect("console")
    screen = ConsoleScreen(first_view(client))
    if role is not None:
        badge, _, pin = BADGES[role]
        rig.controller.post(IdCardInserted("readers", 0.0, "console", badge))
        rig.on_loop(lambda: None)
        # The console's view now says a card is in the reader: the keypad opens.
        screen.set_view(
            client.wait_for(
                lambda m: m["type"] == "view" and m["console"].get("card_present"), GUARD
            )
        )
        out = taps(screen, "login", *(f"pin_{d}" for d in pin), "login_send")
        assert out == [{"type": "login", "pin": pin}]
        assert not send_all(client, screen, out)
        assert screen.staff == {"name": BADGES[role][1], "role": role}
    return client, screen


def seat(rig: Rig, number: int) -> tuple[TableClient, SeatScreen]:
    client = rig.connect(f"seat{number}")
    return client, SeatScreen(first_view(client))


def deal(rig: Rig) -> None:
    """Shuffle, cut and deal the hole cards (cards 0, 1, 2...)."""

    def run() -> None:
        t = rig.table
        t.apply(te.Shuffle())
        t.apply(te.Cut())
        card = 0
        while t.hand is not None and t.hand.next_card_role()[0] == "hole":
            t.apply(te.CardDrawn(card))
            card += 1

    rig.on_loop(run)


def play_to_showdown(rig: Rig) -> None:
    """Check or call every street and draw the board, up to the showdown."""

    def run() -> None:
        t = rig.table
        card = 20
        while t.hand is not None and t.hand.hand.phase.value not in ("showdown", "complete"):
            th = t.hand
            if th.hand.actor is not None and th.hand.phase.value == "betting":
                who = th.seat(th.hand.actor)
                try:
                    t.apply(te.Act(who, "check"))
                except IllegalAction:
                    t.apply(te.Act(who, "call"))
            else:
                t.apply(te.CardDrawn(card))
                card += 1

    rig.on_loop(run)


def logged(rig: Rig, cls: type[te.TableEvent]) -> list[te.TableEvent]:
    found: list[te.TableEvent] = []
    rig.on_loop(lambda: found.extend(e for e in rig.table.log if isinstance(e, cls)))
    return found


def actor(rig: Rig) -> int:
    th = rig.table.hand
    assert th is not None and th.hand.actor is not None
    return th.seat(th.hand.actor)


# ---------------------------------------------------------------- seat screens


@pytest.mark.parametrize("button", ["fold", "call", "raise", "preset_pot", "slider"])
def test_seat_actions_reach_the_table(rig: Rig, button: str) -> None:
    deal(rig)
    client, screen = seat(rig, actor(rig))
    assert screen.legal is not None
    if button == "preset_pot":
        assert taps(screen, "preset_pot") == []
        button = "raise"
    elif button == "slider":
        slider = screen.find_slider("slider")
        assert slider is not None
        x = slider.x_of(slider.low + (slider.high - slider.low) // 2)
        for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
            screen.handle(pygame.event.Event(kind, pos=(x, slider.rect.centery), button=1))
        button = "raise"
    out = taps(screen, button)
    assert not send_all(client, screen, out)
    (act,) = [e for e in logged(rig, te.Act) if isinstance(e, te.Act) and e.action != "post"]
    assert act.action == out[0]["action"]
    if "amount" in out[0] and act.action != "call":
        assert act.amount == out[0]["amount"]


def test_all_in_preset_reaches_the_table(rig: Rig) -> None:
    deal(rig)
    client, screen = seat(rig, actor(rig))
    out = taps(screen, "preset_all_in", "raise")
    screen.draw()
    out += taps(screen, "allin_confirm")
    assert out[0]["action"] == "allin"
    assert not send_all(client, screen, out)
    assert logged(rig, te.Act)[-1] == te.Act(actor_seat(out, rig), "allin", out[0]["amount"])


def actor_seat(out: list[dict[str, Any]], rig: Rig) -> int:
    return next(e.seat for e in reversed(logged(rig, te.Act)) if isinstance(e, te.Act))


def test_check_reaches_the_table(rig: Rig) -> None:
    deal(rig)
    for _ in range(2):  # the button calls, the small blind completes: the big blind may check
        who = actor(rig)
        rig.on_loop(lambda w=who: rig.table.apply(te.Act(w, "call")))
    client, screen = seat(rig, actor(rig))
    out = taps(screen, "check")
    assert out == [{"type": "act", "action": "check"}]
    assert not send_all(client, screen, out)
    assert logged(rig, te.Act)[-1] == te.Act(screen.view["seat"], "check")


def test_advance_toggles_and_declare_raise(rig: Rig) -> None:
    deal(rig)
    waiting = next(n for n in (1, 2, 3) if n != actor(rig))
    client, screen = seat(rig, waiting)
    out = taps(screen, "advance_check_fold", "advance_check_fold", "advance_call")
    assert [m["action"] for m in out] == ["check_fold", "cancel", "call"]
    assert not send_all(client, screen, out)
    assert [e.action for e in logged(rig, te.Advance) if isinstance(e, te.Advance)] == [
        "check_fold",
        "cancel",
        "call",
    ]
    who = actor(rig)
    actor_client, actor_screen = seat(rig, who)
    out = taps(actor_screen, "declare_raise")
    assert out == [{"type": "declare_raise"}]
    assert not send_all(actor_client, actor_screen, out)
    assert [e.seat for e in logged(rig, te.DeclareRaise) if isinstance(e, te.DeclareRaise)] == [who]


def test_sit_out_sit_in_language_and_rebuy(tmp_path: pathlib.Path) -> None:
    rig = Rig(tmp_path, stacks=(200, 200, 0))
    try:
        client, screen = seat(rig, 1)
        assert not send_all(client, screen, taps(screen, "sit_out"))
        assert rig.table.seating.seats[1].sitting_out
        assert not send_all(client, screen, taps(screen, "sit_in"))
        assert not rig.table.seating.seats[1].sitting_out
        out = taps(screen, "lang")
        assert out == [{"type": "language", "lang": "es"}]
        assert not send_all(client, screen, out)
        assert screen.view["lang"] == "es"
        broke, broke_screen = seat(rig, 3)
        broke_screen.rebuy_chips = (100,)
        out = taps(broke_screen, "rebuy_100", "rebuy_confirm")
        assert out == [{"type": "rebuy", "chips": 100}]
        send_all(broke, broke_screen, out)  # a rules refusal would be fine; the shape is not
        assert logged(rig, te.Rebuy) == [te.SeatRebuy(3, 100)]
    finally:
        rig.close()


@pytest.mark.parametrize("choice", ["show", "muck"])
def test_show_or_muck_at_the_showdown(rig: Rig, choice: str) -> None:
    deal(rig)
    play_to_showdown(rig)
    th = rig.table.hand
    assert th is not None and th.hand.phase.value == "showdown"
    clients = {n: seat(rig, n) for n in (1, 2, 3)}
    shown = {n: s for n, (_, s) in clients.items() if s.showdown_cards()}
    assert shown, "no seat is offered show/muck at the showdown"
    number = min(shown)
    client, screen = clients[number]
    out = taps(screen, choice)
    send_all(client, screen, out)
    cls = te.ShowCards if choice == "show" else te.MuckCards
    events = logged(rig, cls)
    assert events and events[-1].seat == number


# ---------------------------------------------------------------- the console


CONSOLE_FLOWS: list[tuple[str, str, list[str], type[te.TableEvent] | None]] = [
    # (state, role, taps, table event expected in the log)
    ("dealing", "dealer", ["incident_exposed", "rank_A", "suit_s", "flow_next"], te.ExposedCard),
    ("dealing", "dealer", ["incident_misdeal", "option_boxed"], te.Misdeal),
    ("dealing", "dealer", ["incident_face_up", "rank_K", "suit_d", "flow_next"], te.FaceUpInDeck),
    ("dealing", "dealer", ["incident_premature"], None),
    ("dealing", "dealer", ["incident_burn_error", "option_a"], None),
    # An empty seat's hand (HG-12): the picker offers the empty seats only (issue 23).
    ("dealing", "dealer", ["incident_empty_seat", "seat_4"], te.EmptySeatDealt),
    ("dealing", "dealer", ["incident_marked", "rank_Q", "suit_c", "flow_next"], te.MarkedCard),
    ("dealing", "dealer", ["incident_kill", "seat_2", "option_fouled"], te.KillSeat),
    ("betting", "dealer", ["clock"], te.CallClock),
    (
        "betting",
        "floor",
        ["floor", "floor_penalty", "seat_2", "option_rounds2", "option_etiquette"],
        te.GivePenalty,
    ),
    (
        "idle",
        "floor",
        ["floor", "floor_penalty", "seat_1", "option_warning", "option_etiquette"],
        te.GivePenalty,
    ),
    (
        "idle",
        "floor",
        [
            "floor",
            "floor_adjust_stack",
            "seat_2",
            "key_1",
            "key_5",
            "key_0",
            "flow_next",
            "option_chip_count",
        ],
        te.AdjustStack,
    ),
    (
        "betting",
        "floor",
        ["floor", "floor_award_pot", "seat_1", "seat_3", "flow_next", "option_player_dispute"],
        te.AwardPot,
    ),
    ("betting", "floor", ["floor", "floor_void", "option_dealer_error"], te.VoidByFloor),
    ("betting", "floor", ["floor", "floor_undo", "option_dealer_error"], None),
]


@pytest.mark.parametrize(("state", "role", "buttons", "event"), CONSOLE_FLOWS)
def test_console_flows_reach_the_table(
    rig: Rig, state: str, role: str, buttons: list[str], event: type[te.TableEvent] | None
) -> None:
    if state in ("dealing", "betting"):
        rig.on_loop(lambda: (rig.table.apply(te.Shuffle()), rig.table.apply(te.Cut())))
        rig.on_loop(lambda: rig.table.apply(te.CardDrawn(51)))
    if state == "betting":
        deal_rest(rig)
    client, screen = console(rig, role)
    out = taps(screen, *buttons, "flow_confirm")
    assert len(out) == 1 and out[0]["type"] in ("report", "override")
    refused = send_all(client, screen, out)
    if event is not None:
        assert not refused, refused
        found = logged(rig, event)
        assert found, f"{event.__name__} never reached the table"
        if hasattr(found[-1], "staff"):
            assert found[-1].staff == BADGES[role][1]  # audited by name


def deal_rest(rig: Rig) -> None:
    def run() -> None:
        t, card = rig.table, 0
        while t.hand is not None and t.hand.next_card_role()[0] == "hole":
            t.apply(te.CardDrawn(card))
            card += 1

    rig.on_loop(run)


def test_pause_and_resume_set_the_dealers_pause(rig: Rig) -> None:
    client, screen = console(rig, "dealer")
    assert not send_all(client, screen, taps(screen, "pause"))
    assert rig.controller.state.manual_pause and screen.console.get("paused")
    assert not send_all(client, screen, [{"type": "report", "report": "pause"}])
    assert rig.controller.state.manual_pause  # idempotent, not a toggle
    assert not send_all(client, screen, taps(screen, "resume"))
    assert not rig.controller.state.manual_pause


def test_deck_checklist_steps_reach_the_table(tmp_path: pathlib.Path) -> None:
    rig = Rig(tmp_path)
    try:
        rig.on_loop(lambda: rig.table.apply(te.DeckChange("dealer")))
        rig.on_loop(lambda: rig.table.apply(te.DeckStep("show", tuple(range(52)))))
        client, screen = console(rig, "dealer")
        taps(screen, "deck")
        for step in ("face_down", "scramble", "shuffle", "cut"):
            out = taps(screen, "deck_step")
            assert out == [{"type": "report", "report": "deck_step", "step": step}]
            assert not send_all(client, screen, out)
        assert [e.step for e in logged(rig, te.DeckStep) if isinstance(e, te.DeckStep)][-4:] == [
            "face_down",
            "scramble",
            "shuffle",
            "cut",
        ]
        assert rig.table.deck.ready
    finally:
        rig.close()


def test_chip_race_cards_from_the_console_reach_the_table(tmp_path: pathlib.Path) -> None:
    rig = Rig(tmp_path, stacks=(1050, 1025, 1000))
    try:
        client, screen = console(rig, "dealer")
        taps(screen, "chiprace", "race_25_100")
        assert screen.race_cards_needed(25, 100) == 3
        taps(screen, "rank_A", "suit_s", "card_add", "rank_K", "suit_h", "card_add")
        taps(screen, "rank_2", "suit_c", "card_add", "flow_next")
        out = taps(screen, "flow_confirm")
        assert out[0]["cards"] == ["As", "Kh", "2c"]
        assert not send_all(client, screen, out)
        (race,) = logged(rig, te.ChipRace)
        assert isinstance(race, te.ChipRace) and (race.old, race.new) == (25, 100)
        assert len(race.cards) == 3
        assert sum(s.stack for s in rig.table.seating.seats.values()) % 100 == 0
    finally:
        rig.close()


def test_login_logout_and_roles(rig: Rig) -> None:
    client, screen = console(rig, None)
    assert screen.staff is None and "login" in {b.id for b in screen.buttons()}
    rig.controller.post(IdCardInserted("readers", 0.0, "console", BADGES["dealer"][0]))
    rig.on_loop(lambda: None)
    screen.set_view(
        client.wait_for(lambda m: m["type"] == "view" and m["console"].get("card_present"), GUARD)
    )
    out = taps(screen, "login", "pin_9", "pin_9", "pin_9", "pin_9", "login_send")
    refused, _ = exchange(client, out[0])
    assert [r["key"] for r in refused] == ["protocol.login.failed"]  # a wrong PIN, not a shape
    out = taps(screen, "login", "pin_1", "pin_1", "pin_1", "pin_1", "login_send")
    assert not send_all(client, screen, out)
    assert screen.staff == {"name": "Dani", "role": "dealer"}
    assert not send_all(client, screen, taps(screen, "logout"))
    assert screen.staff is None


def test_unknown_fields_and_kinds_are_protocol_refusals(rig: Rig) -> None:
    """The check above can fail: a wrong shape is refused with a protocol key."""
    client, _ = console(rig, "floor")
    for bad, key in (
        ({"type": "report", "report": "clock", "seat": 2}, "protocol.fields"),
        ({"type": "report", "report": "exposed", "card": "Ah", "cards": []}, "protocol.fields"),
        ({"type": "report", "report": "penalty", "seat": 1}, "protocol.report.unknown"),
        ({"type": "override", "override": "chip_race", "old": 25}, "protocol.override.unknown"),
        ({"type": "report", "report": "deck_step", "step": "show", "scan": [1]}, "protocol.fields"),
    ):
        refused, _ = exchange(client, bad)
        assert [r["key"] for r in refused] == [key], bad
