"""The director's commands as an outbox: written to the store before they are sent.

Every command the tournament director gives a table (seat a player, take one
off, deal, start the clock) gets an id and a row in ``floor_commands`` in the
same transaction as the director's state that decided it; it is sent only
after that transaction committed. Its reply is stored when it comes, and the
row is *settled* (in a later state transaction) once the director has acted
on the reply. A move is one row with a ``follow``: the seat the player takes
at his new table, with the chips the table's reply to taking him off gives.

After a crash of the floor, the rows not settled are the commands the director
gave and did not finish acting on: a restarted director sends each of them
again with the same id (the table answers a repeated id from its stored reply,
without acting twice) and finishes the moves they began.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from psycopg import AsyncConnection
from psycopg.abc import Params
from psycopg.types.json import Jsonb

from firmware.floor.store.conn import StoreConnection

RETENTION_DAYS = 30
"""Days a settled command and its reply are kept (an accountant's month); older ones are
deleted with the director's next settlement, so the outbox does not grow for ever."""
REPLY_FIELDS = ("id", "ok", "error", "chips", "player")
MAX_ERROR = 300

Statement = tuple[str, Params | None]


@dataclass
class Entry:
    """One command in the outbox.

    :param key: The order it keeps: commands of one key run one after another
        (a table's seat, or a table's dealing).
    :param follow: For a move's first half (taking the player off): where he sits
        next (``table``, ``seat``, ``player``, ``reason``).
    """

    id: str
    table: str
    key: str
    body: dict[str, Any]
    follow: dict[str, Any] | None = None
    reply: dict[str, Any] | None = None
    stored: bool = False
    """True once the row is committed (the command may be sent)."""


@dataclass
class Outbox:
    """The commands of one tournament not yet written, and the rows to settle."""

    tournament_id: str
    new: list[Entry] = field(default_factory=list)
    settles: list[str] = field(default_factory=list)

    def add(
        self,
        table: str,
        key: str,
        body: dict[str, Any],
        follow: dict[str, Any] | None = None,
        command_id: str | None = None,
    ) -> Entry:
        """A new command, written with the director's next state."""
        cid = command_id or uuid.uuid4().hex
        entry = Entry(cid, table, key, {**body, "id": cid}, follow)
        self.new.append(entry)
        return entry

    def settle(self, command_id: str) -> None:
        """The director acted on this command's reply (written with its next state)."""
        self.settles.append(command_id)

    def take(self) -> tuple[list[Entry], list[Statement]]:
        """The rows to write in the next state transaction, and the entries they store."""
        entries, self.new = self.new, []
        settles, self.settles = self.settles, []
        statements: list[Statement] = [
            (
                "INSERT INTO floor_commands (tournament_id, id, table_id, key, body, follow) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                (
                    self.tournament_id,
                    e.id,
                    e.table,
                    e.key,
                    Jsonb(e.body),
                    Jsonb(e.follow) if e.follow is not None else None,
                ),
            )
            for e in entries
        ]
        if entries:  # every command's table has its row (the foreign key)
            statements.insert(
                0,
                (
                    "INSERT INTO tables (id) SELECT DISTINCT unnest(%s::text[]) "
                    "ON CONFLICT (id) DO NOTHING",
                    ([e.table for e in entries],),
                ),
            )
        if settles:
            statements.append(
                ("UPDATE floor_commands SET settled = true WHERE id = ANY(%s)", (settles,))
            )
            statements.append(
                (
                    "DELETE FROM floor_commands WHERE settled "
                    "AND at < now() - make_interval(days => %s)",
                    (RETENTION_DAYS,),
                )
            )
        return entries, statements


async def answered(
    conn: AsyncConnection[Any] | StoreConnection, entry: Entry, reply: dict[str, Any]
) -> None:
    """Keep the table's reply (a restarted director needs a move's chips): its known
    fields only, the error cut to size, so a reply's storage is bounded."""
    entry.reply = reply
    await conn.execute(
        "UPDATE floor_commands SET reply = %s WHERE id = %s", (Jsonb(bounded(reply)), entry.id)
    )


def bounded(reply: dict[str, Any]) -> dict[str, Any]:
    """The fields of a reply the director reads (:data:`REPLY_FIELDS`), texts cut to
    :data:`MAX_ERROR` characters."""
    kept = {k: reply[k] for k in REPLY_FIELDS if k in reply}
    for name, value in kept.items():
        if isinstance(value, str):
            kept[name] = value[:MAX_ERROR]
    return kept


async def unsettled(conn: AsyncConnection[Any] | StoreConnection, tournament: str) -> list[Entry]:
    """The tournament's commands not settled, in the order they were given."""
    cur = await conn.execute(
        "SELECT id, table_id, key, body, follow, reply FROM floor_commands "
        "WHERE tournament_id = %s AND NOT settled ORDER BY n",
        (tournament,),
    )
    return [
        Entry(str(i), str(t), str(k), dict(b), f, r, stored=True)
        for i, t, k, b, f, r in await cur.fetchall()
    ]


async def run_transaction(
    conn: AsyncConnection[Any] | StoreConnection, statements: list[Statement]
) -> None:
    """Run ``statements`` in one transaction (a :class:`StoreConnection` repeats the
    whole transaction on a new connection if the server was lost)."""
    if isinstance(conn, StoreConnection):
        await conn.transaction(statements)
        return
    async with conn.transaction():
        for query, params in statements:
            await conn.execute(query, params)
