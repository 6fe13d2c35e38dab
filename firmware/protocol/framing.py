"""Framing of the table protocol: a 4-byte big-endian length, then a msgpack map.

:func:`encode` writes one message; :class:`Decoder` is a pure incremental
decoder: feed it bytes as they arrive and it returns the complete messages.
Anything malformed raises :class:`FrameError` with a sentence saying why, and
the decoder refuses all further input (the connection must be closed):

* a length of 0 or above :data:`MAX_MESSAGE` (64 KiB), refused as soon as the
  4-byte header arrives, before any of the body is buffered;
* a body that is not valid msgpack, holds trailing bytes, is not a map, or
  has no string ``type``;
* at :meth:`Decoder.close`, a message cut short (truncated).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

import msgpack

from firmware.errors import PokerTableError

MAX_MESSAGE = 64 * 1024
"""The largest message body in bytes (64 KiB)."""

HEADER = struct.Struct(">I")
"""The length prefix: 4 bytes, big-endian, unsigned."""


class FrameError(PokerTableError, ValueError):
    """Bytes that are no valid message; ``reason`` is a short machine-readable word."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message, key="protocol.malformed")
        self.reason = reason


def encode(message: Mapping[str, Any]) -> bytes:
    """Return ``message`` framed: its length, then its msgpack body.

    :raises FrameError: if the message has no string ``type`` or its body is
        larger than :data:`MAX_MESSAGE`.
    """
    if not isinstance(message.get("type"), str):
        raise FrameError("A message must have a string 'type'; this one has none.", "no_type")
    body: bytes = msgpack.packb(dict(message), use_bin_type=True)
    if len(body) > MAX_MESSAGE:
        raise FrameError(
            f"The message of type {message['type']!r} is {len(body)} bytes long; the limit is "
            f"{MAX_MESSAGE} bytes.",
            "oversize",
        )
    return HEADER.pack(len(body)) + body


def decode_body(body: bytes) -> dict[str, Any]:
    """Decode one message body (without its length); check it is a map with a string ``type``.

    :raises FrameError: for bytes that are not one msgpack map with a string ``type``.
    """
    try:
        value = msgpack.unpackb(body, raw=False, strict_map_key=True, max_bin_len=MAX_MESSAGE)
    except msgpack.ExtraData:
        raise FrameError(
            "The message body holds bytes after its msgpack value; one message is one map.",
            "garbage",
        ) from None
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as exc:
        raise FrameError(f"The message body is not valid msgpack ({exc}).", "garbage") from None
    if not isinstance(value, dict):
        raise FrameError(
            f"A message must be a msgpack map, not a {type(value).__name__}.", "not_a_map"
        )
    if not isinstance(value.get("type"), str):
        raise FrameError("A message must have a string 'type'; this one has none.", "no_type")
    return value


class Decoder:
    """Incremental decoder: :meth:`feed` bytes, get complete messages back.

    :param max_size: The largest body accepted, in bytes.
    """

    def __init__(self, max_size: int = MAX_MESSAGE) -> None:
        self.max_size = max_size
        self._buffer = bytearray()
        self._need: int | None = None
        self._error: FrameError | None = None

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a complete message."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add ``data`` and return every message it completes, in order.

        :raises FrameError: at the first malformed message; every later call
            raises it again.
        """
        if self._error is not None:
            raise self._error
        self._buffer.extend(data)
        messages: list[dict[str, Any]] = []
        try:
            while True:
                if self._need is None:
                    if len(self._buffer) < HEADER.size:
                        break
                    (length,) = HEADER.unpack_from(self._buffer)
                    del self._buffer[: HEADER.size]
                    if length == 0:
                        raise FrameError(
                            "A message of length 0 was announced; a message is never empty.",
                            "zero_length",
                        )
                    if length > self.max_size:
                        raise FrameError(
                            f"A message of {length} bytes was announced; the limit is "
                            f"{self.max_size} bytes.",
                            "oversize",
                        )
                    self._need = length
                if len(self._buffer) < self._need:
                    break
                body = bytes(self._buffer[: self._need])
                del self._buffer[: self._need]
                self._need = None
                messages.append(decode_body(body))
        except FrameError as exc:
            self._error = exc
            self._buffer.clear()
            raise
        return messages

    def close(self) -> None:
        """The stream ended: refuse a message cut short.

        :raises FrameError: if part of a message is still buffered (truncated).
        """
        if self._error is not None:
            raise self._error
        if self._buffer or self._need is not None:
            missing = (self._need or HEADER.size) - len(self._buffer)
            raise FrameError(
                f"The connection ended in the middle of a message ({missing} byte(s) missing).",
                "truncated",
            )
