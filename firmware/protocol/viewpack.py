"""Encoding views for the wire without encoding the same hand twice (issue 15).

Most of a seat's view is its recall, the last ten hands (about 8 KB of the
9 KB a view takes in msgpack), and a hand's recall entry never changes once
the hand ended (:func:`firmware.views.recall.recall`: entries are shared and
read only). :class:`ViewPacker` writes a view's map itself, key by key, and
keeps the msgpack bytes of each recall entry it has written, by identity, so
after the first time an entry costs a copy of its bytes. The result is
byte for byte what :func:`firmware.protocol.framing.encode` writes (a test
checks it over whole sessions): msgpack writes a map as its header followed by
each key and value in order, so joining the parts is the same encoding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgpack

from firmware.protocol.framing import HEADER, MAX_MESSAGE, FrameError

SHARED_LISTS = ("recall",)
"""Top-level keys whose value is a list of entries that never change once made."""

KEEP_ENTRIES = 1024
"""Encoded entries kept (ten screens x ten hands is about a hundred at a time)."""


class ViewPacker:
    """Encodes views as :func:`~firmware.protocol.framing.encode` does, reusing the
    bytes of recall entries already written. One thread only (the controller's loop)."""

    def __init__(self) -> None:
        self._packer = msgpack.Packer(use_bin_type=True)
        self._entries: dict[int, tuple[object, bytes]] = {}

    def encode(self, view: Mapping[str, Any]) -> bytes:
        """``view`` framed: its length, then its msgpack body.

        :raises FrameError: if the view has no string ``type`` or its body is
            larger than :data:`~firmware.protocol.framing.MAX_MESSAGE`.
        """
        if not isinstance(view.get("type"), str):
            raise FrameError("A message must have a string 'type'; this one has none.", "no_type")
        packer = self._packer
        pack = packer.pack
        parts = [packer.pack_map_header(len(view))]
        for key, value in view.items():
            parts.append(pack(key))
            if key in SHARED_LISTS and type(value) is list:
                parts.append(packer.pack_array_header(len(value)))
                parts.extend(self._entry(item) for item in value)
            else:
                parts.append(pack(value))
        body = b"".join(parts)
        if len(body) > MAX_MESSAGE:
            raise FrameError(
                f"The message of type {view['type']!r} is {len(body)} bytes long; the limit is "
                f"{MAX_MESSAGE} bytes.",
                "oversize",
            )
        return HEADER.pack(len(body)) + body

    def _entry(self, item: object) -> bytes:
        """The bytes of one entry, written once while the entry lives."""
        hit = self._entries.get(id(item))
        if hit is not None and hit[0] is item:
            return hit[1]
        data: bytes = self._packer.pack(item)
        if len(self._entries) >= KEEP_ENTRIES:
            self._entries.clear()
        # The entry itself is kept with its bytes: its id cannot be reused meanwhile.
        self._entries[id(item)] = (item, data)
        return data


__all__ = ["KEEP_ENTRIES", "SHARED_LISTS", "ViewPacker"]
