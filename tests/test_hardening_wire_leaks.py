"""Over the wire, no screen is sent what it may not see (issue 11, the leak check).

The audience soak of ``tests/test_views_audience.py`` (random hands with
incidents, the truth of what each audience may see computed from the events)
runs behind a real :class:`TableServer` with TLS and client certificates.
Every seat terminal (seat1 to seat10, occupied or not) and the console - a
dealer for the first half, a technician for the second - is a real TLS
client reading every frame on its own thread. The test thread is the
controller's loop: after every table event it dispatches, so the server
computes and sends each client's view exactly as on the table.

Each view the server computes is paired (in order) with the truth at that
moment for that client's audience; every frame a client receives is decoded
and must be one of its own audience's views, naming only cards that audience
could see then: no other seat's hole card before it is tabled, no card not
yet drawn, and nothing but devices for the technician. Non-view frames
(``welcome``, ``ok``) name no card at all.
"""

from __future__ import annotations

import collections
import hashlib
import os
import pathlib
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from firmware.hal import IdCardInserted
from firmware.protocol.auth import StaffDirectory, TerminalSecrets
from firmware.protocol.client import TableClient
from firmware.protocol.framing import encode
from firmware.protocol.server import TableServer, server_ssl_context
from firmware.service.registry import TagRegistry
from tests.hardening_kit import BADGES, GUARD, SECRETS
from tests.test_protocol import client_context, make_ca, make_cert
from tests.test_views_audience import AudienceSoak, card_strings

HANDS = int(os.environ.get("POKERTABLE_WIRE_HANDS", "60"))
"""Hands per half (dealer console, then technician); more with POKERTABLE_WIRE_HANDS."""

Truth = dict[str, Any]


def digest(message: dict[str, Any]) -> bytes:
    return hashlib.sha256(encode(message)).digest()


class WitnessServer(TableServer):
    """The real server, noting for each view it computes what that client may see then.

    ``_push_view`` runs on the loop thread (here the test thread) with the table
    consistent; ``_offer_view`` runs on the server thread in the same order, with
    the encoded bytes: the two are paired through a per-client queue.
    """

    truth_of: Callable[[str | None], Truth]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: dict[int, collections.deque[Truth]] = collections.defaultdict(
            collections.deque
        )
        self.sent: dict[str, dict[bytes, Truth]] = collections.defaultdict(dict)
        self.lock = threading.Lock()

    def _push_view(self, client: Any, *shared: Any, **options: Any) -> None:
        audience = client.audience
        who = f"seat{client.seat}" if audience == "seat" else audience
        self.pending[client.id].append(self.truth_of(who))
        before = client.offered_view
        super()._push_view(client, *shared, **options)
        if client.offered_view is before:  # nothing handed over (the same view as last time)
            self.pending[client.id].pop()

    def _offer_view(self, client_id: int, data: bytes) -> None:
        client = self.clients.get(client_id)
        truth = self.pending[client_id].popleft()
        if client is not None and client.terminal is not None:
            with self.lock:
                self.sent[client.terminal][hashlib.sha256(data).digest()] = truth
        super()._offer_view(client_id, data)


class Reader:
    """A TLS client reading every frame on its own thread."""

    def __init__(self, client: TableClient, name: str) -> None:
        self.client, self.name = client, name
        self.frames: list[dict[str, Any]] = []
        self.arrived = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                message = self.client.recv(3600)
                with self.arrived:
                    self.frames.append(message)
                    self.arrived.notify_all()
        except Exception:
            return

    def has(self, predicate: Callable[[dict[str, Any]], bool]) -> bool:
        with self.arrived:
            return any(predicate(m) for m in self.frames)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("wire-pki")
    make_ca(d, "ca")
    make_cert(d, "controller", "ca", server=True)
    for name in [*(f"seat{n}" for n in range(1, 11)), "console"]:
        make_cert(d, name, "ca")
    return d


