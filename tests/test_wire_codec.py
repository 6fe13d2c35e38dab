"""The serial frame codec: every malformed-frame case resyncs and is counted."""

from __future__ import annotations

import doctest

import pytest

from firmware.wire import codec
from firmware.wire.codec import (
    MAX_PAYLOAD,
    AntennaFaultReport,
    BadPayload,
    CardDrawn,
    Decoder,
    DeviceError,
    ErrorCode,
    Frame,
    Hello,
    Identity,
    MsgType,
    ScanRequest,
    ScanResult,
    ShoeStateCode,
    ShoeStateReport,
    UnknownType,
    VersionMismatch,
    ZoneState,
    check_frame,
    chunk_tags,
    crc16,
    decode_message,
    encode_frame,
    encode_message,
)


def card(read_no: int, tag: str = "04A1B2C3D4E5F6", seq: int = 0) -> bytes:
    t, p = encode_message(CardDrawn(read_no, tag))
    return encode_frame(Frame(t, seq=seq, ack=0, payload=p))


def test_doctests() -> None:
    assert doctest.testmod(codec).failed == 0


def test_crc_test_vector() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_frame_layout_offsets() -> None:
    data = encode_frame(Frame(MsgType.CARD_DRAWN, seq=5, ack=9, payload=b"\x01\x02\x03"))
    assert data[:2] == b"\xa5\x5a"
    assert data[2] == 4 + 3  # LEN covers VER, SEQ, ACK, TYPE and the payload
    assert (data[3], data[4], data[5], data[6]) == (1, 5, 9, 0x10)
    assert data[7:10] == b"\x01\x02\x03"
    assert int.from_bytes(data[10:12], "big") == crc16(data[2:10])
    assert len(data) == 12


def test_round_trip_every_message() -> None:
    msgs: list[codec.Message] = [
        Hello(1, 0, 0xDEADBEEF, 17),
        Identity(1, 0, 7, 3, "RS-52", "SN0042", "2.1.0", ("seat1.bet", "pot")),
        CardDrawn(123456, "04A1B2C3D4E5F6"),
        ShoeStateReport(ShoeStateCode.JAM),
        ScanRequest(9),
        ScanResult(9, ("0A", "0B0C"), more=True),
        ZoneState("seat3.stack", ("E0040150", "E0040151")),
        AntennaFaultReport("pot", ErrorCode.ANTENNA_OPEN, "antenna 4 open"),
        DeviceError(ErrorCode.OVERHEAT, "reader at 85 C"),
    ]
    frames = b"".join(
        encode_frame(Frame(t, seq=i, payload=p))
        for i, (t, p) in enumerate(encode_message(m) for m in msgs)
    )
    decoded = [decode_message(f) for f in Decoder().feed(frames)]
    assert decoded == msgs


def test_split_across_reads_at_every_offset() -> None:
    stream = card(1) + card(2, "0A") + card(3)
    for cut in range(len(stream) + 1):
        d = Decoder()
        frames = d.feed(stream[:cut]) + d.feed(stream[cut:])
        assert [decode_message(f) for f in frames] == [
            CardDrawn(1, "04A1B2C3D4E5F6"),
            CardDrawn(2, "0A"),
            CardDrawn(3, "04A1B2C3D4E5F6"),
        ], cut
        assert (d.crc_errors, d.resyncs, d.pending) == (0, 0, 0)


def test_one_byte_at_a_time_through_garbage_and_bad_frames() -> None:
    bad_crc = bytearray(card(1))
    bad_crc[-1] ^= 0xFF
    stream = b"\x00\xa5\xa5\x5a\xff" + bytes(bad_crc) + card(2) + b"junk" + card(3, "0B")
    d = Decoder()
    frames = [f for b in stream for f in d.feed(bytes([b]))]
    assert [decode_message(f) for f in frames] == [
        CardDrawn(2, "04A1B2C3D4E5F6"),
        CardDrawn(3, "0B"),
    ]
    assert d.crc_errors == 1
    assert d.length_errors == 1  # the A5 5A FF: LEN 255 is oversize
    assert d.garbage_bytes > 0 and d.resyncs > 0


def test_truncated_frame_then_a_good_one() -> None:
    d = Decoder()
    assert d.feed(card(1)[:-3]) == []
    assert d.pending > 0
    # The truncated frame swallows the start of the next one: its CRC fails,
    # the decoder rescans from the next byte and finds the good frame.
    frames = d.feed(card(2))
    assert [decode_message(f) for f in frames] == [CardDrawn(2, "04A1B2C3D4E5F6")]
    assert d.crc_errors == 1


def test_bad_crc_is_dropped_and_counted() -> None:
    data = bytearray(card(1))
    data[8] ^= 0x01  # a payload bit flips on the wire
    d = Decoder()
    assert d.feed(bytes(data)) == []
    assert d.crc_errors == 1
    assert d.pending < len(data)  # not stuck on the bad frame


def test_oversize_length() -> None:
    d = Decoder()
    assert d.feed(b"\xa5\x5a\xf5" + b"\x00" * 300 + card(4)) != []
    assert d.length_errors == 1
    assert check_frame(b"\xa5\x5a\xf5") < 0


