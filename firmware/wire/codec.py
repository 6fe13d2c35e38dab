"""Frames and messages of the serial protocol: pure encode and decode.

A frame on the wire (offsets in bytes, see ``docs/protocols/serial.md``)::

    0  SYNC0  0xA5
    1  SYNC1  0x5A
    2  LEN    bytes from VER to the end of the payload: 4 + payload length (4..244)
    3  VER    protocol major version of the sender
    4  SEQ    sequence number (sequenced types) or the sender's next one
    5  ACK    the next sequence number the sender expects to receive
    6  TYPE   message type (:class:`MsgType`)
    7  ...    payload (0..240 bytes)
    7+n CRC   CRC-16/CCITT-FALSE of bytes 2..6+n, big-endian

Framing is by length, so sync bytes inside a payload need no escaping: a
false sync is rejected by its length or CRC and the decoder rescans from the
next byte (resynchronisation).

>>> hex(crc16(b"123456789"))
'0x29b1'
>>> frame = encode_frame(Frame(MsgType.HEARTBEAT, seq=3, ack=7))
>>> frame.hex(" ")
'a5 5a 04 01 03 07 04 6e fd'
>>> Decoder().feed(b"junk" + frame)
[Frame(type=4, seq=3, ack=7, payload=b'', version=1)]
"""

from __future__ import annotations

import binascii
import enum
import struct
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

SYNC = b"\xa5\x5a"
PROTOCOL_MAJOR = 1
"""Frames and payloads change incompatibly only with a new major version."""
PROTOCOL_MINOR = 0
"""New message types or trailing payload fields; old peers ignore them."""
HEADER_LEN = 7
CRC_LEN = 2
MIN_LEN = 4
MAX_PAYLOAD = 240
MAX_LEN = MIN_LEN + MAX_PAYLOAD
MAX_FRAME = HEADER_LEN + MAX_PAYLOAD + CRC_LEN


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xorout)."""
    return binascii.crc_hqx(data, 0xFFFF)


class MsgType(enum.IntEnum):
    """Message types. Below 0x10 they are link control and unsequenced."""

    HELLO = 0x01
    """Host → device: start or resume a session (unsequenced, repeated until answered)."""
    IDENTITY = 0x02
    """Device → host: the answer to HELLO (unsequenced)."""
    ACK = 0x03
    """Either way: acknowledges through the header's ACK field; no payload."""
    HEARTBEAT = 0x04
    """Either way: sent after 250 ms without any other frame; no payload."""
    CARD_DRAWN = 0x10
    """Shoe → host: a card left the shoe (read number u32, tag)."""
    SHOE_STATE = 0x11
    """Shoe → host: the shoe's state changed (state code u8)."""
    SCAN_REQUEST = 0x12
    """Host → shoe: scan the deck (scan id u16)."""
    SCAN_RESULT = 0x13
    """Shoe → host: tags of a scan, in chunks (scan id u16, more u8, tags)."""
    ZONE_STATE = 0x20
    """Trays → host: every tag in one zone, in chunks (zone, more u8, tags)."""
    ANTENNA_FAULT = 0x21
    """Trays → host: a zone's antenna failed (zone, code u8, detail)."""
    DEVICE_ERROR = 0x30
    """Device → host: a fault of the device itself (code u8, detail)."""


def is_sequenced(msg_type: int) -> bool:
    """Whether frames of this type take a sequence number and need an ACK."""
    return msg_type >= 0x10


class ShoeStateCode(enum.IntEnum):
    """SHOE_STATE codes; the names are those of :class:`firmware.hal.ShoeState`."""

    READY = 0
    DECK_IN = 1
    EMPTY = 2
    JAM = 3
    COVER_OPEN = 4


class ErrorCode(enum.IntEnum):
    """Fault codes of ANTENNA_FAULT and DEVICE_ERROR."""

    NONE = 0
    """No fault: a DEVICE_ERROR with this code clears the device's previous fault."""
    JAM = 1
    COVER_OPEN = 2
    ANTENNA_OPEN = 3
    """An antenna's circuit is open (cable cut or unplugged)."""
    ANTENNA_SHORT = 4
    ANTENNA_NOISE = 5
    """Too many unreadable responses: interference or a damaged tag."""
    READER_FAULT = 6
    OVERHEAT = 7
    UNSUPPORTED = 8
    """The device received a message type it does not implement."""


