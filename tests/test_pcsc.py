"""The PC/SC id-card driver against a real pcscd with vsmartcard's vpcd reader driver.

Each test process starts its own ``pcscd --foreground`` with two vpcd readers,
``Virtual PCD 00 00`` and ``Virtual PCD 00 01``, and puts
:class:`hal_sim.pcsc.FakeCard` cards on them; see ``docs/protocols/idcards.md``.

Two test runs on one machine never meet (docs/testing.md): Debian's pcscd
always makes its socket in ``/run/pcscd`` (it does not read
``PCSCLITE_CSOCK_NAME``; tried with pcsc-lite 1.9.9), so our pcscd runs in a
private mount namespace (``unshare --mount``) where a folder of this process
is bind-mounted on ``/run/pcscd``. The client library does read
``PCSCLITE_CSOCK_NAME``, which this module points at that folder's socket
before the first PC/SC call. The vpcd readers listen on a pair of free TCP
ports chosen per process (a reader configuration written into the same
folder), and the virtual cards connect there. The system's own pcscd, if
any, is left alone. These tests are skipped only when pcscd, the vpcd driver
or ``unshare`` is missing.
"""

from __future__ import annotations

import atexit
import os
import queue
import random
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from smartcard import scard  # type: ignore[import-untyped]

from drivers.pcsc import (
    AID,
    CardRecord,
    PcscReaders,
    RecordError,
    encode_record,
    parse_record,
)
from firmware.errors import ConfigError, HardwareError
from firmware.hal import (
    DeviceEvent,
    DeviceFault,
    DeviceRecovered,
    Health,
    IdCardInserted,
    IdCardRemoved,
)
from firmware.hal.backends import backend_class, build_devices
from hal_sim.pcsc import FakeCard, fakecard, plain_card, player_card, staff_badge
from hal_sim.pcsc import encode_record as fake_encode_record

PCSCD = shutil.which("pcscd") or shutil.which("pcscd", path="/usr/sbin:/sbin")
UNSHARE = shutil.which("unshare") or shutil.which("unshare", path="/usr/bin:/bin")
VPCD_DRIVER = Path("/usr/lib/pcsc/drivers/serial/libifdvpcd.so")

SEAT_READER, CONSOLE_READER = "Virtual PCD 00 00", "Virtual PCD 00 01"
SEAT_SLOT, CONSOLE_SLOT = 0, 1
READERS = {"seat1": SEAT_READER, "console": CONSOLE_READER}

EVENT_TIMEOUT = 60.0
"""Hang guard for one event (pcscd polls vpcd every 400 ms): only a real hang reaches it."""
STARTUP_TIMEOUT = 120.0
"""Hang guard for pcscd to list both readers, however busy the machine."""

SELECT = bytes([0x00, 0xA4, 0x04, 0x00, len(AID)]) + AID
READ_BINARY = bytes([0x00, 0xB0, 0x00, 0x00, 0x00])
GET_UID = bytes([0xFF, 0xCA, 0x00, 0x00, 0x00])

needs_pcscd = [
    pytest.mark.skipif(
        PCSCD is None or UNSHARE is None or not VPCD_DRIVER.exists(),
        reason="needs the Debian packages pcscd, vsmartcard-vpcd and util-linux "
        "(apt-get install pcscd vsmartcard-vpcd); CI installs them",
    ),
    pytest.mark.xdist_group("pcscd"),
]

E = TypeVar("E", bound=DeviceEvent)


# -- the daemon ----------------------------------------------------------------


