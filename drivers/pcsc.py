"""PC/SC smart-card readers: player cards at the seats, staff badges at the console.

The driver talks to ``pcscd`` through pyscard's low-level ``smartcard.scard``
API. One thread per device blocks in ``SCardGetStatusChange`` on every
configured reader (plus pcsc-lite's PnP pseudo-reader, so a reader that is
unplugged wakes it); :meth:`PcscReaders.close` wakes it with ``SCardCancel``.
When a card arrives the same thread reads its identity with three APDUs at
most (see ``docs/protocols/idcards.md``):

1. ``SELECT`` the table's card application (:data:`AID`);
2. if it is there, ``READ BINARY`` its record (:func:`parse_record`) and
   report ``player:<id>`` or ``staff:<id>``;
3. otherwise ``GET DATA`` (``FF CA 00 00``) for the card's UID and report
   ``uid:<HEX>``.

Configuration (``[devices.<name>]`` with ``kind = "readers"`` and
``backend = "pcsc"``)::

    readers = { seat1 = "ACS ACR122U 00 00", console = "ACS ACR122U 01 00" }
    retry_interval = 1.0    # seconds between reconnection attempts after a fault

Readers are matched by their PC/SC name from the configuration, never by
their position in pcscd's list.
"""

from __future__ import annotations

import importlib.metadata
import logging
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from smartcard import scard  # type: ignore[import-untyped]

from firmware.errors import ConfigError, HardwareError
from firmware.hal.devices import DeviceIdentity, Health, IdReaders, Location, Post
from firmware.hal.messages import (
    DeviceEvent,
    DeviceFault,
    DeviceRecovered,
    IdCardInserted,
    IdCardRemoved,
)

log = logging.getLogger(__name__)

AID = bytes.fromhex("F0504F4B455201")
"""The table's proprietary card application: ``F0`` + ``"POKER"`` + version ``01``."""

RECORD_TEMPLATE = 0x70
"""Tag of the record template that wraps the record's fields."""
TAG_VERSION, TAG_KIND, TAG_ID = 0x80, 0x81, 0x82
"""Tags of the record's fields: format version, kind of card, id."""
RECORD_VERSION = 1
"""The only record format version this driver reads."""
KINDS = {1: "player", 2: "staff"}
"""Kind byte of the record to the identity's prefix."""
ID_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,32}")
"""What a player or staff id may contain."""

READER_NAME = re.compile(r"seat[1-9][0-9]?|console")
"""Our names for readers: ``seatN`` at the seats, ``console`` at the dealer's console."""

PNP_NOTIFICATION = "\\\\?PnP?\\Notification"
"""pcsc-lite's pseudo-reader whose state changes when a reader is added or removed."""

SELECT_APPLICATION = bytes([0x00, 0xA4, 0x04, 0x00, len(AID)]) + AID
READ_RECORD = bytes([0x00, 0xB0, 0x00, 0x00, 0x00])
GET_UID = bytes([0xFF, 0xCA, 0x00, 0x00, 0x00])

_WAIT_MS = 10_000
"""Longest single wait in SCardGetStatusChange; close() cancels it at once anyway."""
_JOIN_SECONDS = 5.0


class RecordError(ValueError):
    """A card's record does not follow the format of ``docs/protocols/idcards.md``."""


@dataclass(frozen=True)
class CardRecord:
    """What the table's card application holds.

    :param kind: ``player`` or ``staff``.
    :param id: The player's or staff member's id (no PIN: the PIN is never on the card).
    """

    kind: str
    id: str

    @property
    def identity(self) -> str:
        """The identity reported in :class:`~firmware.hal.IdCardInserted`.

        >>> CardRecord("player", "P-000123").identity
        'player:P-000123'
        """
        return f"{self.kind}:{self.id}"


def encode_record(kind: str, card_id: str) -> bytes:
    """Encode the record written to a card when it is personalised.

    >>> encode_record("player", "P-1").hex(" ").upper()
    '70 0B 80 01 01 81 01 01 82 03 50 2D 31'

    :raises RecordError: for an unknown kind or an id that cannot be stored.
    """
    codes = {v: k for k, v in KINDS.items()}
    if kind not in codes:
        raise RecordError(f"Unknown card kind '{kind}'; use player or staff.")
    if not ID_PATTERN.fullmatch(card_id):
        raise RecordError(
            f"The id '{card_id}' cannot be stored on a card; use 1 to 32 letters, digits, "
            "'.', '_' or '-'."
        )
    raw = card_id.encode("ascii")
    body = bytes([TAG_VERSION, 1, RECORD_VERSION, TAG_KIND, 1, codes[kind], TAG_ID, len(raw)])
    body += raw
    return bytes([RECORD_TEMPLATE, len(body)]) + body


