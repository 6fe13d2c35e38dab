"""The tournament director's commands: stored before they are sent, and the seat moves.

:class:`Orders` is the part of :class:`~firmware.floor.tournament.director.Director` that
talks to the tables. A command is decided (:meth:`Orders._give`: a row of the
outbox, :mod:`firmware.floor.store.outbox`), written with the director's state in
one transaction (:meth:`Orders._save_state`) and only then sent
(:meth:`Orders._deliver`); the director settles it once it has acted on the
reply. A seat move is one command with a follow-up: the player is taken off
after his hand, then seated at the seat drawn for him with exactly the chips
the table's reply gave, under the id of the first command plus ``-seat``, so
a restarted director finishes a move it began without acting twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from firmware.errors import IllegalAction
from firmware.floor.messaging.commands import CommandQueue
from firmware.floor.store.conn import StoreConnection
from firmware.floor.store.ingest import Ingested
from firmware.floor.store.outbox import Entry, Outbox, Statement, answered, run_transaction
from firmware.floor.tournament.spec import TournamentSpec
from firmware.table.draws import Move

log = logging.getLogger("firmware.floor.tournament.director")

Command = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""Sends a command to a table and returns its reply."""


class Orders:
    """The director's commands and seat moves (a part of the director; its state is there)."""

    spec: TournamentSpec
    conn: AsyncConnection[Any] | StoreConnection
    command: Command
    room: dict[str, dict[int, str]]
    live: dict[str, str]
    gone: dict[str, str]
    arriving: set[tuple[str, int]]
    leaving: dict[str, str]
    vanished: dict[str, str]
    moving: dict[str, int]
    decisions: list[str]
    queue: asyncio.Queue[Ingested | None]
    orders: CommandQueue
    outbox: Outbox
    _sql: list[Statement]
    _saving: asyncio.Lock
    _log: list[tuple[str, str]]

    def _document(self) -> dict[str, Any]:
        """The state to store (:func:`firmware.floor.tournament.director_state.document`)."""
        raise NotImplementedError

    def _move(self, move: Move[str]) -> None:
        """Take the player off (after his hand) and seat him with exactly his chips; the
        room changes now, the tables when the commands are carried out."""
        self._moves([move])

    def _moves(self, moves: list[Move[str]]) -> None:
        """Moves decided together: every player is taken off before any sits down."""
        removals = []
        for move in moves:
            player, source, target = move.player, move.from_table, move.to_table
            if self.room.get(source, {}).get(move.from_seat) == player:
                del self.room[source][move.from_seat]
            self.room[target][move.to_seat] = player
            self.arriving.add((target, move.to_seat))
            # Moved again before he arrived: he still sits where his first move takes him off.
            self.leaving.setdefault(player, source)
            follow = {"table": target, "seat": move.to_seat, "player": player}
            entry = self._give(
                source,
                {"kind": "remove", "seat": move.from_seat, "player": player},
                f"{source}:{move.from_seat}",
                follow | {"reason": move.reason},
            )
            removals.append((entry, self._remove_task(entry, move.from_seat)))
        for entry, removed in removals:
            assert entry.follow is not None
            self._follow(entry, removed)

    def _follow(self, entry: Entry, removed: asyncio.Future[dict[str, Any]]) -> None:
        """The second half of a move: seat the player taken off with the chips he had."""
        assert entry.follow is not None
        player, source, reason = entry.follow["player"], entry.table, entry.follow["reason"]
        target, seat = str(entry.follow["table"]), int(entry.follow["seat"])
        self.moving[player] = self.moving.get(player, 0) + 1

        async def arrive() -> None:
            chips = int((await removed)["chips"])
            self.arriving.discard((target, seat))
            left = self.moving.pop(player, 1) - 1
            if left:
                self.moving[player] = left
            if chips and left:
                self.leaving[player] = target  # he sits there until his next move
            else:
                self.leaving.pop(player, None)
            self.outbox.settle(entry.id)  # the move goes on from here, or ends
            if chips == 0:  # busted in a hand: placed when the floor sees it
                if player in self.live:
                    self.gone[player] = source
                if self.room.get(target, {}).get(seat) == player:
                    del self.room[target][seat]
                self.vanished[f"{target}:{seat}"] = player  # a later move from there: none
                self.queue.put_nowait(None)  # the room changed: balance again
                return
            order = {"kind": "seat", "seat": seat, "player": player, "chips": chips}
            key, follow = f"{target}:{seat}", {"reason": reason}
            sit = self._give(target, order, key, follow, f"{entry.id}-seat")
            await self._sat(sit, reason)
            self._note(f"{player} moves to table {target}, seat {seat} ({reason}).", "move")
            self.queue.put_nowait(None)  # a held table may deal again

        self.orders.after((target, seat), arrive)

    def _remove(self, table: str, seat: int, player: str) -> asyncio.Task[dict[str, Any]]:
        body = {"kind": "remove", "seat": seat, "player": player}
        return self._remove_task(self._give(table, body, f"{table}:{seat}"), seat)

    def _remove_task(self, entry: Entry, seat: int) -> asyncio.Task[dict[str, Any]]:
        async def remove() -> dict[str, Any]:
            player = entry.body["player"]
            if entry.follow is not None and self.vanished.get(entry.key) == player:
                # Moved on again before he arrived, but he busted on the way: he never sat
                # here, so there is nobody to take off (his bust is placed by its hand).
                del self.vanished[entry.key]
                reply = {"ok": True, "chips": 0, "player": player, "error": "", "id": entry.id}
                await answered(self.conn, entry, reply)
                return reply
            reply = await self._deliver(entry)
            self._check([reply], f"take {entry.body['player']} off table {entry.table}")
            if entry.follow is None:
                self.outbox.settle(entry.id)
            return reply

        return self.orders.after((entry.table, seat), remove)

    def _seat(
        self, player: str, table: str, seat: int, chips: int, reason: str
    ) -> asyncio.Task[None]:
        self.room[table][seat] = player
        order = {"kind": "seat", "seat": seat, "player": player, "chips": chips}
        entry = self._give(table, order, f"{table}:{seat}", {"reason": reason})

        async def sit() -> None:
            # A re-entry may draw the seat his busted entry never reached on a move: the
            # mark left for that move (after every earlier command of the seat) is old.
            if self.vanished.get(f"{table}:{seat}") == player:
                del self.vanished[f"{table}:{seat}"]
            await self._sat(entry, reason)

        return self.orders.after((table, seat), sit)

    async def _sat(self, entry: Entry, reason: str) -> None:
        """Send a seat command; its seat assignment is written with the next state."""
        reply = await self._deliver(entry)
        body = entry.body
        self._check([reply], f"seat {body['player']} at table {entry.table}")
        self.outbox.settle(entry.id)
        self._sql.append(
            (
                "INSERT INTO seat_assignments "
                "(tournament_id, player_id, table_id, seat, chips, reason) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (self.spec.id, body["player"], entry.table, body["seat"], body["chips"], reason),
            )
        )

    # ------------------------------------------------------------ the outbox

    def _give(
        self,
        table: str,
        body: dict[str, Any],
        key: str = "",
        follow: dict[str, Any] | None = None,
        command_id: str | None = None,
    ) -> Entry:
        """A command decided now: written with the next state, sent after it."""
        return self.outbox.add(table, key or f"{table}:deal", body, follow, command_id)

    async def _deliver(self, entry: Entry) -> dict[str, Any]:
        """Send a command once it is stored (storing the state now if it is not); keep
        the reply. A command of the outbox is settled by whoever acts on its reply."""
        if not entry.stored:
            await self._save_state(entry)
        reply = await self.command(entry.table, entry.body)
        await answered(self.conn, entry, reply)
        if entry.body.get("kind") in ("deal", "levels"):
            self.outbox.settle(entry.id)
        return reply

    async def _send(self, table: str, body: dict[str, Any]) -> dict[str, Any]:
        """Store, send and settle one command; its reply."""
        key = f"{table}:deal" if body.get("kind") == "deal" else f"{table}:{body.get('kind')}"
        return await self._deliver(self._give(table, body, key))

    def _check(self, replies: list[dict[str, Any]], what: str) -> None:
        for reply in replies:
            if not reply.get("ok"):
                raise IllegalAction(f"A table refused to {what}: {reply.get('error')}")

    def _note(self, text: str, kind: str = "note") -> None:
        log.info(text)
        self.decisions.append(text)
        self._log.append((kind, text))

    async def _save_state(self, needed_for: Entry | None = None) -> None:
        """Write the state, the commands decided since the last write, the statements
        waiting and the log, in one transaction (commands are sent only after it)."""
        async with self._saving:
            if needed_for is not None and needed_for.stored:
                return  # another task's write stored it meanwhile
            entries, statements = self.outbox.take()
            sql, self._sql = self._sql, []
            logged, self._log = self._log, []
            state = Jsonb(self._document())
            await run_transaction(
                self.conn,
                [
                    ("UPDATE tournaments SET state = %s WHERE id = %s", (state, self.spec.id)),
                    *statements,
                    *sql,
                    *(
                        (
                            "INSERT INTO tournament_log (tournament_id, kind, text) "
                            "VALUES (%s, %s, %s)",
                            (self.spec.id, kind, text),
                        )
                        for kind, text in logged
                    ),
                ],
            )
            for entry in entries:
                entry.stored = True