def _free_port_pair() -> int:
    """A TCP port ``p`` with ``p + 1`` free as well (vpcd's two slots), drawn below the
    system's range of ephemeral ports: no outgoing connection (another run's card, a
    database client) can take it as its local port while our pcscd is restarted."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random()  # a fresh draw per process: two runs pick apart
    for _ in range(200):
        port = rng.randrange(max(1024, low - 12000), low - 1)
        try:
            with socket.socket() as first, socket.socket() as second:
                first.bind(("127.0.0.1", port))
                second.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        return port
    raise RuntimeError("No two neighbouring free TCP ports below the ephemeral range.")


class Private:
    """This process's pcscd folder (its socket, pid file and reader configuration)."""

    _made: Private | None = None

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="pokertable-pcscd-"))
        self.socket = self.folder / "pcscd.comm"
        self.config = self.folder / "readers.d"
        self.config.mkdir()
        self.port = 0
        self.new_ports()

    def new_ports(self) -> None:
        """Choose vpcd's ports for the next pcscd start and write its configuration."""
        self.port = _free_port_pair()
        (self.folder / "port").write_text(str(self.port), encoding="utf-8")
        fakecard.VPCD_PORT = self.port
        (self.config / "vpcd").write_text(
            "# vsmartcard's vpcd reader driver for tests/test_pcsc.py, this process only.\n"
            'FRIENDLYNAME "Virtual PCD"\n'
            f"DEVICENAME   /dev/null:{self.port}\n"
            f"LIBPATH      {VPCD_DRIVER}\n"
            f"CHANNELID    {self.port}\n",
            encoding="utf-8",
        )

    @classmethod
    def get(cls) -> Private:
        """The one folder of this process, made at the first call.

        The client library reads ``PCSCLITE_CSOCK_NAME`` once, at its first call,
        so every pcscd this process starts must use the same socket path. This
        module can be imported twice in one process (by pytest as a test file and
        by ``tests/test_contract.py``), so the folder is found again through the
        environment (with this process's id), not a class attribute alone.
        """
        mark = os.environ.get("POKERTABLE_TEST_PCSCD", "")
        pid, _, folder = mark.partition(":")
        if cls._made is None and pid == str(os.getpid()) and Path(folder).is_dir():
            made = cls.__new__(cls)
            made.folder = Path(folder)
            made.socket = made.folder / "pcscd.comm"
            made.config = made.folder / "readers.d"
            made.port = int((made.folder / "port").read_text())
            cls._made = made
        if cls._made is None:
            made = cls()
            os.environ["PCSCLITE_CSOCK_NAME"] = str(made.socket)
            os.environ["POKERTABLE_TEST_PCSCD"] = f"{os.getpid()}:{made.folder}"
            atexit.register(shutil.rmtree, made.folder, ignore_errors=True)
            cls._made = made
        fakecard.VPCD_PORT = cls._made.port
        return cls._made


