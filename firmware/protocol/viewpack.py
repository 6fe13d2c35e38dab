"""Encoding views for the wire without encoding the same hand twice (issue 15).

Most of a seat's view is its recall, the last ten hands (about 8 KB of the
9 KB a view takes in msgpack), and a hand's recall entry never changes once
the hand ended (:func:`firmware.views.recall.recall`: entries are shared and
read only, and so is a viewer's whole list until a hand ends).
:class:`ViewPacker` writes a view's map itself, key by key, and keeps the
msgpack bytes of each recall list and entry it has written, by identity, so
after the first time an entry costs a copy of its bytes. The seat rows of
the ``table`` part are written the same way: within one change every view
holds the same row objects but for the seat's own row (read only as well);
the other lists and maps the views of one change share (the board, the
winners, the clock...) are written once per change, kept by the change's
:class:`~firmware.views.share.ViewShare`. The result is
byte for byte what :func:`firmware.protocol.framing.encode` writes (a test
checks it over whole sessions): msgpack writes a map as its header followed by
each key and value in order, so joining the parts is the same encoding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgpack

from firmware.protocol.framing import HEADER, MAX_MESSAGE, FrameError
from firmware.views.share import ViewShare

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
        self._lists: dict[int, tuple[object, bytes]] = {}
        """Whole recall lists (a viewer's list is the same object until a hand ends)."""
        self._rows: dict[int, tuple[object, bytes]] = {}
        """Seat rows of the table part (new objects at every change: a short life)."""
        self._keys: dict[str, bytes] = {}
        """The bytes of each map key met (views have a few dozen names)."""

    def encode(self, view: Mapping[str, Any], share: ViewShare | None = None) -> bytes:
        """``view`` framed: its length, then its msgpack body.

        :param share: The share the views of this change were made with: the lists
            and maps they hold in common (the same objects, read only while the
            change lasts) are written once per change, not once per view.
        :raises FrameError: if the view has no string ``type`` or its body is
            larger than :data:`~firmware.protocol.framing.MAX_MESSAGE`.
        """
        if not isinstance(view.get("type"), str):
            raise FrameError("A message must have a string 'type'; this one has none.", "no_type")
        packer = self._packer
        parts = [packer.pack_map_header(len(view))]
        common = share.packed if share is not None else None
        for key, value in view.items():
            parts.append(self._key(key))
            if key in SHARED_LISTS and type(value) is list:
                parts.append(self._recall(value))
            elif key == "table" and type(value) is dict:
                self._table(value, parts, common)
            else:
                parts.append(self._value(value, common))
        body = b"".join(parts)
        if len(body) > MAX_MESSAGE:
            raise FrameError(
                f"The message of type {view['type']!r} is {len(body)} bytes long; the limit is "
                f"{MAX_MESSAGE} bytes.",
                "oversize",
            )
        return HEADER.pack(len(body)) + body

    def _key(self, key: Any) -> bytes:
        """A map key's bytes (string keys kept once written)."""
        if type(key) is not str:
            data: bytes = self._packer.pack(key)
            return data
        hit = self._keys.get(key)
        if hit is None:
            if len(self._keys) >= KEEP_ENTRIES:
                self._keys.clear()
            hit = self._keys[key] = self._packer.pack(key)
        return hit

    def _value(self, value: Any, common: dict[int, tuple[object, bytes]] | None) -> bytes:
        """A value's bytes; a list or map held by several views of one change is
        written once for that change (``common``, the share's)."""
        if common is None or (type(value) is not list and type(value) is not dict) or not value:
            data: bytes = self._packer.pack(value)
            return data
        hit = common.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        data = self._packer.pack(value)
        common[id(value)] = (value, data)  # the share keeps the object: its id stays its own
        return data

    def _recall(self, entries: list[Any]) -> bytes:
        """A recall list's bytes: the list, else its entries, written once while kept."""
        hit = self._lists.get(id(entries))
        if hit is not None and hit[0] is entries:
            return hit[1]
        packer = self._packer
        data: bytes = packer.pack_array_header(len(entries)) + b"".join(
            [self._entry(item, self._entries) for item in entries]
        )
        if len(self._lists) >= KEEP_ENTRIES // 8:
            self._lists.clear()
        self._lists[id(entries)] = (entries, data)
        return data

    def _table(
        self,
        part: dict[str, Any],
        parts: list[bytes],
        common: dict[int, tuple[object, bytes]] | None,
    ) -> None:
        """A view's ``table`` part, its seat rows written once per change: the rows
        everyone may see are the same objects in every view of one change
        (:class:`~firmware.views.share.ViewShare`); only a seat's own row differs."""
        packer = self._packer
        parts.append(packer.pack_map_header(len(part)))
        for key, value in part.items():
            parts.append(self._key(key))
            if key == "seats" and type(value) is list:
                parts.append(packer.pack_array_header(len(value)))
                parts.extend([self._entry(row, self._rows) for row in value])
            else:
                parts.append(self._value(value, common))

    def _entry(self, item: object, kept: dict[int, tuple[object, bytes]]) -> bytes:
        """The bytes of one entry or row, written once while it is kept."""
        hit = kept.get(id(item))
        if hit is not None and hit[0] is item:
            return hit[1]
        data: bytes = self._packer.pack(item)
        if len(kept) >= KEEP_ENTRIES:
            kept.clear()
        # The item itself is kept with its bytes: its id cannot be reused meanwhile.
        kept[id(item)] = (item, data)
        return data


__all__ = ["KEEP_ENTRIES", "SHARED_LISTS", "ViewPacker"]
