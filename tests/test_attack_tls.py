"""Attacks over TCP with TLS (fresh-eyes review): a seat board with its own valid
certificate tries what a curious or broken screen would; each attempt is answered
with one refusal line in its language, the table carries on, nothing is journaled."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest

from firmware.i18n import tr
from firmware.protocol.client import TableClient
from firmware.protocol.limits import Limits
from firmware.protocol.server import server_ssl_context
from firmware.service.journal import Journal
from tests.hardening_kit import GUARD, SECRETS, JournaledRig, answer
from tests.test_protocol import client_context, pki  # noqa: F401  (pki is a fixture)


@pytest.fixture
def rig(tmp_path: pathlib.Path, pki: pathlib.Path) -> Iterator[JournaledRig]:  # noqa: F811
    context = server_ssl_context(
        str(pki / "controller.pem"), str(pki / "controller.key"), str(pki / "ca.pem")
    )
    r = JournaledRig(
        tmp_path, tcp=("127.0.0.1", 0), ssl_context=context, limits=Limits(rate=1e6, burst=10**6)
    )
    r.seat_players(3)
    yield r
    r.stop()


def journaled(rig: JournaledRig) -> list[str]:
    reader = Journal(rig.journal.path)
    try:
        return [e.kind for e in reader.events()]
    finally:
        reader.close()


def board(rig: JournaledRig, pki: pathlib.Path, cert: str) -> TableClient:  # noqa: F811
    assert rig.server.tcp_port is not None
    client = TableClient.tls("127.0.0.1", rig.server.tcp_port, client_context(pki, cert), GUARD)
    rig.clients.append(client)
    return client


def test_a_seat_board_trying_other_seats_and_the_staff_over_tls(
    rig: JournaledRig,
    pki: pathlib.Path,  # noqa: F811
) -> None:
    client = board(rig, pki, "seat1")
    client.hello("seat1", SECRETS["seat1"], "en")
    assert client.wait_for(lambda m: m["type"] == "welcome", GUARD)["terminal"] == "seat1"
    before = journaled(rig)
    for message, key in (
        ({"type": "sit_out", "seat": 2}, "protocol.fields"),
        ({"type": "report", "report": "shuffle"}, "protocol.permission.report"),
        ({"type": "override", "override": "void", "reason": "x"}, "protocol.permission.floor"),
        ({"type": "login", "pin": "2222"}, "protocol.login.console"),
        ({"type": "diag_start"}, "protocol.permission.technician"),
        ({"type": "rebuy", "chips": 1.0}, "protocol.fields"),
        ({"type": "journal", "from": 0}, "protocol.unknown"),
    ):
        client.send(message)
        refused = answer(client)
        assert refused["type"] == "refused" and refused["key"] == key, (message, refused)
        assert "\n" not in refused["reason"]
    client.send({"type": "language", "lang": "es"})
    assert answer(client)["type"] == "ok"
    client.send({"type": "report", "report": "shuffle"})
    assert answer(client)["reason"] == tr("protocol.permission.report", "es")
    assert journaled(rig) == before


def test_a_seat_board_naming_the_console_is_refused(
    rig: JournaledRig,
    pki: pathlib.Path,  # noqa: F811
) -> None:
    """Even with the console's secret, the seat's certificate does not make it the console."""
    client = board(rig, pki, "seat1")
    client.hello("console", SECRETS["console"], "es")
    refused = answer(client)
    assert refused["key"] == "protocol.hello.certificate"
    assert refused["reason"] == tr("protocol.hello.certificate", "es")
    assert client.wait_closed(GUARD)


def test_a_malformed_frame_over_tls_is_answered_then_closed(
    rig: JournaledRig,
    pki: pathlib.Path,  # noqa: F811
) -> None:
    client = board(rig, pki, "seat2")
    client.hello("seat2", SECRETS["seat2"], "en")
    client.wait_for(lambda m: m["type"] == "welcome", GUARD)
    client.send_raw(b"\x00\x00\x00\x03\x93\x01\x02")  # announces 3 bytes, an array cut short
    client.send_raw(b"\x03")
    refused = answer(client)
    assert refused["key"] == "protocol.malformed" and refused["reason"].endswith(".")
    assert client.wait_closed(GUARD)
    other = rig.connect("seat3")
    other.send({"type": "sit_out"})
    assert answer(other) == {"type": "ok", "request": "sit_out"}


def test_one_certificate_from_four_addresses_cannot_fill_the_hello_slots(
    rig: JournaledRig,
    pki: pathlib.Path,  # noqa: F811
) -> None:
    """Issue 27, item 10: seat1's certificate from 127.0.0.2-5, eight connections from
    each (the per-address cap), idle after the handshake, filled all 32 slots waiting
    for a hello and turned seat2's board away. Now one certificate holds at most
    ``pending_per_certificate`` slots, and seat2 gets in every time."""
    import socket
    import ssl
    import time

    assert rig.server.tcp_port is not None
    port = rig.server.tcp_port
    context = client_context(pki, "seat1")
    held: list[ssl.SSLSocket] = []
    for address in ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"):
        for _ in range(rig.server.limits.pending_per_peer):
            raw = socket.create_connection(("127.0.0.1", port), GUARD, (address, 0))
            held.append(context.wrap_socket(raw, server_hostname="127.0.0.1"))

    refused: set[int] = set()

    def settled() -> tuple[int, int]:
        """(connections the server holds waiting for a hello, connections it turned
        away: those read a refusal or the close)."""
        with rig.server._clients_lock:
            waiting = sum(1 for c in rig.server.clients.values() if c.terminal is None)
        for number, sock in enumerate(held):
            if number in refused:
                continue
            sock.setblocking(False)
            try:
                sock.recv(4096)  # a refusal frame or the close: only a turned-away one
                refused.add(number)
            except (ssl.SSLWantReadError, BlockingIOError):
                pass
            except OSError:
                refused.add(number)
        return waiting, len(refused)

    deadline = time.monotonic() + GUARD  # a guard against a hang, not a timing limit
    waiting, turned_away = settled()
    while waiting + turned_away < len(held) and time.monotonic() < deadline:
        time.sleep(0.02)
        waiting, turned_away = settled()
    # Every connection is accounted for: held waiting by the server, or turned away.
    assert waiting + turned_away == len(held) == 32
    assert waiting == rig.server.limits.pending_per_certificate == 4, waiting
    try:
        for _ in range(10):  # another seat's board, ten times
            client = board(rig, pki, "seat2")
            client.hello("seat2", SECRETS["seat2"], "en")
            assert client.wait_for(lambda m: m["type"] == "welcome", GUARD)["terminal"] == "seat2"
            client.sock.close()
            rig.clients.remove(client)
    finally:
        for sock in held:
            sock.close()