class Pcscd:
    """Our pcscd, in its own mount namespace with :class:`Private`'s folder as /run/pcscd."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.private = Private.get()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start pcscd and wait until it lists both virtual readers."""
        assert PCSCD is not None and UNSHARE is not None
        private = self.private
        # In the new namespace: our folder on /run/pcscd (a tmpfs /run first if the
        # machine has no /run/pcscd to mount on), then pcscd itself.
        script = (
            'if [ -d /run/pcscd ]; then mount --bind "$1" /run/pcscd; else '
            'mount -t tmpfs tmpfs /run && mkdir /run/pcscd && mount --bind "$1" /run/pcscd; fi'
            ' && exec "$2" --foreground --config "$3"'
        )
        user = [] if os.geteuid() == 0 else ["--map-root-user"]
        log = (private.folder / "pcscd.log").open("ab")  # --foreground: it logs to stdout
        self.proc = subprocess.Popen(
            [
                UNSHARE,
                "--mount",
                "--propagation",
                "private",
                *user,
                "sh",
                "-c",
                script,
                "sh",
                str(private.folder),
                PCSCD,
                str(private.config),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while set(_pcsc_readers()) < {SEAT_READER, CONSOLE_READER}:
            if self.proc.poll() is not None:
                error = (private.folder / "pcscd.log").read_text(errors="replace")[-2000:]
                pytest.fail(
                    f"pcscd exited at once (status {self.proc.returncode}) in its own mount "
                    f"namespace: {error.strip() or 'no message'}. It needs unshare --mount "
                    "(root, or unprivileged user namespaces)."
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"pcscd did not list {SEAT_READER!r} and {CONSOLE_READER!r} within "
                    f"{STARTUP_TIMEOUT} s (it lists {_pcsc_readers()}); its messages: "
                    + (private.folder / "pcscd.log").read_text(errors="replace")[-2000:]
                )
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop our pcscd (it removes its socket on SIGTERM)."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(60)

    def ensure_running(self) -> None:
        if not self.running:
            self.stop()
            self.start()


def _pcsc_readers() -> list[str]:
    """The readers pcscd lists, or [] if it is not (yet) running."""
    hr, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
    if hr != scard.SCARD_S_SUCCESS:
        return []
    try:
        hr, names = scard.SCardListReaders(context, [])
        return list(names) if hr == scard.SCARD_S_SUCCESS else []
    finally:
        scard.SCardReleaseContext(context)


@pytest.fixture(scope="module")
def pcscd() -> Iterator[Pcscd]:
    """One pcscd with the vpcd readers for this module, private to this test process."""
    daemon = Pcscd()
    try:
        daemon.start()
        yield daemon
    finally:
        daemon.stop()


class Cards:
    """Makes cards for one test and takes them all off the readers afterwards."""

    def __init__(self) -> None:
        self.made: list[FakeCard] = []

    def __call__(self, card: FakeCard) -> FakeCard:
        self.made.append(card)
        return card

    def remove_all(self) -> None:
        for card in self.made:
            card.remove()


@pytest.fixture
def cards(pcscd: Pcscd) -> Iterator[Cards]:
    """A running pcscd with empty readers, and cards removed after the test."""
    pcscd.ensure_running()
    made = Cards()
    yield made
    made.remove_all()
    if pcscd.running:
        _wait_readers(lambda state: bool(state & scard.SCARD_STATE_EMPTY))


def _wait_readers(ok: Any, readers: tuple[str, ...] = (SEAT_READER, CONSOLE_READER)) -> None:
    """Block (with a timeout) until pcscd reports ``ok(state)`` for every reader."""
    hr, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
    assert hr == scard.SCARD_S_SUCCESS, scard.SCardGetErrorMessage(hr)
    try:
        states = [(r, scard.SCARD_STATE_UNAWARE) for r in readers]
        deadline = time.monotonic() + EVENT_TIMEOUT
        while True:
            hr, new = scard.SCardGetStatusChange(context, 500, states)
            if hr != scard.SCARD_E_TIMEOUT:
                assert hr == scard.SCARD_S_SUCCESS, scard.SCardGetErrorMessage(hr)
                if all(ok(event) for _r, event, _a in new):
                    return
                states = [(r, e & ~scard.SCARD_STATE_CHANGED) for r, e, _a in new]
            if time.monotonic() > deadline:
                pytest.fail(f"pcscd did not reach the expected reader state: {states}")
    finally:
        scard.SCardReleaseContext(context)


class Events:
    """The ``post`` given to the driver: a queue the test reads with timeouts."""

    def __init__(self) -> None:
        self.queue: queue.Queue[DeviceEvent] = queue.Queue()

    def post(self, event: DeviceEvent) -> None:
        self.queue.put(event)

    def next(self, kind: type[E]) -> E:
        try:
            event = self.queue.get(timeout=EVENT_TIMEOUT)
        except queue.Empty:
            pytest.fail(f"No {kind.__name__} within {EVENT_TIMEOUT} s.")
        assert isinstance(event, kind), f"expected {kind.__name__}, got {event}"
        return event

    def quiet(self, settle: float = 1.0) -> None:
        """Assert nothing more is posted while pcscd polls twice more."""
        try:
            extra = self.queue.get(timeout=settle)
        except queue.Empty:
            return
        pytest.fail(f"Unexpected event {extra}.")


@pytest.fixture
def events() -> Events:
    return Events()


@pytest.fixture
def device(cards: Cards, events: Events) -> Iterator[PcscReaders]:
    """The driver on both virtual readers, opened, closed after the test."""
    readers = PcscReaders("ids", {"readers": READERS, "retry_interval": 0.1})
    readers.open(events.post)
    yield readers
    readers.close()


# -- cards on readers --------------------------------------------------------------


@pytest.mark.usefixtures("cards")
class TestCards:
    pytestmark = needs_pcscd

    def test_player_card_at_a_seat_is_reported_then_removed(
        self, device: PcscReaders, events: Events, cards: Cards
    ) -> None:
        card = cards(player_card("P-000123", slot=SEAT_SLOT))
        before = time.monotonic()
        card.insert()
        inserted = events.next(IdCardInserted)
        assert (inserted.device, inserted.reader) == ("ids", "seat1")
        assert inserted.identity == "player:P-000123"
        assert before <= inserted.time <= time.monotonic()  # the monotonic clock's reading
        assert card.apdus == [SELECT, READ_BINARY]
        events.quiet()  # our own connection changes the reader's flags: not a new card
        card.remove()
        removed = events.next(IdCardRemoved)
        assert (removed.device, removed.reader) == ("ids", "seat1")
        assert device.health() is Health.OK

    def test_a_player_card_on_a_seats_reader_seats_its_player_from_the_directory(
        self, device: PcscReaders, events: Events, cards: Cards
    ) -> None:
        """Issue 12: the identity read from a real reader seats the directory's player."""
        from firmware.protocol.game import sit_by_card
        from firmware.service.controller import Controller
        from firmware.service.registry import TagRegistry
        from firmware.table import events as te
        from firmware.table.options import Stakes, TableConfig, profile_options
        from firmware.table.table import Table

        config = TableConfig(
            "casino-cash", profile_options("casino-cash"), Stakes(small_blind=1, big_blind=2)
        )
        table = Table(config, deck_ready=True)
        controller = Controller(table, {}, TagRegistry(":memory:"))
        controller.players = {"P-000123": "Bea Soto"}
        cards(player_card("P-000123", slot=SEAT_SLOT)).insert()
        controller.handle(events.next(IdCardInserted))  # as the controller's loop does
        sit_by_card(controller, 1, "seat1", 100)
        seat = table.seating.seats[1]
        assert (seat.player, seat.stack, seat.card) == ("Bea Soto", 100, "P-000123")
        assert isinstance(table.log[-1], te.SitDown)

    def test_card_without_the_application_is_reported_by_uid(
        self, device: PcscReaders, events: Events, cards: Cards
    ) -> None:
        card = cards(plain_card(slot=SEAT_SLOT, uid=bytes.fromhex("04a1b2c3d4e5f6")))
        card.insert()
        assert events.next(IdCardInserted).identity == "uid:04A1B2C3D4E5F6"
        assert card.apdus == [SELECT, GET_UID]

    def test_bad_record_falls_back_to_the_uid(
        self, device: PcscReaders, events: Events, cards: Cards
    ) -> None:
        record = bytes.fromhex("700B800102") + b"\x00" * 8  # format version 2
        card = cards(FakeCard(bytes.fromhex("0A0B0C0D"), record, slot=SEAT_SLOT))
        card.insert()
        assert events.next(IdCardInserted).identity == "uid:0A0B0C0D"
        assert card.apdus == [SELECT, READ_BINARY, GET_UID]

    def test_staff_badge_at_the_console(
        self, device: PcscReaders, events: Events, cards: Cards
    ) -> None:
        cards(staff_badge("S-0042", slot=CONSOLE_SLOT)).insert()
        inserted = events.next(IdCardInserted)
        assert (inserted.reader, inserted.identity) == ("console", "staff:S-0042")

    def test_two_readers_at_once(self, device: PcscReaders, events: Events, cards: Cards) -> None:
        player = cards(player_card("P-7", slot=SEAT_SLOT))
        staff = cards(staff_badge("S-8", slot=CONSOLE_SLOT))
        player.insert()
        staff.insert()
        got = {(e.reader, e.identity) for e in (events.next(IdCardInserted) for _ in "12")}
        assert got == {("seat1", "player:P-7"), ("console", "staff:S-8")}
        player.remove()
        staff.remove()
        assert {events.next(IdCardRemoved).reader for _ in "12"} == {"seat1", "console"}

    def test_card_already_on_a_reader_is_reported_at_open(
        self, events: Events, cards: Cards
    ) -> None:
        cards(player_card("P-1", slot=CONSOLE_SLOT)).insert()
        _wait_readers(lambda state: bool(state & scard.SCARD_STATE_PRESENT), (CONSOLE_READER,))
        readers = PcscReaders("ids", {"readers": READERS})
        readers.open(events.post)
        try:
            inserted = events.next(IdCardInserted)
            assert (inserted.reader, inserted.identity) == ("console", "player:P-1")
        finally:
            readers.close()

    def test_a_closed_device_posts_nothing_and_closes_twice(
        self, events: Events, cards: Cards
    ) -> None:
        readers = PcscReaders("ids", {"readers": READERS})
        readers.close()  # never opened
        readers.open(events.post)
        assert readers.health() is Health.OK
        readers.close()
        readers.close()
        assert readers.health() is Health.CLOSED
        assert not [t for t in threading.enumerate() if t.name == "pcsc-ids"]
        cards(player_card("P-2", slot=SEAT_SLOT)).insert()
        _wait_readers(lambda state: bool(state & scard.SCARD_STATE_PRESENT), (SEAT_READER,))
        assert events.queue.empty()


# -- pcscd and readers going away ------------------------------------------------------


@pytest.mark.usefixtures("cards")
class TestFaults:
    pytestmark = needs_pcscd

    def test_configured_reader_missing_names_it(self, events: Events) -> None:
        readers = PcscReaders("ids", {"readers": {"seat1": SEAT_READER, "seat2": "ACR122U 01"}})
        with pytest.raises(HardwareError) as raised:
            readers.open(events.post)
        message = str(raised.value)
        assert "'ids'" in message and "seat2 ('ACR122U 01')" in message
        assert f"'{SEAT_READER}'" in message and f"'{CONSOLE_READER}'" in message  # what it sees
        assert readers.health() is Health.CLOSED
        readers.close()

    def test_pcscd_not_running_says_to_start_it(self, pcscd: Pcscd, events: Events) -> None:
        pcscd.stop()
        readers = PcscReaders("ids", {"readers": READERS})
        with pytest.raises(HardwareError, match="pcscd is not running; start it"):
            readers.open(events.post)

    def test_pcscd_stopping_faults_and_restarting_recovers(
        self, pcscd: Pcscd, device: PcscReaders, events: Events, cards: Cards
    ) -> None:
        card = cards(player_card("P-9", slot=SEAT_SLOT))
        card.insert()
        assert events.next(IdCardInserted).identity == "player:P-9"
        pcscd.stop()
        fault = events.next(DeviceFault)
        assert "pcscd" in fault.detail and "start it again" in fault.detail
        assert device.health() is Health.FAULT
        card.remove()  # vpcd closed the card's link with pcscd anyway
        pcscd.start()
        events.next(DeviceRecovered)
        assert events.next(IdCardRemoved).reader == "seat1"  # gone while pcscd was down
        assert device.health() is Health.OK
        cards(player_card("P-10", slot=SEAT_SLOT)).insert()  # and it watches again
        assert events.next(IdCardInserted).identity == "player:P-10"


# -- configuration, record format and the virtual card (no pcscd needed) ----------------


def test_backend_is_registered_and_built_from_config() -> None:
    assert backend_class("readers", "pcsc") is PcscReaders
    built = build_devices(
        {"ids": {"kind": "readers", "backend": "pcsc", "readers": {"seat2": "A", "seat1": "B"}}}
    )
    assert built["ids"].name == "ids"
    assert isinstance(built["ids"], PcscReaders)
    assert built["ids"].readers() == ("seat2", "seat1")
    assert built["ids"].health() is Health.CLOSED


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"readers": READERS, "reader": "x"}, ["reader", "retry_interval"]),
        ({}, ["readers table"]),
        ({"readers": {"table": "A"}}, ["'table'", "seatN"]),
        ({"readers": {"seat1": ""}}, ["seat1", "PC/SC reader"]),
        ({"readers": {"seat1": "A", "seat2": "A"}}, ["'A'", "twice"]),
        ({"readers": READERS, "retry_interval": 0}, ["retry_interval"]),
        ({"readers": READERS, "retry_interval": True}, ["retry_interval"]),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ConfigError) as raised:
        PcscReaders("ids", options)
    for word in words:
        assert word in str(raised.value)
    assert str(raised.value).endswith(".")


