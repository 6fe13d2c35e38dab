"""The table protocol: framing, authentication and the server over real sockets.

The controller runs its loop (``run()``) on a thread and the server its
asyncio loop on another, as on the table; every wait has a timeout and no
test asserts how long anything took.
"""

from __future__ import annotations

import logging
import pathlib
import ssl
import struct
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest

from firmware.hal import IdCardInserted
from firmware.protocol.auth import AuthError, StaffDirectory, TerminalSecrets
from firmware.protocol.client import TableClient
from firmware.protocol.framing import MAX_MESSAGE, Decoder, FrameError, encode
from firmware.protocol.server import TableServer, server_ssl_context
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table

# ---------------------------------------------------------------- framing


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def test_framing_round_trip_in_pieces() -> None:
    data = encode({"type": "act", "action": "call"}) + encode({"type": "muck"})
    decoder = Decoder()
    got = [m for i in range(len(data)) for m in decoder.feed(data[i : i + 1])]
    assert got == [{"type": "act", "action": "call"}, {"type": "muck"}]
    decoder.close()


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\0\0\0\0", "zero_length"),
        (struct.pack(">I", MAX_MESSAGE + 1), "oversize"),
        (frame(msgpack.packb([1, 2])), "not_a_map"),
        (frame(msgpack.packb("hello")), "not_a_map"),
        (frame(msgpack.packb({"kind": "hello"})), "no_type"),
        (frame(msgpack.packb({"type": 7})), "no_type"),
        (frame(b"\xc1\xc1\xc1"), "garbage"),
        (frame(msgpack.packb({"type": "x"}) + b"\x01"), "garbage"),
        (frame(b"\x81"), "garbage"),
    ],
)
def test_framing_refuses_malformed_input(data: bytes, reason: str) -> None:
    decoder = Decoder()
    with pytest.raises(FrameError) as caught:
        decoder.feed(data)
    assert caught.value.reason == reason
    assert str(caught.value).endswith(".")
    with pytest.raises(FrameError, match=r"\.$"):  # a broken stream stays broken
        decoder.feed(encode({"type": "hello"}))


def test_framing_refuses_a_truncated_message_at_the_end() -> None:
    decoder = Decoder()
    assert decoder.feed(encode({"type": "hello"})[:-2]) == []
    with pytest.raises(FrameError) as caught:
        decoder.close()
    assert caught.value.reason == "truncated"
    header_only = Decoder()
    header_only.feed(b"\0\0")
    with pytest.raises(FrameError, match=r"ended in the middle of a message \(2 byte"):
        header_only.close()


def test_framing_will_not_encode_oversize_or_untyped() -> None:
    with pytest.raises(FrameError, match="type 'view' is 65557 bytes long; the limit is 65536"):
        encode({"type": "view", "blob": "x" * MAX_MESSAGE})
    with pytest.raises(FrameError, match="must have a string 'type'"):
        encode({"no": "type"})


# ---------------------------------------------------------------- auth


def test_staff_pins_are_salted_hashes_and_accounts_are_personal() -> None:
    staff = StaffDirectory()
    a = staff.add("B1", "Ana", "dealer", "1234")
    b = staff.add("B2", "Bea", "dealer", "1234")
    assert a.salt != b.salt and a.pin_hash != b.pin_hash
    assert b"1234" not in a.pin_hash
    with pytest.raises(ValueError, match="badge 'B1' already belongs to an account"):
        staff.add("B1", "Carla", "floor", "5678")  # badge already used
    with pytest.raises(ValueError, match="already an account for Ana; accounts are never shared"):
        staff.add("B3", "Ana", "floor", "5678")  # one account per person
    with pytest.raises(ValueError, match="role 'boss' does not exist"):
        staff.add("B4", "Dora", "boss", "5678")


def test_lockout_after_five_failures_then_expiry() -> None:
    now = [0.0]
    staff = StaffDirectory(clock=lambda: now[0], lockout_seconds=60)
    staff.add("B1", "Ana", "floor", "2468")
    for _ in range(4):
        with pytest.raises(AuthError, match="Wrong badge or PIN; try again"):
            staff.login("B1", "0000")
    with pytest.raises(AuthError, match="locked"):
        staff.login("B1", "0000")
    with pytest.raises(AuthError, match="locked"):
        staff.login("B1", "2468")  # even the right PIN while locked
    now[0] = 61.0
    assert staff.login("B1", "2468").name == "Ana"