@pytest.mark.soak
def test_every_frame_to_every_tls_client_shows_only_what_it_may_see(
    tmp_path: pathlib.Path, pki: pathlib.Path
) -> None:
    registry = TagRegistry(str(tmp_path / "tags.db"))
    soak = AudienceSoak("casino-cash", seed=11, registry=registry)
    controller = soak.controller
    staff = StaffDirectory()
    for role, (badge, pin) in BADGES.items():
        staff.add(badge, role.title(), role, pin)
    server = WitnessServer(
        controller,
        TerminalSecrets(SECRETS),
        staff,
        tcp=("127.0.0.1", 0),
        ssl_context=server_ssl_context(
            str(pki / "controller.pem"), str(pki / "controller.key"), str(pki / "ca.pem")
        ),
    )

    def truth_of(who: str | None) -> Truth:
        th = soak.table.hand
        now = soak._truth(th) if th is not None else {}
        if who == "technician":
            return {"cards": set(), "seat": "technician"}
        seat = int(who[4:]) if who and who.startswith("seat") else None
        cards = now.get(seat, now.get(None, set())) if th is not None else soak.last_public()
        last = soak.last_public()  # the last hand's end, on show until the next first card
        return {"cards": set(cards), "seat": seat, "drawn": set(soak.drawn), "ended": last}

    server.truth_of = truth_of
    server.start()
    readers: dict[str, Reader] = {}

    def pump_until(predicate: Callable[[], bool], waiting_for: str = "") -> None:
        """Be the controller's loop (this thread) until ``predicate()`` holds.

        A guard against a hang, not a speed limit: it allows four times
        :data:`GUARD` of wall time (eleven TLS clients beside the other xdist
        worker on two loaded cores once took longer than one GUARD), and says
        which clients were still waiting."""
        deadline = time.monotonic() + 4 * GUARD
        while time.monotonic() < deadline:
            controller.run_pending()
            if predicate():
                return
            first = next(iter(readers.values()))
            with first.arrived:
                first.arrived.wait(0.01)
        missing = [
            name
            for name, r in readers.items()
            if waiting_for and not r.has(lambda m: m.get("lang") == waiting_for)
        ]
        raise AssertionError(f"the clients did not get their answers in time (waiting: {missing})")

    try:
        assert server.tcp_port is not None
        for name in [*(f"seat{n}" for n in range(1, 11)), "console"]:
            client = TableClient.tls("127.0.0.1", server.tcp_port, client_context(pki, name))
            client.hello(name, SECRETS[name], lang="en")
            readers[name] = Reader(client, name)
        pump_until(lambda: all(r.has(lambda m: m["type"] == "view") for r in readers.values()))

        def login(role: str) -> None:
            controller.handle(IdCardInserted("console-reader", 0.0, "console", BADGES[role][0]))
            readers["console"].client.send({"type": "login", "pin": BADGES[role][1]})
            pump_until(lambda: readers["console"].has(lambda m: m.get("role") == role))

        def play(hands: int) -> None:
            # After every table event the soak checks the views in-process; dispatching
            # here runs the server's listener, which computes and sends every client's view.
            original = soak.check_views

            def delivered() -> bool:
                with server._clients_lock:
                    clients = [c for c in server.clients.values() if c.audience is not None]
                return all(not server.pending[c.id] and c.latest_view is None for c in clients)

            def check_and_send() -> None:
                original()
                controller.run_pending()
                controller.dispatch(lambda: None)
                # Every view computed for this event reaches its client before the
                # next event: none is replaced unsent, so every view is checked on
                # the wire, however fast or slow the machine.
                for _ in range(int(GUARD / 0.001)):
                    if delivered():
                        break
                    time.sleep(0.001)

            soak.check_views = check_and_send  # type: ignore[method-assign]
            target = soak.result.hands + hands
            while soak.result.hands < target:
                soak.play_hand()
            soak.check_views = original  # type: ignore[method-assign]

        login("dealer")
        play(HANDS)
        readers["console"].client.send({"type": "logout"})
        pump_until(lambda: readers["console"].has(lambda m: m.get("role") is None
                                                  and m["type"] == "welcome"))  # fmt: skip
        login("technician")
        play(HANDS)
        # A barrier: every client asks for a view and gets it, so every frame is in.
        for reader in readers.values():
            reader.client.send({"type": "language", "lang": "es"})
        pump_until(
            lambda: all(r.has(lambda m: m.get("lang") == "es") for r in readers.values()), "es"
        )
        assert not controller.state.stops, controller.alerts[-3:]
    finally:
        for reader in readers.values():
            reader.client.close()
        server.stop()
        registry.close()

    checked = collections.Counter[str]()
    for name, reader in readers.items():
        for frame in reader.frames:
            if frame["type"] != "view":
                assert not card_strings(frame), (name, frame)
                continue
            truth = server.sent[name].get(digest(frame))
            assert truth is not None, f"{name} received a view the server did not make for it"
            view = dict(frame)
            recall = view.pop("recall", None) or []
            if isinstance(view.get("table"), dict):
                view["table"] = dict(view["table"])
                ended = view["table"].pop("ended", None)
                assert not card_strings(ended) - truth.get("ended", set()), (name, ended)
            shown = card_strings(view)
            if truth["seat"] == "technician":
                assert view["audience"] == "technician" and not card_strings(frame), frame
                checked["technician"] += 1
                continue
            leaked = shown - truth["cards"]
            assert not leaked, f"{name} was sent {sorted(leaked)} it could not see then"
            assert not shown - truth["drawn"] - truth["cards"], f"{name}: an undealt card"
            for entry in recall:
                may = soak.allowed_recall[entry["hand"]]
                own = may.get(truth["seat"], may[None]) if truth["seat"] else may[None]
                assert not card_strings(entry) - own, f"{name}: recall of hand {entry['hand']}"
            checked[view["audience"]] += 1
            checked["cards"] += len(shown)
    assert checked["seat"] > HANDS * 10 and checked["console"] > HANDS, checked
    assert checked["technician"] > 0 and checked["cards"] > HANDS * 20, checked
    assert soak.result.incidents["TDA-27"] > 0  # exposed cards went to every screen
