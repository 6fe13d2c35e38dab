"""The dashboard's own records in PostgreSQL: waiting list, table notices, faults, staff actions.

The ingest's tables (:mod:`firmware.floor.store.central`) hold what the tables
journaled; these hold what the floor staff do and what the tables report
outside their journals:

* ``waiting_list``: players waiting for a seat in a game, called to a table,
  or taken off the list;
* ``table_notices``: each table's alerts (a seat calling the floor among
  them), from ``floor.notices.<table>``, until someone acknowledges them;
* ``table_faults``: the devices each table last reported in fault;
* ``staff_actions``: who did what on the dashboard, and when;
* ``clock_pauses``: a tournament's level clock paused from the dashboard.

:class:`NoticeListener` subscribes to the tables' notices on the floor's
NATS connection. The table is the one the subject names (NATS lets a table
publish only on its own subject), never what the message says; every field
is checked and cut to size before it is stored.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import msgpack
import psycopg
from psycopg.types.json import Jsonb

from firmware.floor.store.central import migrate
from firmware.service.floorwire import NOTICES, TABLE_ID

log = logging.getLogger(__name__)

CALL_KEY = "alert.call_floor"
"""The catalog key of a seat's call for the floor (a notice of kind ``call``)."""
MAX_TEXT = 300
MAX_ALERTS = 100


def create_schema(conninfo: str) -> None:
    """Bring the store's schema, the dashboard's tables among it, to the newest version
    (:func:`firmware.floor.store.central.migrate`; idempotent)."""
    migrate(conninfo)


def _clean_params(value: object) -> dict[str, str | int]:
    if not isinstance(value, dict):
        return {}
    out: dict[str, str | int] = {}
    for name, item in list(value.items())[:10]:
        if not isinstance(name, str) or not name.isidentifier():
            continue
        if isinstance(item, int) and not isinstance(item, bool):
            out[name] = item
        elif isinstance(item, str):
            out[name] = item[:MAX_TEXT]
    return out


def parse_notice(subject: str, body: bytes) -> tuple[str, dict[str, str], list[dict[str, Any]]]:
    """The table, its faults and its new alerts from one notice.

    :raises ValueError: for a subject that names no table or a malformed body.
    """
    prefix = NOTICES + "."
    table = subject[len(prefix) :] if subject.startswith(prefix) else ""
    if not TABLE_ID.fullmatch(table):
        raise ValueError(f"the subject {subject!r} names no table")
    data = msgpack.unpackb(body)
    if not isinstance(data, dict):
        raise ValueError("a notice is a map")
    raw_faults = data.get("faults", {})
    raw_alerts = data.get("alerts", [])
    if not isinstance(raw_faults, dict) or not isinstance(raw_alerts, list):
        raise ValueError("a notice has a map of faults and a list of alerts")
    faults = {
        str(device)[:64]: str(detail)[:MAX_TEXT] for device, detail in list(raw_faults.items())[:50]
    }
    alerts = []
    for alert in raw_alerts[:MAX_ALERTS]:
        if not isinstance(alert, dict) or not isinstance(alert.get("text"), str):
            continue
        key = alert.get("key")
        device = alert.get("device")
        alerts.append(
            {
                "text": alert["text"][:MAX_TEXT],
                "key": key[:64] if isinstance(key, str) else None,
                "params": _clean_params(alert.get("params")),
                "device": device[:64] if isinstance(device, str) else None,
                "kind": "call" if key == CALL_KEY else "alert",
            }
        )
    return table, faults, alerts