def test_terminal_secrets_refuse_short_or_shared() -> None:
    with pytest.raises(ValueError, match="secret of seat1 must be at least 16 characters"):
        TerminalSecrets({"seat1": "short"})
    with pytest.raises(ValueError, match="Two terminals share a secret"):
        TerminalSecrets({"seat1": "s" * 20, "seat2": "s" * 20})
    with pytest.raises(ValueError, match="'seat11' is no terminal"):
        TerminalSecrets({"seat11": "x" * 20})


# ---------------------------------------------------------------- server fixtures

GUARD = 60.0
"""Deadlock guard for any wait (seconds). Generous: under load (both cores busy) a TLS
handshake or a scrypt login can take seconds; no test asserts how long anything took."""


class GuardedClient(TableClient):
    """The protocol client with every wait bounded by :data:`GUARD` instead of 10 seconds."""

    def recv(self, timeout: float = GUARD) -> dict[str, Any]:
        return super().recv(timeout)

    def wait_for(self, predicate: Any, timeout: float = GUARD) -> dict[str, Any]:
        return super().wait_for(predicate, timeout)

    def wait_closed(self, timeout: float = GUARD) -> bool:
        return super().wait_closed(timeout)


SECRETS = {
    "seat1": "seat1-secret-0123456789",
    "seat2": "seat2-secret-0123456789",
    "seat3": "seat3-secret-0123456789",
    "console": "console-secret-0123456",
    "broadcast": "broadcast-secret-012345",
}


def openssl(*args: str, cwd: pathlib.Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_cert(
    d: pathlib.Path, name: str, ca: str, server: bool = False
) -> tuple[pathlib.Path, pathlib.Path]:
    """An EC key and a certificate with CN ``name`` signed by the CA ``ca``."""
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", f"{name}.key", cwd=d)
    openssl("req", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-out", f"{name}.csr",
            cwd=d)  # fmt: skip
    ext = d / f"{name}.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1\n" if server else "basicConstraints=CA:FALSE\n")
    sign = ["x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key"]
    openssl(*sign, "-CAcreateserial", "-days", "2", "-extfile", ext.name, "-out", f"{name}.pem",
            cwd=d)  # fmt: skip
    return d / f"{name}.pem", d / f"{name}.key"


def make_ca(d: pathlib.Path, name: str) -> None:
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", f"{name}.key", cwd=d)
    openssl("req", "-x509", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-days", "2",
            "-out", f"{name}.pem", cwd=d)  # fmt: skip


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("pki")
    make_ca(d, "ca")
    make_ca(d, "rogue-ca")
    make_cert(d, "controller", "ca", server=True)
    for name in ("seat1", "seat2", "console"):
        make_cert(d, name, "ca")
    make_cert(d, "rogue", "rogue-ca")
    return d


def client_context(pki: pathlib.Path, name: str | None) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(cafile=str(pki / "ca.pem"))
    if name is not None:
        context.load_cert_chain(str(pki / f"{name}.pem"), str(pki / f"{name}.key"))
    return context


class Rig:
    """A controller with a table running on its thread and a server on both transports."""

    def __init__(self, tmp: pathlib.Path, pki: pathlib.Path, **server_options: Any) -> None:
        config = TableConfig(
            "casino-cash", profile_options("casino-cash"), Stakes(small_blind=1, big_blind=2)
        )
        self.table = Table(config, deck_ready=True)
        for seat, name in ((1, "Ana"), (2, "Bruno"), (3, "Carmen")):
            self.table.apply(te.SitDown(seat, name, 200))
        self.registry = TagRegistry(str(tmp / "tags.db"))
        self.controller = Controller(self.table, {}, self.registry, tick_seconds=3600)
        self.now = [0.0]
        self.staff = StaffDirectory(clock=lambda: self.now[0])
        self.staff.add("BADGE-DEALER", "Dani", "dealer", "1111")
        self.staff.add("BADGE-FLOOR", "Flor", "floor", "2222")
        self.staff.add("BADGE-TECH", "Teo", "technician", "3333")
        self.socket = str(tmp / "table.sock")
        self.server = TableServer(
            self.controller,
            TerminalSecrets(SECRETS),
            self.staff,
            unix_path=self.socket,
            tcp=("127.0.0.1", 0),
            ssl_context=server_ssl_context(
                str(pki / "controller.pem"), str(pki / "controller.key"), str(pki / "ca.pem")
            ),
            **server_options,
        )
        self.server.start()
        self.thread = threading.Thread(target=self.controller.run, daemon=True)
        self.thread.start()
        self.clients: list[TableClient] = []

    def on_loop(self, fn: Any) -> None:
        """Run ``fn`` on the controller loop and wait for it."""
        done = threading.Event()

        def run() -> None:
            try:
                fn()
            finally:
                done.set()

        self.controller.call_soon(run)
        assert done.wait(GUARD), "the controller loop did not run the call"

    def connect(self, terminal: str | None = None, secret: str | None = None) -> TableClient:
        client = GuardedClient.unix(self.socket, GUARD)
        self.clients.append(client)
        if terminal is not None:
            client.hello(terminal, secret if secret is not None else SECRETS[terminal])
        return client

    def tls(self, pki: pathlib.Path, cert: str | None) -> TableClient:
        assert self.server.tcp_port is not None
        context = client_context(pki, cert)
        client = GuardedClient.tls("127.0.0.1", self.server.tcp_port, context, GUARD)
        self.clients.append(client)
        return client

    def close(self) -> None:
        for client in self.clients:
            client.close()
        self.server.stop()
        self.controller.stop()
        self.thread.join(GUARD)
        assert not self.thread.is_alive(), "the controller loop did not stop"
        self.registry.close()