@dataclass(frozen=True)
class Frame:
    """One frame: its type, link fields and raw payload."""

    type: int
    seq: int = 0
    ack: int = 0
    payload: bytes = b""
    version: int = PROTOCOL_MAJOR


class ProtocolError(ValueError):
    """A well-framed frame whose content cannot be used."""


class UnknownType(ProtocolError):
    """The frame's type is not one this version knows."""


class VersionMismatch(ProtocolError):
    """The frame was sent with another major version of the protocol."""


class BadPayload(ProtocolError):
    """The payload is too short, too long or not valid for its type."""


def encode_frame(frame: Frame) -> bytes:
    """The bytes of ``frame`` on the wire.

    :raises ValueError: if the payload is longer than 240 bytes or a field is
        out of range.
    """
    if len(frame.payload) > MAX_PAYLOAD:
        raise ValueError(
            f"A frame carries at most {MAX_PAYLOAD} payload bytes, not {len(frame.payload)}; "
            "split the message."
        )
    body = (
        bytes((MIN_LEN + len(frame.payload), frame.version, frame.seq, frame.ack, frame.type))
        + frame.payload
    )
    return SYNC + body + struct.pack(">H", crc16(body))


NEED_MORE = 0


def check_frame(buf: bytes | bytearray) -> int:
    """Look at the start of ``buf`` (as Klipper's ``check_packet``).

    :return: 0 if more bytes are needed, ``-n`` to skip ``n`` bytes of
        garbage or of a false frame (resync), or the length of the valid
        frame at the start of ``buf``.
    """
    if len(buf) < 1:
        return NEED_MORE
    if buf[0] != SYNC[0]:
        i = buf.find(SYNC[0])
        return -(len(buf) if i < 0 else i)
    if len(buf) < 2:
        return NEED_MORE
    if buf[1] != SYNC[1]:
        return -1
    if len(buf) < 3:
        return NEED_MORE
    length = buf[2]
    if length < MIN_LEN or length > MAX_LEN:
        return -1
    total = 3 + length + CRC_LEN
    if len(buf) < total:
        return NEED_MORE
    (crc,) = struct.unpack_from(">H", buf, 3 + length)
    if crc != crc16(bytes(buf[2 : 3 + length])):
        return -1
    return total


class Decoder:
    """Turns byte chunks of any size into frames, resynchronising after garbage.

    Counters: ``frames`` decoded, ``crc_errors``, ``length_errors`` (a
    length field out of range), ``truncated`` (an incomplete frame followed
    by a complete one), ``resyncs`` (times bytes were skipped) and
    ``garbage_bytes`` (bytes skipped).
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self.frames = 0
        self.crc_errors = 0
        self.length_errors = 0
        self.truncated = 0
        self.resyncs = 0
        self.garbage_bytes = 0

    def feed(self, data: bytes) -> list[Frame]:
        """Add ``data`` and return every frame it completes, in order."""
        self._buf += data
        out: list[Frame] = []
        buf = self._buf
        while buf:
            n = check_frame(buf)
            if n == NEED_MORE:
                skip = self._complete_frame_after_partial(buf)
                if not skip:
                    break
                self.truncated += 1
                self.resyncs += 1
                self.garbage_bytes += skip
                del buf[:skip]
                continue
            if n < 0:
                self._count_skip(buf, -n)
                del buf[:-n]
                continue
            length = buf[2]
            out.append(Frame(buf[6], buf[4], buf[5], bytes(buf[7 : 3 + length]), buf[3]))
            self.frames += 1
            del buf[:n]
        return out

    @staticmethod
    def _complete_frame_after_partial(buf: bytearray) -> int:
        """Where a complete valid frame starts after an incomplete one, or 0.

        A false sync (or a frame cut short) with a plausible length would
        otherwise hold the decoder until that many more bytes arrived.
        """
        j = buf.find(SYNC, 1)
        while j > 0:
            if check_frame(buf[j:]) > 0:
                return j
            j = buf.find(SYNC, j + 1)
        return 0

    def _count_skip(self, buf: bytearray, n: int) -> None:
        if buf[0] == SYNC[0] and len(buf) >= 3 and buf[1] == SYNC[1]:
            if MIN_LEN <= buf[2] <= MAX_LEN:
                self.crc_errors += 1
            else:
                self.length_errors += 1
        self.resyncs += 1
        self.garbage_bytes += n

    @property
    def pending(self) -> int:
        """Bytes held waiting for the rest of a frame."""
        return len(self._buf)

    def reset(self) -> None:
        """Drop any partial frame (after the port was reopened)."""
        self._buf.clear()


# -- payloads ---------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    """HELLO: the host's protocol version, session id and first unacked sequence number."""

    major: int
    minor: int
    session: int
    base_seq: int


