"""Ingest: every table's journal from JetStream into PostgreSQL, exactly once.

The floor reads the stream ``FLOOR_EVENTS`` through one durable pull
consumer. For each record it keeps a *replica* of the table: a
:class:`~firmware.table.table.Table` rebuilt from the table's set-up and fed
the same events, so the floor computes each finished hand's record exactly
as the table's own history does, with no second format to keep in step.

Per record, in one PostgreSQL transaction: insert it (the key ``(table_id,
seq)`` refuses a second copy), check it follows the table's last record (a
gap is refused and the record redelivered later), apply it to the replica,
insert the hands and alerts it finished, and move the table's ``last_seq``;
the JetStream acknowledgement follows the commit. A replica that is missing
or behind (after a floor restart) is rebuilt from the records already in
the store, from the last set-up on.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack
import psycopg
from psycopg.types.json import Jsonb

from firmware.errors import IllegalAction
from firmware.floor import store
from firmware.service.floorlink import EVENTS, STREAM
from firmware.service.recovery import table_from_setup
from firmware.table import events as te
from firmware.table.table import Table

log = logging.getLogger(__name__)

CONSUMER = "floor-ingest"
DUPLICATE_WINDOW = 3600.0
"""Seconds JetStream remembers message ids (a table may be cut off for longer:
the store's unique key still keeps each record once)."""


async def ensure_stream(js: Any) -> None:
    """Create (or update) the stream every table publishes into."""
    from nats.js.api import StorageType, StreamConfig

    config = StreamConfig(
        name=STREAM,
        subjects=[f"{EVENTS}.>"],
        storage=StorageType.FILE,
        duplicate_window=DUPLICATE_WINDOW,
    )
    try:
        await js.add_stream(config)
    except Exception:  # it exists with other settings: bring them in line
        await js.update_stream(config)


@dataclass
class Replica:
    """The floor's copy of one table, rebuilt from its records."""

    table_id: str
    table: Table
    last_seq: int = 0
    finished: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_setup(cls, table_id: str, setup: dict[str, Any]) -> Replica:
        """A replica of a table as its set-up describes it, before any record."""
        replica = cls(table_id, table_from_setup(setup))
        replica.table.hand_listeners.append(lambda record, hand: replica.finished.append(record))
        return replica

    def apply(self, seq: int, record: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply one record; the hand records it finished.

        A record the table refused is refused again here (the journal keeps
        attempts), exactly as the table's recovery does.
        """
        with contextlib.suppress(IllegalAction):
            self.table.apply(te.from_record(record))
        self.last_seq = seq
        done, self.finished = self.finished, []
        return done

    def status(self) -> dict[str, Any]:
        """What the dashboard shows of the table."""
        t = self.table
        seats = {
            str(n): {"player": s.player, "stack": s.stack, "out": s.sitting_out}
            for n, s in sorted(t.seating.seats.items())
        }
        level = None
        if t.levels is not None and t.levels.started_at is not None:
            level = t.levels.current(t.now).number
        return {
            "seats": seats,
            "hand": t.hand_number,
            "playing": t.hand is not None,
            "level": level,
            "max_seats": t.config.options.max_seats,
            "button": t.seating.button,
            "big_blind": t.seating.last_big_blind,
            "now": t.now,
        }


class Gap(Exception):
    """A record arrived before the one it follows; it is redelivered later."""


@dataclass
class Ingested:
    """What one record changed (given to the floor's listeners after the commit)."""

    table_id: str
    seq: int
    kind: str
    hands: list[dict[str, Any]]
    status: dict[str, Any]


class Ingestor:
    """Consumes the stream into the store.

    :param conn: An open asynchronous PostgreSQL connection (autocommit; each
        record has its own transaction).
    """

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.conn = conn
        self.replicas: dict[str, Replica] = {}
        self.listeners: list[Callable[[Ingested], None]] = []
        self.stored = 0
        self.duplicates = 0
        self.gaps = 0
        self._sub: Any = None

    async def _replica(self, table_id: str, seq: int) -> Replica | None:
        """The replica ready for record ``seq``, rebuilt from the store if needed."""
        replica = self.replicas.get(table_id)
        if replica is not None and replica.last_seq == seq - 1:
            return replica
        setup, records = await store.table_events(self.conn, table_id)
        if setup is None:
            return None
        replica = Replica.from_setup(table_id, msgpack.unpackb(setup))
        for number, record in records:
            if number >= seq:
                break
            replica.apply(number, msgpack.unpackb(record))
        replica.finished.clear()
        self.replicas[table_id] = replica
        return replica if replica.last_seq == seq - 1 else None

    async def ingest(self, body: bytes) -> Ingested | None:
        """Store one message; ``None`` for a duplicate.

        :raises Gap: if the record does not follow the table's last one.
        """
        msg = msgpack.unpackb(body)
        table_id, seq = str(msg["table"]), int(msg["seq"])
        setup = msg.get("setup")
        record = msg["record"]
        async with self.conn.transaction():
            fresh = await store.store_event(
                self.conn,
                table_id,
                seq,
                float(msg["time"]),
                str(msg["kind"]),
                msgpack.packb(record),
                msgpack.packb(setup) if setup is not None else None,
            )
            if not fresh:
                self.duplicates += 1
                return None
            cur = await self.conn.execute(
                "SELECT last_seq FROM tables WHERE id = %s FOR UPDATE", (table_id,)
            )
            row = await cur.fetchone()
            last = int(row[0]) if row else 0
            if seq != last + 1 and setup is None:
                raise Gap(f"table {table_id}: record {seq} arrived after {last}")
            replica: Replica | None
            if setup is not None:
                replica = Replica.from_setup(table_id, setup)
                replica.last_seq = seq - 1
                self.replicas[table_id] = replica
            else:
                replica = await self._replica(table_id, seq)
            if replica is None:
                raise Gap(f"table {table_id}: no set-up before record {seq}")
            hands = replica.apply(seq, record)
            for hand in hands:
                await store.store_hand(self.conn, table_id, seq, hand)
            status = replica.status()
            await self.conn.execute(
                "UPDATE tables SET last_seq = %s, seen_at = now(), status = %s WHERE id = %s",
                (seq, Jsonb(status), table_id),
            )
        self.stored += 1
        result = Ingested(table_id, seq, str(msg["kind"]), hands, status)
        for listener in self.listeners:
            listener(result)
        return result

    async def consume(self, js: Any, batch: int = 256, timeout: float = 1.0) -> int:
        """Fetch and ingest one batch; return how many messages were handled."""
        import nats.errors

        sub = await self._subscription(js)
        try:
            messages = await sub.fetch(batch, timeout=timeout)
        except nats.errors.TimeoutError:
            return 0
        for number, message in enumerate(messages):
            try:
                await self.ingest(message.data)
            except Gap as exc:
                self.gaps += 1
                self.replicas.pop(str(msgpack.unpackb(message.data)["table"]), None)
                log.info("Redelivering later: %s", exc)
                await message.nak(delay=0.2)
                continue
            except BaseException:
                # The store failed: hand this and the rest of the batch back now
                # rather than after the acknowledgement wait.
                for rest in messages[number:]:
                    with contextlib.suppress(Exception):
                        await rest.nak(delay=0.5)
                raise
            await message.ack()
        return len(messages)

    async def _subscription(self, js: Any) -> Any:
        if self._sub is None:
            from nats.js.api import AckPolicy, ConsumerConfig

            self._sub = await js.pull_subscribe(
                f"{EVENTS}.>",
                durable=CONSUMER,
                stream=STREAM,
                config=ConsumerConfig(
                    ack_policy=AckPolicy.EXPLICIT, max_ack_pending=20_000, ack_wait=5
                ),
            )
        return self._sub