@pytest.fixture
def rig(tmp_path: pathlib.Path, pki: pathlib.Path) -> Iterator[Rig]:
    r = Rig(tmp_path, pki)
    yield r
    r.close()


def is_view(message: dict[str, Any]) -> bool:
    return message["type"] == "view"


def start_hand(rig: Rig) -> None:
    """Shuffle, cut and deal hole cards so that betting starts."""

    def deal() -> None:
        table = rig.table
        table.apply(te.Shuffle())
        table.apply(te.Cut())
        card = 0
        while table.hand is not None and table.hand.next_card_role()[0] == "hole":
            table.apply(te.CardDrawn(card))
            card += 1

    rig.on_loop(deal)
    # The loop tells its listeners (the views, the broadcast line) after the call has
    # signalled that it ran: one more call on the same thread returns once they have.
    rig.on_loop(lambda: None)


def actor(rig: Rig) -> int:
    th = rig.table.hand
    assert th is not None and th.hand.actor is not None
    return th.seat(th.hand.actor)


# ---------------------------------------------------------------- server tests


def test_hello_accepted_then_view_pushed(rig: Rig) -> None:
    client = rig.connect("seat1")
    welcome = client.recv()
    assert welcome == {"type": "welcome", "terminal": "seat1", "role": "seat"}
    view = client.wait_for(is_view)
    assert view["audience"] == "seat" and view["seat"] == 1
    assert [s["name"] for s in view["table"]["seats"]] == ["Ana", "Bruno", "Carmen"]


@pytest.mark.parametrize(
    ("terminal", "secret"),
    [("seat1", "seat2-secret-0123456789"), ("seat1", "wrong"), ("seat9", "x"), ("bogus", "y")],
)
def test_hello_with_a_wrong_secret_is_refused_and_closed(
    rig: Rig, terminal: str, secret: str
) -> None:
    client = rig.connect(terminal, secret)
    refused = client.recv()
    assert refused["type"] == "refused" and refused["key"].startswith("protocol.hello")
    assert refused["reason"].endswith(".")
    assert client.wait_closed()


def test_anything_before_hello_closes_the_client(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="firmware.protocol"):
        client = rig.connect()
        client.send({"type": "act", "action": "fold"})
        assert client.wait_closed()
    assert any("before hello" in r.getMessage() for r in caplog.records)


def test_out_of_turn_refused_legal_action_updates_every_view(rig: Rig) -> None:
    seats = {n: rig.connect(f"seat{n}") for n in (1, 2, 3)}
    console = rig.connect("console")
    for client in [*seats.values(), console]:
        client.wait_for(is_view)
    start_hand(rig)
    to_act = actor(rig)
    waiting = next(n for n in seats if n != to_act)
    seats[waiting].send({"type": "act", "action": "call"})
    refused = seats[waiting].wait_for(lambda m: m["type"] == "refused")
    assert refused["key"] == "error.action.out_of_turn"
    assert "turn" in refused["reason"]
    view = seats[to_act].wait_for(lambda m: is_view(m) and m["legal"] is not None)
    assert view["legal"]["call"] > 0
    seats[to_act].send({"type": "act", "action": "call"})
    for client in [*seats.values(), console]:
        updated = client.wait_for(
            lambda m: is_view(m) and m["table"]["actor"] not in (None, to_act)
        )
        row = next(s for s in updated["table"]["seats"] if s["seat"] == to_act)
        assert row["bet"] == 2
    # The console never saw a hole card; each seat only its own.
    assert all(c == "??" for s in updated["table"]["seats"] for c in s["cards"])


