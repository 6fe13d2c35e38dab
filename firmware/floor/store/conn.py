"""The director's connection to PostgreSQL, reconnected whenever the server comes back.

The director writes its state, with the commands it decided, in one
transaction (:meth:`StoreConnection.transaction`), and a few statements on
their own (autocommit); a statement or a transaction cut off by a lost
server is simply sent again on a new connection once the server is back. The
statements it sends are written to be repeated: a row that may already be
there is inserted with ``ON CONFLICT DO NOTHING``, the state is an ``UPDATE``
of the latest; only a log line or a seat assignment whose commit was lost
together with its reply can be stored twice (a history row, never a count the
tournament relies on).

Several of the director's tasks share the connection: the first one that finds
it broken opens a new one; the others wait for it and use the new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import psycopg
from psycopg.abc import Params

log = logging.getLogger(__name__)


class StoreConnection:
    """An autocommit connection that reconnects and repeats a statement the server lost.

    :param conninfo: The PostgreSQL connection string.
    :param retry_wait: Seconds between two attempts to connect while the server is away.
    """

    def __init__(self, conninfo: str, retry_wait: float = 0.5) -> None:
        self.conninfo = conninfo
        self.retry_wait = retry_wait
        self.outages = 0
        """Times a statement found the server gone and was sent again."""
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._connecting = asyncio.Lock()
        self._using = asyncio.Lock()
        """Held by a statement or a transaction: no statement lands inside another's
        transaction."""
        self._closed = False

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    async def open(self) -> StoreConnection:
        """Connect now (so a wrong connection string fails at start-up, not later)."""
        self._conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
        return self

    async def execute(self, query: str, params: Params | None = None) -> psycopg.AsyncCursor[Any]:
        """Run one statement; if the server is gone, wait for it and run it again.

        :raises psycopg.OperationalError: only after :meth:`close`.
        """
        while True:
            conn = await self._connected()
            try:
                async with self._using:
                    return await conn.execute(query, params)
            except psycopg.OperationalError as exc:
                if self._closed:
                    raise
                self.outages += 1
                log.warning("The store was lost (%s); the statement is sent again.", exc)
                await self._drop(conn)

    async def transaction(self, statements: list[tuple[str, Params | None]]) -> None:
        """Run ``statements`` in one transaction; if the server is gone, wait for it and
        run them all again (each statement must be safe to repeat after a commit whose
        reply was lost: an insert ``ON CONFLICT DO NOTHING``, an update to a value).

        :raises psycopg.OperationalError: only after :meth:`close`.
        """
        while True:
            conn = await self._connected()
            try:
                async with self._using, conn.transaction():
                    for query, params in statements:
                        await conn.execute(query, params)
                return
            except psycopg.OperationalError as exc:
                if self._closed:
                    raise
                self.outages += 1
                log.warning("The store was lost (%s); the transaction is sent again.", exc)
                await self._drop(conn)

    async def _connected(self) -> psycopg.AsyncConnection[Any]:
        async with self._connecting:
            while self._conn is None or self._conn.closed:
                if self._closed:
                    raise psycopg.OperationalError("The floor closed its store connection.")
                try:
                    self._conn = await psycopg.AsyncConnection.connect(
                        self.conninfo, autocommit=True, connect_timeout=5
                    )
                except psycopg.OperationalError:
                    await asyncio.sleep(self.retry_wait)
            return self._conn

    async def _drop(self, broken: psycopg.AsyncConnection[Any]) -> None:
        async with self._connecting:
            if self._conn is broken:
                self._conn = None
            with contextlib.suppress(Exception):
                await broken.close()

    async def close(self) -> None:
        """Close the connection; statements after this fail."""
        self._closed = True
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.close()
