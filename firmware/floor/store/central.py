"""The floor's central store in PostgreSQL (psycopg 3).

One database holds the whole room: the tables and their last ingested
record, every journal record of every table (``events``, exactly once per
``(table_id, seq)`` by the primary key), every finished hand as the same
record the table's own history keeps (``hands``), alerts, and the
tournaments with their players, registrations and seat assignments.

The schema is versioned: plain SQL files in ``migrations/`` applied in order
by yoyo-migrations (:func:`migrate`), so a store made by an older floor is
upgraded with its data in it. The constraints state the invariants (one
record per table and number, one hand per table, set-up and hand number,
foreign keys to ``tables``, CHECKs on amounts and seats); wall-clock times
are ``timestamptz``; every record is kept both as the table's msgpack (the
exact copy replicas are rebuilt from) and as ``jsonb`` for SQL.

Exactly once: a record is ingested in one transaction that inserts it (a
duplicate conflicts and changes nothing), the hands and alerts it finished
and the table's new ``last_seq``; JetStream's acknowledgement is sent only
after the commit, so a crash before the commit redelivers the record and a
crash after it meets the unique key.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import msgpack
import psycopg
from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.json import Jsonb

from firmware.errors import ConfigError
from firmware.floor.store.books import SEAT_MONEY_INSERT
from firmware.floor.store.intake import plain_json

MIGRATIONS = Path(__file__).with_name("migrations")
"""The schema's versions, as plain SQL files applied in order by yoyo-migrations."""
FILL_BATCH = 2000


def backend_uri(conninfo: str) -> str:
    """A yoyo database URI for a psycopg connection string (every parameter kept, a
    Unix-socket ``host`` included)."""
    params = {k: str(v) for k, v in conninfo_to_dict(conninfo).items() if v is not None}
    return "postgresql+psycopg:///?" + urlencode(params)


def migrate(conninfo: str) -> list[str]:
    """Bring the store's schema to the newest version; the migrations it applied.

    yoyo keeps the applied versions in ``_yoyo_migration`` and holds a lock while it
    works, so two floors starting together migrate once. A store made before
    versioned migrations is upgraded like any other (the first version only creates
    what is missing). Afterwards the events of an older store get their ``jsonb``
    copy, a batch at a time (resumed at the next start if interrupted).
    """
    from yoyo import get_backend, read_migrations

    with psycopg.connect(conninfo, autocommit=True, connect_timeout=10) as conn:
        row = conn.execute("SELECT current_schema()").fetchone()
    if row is None or row[0] is None:
        raise ConfigError(
            "The database connection's search_path names no schema that exists; create the "
            "room's schema first (CREATE SCHEMA <room>;) or fix options=-csearch_path=<room>."
        )
    backend = get_backend(backend_uri(conninfo))
    try:
        migrations = read_migrations(str(MIGRATIONS))
        with backend.lock():
            pending = backend.to_apply(migrations)
            try:
                backend.apply_migrations(pending)
            except psycopg.Error as exc:
                detail = str(exc).strip().replace("\n", " ")[:400]
                raise ConfigError(
                    f"The store's upgrade stopped ({detail}); the version that failed was "
                    "rolled back whole. Fix the rows it names and start the floor again."
                ) from exc
    finally:
        backend.connection.close()
    with psycopg.connect(conninfo, autocommit=True) as conn:
        fill_event_json(conn)
    return [m.id for m in pending]


def fill_event_json(conn: psycopg.Connection[Any]) -> int:
    """Give every event without one its ``jsonb`` copy; how many were filled."""
    filled = 0
    after: tuple[str, int] = ("", 0)
    while True:
        rows = conn.execute(
            "SELECT table_id, seq, record, setup FROM events WHERE data IS NULL "
            "AND (table_id, seq) > (%s, %s) ORDER BY table_id, seq LIMIT %s",
            (*after, FILL_BATCH),
        ).fetchall()
        if not rows:
            return filled
        with conn.cursor() as cur:
            cur.executemany(
                "UPDATE events SET data = %s, setup_data = %s WHERE table_id = %s AND seq = %s",
                [
                    (_json_of(record), _json_of(setup) if setup is not None else None, t, seq)
                    for t, seq, record, setup in rows
                ],
            )
        filled += len(rows)
        after = (str(rows[-1][0]), int(rows[-1][1]))