def parse_record(data: bytes) -> CardRecord:
    """Decode the record read from a card; bytes after the template are ignored.

    >>> parse_record(bytes.fromhex("700B8001018101028203532D37FFFF"))
    CardRecord(kind='staff', id='S-7')

    :raises RecordError: if the record is truncated, of another version, or
        lacks a valid kind or id.
    """
    if len(data) < 2 or data[0] != RECORD_TEMPLATE:
        raise RecordError("The card's record does not start with the 70 template.")
    length = data[1]
    if length > 0x7F or len(data) < 2 + length:
        raise RecordError("The card's record is truncated or too long.")
    body = data[2 : 2 + length]
    fields: dict[int, bytes] = {}
    pos = 0
    while pos < len(body):
        if pos + 2 > len(body):
            raise RecordError("The card's record ends inside a field.")
        tag, size = body[pos], body[pos + 1]
        if pos + 2 + size > len(body):
            raise RecordError(f"The field {tag:02X} of the card's record is truncated.")
        fields.setdefault(tag, body[pos + 2 : pos + 2 + size])  # unknown tags are ignored
        pos += 2 + size
    if fields.get(TAG_VERSION) != bytes([RECORD_VERSION]):
        raise RecordError(f"The card's record is not of format version {RECORD_VERSION}.")
    kind_raw = fields.get(TAG_KIND, b"")
    if len(kind_raw) != 1 or kind_raw[0] not in KINDS:
        raise RecordError("The card's record has no valid kind (01 player, 02 staff).")
    id_raw = fields.get(TAG_ID, b"")
    card_id = id_raw.decode("ascii", errors="replace")
    if not ID_PATTERN.fullmatch(card_id):
        raise RecordError("The card's record has no valid id.")
    return CardRecord(KINDS[kind_raw[0]], card_id)


class _CardGone(Exception):
    """The card left (or stopped answering) while it was being read."""


class _Fault(Exception):
    """pcscd or a reader went away; ``args[0]`` is the sentence for the dealer, ``key``
    and ``params`` its message-catalog key and values."""

    def __init__(self, detail: str, key: str = "", params: tuple[tuple[str, str], ...] = ()):
        super().__init__(detail)
        self.key, self.params = key, params