@dataclass(frozen=True)
class Identity:
    """IDENTITY: what the device is. Its layout is the same in every major version."""

    major: int
    minor: int
    session: int
    base_seq: int
    model: str
    serial: str
    firmware: str
    zones: tuple[str, ...] = ()


@dataclass(frozen=True)
class CardDrawn:
    """CARD_DRAWN: ``read_no`` counts reads since the device started (u32)."""

    read_no: int
    tag: str


@dataclass(frozen=True)
class ShoeStateReport:
    """SHOE_STATE."""

    state: ShoeStateCode


@dataclass(frozen=True)
class ScanRequest:
    """SCAN_REQUEST."""

    scan_id: int


@dataclass(frozen=True)
class ScanResult:
    """One chunk of SCAN_RESULT; ``more`` says another chunk follows."""

    scan_id: int
    tags: tuple[str, ...]
    more: bool = False


@dataclass(frozen=True)
class ZoneState:
    """One chunk of ZONE_STATE; ``more`` says another chunk follows."""

    zone: str
    tags: tuple[str, ...]
    more: bool = False


@dataclass(frozen=True)
class AntennaFaultReport:
    """ANTENNA_FAULT."""

    zone: str
    code: ErrorCode
    detail: str


@dataclass(frozen=True)
class DeviceError:
    """DEVICE_ERROR."""

    code: ErrorCode
    detail: str


Message = (
    Hello
    | Identity
    | CardDrawn
    | ShoeStateReport
    | ScanRequest
    | ScanResult
    | ZoneState
    | AntennaFaultReport
    | DeviceError
)


def _str(s: str) -> bytes:
    raw = s.encode()
    if len(raw) > 255:
        raise ValueError(f"The text {s[:20]!r}... is longer than 255 bytes.")
    return bytes((len(raw),)) + raw


def _tag(tag: str) -> bytes:
    try:
        raw = bytes.fromhex(tag)
    except ValueError:
        raise ValueError(f"The tag {tag!r} is not hexadecimal.") from None
    if not 1 <= len(raw) <= 16:
        raise ValueError(f"The tag {tag!r} must be 1 to 16 bytes long.")
    return bytes((len(raw),)) + raw


def _tags(tags: Iterable[str]) -> bytes:
    items = [_tag(t) for t in tags]
    return bytes((len(items),)) + b"".join(items)


def encode_message(msg: Message) -> tuple[MsgType, bytes]:
    """The type and payload of ``msg``.

    :raises ValueError: for an invalid tag or a payload over 240 bytes
        (use :func:`chunk_tags` for long tag lists).
    """
    t: MsgType
    if isinstance(msg, Hello):
        t, p = MsgType.HELLO, struct.pack(">BBIB", msg.major, msg.minor, msg.session, msg.base_seq)
    elif isinstance(msg, Identity):
        t = MsgType.IDENTITY
        p = struct.pack(">BBIB", msg.major, msg.minor, msg.session, msg.base_seq)
        p += _str(msg.model) + _str(msg.serial) + _str(msg.firmware)
        p += bytes((len(msg.zones),)) + b"".join(_str(z) for z in msg.zones)
    elif isinstance(msg, CardDrawn):
        t, p = MsgType.CARD_DRAWN, struct.pack(">I", msg.read_no) + _tag(msg.tag)
    elif isinstance(msg, ShoeStateReport):
        t, p = MsgType.SHOE_STATE, bytes((msg.state,))
    elif isinstance(msg, ScanRequest):
        t, p = MsgType.SCAN_REQUEST, struct.pack(">H", msg.scan_id)
    elif isinstance(msg, ScanResult):
        t = MsgType.SCAN_RESULT
        p = struct.pack(">HB", msg.scan_id, msg.more) + _tags(msg.tags)
    elif isinstance(msg, ZoneState):
        t, p = MsgType.ZONE_STATE, _str(msg.zone) + bytes((msg.more,)) + _tags(msg.tags)
    elif isinstance(msg, AntennaFaultReport):
        t = MsgType.ANTENNA_FAULT
        p = _str(msg.zone) + bytes((msg.code,)) + _str(msg.detail)
    else:
        t, p = MsgType.DEVICE_ERROR, bytes((msg.code,)) + _str(msg.detail)
    if len(p) > MAX_PAYLOAD:
        raise ValueError(f"The {t.name} payload is {len(p)} bytes; at most {MAX_PAYLOAD} fit.")
    return t, p


