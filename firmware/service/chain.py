"""The journal's hash chain: how one record is linked to the one before it.

Each record's hash covers the previous hash, the record's ``time`` and ``kind``
columns and the record (the second form, issue 27). Records written before
that were hashed over the record only (the first form); they still verify, but
only before the first record in the second form, and their ``kind`` column
must be the kind inside the record.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack


def digest_v1(prev: bytes, record: bytes) -> bytes:
    """A record's hash in the first form of the chain (record only; journals written
    before issue 27): still accepted for those records, never written any more."""
    return hashlib.sha256(prev + record).digest()


CHAIN_V2 = b"pokertable-chain-2"
"""The prefix of the chain's second form: the record's ``time`` and ``kind`` columns
are hashed with it (issue 27: editing ``time`` reordered busts, and ``kind`` -> ``meta``
made the floor skip a record, with ``audit verify`` passing)."""


def digest_v2(prev: bytes, stamp: float, kind: str, record: bytes) -> bytes:
    """A record's hash with its time and kind in it (every record written now)."""
    columns = msgpack.packb([float(stamp), kind], use_single_float=False)
    return hashlib.sha256(CHAIN_V2 + prev + columns + record).digest()


def link_problem(prev: bytes, row: tuple[Any, ...], upgraded: bool) -> tuple[str, bool]:
    """What is wrong with one chain link ``(id, time, kind, record, prev, hash)`` after
    the hash ``prev`` (``""``: nothing), and whether it is in the second form.

    A record in the first form is accepted only before the first record in the second
    (an existing journal's old records); its ``kind`` must then be the one inside the
    record, the only part of the columns the record itself can vouch for.
    """
    _number, stamp, kind, record, stored_prev, digest = row
    if not (
        isinstance(record, bytes)
        and isinstance(stored_prev, bytes)
        and isinstance(digest, bytes)
        and isinstance(kind, str)
        and isinstance(stamp, int | float)
        and not isinstance(stamp, bool)
    ):
        return "the record was altered (a column holds a value of the wrong type)", upgraded
    if stored_prev != prev:
        return "the record was altered", upgraded
    if digest == digest_v2(prev, stamp, kind, record):
        return "", True
    if upgraded or digest_v1(prev, record) != digest:
        return "the record was altered", upgraded
    try:
        inner = msgpack.unpackb(record)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        return "the record was altered (it cannot be read)", upgraded
    if not isinstance(inner, dict) or inner.get("kind") != kind:
        return "the record's kind column differs from the record", upgraded
    return "", False


__all__ = ["CHAIN_V2", "digest_v1", "digest_v2", "link_problem"]