class NoticeListener:
    """Stores the tables' notices (on the floor's event loop).

    :param conninfo: PostgreSQL.
    """

    def __init__(self, conninfo: str) -> None:
        self.conninfo = conninfo
        self.conn: psycopg.AsyncConnection[Any] | None = None
        self.stored = 0
        self.refused = 0
        self._sub: Any = None

    async def start(self, nc: Any) -> None:
        """Subscribe on the floor's NATS connection ``nc``."""
        self.conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
        self._sub = await nc.subscribe(f"{NOTICES}.*", cb=self._on_message)

    async def stop(self) -> None:
        """Unsubscribe and close the connection."""
        if self._sub is not None:
            try:
                await self._sub.unsubscribe()
            except Exception as exc:  # the connection may be closed already
                log.debug("notices: %s", exc)
        if self.conn is not None:
            await self.conn.close()

    async def _on_message(self, msg: Any) -> None:
        try:
            table, faults, alerts = parse_notice(str(msg.subject), bytes(msg.data))
        except Exception as exc:
            self.refused += 1
            log.warning("A table notice was refused: %s.", exc)
            return
        try:
            await self.store(table, faults, alerts)
        except psycopg.Error as exc:
            log.warning("A table notice was not stored (%s); the next one carries the faults.", exc)

    async def store(self, table: str, faults: dict[str, str], alerts: list[dict[str, Any]]) -> None:
        """Record one table's faults and new alerts."""
        conn = self.conn
        if conn is None or conn.closed:
            conn = self.conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
        async with conn.transaction():
            await conn.execute(
                "INSERT INTO table_faults (table_id, faults) VALUES (%s, %s) ON CONFLICT "
                "(table_id) DO UPDATE SET faults = EXCLUDED.faults, seen_at = now()",
                (table, Jsonb(faults)),
            )
            for alert in alerts:
                # The same sentence again (a refusal repeated) is not a new notice
                # while the first is still open.
                await conn.execute(
                    "INSERT INTO table_notices (table_id, kind, text, key, params, device) "
                    "SELECT %s, %s, %s, %s, %s, %s WHERE NOT EXISTS (SELECT 1 FROM "
                    "table_notices WHERE table_id = %s AND text = %s AND acked_at IS NULL)",
                    (
                        table,
                        alert["kind"],
                        alert["text"],
                        alert["key"],
                        Jsonb(alert["params"]),
                        alert["device"],
                        table,
                        alert["text"],
                    ),
                )
        self.stored += 1


# ------------------------------------------------------------------ the web's queries


def query(conninfo: str, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of one read (a short connection: the pages never hold the ingest's)."""
    with psycopg.connect(conninfo, connect_timeout=5) as conn:
        return list(conn.execute(sql, args).fetchall())


OPEN_NOTICES = """
SELECT id, table_id, kind, text, key, params, at FROM (
    SELECT n.*, row_number() OVER (PARTITION BY table_id, kind ORDER BY id DESC) AS rank
    FROM table_notices n WHERE acked_at IS NULL) ranked
WHERE rank <= %s
ORDER BY (kind = 'call') DESC, rank, id DESC LIMIT %s
"""
OPEN_ALERTS = """
SELECT id, table_id, rule, text, key, params FROM (
    SELECT a.*, row_number() OVER (PARTITION BY table_id ORDER BY id DESC) AS rank
    FROM alerts a WHERE NOT resolved) ranked
WHERE rank <= %s
ORDER BY rank, id DESC LIMIT %s
"""


def open_notices(conninfo: str, limit: int = 30, per_table: int = 5) -> list[tuple[Any, ...]]:
    """Notices not yet acknowledged, fairly shared among the tables: calls for the floor
    first; each table's newest before any table's second, and at most ``per_table`` of a
    kind from one table, so one table's flood of notices cannot push another table's
    call off the dashboard. Rows: id, table, kind, text, key, params, time."""
    return query(conninfo, OPEN_NOTICES, (per_table, limit))


def open_alerts(conninfo: str, limit: int = 20, per_table: int = 5) -> list[tuple[Any, ...]]:
    """Alerts not yet resolved, shared among the tables like :func:`open_notices`.
    Rows: id, table, rule, text, catalog key (or ``None``), params."""
    return query(conninfo, OPEN_ALERTS, (per_table, limit))


def write(conninfo: str, staff: tuple[str, str], action: str, detail: str, sql: str,
          args: tuple[Any, ...]) -> int:  # fmt: skip
    """Run one change and record who made it, in one transaction; rows changed."""
    with psycopg.connect(conninfo, connect_timeout=5) as conn, conn.transaction():
        changed = conn.execute(sql, args).rowcount
        conn.execute(
            "INSERT INTO staff_actions (staff, role, action, detail) VALUES (%s, %s, %s, %s)",
            (staff[0], staff[1], action, detail),
        )
        return int(changed)


def clock_elapsed(
    conninfo: str, tournament: str, started: float, now: float | None = None
) -> tuple[float, bool]:
    """Seconds the tournament's level clock has run (pauses from the dashboard left out),
    and whether it is paused now."""
    now = time.time() if now is None else now
    rows = query(
        conninfo,
        "SELECT paused_at, paused_seconds FROM clock_pauses WHERE tournament_id = %s",
        (tournament,),
    )
    if not rows:
        return now - started, False
    paused_at, paused_seconds = rows[0]
    end = float(paused_at) if paused_at is not None else now
    return end - started - float(paused_seconds), paused_at is not None