def test_record_round_trip_and_the_fake_card_agrees() -> None:
    for kind, card_id in [("player", "P-000123"), ("staff", "S.42_a"), ("player", "x" * 32)]:
        record = encode_record(kind, card_id)
        assert record == fake_encode_record(kind, card_id)
        assert parse_record(record + b"\xff" * 4) == CardRecord(kind, card_id)


def test_unknown_fields_are_skipped() -> None:
    body = bytes.fromhex("800101 9002ABCD 810101 8203") + b"P-1"
    assert parse_record(bytes([0x70, len(body)]) + body).identity == "player:P-1"


@pytest.mark.parametrize(
    "record",
    [
        b"",
        bytes.fromhex("6F03800101"),  # not the 70 template
        bytes.fromhex("700B80010181010182"),  # truncated template
        bytes.fromhex("7004800101 81"),  # field header cut
        bytes.fromhex("7006800101 8105 01"),  # field value cut
        fake_encode_record("player", "P-1", version=2),
        bytes.fromhex("700B800101 810103 8203") + b"P-1",  # kind 03
        bytes.fromhex("7006800101 810101"),  # no id
        bytes.fromhex("700B800101 810101 8203") + b"P 1",  # space in the id
    ],
)
def test_bad_records_are_refused(record: bytes) -> None:
    with pytest.raises(RecordError, match=r"^The (card's record|field 81 of the card's record) "):
        parse_record(record)


