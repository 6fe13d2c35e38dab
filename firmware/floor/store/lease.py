"""Two floors for one room: the one holding the lease ingests, the other stands by.

The lease is a PostgreSQL session advisory lock (``pg_try_advisory_lock``)
held on a connection of its own. PostgreSQL releases it the moment that
connection ends, whether the floor stopped, was killed (``kill -9``) or lost
the database, so a standby needs no timeout to know the leader is gone: it
asks for the lock every half second and takes over as soon as it is free.

Only the holder consumes the stream. A new leader goes on from the durable
JetStream consumer (the records its predecessor had not acknowledged come
again) and rebuilds its replicas from the store, whose unique keys keep every
record once. A leader that loses its lease connection cannot know whether a
standby took over, so it stops (:meth:`Lease.lost` is set and ``pokertable
floor`` exits with :data:`LOST_EXIT`): its supervisor starts it again as a
standby. Two floors therefore never ingest at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from typing import Any

import psycopg

log = logging.getLogger(__name__)

LEASE_KEY = 0x706F6B6572  # "poker": one lease per room database
LOST_EXIT = 75
"""Exit status of a floor that lost its lease (temporary failure: restart it)."""


def room_key(key: int, schema: str) -> int:
    """The lease's key for the room whose tables are in ``schema`` (rooms sharing a
    database have a schema each, see docs/floor.md; ``public`` keeps ``key``)."""
    if schema == "public":
        return key
    return (key ^ (zlib.crc32(schema.encode()) << 24)) & 0x7FFF_FFFF_FFFF_FFFF


class Lease:
    """The room's leader lease.

    :param conninfo: PostgreSQL.
    :param key: The advisory lock's key (one per room database).
    :param every: Seconds between two tries, and between two checks once held.
    """

    def __init__(self, conninfo: str, key: int = LEASE_KEY, every: float = 0.5) -> None:
        self.conninfo = conninfo
        self.key = key
        self.every = every
        self.conn: psycopg.AsyncConnection[Any] | None = None
        self.lost = asyncio.Event()
        """Set when the lease's connection is gone after it was held."""
        self._watch: asyncio.Task[None] | None = None

    async def try_acquire(self) -> bool:
        """Take the lease if it is free (a connection is kept only if it was taken)."""
        conn = await psycopg.AsyncConnection.connect(
            self.conninfo, autocommit=True, connect_timeout=5
        )
        cur = await conn.execute("SELECT current_schema()")
        schema = await cur.fetchone()
        key = room_key(self.key, str(schema[0]) if schema and schema[0] else "public")
        cur = await conn.execute("SELECT pg_try_advisory_lock(%s)", (key,))
        row = await cur.fetchone()
        if row is not None and row[0]:
            self.conn = conn
            return True
        await conn.close()
        return False

    async def acquire(self, stop: asyncio.Event | None = None) -> bool:
        """Wait for the lease (False if ``stop`` is set first), then watch it."""
        while stop is None or not stop.is_set():
            try:
                if await self.try_acquire():
                    self.start_watch()
                    return True
            except psycopg.Error as exc:
                log.info("The store is unreachable (%s); trying for the lease again.", exc)
            with contextlib.suppress(asyncio.TimeoutError):
                if stop is not None:
                    await asyncio.wait_for(stop.wait(), self.every)
                else:
                    await asyncio.sleep(self.every)
        return False

    def start_watch(self) -> None:
        """Watch the lease once held (on the running event loop)."""
        self._watch = asyncio.create_task(self._keep())

    async def _keep(self) -> None:
        """Check the lease's connection; set :attr:`lost` when it is gone."""
        while self.conn is not None:
            try:
                await self.conn.execute("SELECT 1")
            except psycopg.Error as exc:
                log.warning("The floor lost its lease (%s); it stops.", exc)
                self.lost.set()
                return
            await asyncio.sleep(self.every)

    async def release(self) -> None:
        """Give the lease up (closing its connection releases the lock)."""
        if self._watch is not None:
            self._watch.cancel()
        conn, self.conn = self.conn, None
        if conn is not None:
            with contextlib.suppress(psycopg.Error):
                await conn.close()