def _json_of(packed: bytes) -> Jsonb:
    try:
        return Jsonb(plain_json(msgpack.unpackb(bytes(packed))))
    except Exception:
        return Jsonb(None)  # not readable: JSON null, never left to fill again


async def create_schema(conn: AsyncConnection[Any]) -> None:
    """Bring the store's schema to the newest version (:func:`migrate`) on the server
    ``conn`` is connected to."""
    info = conn.info
    conninfo = make_conninfo(info.dsn, password=info.password) if info.password else info.dsn
    await asyncio.to_thread(migrate, conninfo)


@dataclass
class Rows:
    """Rows of one ingested batch, written together by :func:`store_rows`."""

    events: list[tuple[str, int, float, str, bytes, bytes | None, Jsonb, Jsonb | None]] = field(
        default_factory=list
    )
    """Each record: table, seq, time, kind, msgpack record and set-up, and their jsonb."""
    hands: list[tuple[str, int, dict[str, Any], int, float]] = field(default_factory=list)
    """Each finished hand: table, seq, record, session (its set-up's seq), and the time
    the table journaled the record that finished it."""
    tables: list[tuple[int, Jsonb, str]] = field(default_factory=list)
    """Each touched table's ``(last_seq, status, id)``."""
    moves: list[tuple[Any, ...]] = field(default_factory=list)
    """Each seat money move (``seat_money`` rows, :mod:`firmware.floor.store.books`)."""


def _wall(value: Any) -> datetime | None:
    """A record's wall-clock field (seconds since the epoch, UTC) as a timestamp."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def hand_row(
    table_id: str, seq: int, hand: dict[str, Any], session: int, at: float
) -> tuple[Any, ...]:
    """The ``hands`` row of a finished hand (``finished_wall`` from the record's
    ``finished_wall``, else the time the table journaled the record that finished it)."""
    finished = _wall(hand.get("finished_wall")) or _wall(at)
    return (
        table_id,
        seq,
        int(hand["hand"]),
        session,
        float(hand.get("finished_at", 0.0)),
        _wall(hand.get("started_wall")),
        finished,
        Jsonb(hand),
    )


def player_rows(table_id: str, seq: int, hand: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The ``hand_players`` rows of a finished hand (who sat in which seat)."""
    players = hand.get("players")
    if not isinstance(players, dict):
        return []
    return [
        (table_id, seq, int(seat), str(name), table_id, seq)
        for seat, name in players.items()
        if str(seat).isdigit() and 1 <= int(seat) <= 10
    ]


HAND_INSERT = (
    "INSERT INTO hands (table_id, seq, hand, session, finished, started_wall, finished_wall, "
    "record) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
)
"""A hand already stored (the same record, or the same number in the same session)
is left as it is."""
PLAYER_INSERT = (
    "INSERT INTO hand_players (table_id, seq, seat, player) SELECT %s, %s, %s, %s "
    "WHERE EXISTS (SELECT 1 FROM hands WHERE table_id = %s AND seq = %s) ON CONFLICT DO NOTHING"
)


async def store_rows(conn: AsyncConnection[Any], rows: Rows) -> None:
    """Insert a batch's records, hands and alerts and move its tables' ``last_seq``
    (inside the caller's transaction; ``executemany`` sends each kind of row in one
    pipeline); a record already stored is left as it is."""
    async with conn.cursor() as cur:
        if rows.events:
            await cur.executemany(
                "INSERT INTO events (table_id, seq, time, kind, record, setup, data, setup_data) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (table_id, seq) DO NOTHING",
                rows.events,
            )
        if rows.hands:
            await cur.executemany(HAND_INSERT, [hand_row(*h) for h in rows.hands])
            players = [p for t, seq, hand, _s, _a in rows.hands for p in player_rows(t, seq, hand)]
            if players:
                await cur.executemany(PLAYER_INSERT, players)
        if rows.moves:
            await cur.executemany(SEAT_MONEY_INSERT, rows.moves)
        alerts = [
            (table_id, seq, str(incident["rule"]), str(incident["what"]))
            for table_id, seq, hand, _session, _at in rows.hands
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
