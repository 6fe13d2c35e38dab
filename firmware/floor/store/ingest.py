"""Ingest: every table's journal from JetStream into PostgreSQL, exactly once.

The floor reads the stream ``FLOOR_EVENTS`` through one durable pull
consumer. For each record it keeps a *replica* of the table: a
:class:`~firmware.table.table.Table` rebuilt from the table's set-up and fed
the same events, so the floor computes each finished hand's record exactly
as the table's own history does, with no second format to keep in step.

Each message is read against its subject first (:mod:`firmware.floor.store.intake`):
the record's table is the one the subject names, and a message the floor
cannot read or whose body disagrees with its subject is parked with an alert
and acknowledged, so no message stops the intake of any table.

Per fetched batch (up to 512 records), in one PostgreSQL transaction: insert
each record (the key ``(table_id,
seq)`` refuses a second copy), check it follows the table's last record (a
gap is refused and the record redelivered later), apply it to the replica,
insert the hands and alerts it finished, and move the table's ``last_seq``;
the JetStream acknowledgement follows the commit. A replica that is missing
or behind (after a floor restart) is rebuilt from the records already in
the store, from the last set-up on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack
import psycopg
from psycopg.types.json import Jsonb

from firmware.errors import IllegalAction
from firmware.floor.store import books, central, intake
from firmware.floor.store.intake import Incoming
from firmware.service.floorwire import EVENTS, STREAM
from firmware.service.journal import META_KIND
from firmware.service.recovery import table_from_setup
from firmware.table import event_records
from firmware.table.table import Table

log = logging.getLogger(__name__)

CONSUMER = "floor-ingest"
DUPLICATE_WINDOW = 3600.0
"""Seconds JetStream remembers message ids (a table may be cut off for longer:
the store's unique key still keeps each record once)."""
LINGER = 0.05
"""Seconds a fetch waits to fill its batch once the stream has messages."""


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
    session: int = 0
    """The record number of the set-up it was built from (hand numbers are unique
    within one set-up of a table)."""
    moves: list[books.SeatMove] = field(default_factory=list)
    """The seat money moves of the records applied since the ingest last took them."""

    @classmethod
    def from_setup(cls, table_id: str, setup: dict[str, Any], session: int = 0) -> Replica:
        """A replica of a table as its set-up describes it, before any record."""
        replica = cls(table_id, table_from_setup(setup), session=session)
        replica.table.hand_listeners.append(lambda record, hand: replica.finished.append(record))
        return replica

    def apply(self, seq: int, record: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply one record; the hand records it finished.

        A record the table refused is refused again here (the journal keeps
        attempts), exactly as the table's recovery does.
        """
        pending = books.seat_move(self.table, record)
        try:
            self.table.apply(event_records.from_record(record))
        except IllegalAction:
            pending = None
        if pending is not None:
            move = pending.accepted(seq, self.table)
            if move is not None:
                self.moves.append(move)
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
        stakes = t.config.stakes
        game = (
            "MTT"
            if t.levels is not None
            else (f"{stakes.structure.value} {stakes.small_blind}/{stakes.big_blind}")
        )
        return {
            "seats": seats,
            "game": game,
            "hand": t.hand_number,
            "playing": t.hand is not None,
            "level": level,
            "max_seats": t.config.options.max_seats,
            "button": t.seating.button,
            "big_blind": t.seating.last_big_blind,
            "now": t.now,
        }


STORE_LOST = (psycopg.OperationalError, psycopg.InterfaceError, OSError, asyncio.CancelledError)
"""Failures that are the store's (or the task's), not a message's: the batch is redelivered."""


def _incoming(message: Any) -> Incoming:
    """A JetStream message with what the floor checks: its subject, its message id and
    its stream sequence."""
    headers = message.headers or {}
    msg_id = headers.get("Nats-Msg-Id")
    try:
        stream_seq: int | None = int(message.metadata.sequence.stream)
    except Exception:
        stream_seq = None
    return Incoming(str(message.subject), bytes(message.data), msg_id, stream_seq)


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
    time: float = 0.0
    """The table's wall-clock time when it journaled the record."""


class Ingestor:
    """Consumes the stream into the store.

    :param conn: An open asynchronous PostgreSQL connection (autocommit; each
        record has its own transaction).
    """

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.conn = conn
        self.replicas: dict[str, Replica] = {}
        self.listeners: list[Callable[[Ingested], None]] = []
        self.last_seq: dict[str, int] = {}
        """Each table's last stored record, as this floor knows it."""
        self.stored = 0
        self.duplicates = 0
        self.gaps = 0
        self.parked = 0
        """Messages refused and kept in ``dead_letters``."""
        self.batches = 0
        """Transactions committed by :meth:`consume`."""
        self._sub: Any = None

    async def _replica(self, table_id: str, seq: int) -> Replica | None:
        """The replica ready for record ``seq``, rebuilt from the store if needed."""
        replica = self.replicas.get(table_id)
        if replica is not None and replica.last_seq == seq - 1:
            return replica
        setup, records = await central.table_events(self.conn, table_id)
        if setup is None:
            return None
        replica = Replica.from_setup(table_id, msgpack.unpackb(setup), records[0][0])
        for number, record in records:
            if number >= seq:
                break
            plain = msgpack.unpackb(record)
            if plain.get("kind") == META_KIND:
                replica.last_seq = number  # a chained setting, not a table event
            else:
                replica.apply(number, plain)
        replica.finished.clear()
        replica.moves.clear()  # stored with their records already
        self.replicas[table_id] = replica
        return replica if replica.last_seq == seq - 1 else None

    async def _last(self, table_id: str) -> int:
        """The table's last stored record (cached; read once per table, creating its row)."""
        if table_id not in self.last_seq:
            await self.conn.execute(
                "INSERT INTO tables (id) VALUES (%s) ON CONFLICT (id) DO NOTHING", (table_id,)
            )
            cur = await self.conn.execute(
                "SELECT last_seq FROM tables WHERE id = %s FOR UPDATE", (table_id,)
            )
            row = await cur.fetchone()
            self.last_seq[table_id] = int(row[0]) if row else 0
        return self.last_seq[table_id]

    async def ingest_batch(self, messages: Sequence[bytes | Incoming]) -> list[Ingested | str]:
        """Store a batch of messages in one transaction; for each, what it changed, or
        ``"duplicate"`` (already stored), ``"gap"`` (to be redelivered later) or
        ``"parked"`` (refused: kept in ``dead_letters`` with an alert, see
        :mod:`firmware.floor.store.intake`). A bare body is taken as the table it names
        (tests and benches); a message from NATS keeps the subject it came on.

        If the store fails, nothing of the batch is kept and the caches are
        dropped (rebuilt from the store on the next batch).
        """
        incoming = [m if isinstance(m, Incoming) else Incoming.trusted(m) for m in messages]
        outcomes: list[Ingested | str] = []
        touched: dict[str, Replica] = {}
        try:
            async with self.conn.transaction():
                rows = central.Rows()
                for message in incoming:
                    try:
                        readable = intake.read_message(message)
                    except intake.Refused as refused:
                        await self._park(message, str(refused))
                        outcomes.append("parked")
                        continue
                    outcomes.append(await self._one(readable, touched, rows))
                statuses = {t: replica.status() for t, replica in touched.items()}
                rows.tables.extend(
                    (touched[t].last_seq, Jsonb(status), t) for t, status in statuses.items()
                )
                await central.store_rows(self.conn, rows)  # one round trip per kind of row
        except BaseException:
            self.last_seq.clear()
            self.replicas.clear()
            raise
        for outcome in outcomes:
            if isinstance(outcome, Ingested):
                self.stored += 1
                outcome.status = statuses[outcome.table_id]
                for listener in self.listeners:
                    listener(outcome)
            elif outcome == "duplicate":
                self.duplicates += 1
            elif outcome == "gap":
                self.gaps += 1
        return outcomes

    async def _park(self, message: Incoming, reason: str) -> None:
        self.parked += 1
        log.warning(
            "A message on %s was parked in dead_letters (%s); ingest goes on.",
            message.subject[:200],
            reason,
        )
        await intake.park(self.conn, message, reason)

    async def ingest_each(self, messages: Sequence[Incoming]) -> list[Ingested | str]:
        """Store messages one transaction each, parking any the floor cannot apply
        (after a batch failed on something other than a lost store)."""
        outcomes: list[Ingested | str] = []
        for message in messages:
            try:
                (outcome,) = await self.ingest_batch([message])
            except STORE_LOST:
                raise
            except Exception as exc:
                async with self.conn.transaction():
                    await self._park(message, f"the floor could not apply it ({exc})"[:300])
                outcome = "parked"
            outcomes.append(outcome)
        return outcomes

    async def _one(
        self, msg: intake.Message, touched: dict[str, Replica], rows: central.Rows
    ) -> Ingested | str:
        table_id, seq, setup, record = msg.table_id, msg.seq, msg.setup, msg.record
        last = await self._last(table_id)
        if seq <= last:
            return "duplicate"
        if seq != last + 1 and setup is None:
            return "gap"
        replica: Replica | None
        if setup is not None:
            replica = Replica.from_setup(table_id, setup, seq)
            replica.last_seq = seq - 1
            self.replicas[table_id] = replica
        else:
            replica = await self._replica(table_id, seq)
        if replica is None:
            return "gap"
        rows.events.append(
            (
                table_id,
                seq,
                msg.time,
                msg.kind,
                msgpack.packb(record),
                msgpack.packb(setup) if setup is not None else None,
                Jsonb(intake.plain_json(record)),
                Jsonb(intake.plain_json(setup)) if setup is not None else None,
            )
        )
        if msg.kind == META_KIND:  # a setting chained in the journal, not a table event
            replica.last_seq = seq
            hands: list[dict[str, Any]] = []
        else:
            hands = replica.apply(seq, record)
        rows.hands.extend((table_id, seq, hand, replica.session, msg.time) for hand in hands)
        rows.moves.extend(move.row(table_id, msg.time) for move in replica.moves)
        replica.moves.clear()
        self.last_seq[table_id] = seq
        touched[table_id] = replica
        return Ingested(table_id, seq, msg.kind, hands, {}, msg.time)

    async def ingest(self, body: bytes | Incoming) -> Ingested | None:
        """Store one message; ``None`` for a duplicate or a parked message.

        :raises Gap: if the record does not follow the table's last one.
        """
        (outcome,) = await self.ingest_batch([body])
        if outcome == "gap":
            raise Gap("the record does not follow the table's last stored one")
        return outcome if isinstance(outcome, Ingested) else None

    async def consume(self, js: Any, batch: int = 512, timeout: float = 1.0) -> int:
        """Fetch and ingest one batch; return how many messages were handled.

        What the stream holds already is fetched at once (up to ``batch``
        messages, waiting at most :data:`LINGER` seconds for more); when it
        holds nothing, the fetch waits up to ``timeout`` for the next message
        and ingests it as soon as it comes, so a quiet room is stored within
        milliseconds and a busy one in large transactions. A batch that fails on
        anything but a lost store is ingested again one message at a time, and the
        message that fails alone is parked: no message stops the intake.
        """
        import nats.errors

        sub = await self._subscription(js)
        # (The client raises its own TimeoutError or asyncio's, depending on the moment.)
        try:
            messages = await sub.fetch(batch, timeout=LINGER)
        except (TimeoutError, nats.errors.TimeoutError):
            try:
                messages = await sub.fetch(1, timeout=timeout)
            except (TimeoutError, nats.errors.TimeoutError):
                return 0
        incoming = [_incoming(m) for m in messages]
        try:
            try:
                outcomes = await self.ingest_batch(incoming)
            except STORE_LOST:
                raise
            except Exception as exc:
                log.warning("A batch failed (%s); its messages are ingested one by one.", exc)
                outcomes = await self.ingest_each(incoming)
        except BaseException:
            # The store failed: hand the batch back now rather than after the ack wait.
            for message in messages:
                with contextlib.suppress(Exception):
                    await message.nak(delay=0.5)
            raise
        for message, outcome in zip(messages, outcomes, strict=True):
            if outcome == "gap":
                await message.nak(delay=0.2)
            else:
                await message.ack()
        self.batches += 1
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
