"""The table's link to the floor: its journal published to NATS JetStream, the floor's commands.

A table with a ``[floor]`` section in its configuration runs a
:class:`FloorLink`; a table without one runs exactly as before (this module
imports the NATS client only when a link starts).

**The journal is the outbox.** Every event is committed to the journal
before it takes effect (:mod:`firmware.service.journal`); the link reads the
journal's records after the last one JetStream acknowledged and publishes
each to ``floor.events.<table>`` with the header ``Nats-Msg-Id:
<table>:<seq>:<token>`` (:meth:`FloorLink.msg_id`), where ``seq`` is the
record's number over the table's whole life (journal rotation carries it on,
see ``Journal.seq_base``) and ``token`` the table's own secret. JetStream
drops a message whose id it has seen within its duplicate window, so a
record published twice (a crash between the publish and saving the cursor,
a reconnection) is stored once. When NATS or the network is gone the table
plays on; the link retries and, once back, catches up from its cursor.

**Commands.** The floor sends requests on ``floor.cmd.<table>`` (seat a
player, take a player off for a move, start, pause or resume the level clock
at a common instant, the dealer's orders for hand-for-hand play); the link
validates each, runs it on the controller's thread as table events
(journaled before they apply, like any other event), and replies with the
outcome. A player is taken off only between hands: that command waits for
the hand to end, and so does a later command for the same seat;
every other command is carried out at once (each request is answered on its
own, never behind another). Each command has an id; the reply is kept in
``floor.sqlite`` (the newest :data:`KEEP_REPLIES`), a repeated id gets the
same reply without acting twice, and a repeat that arrives while the first
is still waiting waits for its answer.

Message format (msgpack): an event is ``{"table", "seq", "time", "kind",
"record", "setup"}`` (``setup`` is the table's set-up on the first record of
each journal file, so the floor can rebuild the table); a command is
``{"id", "kind", ...}`` and its reply ``{"id", "ok", "error", "chips"}``.
The subjects, the ``[floor]`` section, the outbox's records and the commands'
checks are in :mod:`firmware.service.floorwire`; this module is the link itself
(its thread, the failover over the cluster's nodes, publishing, answering).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

import msgpack

from firmware.errors import IllegalAction
from firmware.service.floorwire import (
    COMMANDS,
    EVENTS,
    NOTICES,
    STREAM,
    FloorConfig,
    command_events,
    read_outbox,
)
from firmware.table import events as te
from firmware.table.table import Table

log = logging.getLogger(__name__)

NOTICE_EVERY = 10.0
"""Seconds between two notices when nothing changed (the floor sees the table alive)."""
RETRY = 0.5
"""Seconds the link waits after every node of its list refused it, before the next
round. Journaled records do not cut the wait short: a table that plays while its
network is gone would otherwise try again at every record, many times a second."""
KEEP_REPLIES = 10_000
"""Command replies kept in ``floor.sqlite`` to answer a repeated id (the floor repeats
only commands it has not settled, a handful at a time); older ones are deleted."""


# ------------------------------------------------------------------ the link


class FloorLink:
    """Publishes the journal to the floor and runs the floor's commands.

    :param config: The ``[floor]`` section.
    :param journal_path: The journal file (archives beside it are read too).
    :param data_dir: Where ``floor.sqlite`` keeps the cursor and the replies.
    :param table: The table (read on the table's thread only).
    :param submit: Journals and applies a table event on the table's thread
        (``Controller.submit``); raises ``IllegalAction`` on a refusal.
    :param call_soon: Runs a function on the table's thread (``Controller.call_soon``).
    """

    def __init__(
        self,
        config: FloorConfig,
        journal_path: str,
        data_dir: str,
        table: Table,
        submit: Callable[[te.TableEvent], None],
        call_soon: Callable[[Callable[[], None]], None],
        table_clock: Callable[[], float] | None = None,
    ) -> None:
        self.config = config
        self.table_clock = table_clock
        """The table's time now (``Controller.table_time``); without it the time of
        the table's last event, which may be up to a tick behind."""
        self.journal_path = journal_path
        self.table = table
        self._submit = submit
        self._call_soon = call_soon
        self._db = sqlite3.connect(os.path.join(data_dir, "floor.sqlite"), check_same_thread=False)
        self._db.executescript(
            "CREATE TABLE IF NOT EXISTS cursor (k TEXT PRIMARY KEY, v INTEGER NOT NULL);"
            "CREATE TABLE IF NOT EXISTS commands (id TEXT PRIMARY KEY, reply BLOB NOT NULL);"
        )
        row = self._db.execute("SELECT v FROM cursor WHERE k = 'acked'").fetchone()
        self.acked = int(row[0]) if row else 0
        """The last record JetStream acknowledged."""
        self.msg_token = self._token()
        """This table's secret part of its message ids (see :meth:`msg_id`)."""
        self.connected = False
        self.server = ""
        """The NATS node the link is on (or last tried)."""
        self._server = 0
        self._offline = False
        self.last_error = ""
        self.published = 0
        """Messages published by this process (duplicates included)."""
        self.changed = threading.Condition()
        """Notified whenever :attr:`acked` or :attr:`connected` changes (tests wait on it)."""
        self.on_deal: Callable[[int | None], None] | None = None
        """Told the floor's deal order (FLOOR-HFH, TDA-25): this many more hands, or any
        number (``None``); called on the table's thread after the order was journaled as
        a ``DealOrder`` table event, which the table itself enforces (a shuffle beyond the
        order is refused)."""
        self._pending: list[tuple[dict[str, Any], Callable[[dict[str, Any]], None]]] = []
        """Commands waiting on the table's thread: a move waits for the hand to end,
        a later command for the same seat waits behind it; nothing else waits."""
        self._draining = False
        self._inflight: dict[str, asyncio.Future[dict[str, Any]]] = {}
        """Commands being carried out, by id: a repeat waits for the same answer."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        """Set by :meth:`stop` (ends the wait between two rounds of attempts)."""
        self._lost = asyncio.Event()
        """Set when the connection to the current node is lost."""
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._alerts: list[Any] | None = None
        self._faults: dict[str, str] = {}
        self._alerts_sent = 0
        self._faults_sent: dict[str, str] | None = None
        self._notice_at = 0.0

    def _token(self) -> str:
        """The random number kept in ``floor.sqlite`` (made on first use)."""
        with self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO cursor (k, v) VALUES ('msg_token', ?)",
                (secrets.randbits(63),),
            )
            row = self._db.execute("SELECT v FROM cursor WHERE k = 'msg_token'").fetchone()
        return f"{int(row[0]):016x}"

    def msg_id(self, seq: int) -> str:
        """The ``Nats-Msg-Id`` of record ``seq``: ``<table>:<seq>:<token>``.

        JetStream's duplicate window is one for the whole stream, whatever the
        subject: with ids ``<table>:<seq>`` alone, another table could publish, on its
        own subject, the ids this table uses next and have JetStream drop this table's
        real records as duplicates. The token is this table's secret (no other table
        can read the stream), the same for every republish of a record, so duplicates
        of this table's own records are still dropped and nobody else's can collide.
        """
        return f"{self.config.table}:{seq}:{self.msg_token}"

    def watch(self, alerts: list[Any], faults: dict[str, str]) -> None:
        """Report the controller's alerts (a seat's floor call among them) and its device
        faults to the floor on ``floor.notices.<table>`` (core NATS, best effort: the
        journal does not keep them). Both are read, never changed; ``alerts`` keeps only its
        newest entries, so its ``added`` count (every alert ever appended, when it has one)
        tells which are new."""
        self._alerts = alerts
        self._faults = faults

    # ------------------------------------------------------------ lifecycle (any thread)

    def start(self) -> None:
        """Start the link's thread; the table does not wait for the floor."""
        self._thread = threading.Thread(target=self._run, name="floor-link", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the link and close its files."""
        self._stopping = True
        if self._loop is not None and self._wake is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._wake.set)
        if self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(30)
        self._db.close()

    def wake(self) -> None:
        """A record was journaled: publish soon (thread-safe, never blocks)."""
        if self._loop is not None and self._wake is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._wake.set)

    def wait_for(self, predicate: Callable[[FloorLink], bool], timeout: float = 60.0) -> bool:
        """Wait until ``predicate(self)`` holds (tests and the demo)."""
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self), timeout)

    def _changed(self) -> None:
        with self.changed:
            self.changed.notify_all()

    # ------------------------------------------------------------ the table's thread

    def after_event(self, _controller: object = None) -> None:
        """Run commands that waited for the hand to end (a controller listener)."""
        if self._pending:
            self._drain()

    def _blocked(self, cmd: dict[str, Any], earlier: list[tuple[dict[str, Any], Any]]) -> bool:
        """Whether ``cmd`` must wait: taking a player off waits for the hand's end (nobody
        leaves during a hand, PE-4), and a command for a seat waits behind an earlier one
        for that seat."""
        if cmd.get("kind") not in ("seat", "remove"):
            return False
        seat = cmd.get("seat")
        if any(c.get("seat") == seat and c.get("kind") in ("seat", "remove") for c, _ in earlier):
            return True
        return cmd.get("kind") == "remove" and self.table.hand is not None

    def _drain(self) -> None:
        """Carry out every waiting command that may run now, in the order they came."""
        if self._draining:
            return  # a command's own events call back here; the loop below goes on
        self._draining = True
        try:
            waiting, self._pending = self._pending, []
            for cmd, reply in waiting:
                if self._blocked(cmd, self._pending):
                    self._pending.append((cmd, reply))
                else:
                    reply(self._execute(cmd))
        finally:
            self._draining = False

    def _to_table_time(self, at: float) -> float:
        """The table time of the wall-clock instant ``at`` (clocks kept by NTP)."""
        now = self.table_clock() if self.table_clock is not None else self.table.now
        return now + (at - time.time())

    def _execute(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """Check and apply one command on the table's thread; the reply."""
        answer: dict[str, Any] = {"id": cmd.get("id"), "ok": True, "error": "", "chips": 0}
        try:
            events = command_events(cmd, self.table, self._to_table_time)
            if cmd.get("kind") == "remove":
                sitting = self.table.seating.seats.get(int(cmd["seat"]))
                if sitting is None or sitting.player != cmd.get("player", sitting.player):
                    raise IllegalAction("Nobody by that name sits at that seat; ask the floor.")
                answer["chips"] = sitting.stack
                answer["player"] = sitting.player
            answer["playing"] = self.table.hand is not None
            answer["hand"] = self.table.hand_number
            for event in events:
                self._submit(event)
            if cmd.get("kind") == "deal" and self.on_deal is not None:
                self.on_deal(cmd.get("hands"))  # the dealer's console shows the order
        except IllegalAction as exc:
            answer.update(ok=False, error=str(exc), chips=0)
        return answer

    def _on_table_thread(
        self, cmd: dict[str, Any], reply: Callable[[dict[str, Any]], None]
    ) -> None:
        self._pending.append((cmd, reply))
        self._drain()

    # ------------------------------------------------------------ the link's thread

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        import nats  # the extra 'floor'; only a table with a floor needs it

        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        while not self._stopping:
            nc = None
            self._lost = asyncio.Event()
            refused = ""  # "node": a node refused, others remain; "round": every one did
            try:
                # One node at a time, in turn: a node that is gone is left for the next
                # at once, and a link that lost its node connects to the next one.
                servers = self.config.servers
                server = servers[self._server % len(servers)]
                self.server = server
                nc = await nats.connect(
                    servers=[server],
                    user=self.config.user or None,
                    password=self.config.password or None,
                    nkeys_seed=self.config.seed or None,
                    tls=self.config.ssl_context(),
                    name=f"table-{self.config.table}",
                    inbox_prefix=f"_INBOX_{self.config.table}".encode(),
                    allow_reconnect=False,
                    # One try at this node (the client's own default, even without
                    # reconnects, is to knock on a node that refuses 60 times, 2 s
                    # apart: two minutes on a dead node before the next was tried, and
                    # a link that could not stop meanwhile). The loop below moves on.
                    max_reconnect_attempts=1,
                    reconnect_time_wait=0,
                    error_cb=self._nats_error,
                    disconnected_cb=self._nats_lost,
                    closed_cb=self._nats_lost,
                    connect_timeout=2,
                )
                await nc.subscribe(f"{COMMANDS}.{self.config.table}", cb=self._command)
                self.connected = True
                self._offline = False
                self._changed()
                await self._publish_loop(nc)
            except Exception as exc:  # any failure: offline; the journal keeps the records
                if not self._offline:  # one line per outage, not one per attempt
                    log.info("Floor link offline (%s); the table plays on.", exc)
                self._offline = True
                # The next node of the cluster next time: at once after a lost connection
                # or a node that refused while others remain to be tried; after a round in
                # which every node refused, RETRY seconds later.
                self._server += 1
                if not self.connected:
                    refused = "round" if self._server % len(servers) == 0 else "node"
            finally:
                self.connected = False
                self._changed()
                if nc is not None:
                    with contextlib.suppress(Exception):
                        await nc.close()
            if self._stopping:
                break
            if refused == "round":
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), RETRY)
            elif refused != "node":
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 0.5)
            self._wake.clear()

    async def _nats_lost(self) -> None:
        """The node went away: stop waiting for its acknowledgements."""
        self._lost.set()
        if self._wake is not None:
            self._wake.set()

    async def _nats_error(self, exc: Exception) -> None:
        self.last_error = str(exc)  # the client's own errors: the loop handles them
        log.debug("NATS: %s", exc)

    async def _publish_loop(self, nc: Any) -> None:
        js = nc.jetstream(timeout=5)
        assert self._wake is not None
        while not self._stopping:
            if nc.is_closed or not nc.is_connected:
                raise ConnectionError("the connection to NATS was lost")
            self._wake.clear()
            await self._notices(nc)
            records = read_outbox(self.journal_path, self.acked)
            if not records:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 1.0)
                continue
            table = self.config.table
            publishing = asyncio.ensure_future(
                asyncio.gather(
                    *(
                        js.publish(
                            f"{EVENTS}.{table}",
                            r.message(table),
                            stream=STREAM,
                            headers={"Nats-Msg-Id": self.msg_id(r.seq)},
                        )
                        for r in records
                    )
                )
            )
            # The node going away ends the wait at once (not the acks' timeout): the
            # link connects to the next node and publishes the same records again.
            lost = asyncio.ensure_future(self._lost.wait())
            await asyncio.wait({publishing, lost}, return_when=asyncio.FIRST_COMPLETED)
            lost.cancel()
            if not publishing.done():
                publishing.cancel()
                with contextlib.suppress(BaseException):
                    await publishing
                raise ConnectionError("the connection to NATS was lost")
            try:
                acks = publishing.result()
            except Exception as exc:  # no stream yet, a timeout: keep the connection, retry
                self.last_error = str(exc)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 0.5)
                continue
            self.published += len(acks)
            self.acked = records[-1].seq
            with self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO cursor (k, v) VALUES ('acked', ?)", (self.acked,)
                )
            self._changed()

    async def _notices(self, nc: Any) -> None:
        """Publish new alerts and the current faults, when they changed or now and then."""
        if self._alerts is None:
            return
        total = getattr(self._alerts, "added", len(self._alerts))
        new = min(total - self._alerts_sent, len(self._alerts))
        fresh = self._alerts[len(self._alerts) - new :] if new > 0 else []
        faults = dict(self._faults)
        now = time.monotonic()
        if not fresh and faults == self._faults_sent and now - self._notice_at < NOTICE_EVERY:
            return
        alerts = [
            {
                "time": a.time,
                "text": a.text,
                "device": a.device,
                "key": a.key,
                # A nested error (a driver's, with its own key) goes as its sentence: the
                # floor keeps plain values only.
                "params": {
                    k: v["text"] if isinstance(v, dict) and "text" in v else v
                    for k, v in a.params.items()
                },
            }
            for a in fresh[-100:]
        ]
        body = {"table": self.config.table, "faults": faults, "alerts": alerts}
        await nc.publish(f"{NOTICES}.{self.config.table}", msgpack.packb(body))
        self._alerts_sent = total
        self._faults_sent = faults
        self._notice_at = now

    async def _command(self, msg: Any) -> None:
        try:
            cmd = msgpack.unpackb(msg.data)
            if not isinstance(cmd, dict) or not isinstance(cmd.get("id"), str):
                raise ValueError("a command is a map with an id")
        except Exception:
            await msg.respond(msgpack.packb({"ok": False, "error": "Malformed command."}))
            return
        row = self._db.execute("SELECT reply FROM commands WHERE id = ?", (cmd["id"],)).fetchone()
        if row is not None:
            await msg.respond(row[0])  # a repeated command: the same answer, not twice
            return
        cid: str = cmd["id"]
        done = self._inflight.get(cid)
        first = done is None
        if done is None:
            loop = asyncio.get_running_loop()
            future: asyncio.Future[dict[str, Any]] = loop.create_future()
            self._inflight[cid] = done = future

            def reply(answer: dict[str, Any]) -> None:
                def settle() -> None:
                    if not future.done():
                        future.set_result(answer)

                loop.call_soon_threadsafe(settle)

            # Queued now, in the order the commands came; answered when carried out,
            # so a command waiting for a hand's end holds no other command.
            self._call_soon(lambda: self._on_table_thread(cmd, reply))
        task = asyncio.create_task(self._answer(msg, cid, done, first))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(
        self, msg: Any, cid: str, done: asyncio.Future[dict[str, Any]], first: bool
    ) -> None:
        answer = await done
        body = bytes(msgpack.packb(answer))
        if first:
            with self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO commands (id, reply) VALUES (?, ?)", (cid, body)
                )
                self._db.execute(  # bounded: the newest replies only
                    "DELETE FROM commands WHERE rowid <= (SELECT max(rowid) FROM commands) - ?",
                    (KEEP_REPLIES,),
                )
            self._inflight.pop(cid, None)
        with contextlib.suppress(Exception):  # the floor gave up waiting: it asks again
            await msg.respond(body)
        self.wake()