def chunk_tags(tags: Sequence[str], overhead: int) -> Iterator[tuple[tuple[str, ...], bool]]:
    """Split ``tags`` into chunks that fit a payload with ``overhead`` other bytes.

    :return: ``(tags, more)`` pairs; an empty list gives one empty chunk.
    """
    room = MAX_PAYLOAD - overhead - 1
    chunk: list[str] = []
    size = 0
    rest = list(tags)
    for i, tag in enumerate(rest):
        n = len(tag) // 2 + 1
        if chunk and (size + n > room or len(chunk) == 255):
            yield tuple(chunk), True
            chunk, size = [], 0
        chunk.append(tag)
        size += n
        if i == len(rest) - 1:
            yield tuple(chunk), False
    if not rest:
        yield (), False


class _Reader:
    def __init__(self, data: bytes, what: str) -> None:
        self.data, self.pos, self.what = data, 0, what

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise BadPayload(f"The {self.what} payload ended early (byte {self.pos}).")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u8(self) -> int:
        return self.take(1)[0]

    def unpack(self, fmt: str) -> tuple[int, ...]:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))

    def text(self) -> str:
        raw = self.take(self.u8())
        try:
            return raw.decode()
        except UnicodeDecodeError:
            raise BadPayload(f"The {self.what} payload holds text that is not UTF-8.") from None

    def tag(self) -> str:
        n = self.u8()
        if n == 0:
            raise BadPayload(f"The {self.what} payload holds an empty tag.")
        return self.take(n).hex().upper()

    def tags(self) -> tuple[str, ...]:
        return tuple(self.tag() for _ in range(self.u8()))

    def code(self, cls: type[enum.IntEnum]) -> int:
        value = self.u8()
        try:
            return int(cls(value))
        except ValueError:
            raise BadPayload(f"The {self.what} payload has an unknown code {value}.") from None


def decode_message(frame: Frame) -> Message:
    """Parse a frame's payload. Trailing bytes are ignored (minor-version fields).

    :raises UnknownType: for a type this version does not know.
    :raises VersionMismatch: for a frame of another major version, except
        HELLO and IDENTITY, whose layout never changes, so peers can tell
        each other their version.
    :raises BadPayload: for a payload that is too short or holds invalid values.
    """
    try:
        t = MsgType(frame.type)
    except ValueError:
        raise UnknownType(f"Unknown message type 0x{frame.type:02X}.") from None
    if frame.version != PROTOCOL_MAJOR and t not in (MsgType.HELLO, MsgType.IDENTITY):
        raise VersionMismatch(
            f"A {t.name} frame of protocol version {frame.version} was received; this host "
            f"speaks version {PROTOCOL_MAJOR}."
        )
    r = _Reader(frame.payload, t.name)
    if t is MsgType.HELLO:
        return Hello(*r.unpack(">BBIB"))
    if t is MsgType.IDENTITY:
        major, minor, session, base = r.unpack(">BBIB")
        model, serial, firmware = r.text(), r.text(), r.text()
        zones = tuple(r.text() for _ in range(r.u8())) if r.pos < len(r.data) else ()
        return Identity(major, minor, session, base, model, serial, firmware, zones)
    if t is MsgType.CARD_DRAWN:
        (read_no,) = r.unpack(">I")
        return CardDrawn(read_no, r.tag())
    if t is MsgType.SHOE_STATE:
        return ShoeStateReport(ShoeStateCode(r.code(ShoeStateCode)))
    if t is MsgType.SCAN_REQUEST:
        return ScanRequest(*r.unpack(">H"))
    if t is MsgType.SCAN_RESULT:
        scan_id, more = r.unpack(">HB")
        return ScanResult(scan_id, r.tags(), bool(more))
    if t is MsgType.ZONE_STATE:
        zone = r.text()
        more = r.u8()
        return ZoneState(zone, r.tags(), bool(more))
    if t is MsgType.ANTENNA_FAULT:
        zone = r.text()
        return AntennaFaultReport(zone, ErrorCode(r.code(ErrorCode)), r.text())
    if t is MsgType.DEVICE_ERROR:
        return DeviceError(ErrorCode(r.code(ErrorCode)), r.text())
    raise BadPayload(f"A {t.name} frame carries no message payload.")