def test_a_seat_cannot_act_for_another_or_report(rig: Rig) -> None:
    client = rig.connect("seat1")
    client.wait_for(is_view)
    client.send({"type": "report", "report": "misdeal", "reason": "x"})
    assert client.wait_for(lambda m: m["type"] == "refused")["key"] == (
        "protocol.permission.report"
    )
    client.send({"type": "override", "override": "void", "reason": "x"})
    assert client.wait_for(lambda m: m["type"] == "refused")["key"] == "protocol.permission.floor"


def insert_badge(rig: Rig, badge: str) -> None:
    rig.controller.post(IdCardInserted("readers", 0.0, "console", badge))
    rig.on_loop(lambda: None)


def test_console_login_success_failure_and_lockout(rig: Rig) -> None:
    console = rig.connect("console")
    assert console.recv()["role"] is None
    console.wait_for(is_view)
    # Without the card in the reader: refused.
    console.send({"type": "login", "badge": "BADGE-FLOOR", "pin": "2222"})
    assert console.wait_for(lambda m: m["type"] == "refused")["key"] == "protocol.login.card"
    insert_badge(rig, "BADGE-DEALER")
    console.send({"type": "login", "badge": "BADGE-DEALER", "pin": "9999"})
    assert console.wait_for(lambda m: m["type"] == "refused")["key"] == "protocol.login.failed"
    console.send({"type": "login", "badge": "BADGE-DEALER", "pin": "1111"})
    welcome = console.wait_for(lambda m: m["type"] == "welcome")
    assert welcome["role"] == "dealer" and welcome["staff"] == "Dani"
    # A dealer reports but cannot override.
    console.send({"type": "override", "override": "void", "reason": "test"})
    assert console.wait_for(lambda m: m["type"] == "refused")["key"] == "protocol.permission.floor"
    console.send({"type": "logout"})
    console.wait_for(lambda m: m["type"] == "welcome" and m["role"] is None)
    # Five failures lock the badge; the right PIN is refused until the lock expires.
    insert_badge(rig, "BADGE-FLOOR")
    for _ in range(5):
        console.send({"type": "login", "badge": "BADGE-FLOOR", "pin": "0000"})
        last = console.wait_for(lambda m: m["type"] == "refused")
    assert last["key"] == "protocol.login.locked_now"
    console.send({"type": "login", "badge": "BADGE-FLOOR", "pin": "2222"})
    assert console.wait_for(lambda m: m["type"] == "refused")["key"] == "protocol.login.locked"
    rig.now[0] += 10_000
    console.send({"type": "login", "badge": "BADGE-FLOOR", "pin": "2222"})
    assert console.wait_for(lambda m: m["type"] == "welcome")["role"] == "floor"


def test_floor_override_is_audited_with_the_staff_name(rig: Rig) -> None:
    console = rig.connect("console")
    console.wait_for(is_view)
    insert_badge(rig, "BADGE-FLOOR")
    console.send({"type": "login", "badge": "BADGE-FLOOR", "pin": "2222"})
    console.wait_for(lambda m: m["type"] == "welcome" and m["role"] == "floor")
    console.send({"type": "override", "override": "adjust_stack", "seat": 2, "chips": 150,
                  "reason": "miscount"})  # fmt: skip
    view = console.wait_for(
        lambda m: (
            is_view(m) and any(s["seat"] == 2 and s["stack"] == 150 for s in m["table"]["seats"])
        )
    )
    assert view["audience"] == "console"
    assert rig.table.audit[-1].staff == "Flor"


def test_technician_sees_devices_only_and_cannot_act(rig: Rig) -> None:
    console = rig.connect("console")
    console.wait_for(is_view)
    insert_badge(rig, "BADGE-TECH")
    console.send({"type": "login", "badge": "BADGE-TECH", "pin": "3333"})
    console.wait_for(lambda m: m["type"] == "welcome")
    view = console.wait_for(lambda m: is_view(m) and m["audience"] == "technician")
    assert "table" not in view
    console.send({"type": "report", "report": "misdeal", "reason": "x"})
    assert console.wait_for(lambda m: m["type"] == "refused")["key"] == (
        "protocol.permission.report"
    )
    console.send({"type": "act", "action": "fold"})
    assert console.wait_for(lambda m: m["type"] == "refused")["key"] == "protocol.permission.seat"


