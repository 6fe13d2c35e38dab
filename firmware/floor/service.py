"""The floor service: ingest, the tournament director and the commands, on one event loop.

:class:`Floor` connects to NATS (creating the stream if needed) and to
PostgreSQL (creating the schema), consumes every table's records into the
store (:mod:`firmware.floor.store.ingest`) and hands what they changed to its
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

from firmware.floor.messaging.commands import send_command
from firmware.floor.messaging.stream import StreamSettings, ensure_stream
from firmware.floor.store.central import create_schema
from firmware.floor.store.conn import StoreConnection
from firmware.floor.store.ingest import Ingestor
from firmware.service.natsurls import server_urls

log = logging.getLogger(__name__)


class Floor:
    """One floor: NATS in, PostgreSQL out, commands back to the tables.

    :param conninfo: The PostgreSQL connection string.
    :param nats_url: The NATS server, or the nodes of a NATS cluster (a list, or
        URLs separated by commas): the floor connects to one and moves to another
        when it goes away.
    :param user: The floor's NATS user (and ``password``), if the server has users.
    :param stream: How the stream is kept (:mod:`firmware.floor.messaging.stream`).
    """

    def __init__(
        self,
        conninfo: str,
        nats_url: str | list[str] | tuple[str, ...],
        user: str = "",
        password: str = "",
        stream: StreamSettings | None = None,
    ) -> None:
        self.conninfo = conninfo
        self.nats_urls = list(server_urls(nats_url, "[nats] url"))
        self.nats_url = self.nats_urls[0]
        self.user = user
        self.password = password
        self.stream = stream or StreamSettings()
        self.nats_away = False
        """NATS is unreachable now (said once per outage)."""
        self.stream_ready = False
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
        """Connect to both servers; create the stream and the schema if missing.

        Safe to call again after it failed (what was opened stays open): the floor's
        start waits this way for a server that is not up yet
        (:func:`firmware.floor.startup.until_reachable`). While no NATS node answers
        the first connection, the client keeps trying (one sentence said).
        """
        import nats

        if self.nc is None:
            self.nc = await self._connect_nats(nats)
            self.js = self.nc.jetstream()
            if self.nats_away:  # it kept trying until a node answered
                await self._nats_back()
        if not self.stream_ready:  # JetStream of a cluster may answer a moment later
            log.info("%s", await ensure_stream(self.js, self.stream))
            self.stream_ready = True
        if self.ingest_conn is None or self.ingest_conn.closed:
            self.ingest_conn = await psycopg.AsyncConnection.connect(
                self.conninfo, autocommit=True, connect_timeout=5
            )
            await create_schema(self.ingest_conn)
        if self.conn is None:
            self.conn = await StoreConnection(self.conninfo).open()
        self.ingestor = Ingestor(self.ingest_conn)

    async def _connect_nats(self, nats: Any) -> Any:
        return await nats.connect(
            servers=self.nats_urls,
            user=self.user or None,
            password=self.password or None,
            name="floor",
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.5,
            error_cb=self._nats_error,
            disconnected_cb=self._nats_lost,
            reconnected_cb=self._nats_back,
            connect_timeout=2,
        )

    async def _nats_error(self, exc: Exception) -> None:
        """The client's own errors while it reconnects: one sentence per outage."""
        if not self.nats_away:
            self.nats_away = True
            self.outages += 1
            log.warning(
                "NATS is unreachable (%s); the floor reconnects by itself and the tables "
                "keep their records until it is back.",
                exc or type(exc).__name__,
            )

    async def _nats_lost(self) -> None:
        if not self.stopping.is_set():  # (closing the floor is no outage)
            await self._nats_error(ConnectionError("the connection was lost"))

    async def _nats_back(self) -> None:
        if self.nats_away:
            self.nats_away = False
            url = getattr(self.nc, "connected_url", None)
            where = f"{url.scheme}://{url.netloc}" if url is not None else "a server"
            log.warning("NATS is back (%s); the floor ingests again.", where)

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
                if self.nats_away and self.nc is not None and self.nc.is_connected:
                    await self._nats_back()  # the stream answers again (a new leader)
            except (psycopg.Error, OSError) as exc:
                self.outages += 1
                log.warning("The store is unreachable (%s); retrying.", exc)
                await self._reconnect_store()
            except Exception as exc:  # NATS errors while the server restarts
                if type(exc).__module__.startswith("nats"):
                    await self._nats_error(exc)  # said once; the client reconnects
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
