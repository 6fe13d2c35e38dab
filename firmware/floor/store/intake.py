"""What the floor accepts from a table's subject, and where it parks the rest.

NATS lets each table's key publish only on its own subject
(``floor.events.<table>``, see :mod:`firmware.floor.messaging.natsconf`), so the
subject is the one thing about a message a table cannot forge. The floor
therefore takes a record's table from the subject and reads the body against
a declared shape (:func:`read_message`); a body it cannot read, or one that
disagrees with its subject (another table's name, another table's message
id), is *parked*: kept in ``dead_letters`` with an alert for the floor staff,
and acknowledged, so the next message, of that table or any other, is ingested
as usual and a restarted floor does not meet the same message again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import msgpack
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from firmware.i18n import tr
from firmware.service.floorwire import EVENTS, TABLE_ID

MAX_KIND = 64
PARKED_KEY = "floor.parked"
"""The catalog key of the alert a parked message raises."""


class Refused(Exception):
    """A message the floor does not ingest; the sentence says why."""


@dataclass(frozen=True)
class Incoming:
    """One message as JetStream delivered it."""

    subject: str
    body: bytes
    msg_id: str | None = None
    """Its ``Nats-Msg-Id`` header."""
    stream_seq: int | None = None
    """Its sequence number in the stream (a redelivery is parked once)."""

    @classmethod
    def trusted(cls, body: bytes) -> Incoming:
        """A body fed to the store directly (tests, benches), on the subject of the table it
        names; messages from NATS always keep the subject they came on."""
        try:
            table = str(msgpack.unpackb(body).get("table"))
        except Exception:
            table = ""
        return cls(f"{EVENTS}.{table}", body)


@dataclass(frozen=True)
class Message:
    """A record the floor may ingest, its table taken from the subject."""

    table_id: str
    seq: int
    time: float
    kind: str
    record: dict[str, Any]
    setup: dict[str, Any] | None


def subject_table(subject: str) -> str | None:
    """The table a subject ``floor.events.<table>`` names, or ``None``."""
    prefix = EVENTS + "."
    table = subject[len(prefix) :] if subject.startswith(prefix) else ""
    return table if TABLE_ID.fullmatch(table) else None


def read_message(incoming: Incoming) -> Message:
    """The record in a message, checked against its subject.

    :raises Refused: for a subject that names no table, a body that is not a msgpack
        map of the declared shape, or a body or message id naming another table.
    """
    table = subject_table(incoming.subject)
    if table is None:
        raise Refused(f"the subject {incoming.subject!r} names no table")
    try:
        data = msgpack.unpackb(incoming.body)
    except Exception as exc:
        raise Refused(f"the body is not msgpack ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise Refused("the body is not a map")
    if data.get("table") != table:
        raise Refused(f"the body names table {str(data.get('table'))[:40]!r}, its subject {table}")
    seq, stamp, kind = data.get("seq"), data.get("time"), data.get("kind")
    if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq < 2**62:
        raise Refused("its seq is not a record number")
    if (
        not isinstance(stamp, int | float)
        or isinstance(stamp, bool)
        or not math.isfinite(stamp)
        or stamp < 0
    ):
        raise Refused("its time is not a wall-clock time")
    if not isinstance(kind, str) or not 0 < len(kind) <= MAX_KIND:
        raise Refused("its kind is not a short text")
    record, setup = data.get("record"), data.get("setup")
    if not isinstance(record, dict) or not (setup is None or isinstance(setup, dict)):
        raise Refused("its record or set-up is not a map")
    if incoming.msg_id is not None:
        own = f"{table}:{seq}"
        if incoming.msg_id != own and not incoming.msg_id.startswith(own + ":"):
            raise Refused(f"its message id {incoming.msg_id[:80]!r} is not {own}'s")
    return Message(table, seq, float(stamp), kind, record, setup)


def plain_json(value: Any) -> Any:
    """``value`` as JSON can hold it (bytes as hex, non-finite numbers as null)."""
    if isinstance(value, dict):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


async def park(conn: AsyncConnection[Any], incoming: Incoming, reason: str) -> None:
    """Keep a refused message and raise its alert (inside the caller's transaction; once
    per stream sequence)."""
    table = subject_table(incoming.subject)
    cur = await conn.execute(
        "INSERT INTO dead_letters (stream_seq, subject, table_id, msg_id, reason, body) "
        "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (stream_seq) DO NOTHING RETURNING id",
        (
            incoming.stream_seq,
            incoming.subject[:200],
            table,
            incoming.msg_id[:200] if incoming.msg_id is not None else None,
            reason[:300],
            incoming.body,
        ),
    )
    row = await cur.fetchone()
    if row is None:
        return  # parked already (a redelivery)
    if table is not None:
        await conn.execute(
            "INSERT INTO tables (id) VALUES (%s) ON CONFLICT (id) DO NOTHING", (table,)
        )
    params = {"table": table or "?", "number": int(row[0])}
    await conn.execute(
        "INSERT INTO alerts (table_id, seq, rule, text, key, params) "
        "VALUES (%s, NULL, 'FLOOR-PARK', %s, %s, %s) ON CONFLICT DO NOTHING",
        (table, tr(PARKED_KEY, "en", **params), PARKED_KEY, Jsonb(params)),
    )