@pytest.mark.parametrize("length", [0, 1, 2, 3])
def test_zero_or_too_small_length(length: int) -> None:
    d = Decoder()
    frames = d.feed(bytes([0xA5, 0x5A, length, 1, 0, 0]) + card(5))
    assert [decode_message(f) for f in frames] == [CardDrawn(5, "04A1B2C3D4E5F6")]
    assert d.length_errors == 1


def test_garbage_before_and_between_frames() -> None:
    d = Decoder()
    frames = d.feed(b"\xff\x00\x5a\x13" + card(1) + b"\xa5\x00noise\xa5" + card(2))
    assert [decode_message(f).read_no for f in frames] == [1, 2]  # type: ignore[union-attr]
    assert d.garbage_bytes == 4 + 8
    assert d.crc_errors == 0


def test_sync_bytes_inside_payload_need_no_escaping() -> None:
    tag = "A55AA55A0305A55A"
    data = card(7, tag)
    assert data.count(b"\xa5\x5a") == 4
    d = Decoder()
    frames = [f for b in data + data for f in d.feed(bytes([b]))]
    assert [decode_message(f) for f in frames] == [CardDrawn(7, tag)] * 2
    assert d.resyncs == 0


def test_false_sync_inside_a_corrupted_frame_resyncs_to_the_next_real_frame() -> None:
    inner = card(8)
    corrupted = bytearray(card(7, "A55A" + inner.hex()[:16]))
    corrupted[-1] ^= 0xFF
    d = Decoder()
    frames = d.feed(bytes(corrupted) + inner)
    assert [decode_message(f) for f in frames] == [CardDrawn(8, "04A1B2C3D4E5F6")]


def test_unknown_message_type() -> None:
    frames = Decoder().feed(encode_frame(Frame(0x7E, payload=b"future")))
    assert len(frames) == 1  # framing is fine; the type is not known
    with pytest.raises(UnknownType, match="Unknown message type 0x7E"):
        decode_message(frames[0])


def test_wrong_protocol_version() -> None:
    t, p = encode_message(CardDrawn(1, "0A"))
    (frame,) = Decoder().feed(encode_frame(Frame(t, payload=p, version=2)))
    assert frame.version == 2
    with pytest.raises(VersionMismatch, match="version 2"):
        decode_message(frame)
    # IDENTITY keeps its layout in every version, so the host can say why.
    t, p = encode_message(Identity(2, 0, 1, 0, "RS-99", "SN1", "9.0"))
    (frame,) = Decoder().feed(encode_frame(Frame(t, payload=p, version=2)))
    assert decode_message(frame) == Identity(2, 0, 1, 0, "RS-99", "SN1", "9.0")


@pytest.mark.parametrize(
    "msg_type, payload, why",
    [
        (MsgType.CARD_DRAWN, b"\x00\x00", "CARD_DRAWN payload ended early"),
        (MsgType.CARD_DRAWN, b"\x00\x00\x00\x01\x00", "CARD_DRAWN payload holds an empty tag"),
        (MsgType.SHOE_STATE, b"\x63", "SHOE_STATE payload has an unknown code 99"),
        (MsgType.ZONE_STATE, b"\x02\xff\xfe\x00\x00", "ZONE_STATE payload holds text that is not"),
        (
            MsgType.SCAN_RESULT,
            b"\x00\x01\x00\x03\x01\x0a",
            r"SCAN_RESULT payload ended early \(byte 6\)",
        ),
    ],
)
def test_bad_payloads(msg_type: int, payload: bytes, why: str) -> None:
    with pytest.raises(BadPayload, match=why):
        decode_message(Frame(msg_type, payload=payload))


def test_trailing_payload_bytes_of_a_newer_minor_are_ignored() -> None:
    t, p = encode_message(CardDrawn(3, "0A"))
    assert decode_message(Frame(t, payload=p + b"\x01\x02")) == CardDrawn(3, "0A")


def test_encoder_refuses_what_does_not_fit() -> None:
    with pytest.raises(ValueError, match="at most 240"):
        encode_frame(Frame(MsgType.CARD_DRAWN, payload=bytes(MAX_PAYLOAD + 1)))
    with pytest.raises(ValueError, match="not hexadecimal"):
        encode_message(CardDrawn(1, "XYZ"))
    with pytest.raises(ValueError, match="at most 240"):
        encode_message(ScanResult(1, tuple(f"{i:014X}" for i in range(52))))


def test_chunk_tags_fit_and_keep_order() -> None:
    tags = [f"04{i:012X}" for i in range(52)]
    chunks = list(chunk_tags(tags, overhead=3))
    assert len(chunks) > 1
    assert [more for _, more in chunks] == [True] * (len(chunks) - 1) + [False]
    assert [t for c, _ in chunks for t in c] == tags
    for c, more in chunks:
        encode_message(ScanResult(1, c, more))  # fits
    assert list(chunk_tags([], overhead=3)) == [((), False)]


def test_false_sync_with_a_plausible_length_does_not_hold_the_next_frame() -> None:
    d = Decoder()
    frames = d.feed(b"\xa5\x5a\xa0\x01\x00" + card(9))  # LEN 160: would wait for 165 bytes
    assert [decode_message(f) for f in frames] == [CardDrawn(9, "04A1B2C3D4E5F6")]
    assert d.truncated == 1 and d.pending == 0