class PcscReaders(IdReaders):
    """The table's smart-card readers, through a running ``pcscd``.

    :param name: The device's name in the table configuration.
    :param options: ``readers`` (our reader name to PC/SC reader name) and
        optionally ``retry_interval`` (seconds, default 1.0).
    :raises ConfigError: for a missing, unknown or invalid option.
    """

    def __init__(self, name: str, options: Mapping[str, Any]) -> None:
        super().__init__(name)
        opts = dict(options)
        mapping = opts.pop("readers", None)
        retry = opts.pop("retry_interval", 1.0)
        if opts:
            raise ConfigError(
                f"Unknown option(s) {', '.join(sorted(opts))} for the card readers '{name}'; "
                "the pcsc backend knows readers and retry_interval.",
                key="config.readers.unknown",
                name=name,
                unknown=", ".join(sorted(opts)),
            )
        if not isinstance(mapping, Mapping) or not mapping:
            raise ConfigError(
                f"The card readers '{name}' need a readers table mapping seat1... or console "
                'to PC/SC reader names, for example readers = { seat1 = "ACS ACR122U 00 00" }.',
                key="config.readers.table",
                name=name,
            )
        self._pcsc: dict[str, str] = {}
        for ours, theirs in mapping.items():
            if not isinstance(ours, str) or not READER_NAME.fullmatch(ours):
                raise ConfigError(
                    f"The reader name '{ours}' of the card readers '{name}' is not valid; "
                    "use seatN (seat1, seat2...) or console.",
                    key="config.readers.name",
                    name=name,
                    reader=str(ours),
                )
            if not isinstance(theirs, str) or not theirs:
                raise ConfigError(
                    f"The reader {ours} of the card readers '{name}' must name a PC/SC reader "
                    "as a string (see `pcsc_scan` for the names).",
                    key="config.readers.pcsc_name",
                    name=name,
                    reader=ours,
                )
            if theirs in self._pcsc.values():
                raise ConfigError(
                    f"The PC/SC reader '{theirs}' is configured twice for the card readers "
                    f"'{name}'; give each of our readers its own PC/SC reader.",
                    key="config.readers.twice",
                    name=name,
                    reader=theirs,
                )
            self._pcsc[ours] = theirs
        if isinstance(retry, bool) or not isinstance(retry, int | float) or not 0.05 <= retry <= 60:
            raise ConfigError(
                f"retry_interval of the card readers '{name}' must be a number of seconds "
                "from 0.05 to 60.",
                key="config.readers.retry",
                name=name,
            )
        self._retry = float(retry)
        self._ours = {theirs: ours for ours, theirs in self._pcsc.items()}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._context: Any = None  # the live SCARDCONTEXT, for SCardCancel from close()
        self._post: Post | None = None
        self._health = Health.CLOSED
        self._fault_detail: str | None = None
        self._reported: dict[str, str] = {}  # our reader -> identity reported as inserted
        self._seen: dict[str, int] = {}  # our reader -> pcscd's card-event count, this context

    # -- Device API -------------------------------------------------------

    def readers(self) -> tuple[str, ...]:
        """The configured reader names, in configuration order."""
        return tuple(self._pcsc)

    def locations(self) -> dict[str, Location]:
        """Each reader's PC/SC name (what ``pcsc_scan`` lists), by its role (``seat1``...)."""
        return {ours: {"reader": pcsc} for ours, pcsc in self._pcsc.items()}

    def identity(self) -> DeviceIdentity:
        """``PC/SC`` and the configured PC/SC reader names."""
        try:
            version = importlib.metadata.version("pyscard")
        except importlib.metadata.PackageNotFoundError:  # pragma: no cover - vendored pyscard
            version = "unknown"
        return DeviceIdentity(
            model="PC/SC smart-card readers",
            serial=", ".join(f"{o}={p}" for o, p in self._pcsc.items()),
            firmware=f"pyscard {version}",
        )

    def health(self) -> Health:
        """``OK`` while watching every reader, ``FAULT`` while pcscd or a reader is
        away, ``CLOSED`` before :meth:`open` and after :meth:`close`."""
        return self._health

    def open(self, post: Post) -> None:
        """Check that pcscd sees every configured reader, then start watching them.

        Cards already on a reader are reported right after opening.

        :raises HardwareError: if pcscd is not running or a configured reader is absent.
        """
        if self._thread is not None:
            raise HardwareError(f"The card readers '{self.name}' are already open.")
        context = self._connect(opening=True)
        self._post = post
        self._stop.clear()
        self._reported.clear()
        self._fault_detail = None
        self._health = Health.OK
        with self._lock:
            self._context = context
        self._thread = threading.Thread(
            target=self._run, args=(context,), name=f"pcsc-{self.name}", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop watching, join the thread and release pcscd. Safe to call twice."""
        thread, self._thread = self._thread, None
        self._stop.set()
        if thread is not None:
            deadline = time.monotonic() + _JOIN_SECONDS
            while thread.is_alive() and time.monotonic() < deadline:
                with self._lock:
                    if self._context is not None:
                        scard.SCardCancel(self._context)
                thread.join(0.05)
            if thread.is_alive():
                log.error(
                    "The card readers '%s' did not stop within %s s.", self.name, _JOIN_SECONDS
                )
        self._post = None
        self._health = Health.CLOSED

    # -- pcscd ------------------------------------------------------------

    def _connect(self, *, opening: bool) -> Any:
        """Establish a context and check every configured reader is there.

        :raises HardwareError: when ``opening``; otherwise :class:`_Fault`.
        """
        hr, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
        if hr != scard.SCARD_S_SUCCESS:
            if hr == scard.SCARD_E_NO_SERVICE:
                why = "the PC/SC daemon pcscd is not running; start it (systemctl start pcscd)"
            else:
                why = (
                    f"pcscd refused a connection ({_message(hr)}); restart it "
                    "(systemctl restart pcscd)"
                )
            if opening:
                raise HardwareError(f"The card readers '{self.name}' cannot be opened: {why}.")
            raise self._pcscd_gone(hr)
        try:
            hr, seen = scard.SCardListReaders(context, [])
            if hr == scard.SCARD_E_NO_READERS_AVAILABLE:
                seen = []
            elif hr != scard.SCARD_S_SUCCESS:
                if opening:
                    raise HardwareError(
                        f"The card readers '{self.name}' cannot be opened: pcscd cannot list "
                        f"its readers ({_message(hr)}); restart it (systemctl restart pcscd)."
                    )
                raise self._pcscd_gone(hr)
            missing = [f"{o} ('{p}')" for o, p in self._pcsc.items() if p not in seen]
            if missing:
                if opening:
                    sees = ", ".join(f"'{r}'" for r in seen) if seen else "no readers at all"
                    raise HardwareError(
                        f"The card readers '{self.name}' cannot be opened: the configured "
                        f"reader {' and '.join(missing)} is not connected (pcscd sees {sees}); "
                        f"plug it in or correct the reader names in [devices.{self.name}]."
                    )
                raise self._readers_gone(missing, seen)
        except (_Fault, HardwareError):
            scard.SCardReleaseContext(context)
            raise
        return context

    def _run(self, context: Any) -> None:
        """The watcher thread: watch, and after a fault reconnect every ``retry_interval``."""
        try:
            while not self._stop.is_set():
                if context is None:
                    try:
                        context = self._connect(opening=False)
                    except _Fault as fault:
                        self._fault(str(fault), fault.key, fault.params)
                        self._stop.wait(self._retry)
                        continue
                    with self._lock:
                        self._context = context
                try:
                    self._watch(context)
                except _Fault as fault:
                    self._fault(str(fault), fault.key, fault.params)
                finally:
                    with self._lock:
                        self._context = None
                    scard.SCardReleaseContext(context)
                    context = None
                if not self._stop.is_set():
                    self._stop.wait(self._retry)
        except Exception:  # a bug: say so rather than die silently
            log.exception("The card readers '%s' stopped on an unexpected error.", self.name)
            self._fault(
                f"The card readers '{self.name}' stopped on an unexpected error; restart the "
                "table software and report the log.",
                "alert.fault.readers_stopped",
                (("device", self.name),),
            )

    def _watch(self, context: Any) -> None:
        """Block on status changes until stopped; raise :class:`_Fault` on a fault."""
        self._seen.clear()
        states = [(p, scard.SCARD_STATE_UNAWARE) for p in self._ours]
        states.append((PNP_NOTIFICATION, scard.SCARD_STATE_UNAWARE))
        first = True
        while not self._stop.is_set():
            hr, new = scard.SCardGetStatusChange(context, 0 if first else _WAIT_MS, states)
            if hr == scard.SCARD_E_TIMEOUT or hr == scard.SCARD_E_CANCELLED:
                continue
            if hr != scard.SCARD_S_SUCCESS:
                raise self._pcscd_gone(hr)
            if first:
                first = False
                self._recovered()
            pnp_changed = False
            for reader, event, _atr in new:
                if reader == PNP_NOTIFICATION:
                    pnp_changed |= bool(event & scard.SCARD_STATE_CHANGED)
                elif event & (scard.SCARD_STATE_UNKNOWN | scard.SCARD_STATE_UNAVAILABLE):
                    pnp_changed = True
                elif event & scard.SCARD_STATE_CHANGED:
                    self._update(context, self._ours[reader], int(event))
            if pnp_changed:
                self._check_readers(context)
            states = [(r, e & ~scard.SCARD_STATE_CHANGED) for r, e, _a in new]

    def _check_readers(self, context: Any) -> None:
        """After a PnP change: raise :class:`_Fault` if a configured reader left."""
        hr, seen = scard.SCardListReaders(context, [])
        if hr not in (scard.SCARD_S_SUCCESS, scard.SCARD_E_NO_READERS_AVAILABLE):
            raise self._pcscd_gone(hr)
        seen = seen if hr == scard.SCARD_S_SUCCESS else []
        gone = [f"{o} ('{p}')" for o, p in self._pcsc.items() if p not in seen]
        if gone:
            raise self._readers_gone(gone, seen)

    def _pcscd_gone(self, hr: int) -> _Fault:
        """The fault for a lost pcscd (one sentence whatever the error code, which is logged)."""
        log.debug("The card readers '%s': pcscd answered %s.", self.name, _message(hr))
        return _Fault(
            f"The card readers '{self.name}' lost the PC/SC daemon pcscd; start it again "
            "(systemctl start pcscd), the readers reconnect by themselves.",
            "alert.fault.pcscd",
            (("device", self.name),),
        )

    def _readers_gone(self, gone: list[str], seen: list[str]) -> _Fault:
        """The fault for configured readers that pcscd no longer sees."""
        log.debug("The card readers '%s': pcscd sees %s.", self.name, seen)
        return _Fault(
            f"The card readers '{self.name}' lost the reader {' and '.join(gone)}; check its "
            "cable, the readers reconnect by themselves.",
            "alert.fault.reader_gone",
            (("device", self.name), ("readers", ", ".join(gone))),
        )

    # -- cards ------------------------------------------------------------

    def _update(self, context: Any, reader: str, event: int) -> None:
        """A reader's state changed: report the card that came or went."""
        present = bool(event & scard.SCARD_STATE_PRESENT) and not event & scard.SCARD_STATE_EMPTY
        count = event >> 16  # pcscd counts card events per reader in the high word
        if not present:
            self._seen.pop(reader, None)
            if self._reported.pop(reader, None) is not None:
                self._emit(IdCardRemoved(self.name, time.monotonic(), reader))
            return
        if self._seen.get(reader) == count:
            return  # the same card; only a flag changed (for example our own connection)
        self._seen[reader] = count
        identity: str | None = None
        if event & scard.SCARD_STATE_MUTE:
            log.warning("The card on %s does not answer; ask for another card.", reader)
        else:
            identity = self._read_identity(context, reader)
        old = self._reported.get(reader)
        if old is not None and old != identity:
            del self._reported[reader]
            self._emit(IdCardRemoved(self.name, time.monotonic(), reader))
        if identity is not None and identity != old:
            self._reported[reader] = identity
            self._emit(IdCardInserted(self.name, time.monotonic(), reader, identity))

    def _read_identity(self, context: Any, reader: str) -> str | None:
        """Read the card on ``reader``; ``None`` if it left or cannot be read."""
        hr, card, protocol = scard.SCardConnect(
            context,
            self._pcsc[reader],
            scard.SCARD_SHARE_SHARED,
            scard.SCARD_PROTOCOL_T0 | scard.SCARD_PROTOCOL_T1,
        )
        if hr != scard.SCARD_S_SUCCESS:
            log.warning("The card on %s cannot be connected (%s).", reader, _message(hr))
            return None
        try:
            return self._identity_of(card, protocol, reader)
        except _CardGone as gone:
            log.info("The card on %s left while it was read (%s).", reader, gone)
            return None
        finally:
            scard.SCardDisconnect(card, scard.SCARD_LEAVE_CARD)

    def _identity_of(self, card: Any, protocol: int, reader: str) -> str | None:
        sw, _ = _transmit(card, protocol, SELECT_APPLICATION)
        if sw == 0x9000:
            sw, data = _transmit(card, protocol, READ_RECORD)
            if sw in (0x9000, 0x6282):  # 6282: the file is shorter than asked
                try:
                    return parse_record(data).identity
                except RecordError as exc:
                    log.warning("The card on %s has a bad record (%s); using its UID.", reader, exc)
            else:
                log.warning(
                    "The card on %s refused READ BINARY (SW %04X); using its UID.", reader, sw
                )
        sw, uid = _transmit(card, protocol, GET_UID)
        if sw == 0x9000 and uid:
            return "uid:" + uid.hex().upper()
        log.warning(
            "The card on %s has neither the table application nor a UID (SW %04X).", reader, sw
        )
        return None

    # -- reporting --------------------------------------------------------

    def _emit(self, event: DeviceEvent) -> None:
        post = self._post
        if post is not None and not self._stop.is_set():
            post(event)

    def _fault(self, detail: str, key: str = "", params: tuple[tuple[str, str], ...] = ()) -> None:
        """Enter (or stay in) the fault state; post a fault when its reason changes."""
        self._health = Health.FAULT
        if detail != self._fault_detail:
            self._fault_detail = detail
            log.warning("%s", detail)
            self._emit(DeviceFault(self.name, time.monotonic(), detail, key, params))

    def _recovered(self) -> None:
        if self._fault_detail is not None:
            self._fault_detail = None
            log.info("The card readers '%s' work again.", self.name)
            self._emit(DeviceRecovered(self.name, time.monotonic()))
        self._health = Health.OK


def _transmit(card: Any, protocol: int, apdu: bytes) -> tuple[int, bytes]:
    """Send one APDU; return (SW1SW2, data), following 61xx and 6Cxx.

    :raises _CardGone: if the card left or stopped answering.
    """
    data = b""
    for _ in range(8):
        hr, response = scard.SCardTransmit(card, protocol, list(apdu))
        if hr != scard.SCARD_S_SUCCESS or len(response) < 2:
            raise _CardGone(_message(hr))
        body, sw1, sw2 = bytes(response[:-2]), int(response[-2]), int(response[-1])
        data += body
        if sw1 == 0x61:  # more data: GET RESPONSE
            apdu = bytes([0x00, 0xC0, 0x00, 0x00, sw2])
        elif sw1 == 0x6C:  # wrong Le: repeat with the right one
            apdu = apdu[:4] + bytes([sw2])
        else:
            return (sw1 << 8) | sw2, data
    raise _CardGone("the card kept asking for GET RESPONSE")


def _message(hr: int) -> str:
    """pcsc-lite's text for an error code, with the code."""
    return f"{str(scard.SCardGetErrorMessage(hr)).rstrip('. ')}, 0x{hr & 0xFFFFFFFF:08X}"