@pytest.mark.parametrize(("kind", "card_id"), [("dealer", "D-1"), ("player", ""), ("staff", "é")])
def test_records_that_cannot_be_written(kind: str, card_id: str) -> None:
    with pytest.raises(RecordError, match=r"cannot be stored on a card|Unknown card kind 'dealer'"):
        encode_record(kind, card_id)


def test_fake_card_answers_like_a_card() -> None:
    card = FakeCard(b"\x01\x02\x03\x04", encode_record("player", "P-5"))
    assert card.execute(READ_BINARY) == b"\x69\x86"  # nothing selected yet
    assert card.execute(GET_UID) == b"\x01\x02\x03\x04\x90\x00"
    assert card.execute(SELECT[:-1] + b"\x02") == b"\x6a\x82"  # another AID
    assert card.execute(SELECT) == b"\x90\x00"
    assert card.execute(READ_BINARY) == encode_record("player", "P-5") + b"\x62\x82"
    assert card.execute(bytes.fromhex("00B0000204")) == encode_record("player", "P-5")[2:6] + (
        b"\x90\x00"
    )
    assert card.execute(bytes.fromhex("00880000")) == b"\x6d\x00"
    assert plain_card().execute(SELECT) == b"\x6a\x82"
    assert card.apdus[0] == READ_BINARY and len(card.apdus) == 7


# -- docs/protocols/idcards.md ---------------------------------------------------------

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocols" / "idcards.md"


def test_the_docs_example_config_builds() -> None:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"^```toml\n(.*?)^```", text, flags=re.M | re.S)
    assert block is not None
    config = tomllib.loads(block.group(1))
    built = build_devices(config["devices"])["ids"]
    assert isinstance(built, PcscReaders)
    assert built.readers() == ("seat1", "console")


def test_the_docs_aid_and_example_record_match_the_code() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert AID.hex(" ").upper() in text
    assert encode_record("player", "P-1").hex(" ").upper() in text
    assert parse_record(bytes.fromhex("700B8001018101018203502D31")) == (
        CardRecord("player", "P-1")
    )