@pytest.mark.parametrize(
    "data",
    [
        struct.pack(">I", MAX_MESSAGE + 1) + b"x" * 100,  # oversized
        b"\0\0\0\0",  # zero length
        frame(b"\xc1garbage"),
        frame(msgpack.packb([1, 2, 3])),
        frame(msgpack.packb({"type": 1})),
    ],
)
def test_malformed_message_closes_only_that_client(
    rig: Rig, data: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    good = rig.connect("seat1")
    good.wait_for(is_view)
    bad = rig.connect("seat2")
    bad.wait_for(is_view)
    with caplog.at_level(logging.WARNING, logger="firmware.protocol"):
        bad.send_raw(data)
        assert bad.wait_closed()
    assert any("malformed message" in r.getMessage() for r in caplog.records)
    # The table and the other client carry on.
    start_hand(rig)
    view = good.wait_for(lambda m: is_view(m) and m["table"]["hand"] == 1)
    assert len(view["table"]["seats"][0]["cards"]) == 2
    assert rig.table.hand is not None


def test_second_hello_closes_the_client(rig: Rig) -> None:
    client = rig.connect("seat1")
    client.wait_for(is_view)
    client.hello("seat2", SECRETS["seat2"])
    assert client.wait_closed()


def test_tls_terminal_with_its_certificate_is_welcome(rig: Rig, pki: pathlib.Path) -> None:
    client = rig.tls(pki, "seat1")
    client.hello("seat1", SECRETS["seat1"])
    assert client.recv()["type"] == "welcome"
    assert client.wait_for(is_view)["seat"] == 1


def test_tls_certificate_of_another_terminal_is_refused(rig: Rig, pki: pathlib.Path) -> None:
    client = rig.tls(pki, "seat2")
    client.hello("seat1", SECRETS["seat1"])
    refused = client.recv()
    assert refused["key"] == "protocol.hello.certificate"
    assert client.wait_closed()


@pytest.mark.parametrize("cert", [None, "rogue"])
def test_tls_client_without_a_valid_certificate_is_refused(
    rig: Rig, pki: pathlib.Path, cert: str | None
) -> None:
    # Refused by the TLS layer (an SSL error or the connection closed), never a timeout:
    # TimeoutError is an OSError but neither an SSLError nor a ConnectionError.
    with pytest.raises((ssl.SSLError, ConnectionError)):
        client = rig.tls(pki, cert)
        # TLS 1.3 may report the refusal only on the first read.
        client.hello("seat1", SECRETS["seat1"])
        client.recv()


def test_hash_pin_text_logs_in_and_never_holds_the_pin() -> None:
    from firmware.cli.serve import staff_directory
    from firmware.errors import ConfigError
    from firmware.protocol.auth import hash_pin

    text = hash_pin("4821")
    assert text.startswith("scrypt$16384$8$1$") and "4821" not in text
    assert hash_pin("4821") != text  # a fresh salt each time
    staff = staff_directory([{"badge": "B-1", "name": "Ana", "role": "floor", "pin_hash": text}])
    assert staff.login("B-1", "4821").role == "floor"
    with pytest.raises(AuthError, match="Wrong badge or PIN"):
        staff.login("B-1", "1234")
    for bad, why in (
        ([{"badge": "B-1", "name": "Ana", "role": "floor", "pin_hash": "4821"}], "never the PIN"),
        (
            [{"badge": "B-1", "name": "Ana", "role": "floor", "pin_hash": text, "pin": "4821"}],
            "has a plain pin; store only pin_hash",
        ),
        ([{"badge": "B-1", "name": "Ana", "role": "boss", "pin_hash": text}], "'boss' does not"),
        (
            [{"badge": "B-1", "name": "Ana", "role": "floor", "pin_hash": text}] * 2,
            "badge 'B-1' already belongs",
        ),
    ):
        with pytest.raises(ConfigError, match=why):
            staff_directory(bad)
    with pytest.raises(ConfigError, match="A PIN must be 4 to 12 digits"):
        hash_pin("12")
