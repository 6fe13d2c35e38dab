"""A virtual player card or staff badge for vsmartcard's ``vpcd`` reader driver.

Each ``vpcd`` reader slot listens on a TCP port (slot 0 on :data:`VPCD_PORT`,
slot 1 on the next port...). A virtual card is a TCP client of that port:
connecting puts the card on the reader, closing takes it away. Every message
on the link is a 2-byte big-endian length and a payload; a 1-byte payload is
a control code (0 power off, 1 power on, 2 reset, 4 send the ATR) and any
other payload is a command APDU, answered with data and SW1 SW2.

The card answers what :mod:`drivers.pcsc` sends (``docs/protocols/idcards.md``):

- ``FF CA 00 00 Le`` (PC/SC GET DATA): the UID;
- ``00 A4 04 00 Lc AID`` (SELECT by AID): ``90 00`` for the table's
  application if the card has a record, else ``6A 82``;
- ``00 B0 P1 P2 Le`` (READ BINARY, after SELECT): the record from offset P1P2.

It records every command APDU it receives (:attr:`FakeCard.apdus`) so tests
can assert on the exchange. The record encoder here is written from the
protocol document, independently of the driver's parser.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from types import TracebackType

AID = bytes.fromhex("F0504F4B455201")
"""The table's card application (``docs/protocols/idcards.md``)."""

VPCD_PORT = 0x8C7B
"""TCP port of vpcd's first reader slot (35963); slot ``n`` listens on ``VPCD_PORT + n``."""

DEFAULT_ATR = bytes.fromhex("3B8F8001804F0CA000000306030001000000006A")
"""A contactless card's ATR as PC/SC readers build it (ISO 14443 type A, MIFARE)."""

_SW_OK = b"\x90\x00"
_KINDS = {"player": 0x01, "staff": 0x02}


def encode_record(kind: str, card_id: str, *, version: int = 1) -> bytes:
    """The record of the table's card application: a ``70`` template holding
    ``80`` version, ``81`` kind (01 player, 02 staff) and ``82`` id (ASCII).

    >>> encode_record("staff", "S-7").hex().upper()
    '700B8001018101028203532D37'
    """
    raw = card_id.encode("ascii")
    fields = [(0x80, bytes([version])), (0x81, bytes([_KINDS[kind]])), (0x82, raw)]
    body = b"".join(bytes([tag, len(value)]) + value for tag, value in fields)
    return bytes([0x70, len(body)]) + body


class FakeCard:
    """A card that can be put on and taken off a vpcd reader slot.

    :param uid: What GET DATA returns (4, 7 or 10 bytes on real cards).
    :param record: The application's record; ``None`` for a card without the
        table's application (a bank card, a hotel key...).
    :param slot: The vpcd reader slot (0 is ``Virtual PCD 00 00``).
    :param atr: The ATR sent when pcscd powers the card.
    :param host: Where vpcd listens.
    """

    def __init__(
        self,
        uid: bytes,
        record: bytes | None = None,
        *,
        slot: int = 0,
        atr: bytes = DEFAULT_ATR,
        host: str = "127.0.0.1",
    ) -> None:
        self.uid = uid
        self.record = record
        self.atr = atr
        self.address = (host, VPCD_PORT + slot)
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._selected = False
        self._lock = threading.Lock()
        self._apdus: list[bytes] = []

    # -- test controls ----------------------------------------------------

    @property
    def apdus(self) -> list[bytes]:
        """A copy of every command APDU received so far, in order."""
        with self._lock:
            return list(self._apdus)

    @property
    def inserted(self) -> bool:
        """Whether the card is on the reader (its link to vpcd is open)."""
        return self._thread is not None and self._thread.is_alive()

    def insert(self, timeout: float = 5.0) -> None:
        """Put the card on the reader (connect to vpcd).

        :raises ConnectionError: if vpcd is not listening (pcscd not running
            with the vpcd driver) or the card is already inserted.
        """
        if self.inserted:
            raise ConnectionError("This card is already on a reader; remove it first.")
        try:
            sock = socket.create_connection(self.address, timeout=timeout)
        except OSError as exc:
            raise ConnectionError(
                f"vpcd is not listening on {self.address[0]}:{self.address[1]} ({exc}); start "
                "pcscd with the vpcd reader driver first."
            ) from exc
        sock.settimeout(None)
        self._sock = sock
        self._selected = False
        self._thread = threading.Thread(target=self._serve, args=(sock,), daemon=True)
        self._thread.start()

    def remove(self) -> None:
        """Take the card off the reader (close the link). Safe to call twice."""
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed by vpcd
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(5)

    def __enter__(self) -> FakeCard:
        self.insert()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.remove()

    # -- the card ---------------------------------------------------------

    def execute(self, apdu: bytes) -> bytes:
        """Answer one command APDU (response data followed by SW1 SW2)."""
        with self._lock:
            self._apdus.append(apdu)
        if len(apdu) < 4:
            return b"\x67\x00"  # wrong length
        cla, ins, p1, p2 = apdu[:4]
        if (cla, ins) == (0xFF, 0xCA):  # PC/SC GET DATA
            return self.uid + _SW_OK if (p1, p2) == (0, 0) else b"\x6a\x81"
        if cla != 0x00:
            return b"\x6e\x00"  # class not supported
        if ins == 0xA4 and p1 == 0x04:  # SELECT by AID
            lc = apdu[4] if len(apdu) > 4 else 0
            self._selected = self.record is not None and apdu[5 : 5 + lc] == AID
            return _SW_OK if self._selected else b"\x6a\x82"
        if ins == 0xB0:  # READ BINARY
            if not self._selected or self.record is None:
                return b"\x69\x86"  # command not allowed: no file selected
            offset = (p1 << 8) | p2
            if offset > len(self.record):
                return b"\x6b\x00"
            le = (apdu[4] if len(apdu) > 4 else 0) or 256
            data = self.record[offset : offset + le]
            return data + (b"\x62\x82" if len(data) < le else _SW_OK)
        return b"\x6d\x00"  # instruction not supported

    def _serve(self, sock: socket.socket) -> None:
        try:
            while True:
                (size,) = struct.unpack("!H", _recv_exact(sock, 2))
                message = _recv_exact(sock, size)
                if size == 1:
                    if message[0] == 4:
                        _send(sock, self.atr)
                    else:  # power off, power on or reset: the application is deselected
                        self._selected = False
                else:
                    _send(sock, self.execute(message))
        except (OSError, ConnectionError):
            pass  # removed, or vpcd went away (pcscd stopped)


def player_card(
    player_id: str, *, slot: int = 0, uid: bytes = bytes.fromhex("04A1B2C3D4E5F6")
) -> FakeCard:
    """A player card of the table's application on vpcd reader ``slot``."""
    return FakeCard(uid, encode_record("player", player_id), slot=slot)


def staff_badge(
    staff_id: str, *, slot: int = 0, uid: bytes = bytes.fromhex("04C0FFEE0042AA")
) -> FakeCard:
    """A staff badge of the table's application on vpcd reader ``slot``."""
    return FakeCard(uid, encode_record("staff", staff_id), slot=slot)


def plain_card(*, slot: int = 0, uid: bytes = bytes.fromhex("DEADBEEF")) -> FakeCard:
    """A card without the table's application on vpcd reader ``slot``: only its UID reads."""
    return FakeCard(uid, None, slot=slot)


def _send(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(struct.pack("!H", len(payload)) + payload)


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    buf = b""
    while len(buf) < size:
        chunk = sock.recv(size - len(buf))
        if not chunk:
            raise ConnectionError("vpcd closed the link")
        buf += chunk
    return buf
