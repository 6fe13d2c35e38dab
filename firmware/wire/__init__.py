"""The serial wire protocol of the card shoe and the chip trays.

Pure code shared by the drivers (``drivers/``) and the emulators
(``hal_sim/``): :mod:`firmware.wire.codec` frames and parses bytes,
:mod:`firmware.wire.link` runs sequence numbers, acknowledgements,
retransmission, heartbeats and the handshake as a state machine driven by
``(bytes in, time now)``. Neither touches a port, a thread or the clock.
The protocol is specified in ``docs/protocols/serial.md``.
"""

from firmware.wire.codec import (
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    Decoder,
    Frame,
    MsgType,
    ProtocolError,
    crc16,
    decode_message,
    encode_frame,
    encode_message,
)
from firmware.wire.link import Link, LinkConfig, LinkEvent, LinkOutput, Role

__all__ = [
    "PROTOCOL_MAJOR",
    "PROTOCOL_MINOR",
    "Decoder",
    "Frame",
    "Link",
    "LinkConfig",
    "LinkEvent",
    "LinkOutput",
    "MsgType",
    "ProtocolError",
    "Role",
    "crc16",
    "decode_message",
    "encode_frame",
    "encode_message",
]
