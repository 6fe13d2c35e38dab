"""The floor's central store in PostgreSQL (psycopg 3).

One database holds the whole room: the tables and their last ingested
record, every journal record of every table (``events``, exactly once per
``(table_id, seq)`` by the primary key), every finished hand as the same
record the table's own history keeps (``hands``), alerts, and the
tournaments with their players, registrations and seat assignments.

Exactly once: a record is ingested in one transaction that inserts it (a
duplicate conflicts and changes nothing), the hands and alerts it finished
and the table's new ``last_seq``; JetStream's acknowledgement is sent only
after the commit, so a crash before the commit redelivers the record and a
crash after it meets the unique key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from firmware.floor.outbox import SCHEMA as OUTBOX_SCHEMA

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    last_seq BIGINT NOT NULL DEFAULT 0,
    seen_at TIMESTAMPTZ,
    status JSONB NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables (id),
    seq BIGINT NOT NULL,
    time DOUBLE PRECISION NOT NULL,
    kind TEXT NOT NULL,
    record BYTEA NOT NULL,
    setup BYTEA,
    ingested_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS hands (
    table_id TEXT NOT NULL REFERENCES tables (id),
    seq BIGINT NOT NULL,
    hand INTEGER NOT NULL,
    finished DOUBLE PRECISION NOT NULL,
    record JSONB NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX IF NOT EXISTS hands_by_number ON hands (table_id, hand);
CREATE TABLE IF NOT EXISTS alerts (
    id BIGSERIAL PRIMARY KEY,
    table_id TEXT,
    seq BIGINT,
    at TIMESTAMPTZ NOT NULL DEFAULT now(),
    rule TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL,
    resolved BOOLEAN NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX IF NOT EXISTS alerts_once ON alerts (table_id, seq, rule, text);
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    buy_in BIGINT NOT NULL,
    starting_chips BIGINT NOT NULL,
    state JSONB NOT NULL DEFAULT '{}',
    created TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS registrations (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    player_id TEXT NOT NULL REFERENCES players (id),
    entry INTEGER NOT NULL,
    registered TIMESTAMPTZ NOT NULL DEFAULT now(),
    place INTEGER,
    prize BIGINT,
    PRIMARY KEY (tournament_id, player_id, entry)
);
CREATE TABLE IF NOT EXISTS seat_assignments (
    id BIGSERIAL PRIMARY KEY,
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    player_id TEXT NOT NULL REFERENCES players (id),
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    chips BIGINT NOT NULL,
    reason TEXT NOT NULL,
    at TIMESTAMPTZ NOT NULL DEFAULT now()
);
"""


async def create_schema(conn: AsyncConnection[Any]) -> None:
    """Create every table of the store if missing (idempotent)."""
    async with conn.transaction():
        await conn.execute(SCHEMA)
        await conn.execute(OUTBOX_SCHEMA)


@dataclass
class Rows:
    """Rows of one ingested batch, written together by :func:`store_rows`."""

    events: list[tuple[str, int, float, str, bytes, bytes | None]] = field(default_factory=list)
    hands: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)
    tables: list[tuple[int, Jsonb, str]] = field(default_factory=list)
    """Each touched table's ``(last_seq, status, id)``."""


async def store_rows(conn: AsyncConnection[Any], rows: Rows) -> None:
    """Insert a batch's records, hands and alerts and move its tables' ``last_seq``
    (inside the caller's transaction; ``executemany`` sends each kind of row in one
    pipeline); a record already stored is left as it is."""
    async with conn.cursor() as cur:
        if rows.events:
            await cur.executemany(
                "INSERT INTO events (table_id, seq, time, kind, record, setup) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (table_id, seq) DO NOTHING",
                rows.events,
            )
        if rows.hands:
            await cur.executemany(
                "INSERT INTO hands (table_id, seq, hand, finished, record) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (table_id, seq) DO NOTHING",
                [
                    (t, seq, int(h["hand"]), float(h.get("finished_at", 0.0)), Jsonb(h))
                    for t, seq, h in rows.hands
                ],
            )
        alerts = [
            (table_id, seq, str(incident["rule"]), str(incident["what"]))
            for table_id, seq, hand in rows.hands
            for incident in hand.get("incidents", [])
        ]
        if alerts:
            await cur.executemany(
                "INSERT INTO alerts (table_id, seq, rule, text) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                alerts,
            )
        if rows.tables:
            await cur.executemany(
                "UPDATE tables SET last_seq = %s, seen_at = now(), status = %s WHERE id = %s",
                rows.tables,
            )


async def store_event(
    conn: AsyncConnection[Any],
    table_id: str,
    seq: int,
    time: float,
    kind: str,
    record: bytes,
    setup: bytes | None,
) -> bool:
    """Insert one journal record inside the caller's transaction (the table's row
    exists); False if it was already there (a redelivery)."""
    cur = await conn.execute(
        "INSERT INTO events (table_id, seq, time, kind, record, setup) "
        "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (table_id, seq) DO NOTHING RETURNING seq",
        (table_id, seq, time, kind, record, setup),
    )
    return await cur.fetchone() is not None


async def store_hand(
    conn: AsyncConnection[Any], table_id: str, seq: int, record: dict[str, Any]
) -> None:
    """Insert a finished hand and an alert per incident (inside the caller's transaction)."""
    await conn.execute(
        "INSERT INTO hands (table_id, seq, hand, finished, record) VALUES (%s, %s, %s, %s, %s) "
        "ON CONFLICT (table_id, seq) DO NOTHING",
        (table_id, seq, int(record["hand"]), float(record.get("finished_at", 0.0)), Jsonb(record)),
    )
    for incident in record.get("incidents", []):
        await add_alert(conn, table_id, seq, str(incident["what"]), str(incident["rule"]))


async def add_alert(
    conn: AsyncConnection[Any], table_id: str | None, seq: int | None, text: str, rule: str = ""
) -> None:
    """Record an alert for the floor (once per table, record, rule and text)."""
    await conn.execute(
        "INSERT INTO alerts (table_id, seq, rule, text) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT DO NOTHING",
        (table_id, seq, rule, text),
    )


async def table_events(
    conn: AsyncConnection[Any], table_id: str
) -> tuple[bytes | None, list[tuple[int, bytes]]]:
    """The last set-up of a table and the records from it on (to rebuild its replica)."""
    cur = await conn.execute(
        "SELECT seq, setup FROM events WHERE table_id = %s AND setup IS NOT NULL "
        "ORDER BY seq DESC LIMIT 1",
        (table_id,),
    )
    row = await cur.fetchone()
    if row is None:
        return None, []
    start, setup = row
    cur = await conn.execute(
        "SELECT seq, record FROM events WHERE table_id = %s AND seq >= %s ORDER BY seq",
        (table_id, start),
    )
    return bytes(setup), [(int(s), bytes(r)) for s, r in await cur.fetchall()]
