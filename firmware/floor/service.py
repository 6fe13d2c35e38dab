"""The floor service: ingest, the tournament director and the commands, on one event loop.

:class:`Floor` connects to NATS (creating the stream if needed) and to
PostgreSQL (creating the schema), consumes every table's records into the
store (:mod:`firmware.floor.ingest`) and hands what they changed to its
listeners (the director, the dashboard). It uses one database connection for
the ingest's transactions and another for everything else, so the two never
share a transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import psycopg

from firmware.floor.commands import send_command
from firmware.floor.ingest import Ingestor, ensure_stream
from firmware.floor.store import create_schema
from firmware.floor.storeconn import StoreConnection

log = logging.getLogger(__name__)


class Floor:
    """One floor: NATS in, PostgreSQL out, commands back to the tables.

    :param conninfo: The PostgreSQL connection string.
    :param nats_url: The NATS server.
    :param user: The floor's NATS user (and ``password``), if the server has users.
    """

    def __init__(self, conninfo: str, nats_url: str, user: str = "", password: str = "") -> None:
        self.conninfo = conninfo
        self.nats_url = nats_url
        self.user = user
        self.password = password
        self.nc: Any = None
        self.js: Any = None
        self.conn: StoreConnection | None = None
        """Everything but the ingest (the director, the dashboard's calls): reconnected
        and the statement sent again whenever PostgreSQL comes back."""
        self.ingestor: Ingestor | None = None
        self.ingest_conn: psycopg.AsyncConnection[Any] | None = None
        self.stopping = asyncio.Event()
        self.outages = 0
        """Times the store or NATS was lost while ingesting."""

    async def open(self) -> None:
        """Connect to both servers; create the stream and the schema if missing."""
        import nats

        self.nc = await nats.connect(
            servers=[self.nats_url],
            user=self.user or None,
            password=self.password or None,
            name="floor",
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.5,
        )
        self.js = self.nc.jetstream()
        await ensure_stream(self.js)
        self.ingest_conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
        await create_schema(self.ingest_conn)
        self.conn = await StoreConnection(self.conninfo).open()
        self.ingestor = Ingestor(self.ingest_conn)

    async def command(self, table: str, command: dict[str, Any]) -> dict[str, Any]:
        """Send a command to a table; its reply. Asked again with the same id until the
        table answers (a table that is off or cut off answers when it is back; the id
        makes it act once), so a table that is away stops nothing but its own moves."""
        return await send_command(self.nc, table, command, timeout=30, attempts=None)

    async def ingest_forever(self) -> None:
        """Consume the stream until :attr:`stopping` is set.

        When PostgreSQL goes away the records stay unacknowledged in JetStream;
        the floor reconnects, rebuilds its replicas from the store and goes on.
        When NATS goes away the client reconnects by itself.
        """
        assert self.ingestor is not None
        while not self.stopping.is_set():
            try:
                await self.ingestor.consume(self.js, timeout=0.5)
            except (psycopg.Error, OSError) as exc:
                self.outages += 1
                log.warning("The store is unreachable (%s); retrying.", exc)
                await self._reconnect_store()
            except Exception as exc:  # NATS errors while the server restarts
                if type(exc).__module__.startswith("nats"):
                    self.outages += 1
                    await asyncio.sleep(0.5)
                else:
                    raise

    async def _reconnect_store(self) -> None:
        listeners = self.ingestor.listeners if self.ingestor is not None else []
        sub = self.ingestor._sub if self.ingestor is not None else None
        if self.ingest_conn is not None:
            with contextlib.suppress(Exception):
                await self.ingest_conn.close()
        while not self.stopping.is_set():
            try:
                self.ingest_conn = await psycopg.AsyncConnection.connect(
                    self.conninfo, autocommit=True, connect_timeout=5
                )
                break
            except psycopg.Error:
                await asyncio.sleep(0.5)
        if self.ingest_conn is None or self.ingest_conn.closed:
            return
        self.ingestor = Ingestor(self.ingest_conn)  # replicas are rebuilt from the store
        self.ingestor.listeners = listeners
        self.ingestor._sub = sub

    async def close(self) -> None:
        """Disconnect from both servers."""
        self.stopping.set()
        for conn in (self.conn, self.ingest_conn):
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close()
        if self.nc is not None:
            with contextlib.suppress(Exception):
                await self.nc.close()
