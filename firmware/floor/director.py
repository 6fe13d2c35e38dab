"""The tournament director: one multi-table tournament, decided by the floor, applied by tables.

The director keeps the room (who sits where) and the standings. It decides
with the pure procedures of :mod:`firmware.floor.mtt` and acts only through
the tables' commands (:mod:`firmware.floor.commands`): a player is seated
with chips, taken off with the chips the table says he had, and seated
again elsewhere with exactly those chips, so chips move between tables and
are never created. Every decision is written to PostgreSQL (registrations,
seat assignments with their reason, places and prizes).

It learns what happened from the ingest (:class:`~firmware.floor.ingest.Ingested`,
after the store committed): a hand finished at a table with players at zero
chips eliminates them; then tables break (TDA-24), are balanced (TDA-25 or
HG-4) or merge into the final table with a new draw (HG-5). Near the money
the tables play hand-for-hand (FLOOR-HFH). The level clock is started on
every table at once (TDA-17): each table then changes level at the same
moment, taking the new blinds from its next hand.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from firmware.errors import IllegalAction
from firmware.floor import mtt
from firmware.floor.ingest import Ingested
from firmware.table.draws import Move

log = logging.getLogger(__name__)

Command = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""Sends a command to a table and returns its reply."""


@dataclass(frozen=True)
class TournamentSpec:
    """A tournament's set-up."""

    id: str
    name: str
    buy_in: int
    starting_chips: int
    tables: tuple[str, ...]
    seats_per_table: int = 9
    method: str = "tda"
    """Balancing: ``tda`` (TDA-25) or ``hg`` (HG-4)."""
    break_order: tuple[str, ...] = ()
    """Tables in the order they break (default: the last listed first)."""
    levels: tuple[dict[str, Any], ...] = ()
    """The blind levels the tables play (for the clock page)."""


@dataclass
class Director:
    """Runs one tournament over its tables.

    :param spec: The tournament.
    :param conn: PostgreSQL (autocommit).
    :param command: Sends a command to a table.
    :param rng: The draw's randomness (production: :class:`random.SystemRandom`).
    """

    spec: TournamentSpec
    conn: AsyncConnection[Any]
    command: Command
    rng: random.Random = field(default_factory=random.SystemRandom)
    room: dict[str, dict[int, str]] = field(default_factory=dict)
    players: list[str] = field(default_factory=list)
    standings: mtt.Standings | None = None
    status: dict[str, dict[str, Any]] = field(default_factory=dict)
    hfh: mtt.HandForHand[str] | None = None
    hfh_busts: list[mtt.Bust] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    queue: asyncio.Queue[Ingested] = field(default_factory=asyncio.Queue)
    started_at: float | None = None
    """Wall-clock time the level clocks started (the clock page counts from it)."""
    gone: dict[str, str] = field(default_factory=dict)
    """Players taken off with no chips before the floor saw the hand that busted them:
    their elimination is recorded when that hand arrives."""
    error: str = ""
    """Why the tournament stopped, if a table refused the floor (shown to the staff)."""

    # ------------------------------------------------------------ before the start

    async def create(self) -> None:
        """Record the tournament."""
        await self.conn.execute(
            "INSERT INTO tournaments (id, name, buy_in, starting_chips) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (id) DO NOTHING",
            (self.spec.id, self.spec.name, self.spec.buy_in, self.spec.starting_chips),
        )

    async def register(self, player: str) -> None:
        """Register a player (one entry; the draw seats everyone registered)."""
        if self.standings is not None:
            raise IllegalAction("Registration is closed: the tournament has started.")
        if player in self.players:
            raise IllegalAction(f"{player} is already registered.")
        self.players.append(player)
        await self.conn.execute(
            "INSERT INTO players (id, name) VALUES (%s, %s) ON CONFLICT (id) DO NOTHING",
            (player, player),
        )
        await self.conn.execute(
            "INSERT INTO registrations (tournament_id, player_id, entry) VALUES (%s, %s, 1)",
            (self.spec.id, player),
        )

    # ------------------------------------------------------------ start

    async def start(self) -> None:
        """Draw every seat over all tables (TDA-13), seat the players with their chips,
        start the level clock on all tables at once (TDA-17) and let them deal."""
        spec = self.spec
        draw = mtt.draw_over_tables(self.players, spec.tables, spec.seats_per_table, self.rng)
        self.room = {t: {} for t in spec.tables}
        pool = spec.buy_in * len(self.players)
        shares = mtt.payout_percentages(len(self.players))
        self.standings = mtt.Standings(len(self.players), mtt.payouts(pool, shares))
        for player, seat in draw.items():
            await self._seat(player, seat.table, seat.seat, spec.starting_chips, "TDA-13 draw")
        replies = await asyncio.gather(
            *(self.command(t, {"kind": "levels", "action": "start"}) for t in spec.tables)
        )
        self._check(replies, "start the level clock")
        self.started_at = time.time()
        self._note(f"TDA-17: the level clock started on {len(spec.tables)} tables at once.")
        await self._deal_all(None)
        await self._save_state()

    # ------------------------------------------------------------ running

    def on_ingested(self, ingested: Ingested) -> None:
        """The ingest's listener: queue what happened for :meth:`run`."""
        self.queue.put_nowait(ingested)

    async def run(self) -> None:
        """Handle what the tables report until the tournament is over."""
        while not self.finished.is_set():
            ingested = await self.queue.get()
            self.status[ingested.table_id] = ingested.status
            for hand in ingested.hands:
                try:
                    await self._hand_finished(ingested.table_id, hand)
                except IllegalAction as exc:
                    self.error = str(exc)
                    log.exception("The tournament stops: %s", exc)
                    self.finished.set()

    async def _hand_finished(self, table: str, hand: dict[str, Any]) -> None:
        if self.standings is None or self.finished.is_set():
            return
        seated = self.room.get(table, {})  # a broken table's last hand may still bust players
        busts = []
        for seat, chips in hand["finishing_stacks"].items():
            player = hand["players"].get(seat)
            if chips != 0 or player is None:
                continue
            if self.gone.pop(player, None) is None:
                if seated.get(int(seat)) != player:
                    continue
                reply = await self.command(
                    table, {"kind": "remove", "seat": int(seat), "player": player}
                )
                self._check([reply], f"take {player} off")
                del seated[int(seat)]
            start = int(hand["starting_stacks"][seat])
            hfh_round = self.hfh.round if self.hfh is not None else None
            busts.append(mtt.Bust(player, table, int(hand["hand"]), start, hfh_round))
        if self.hfh is not None:
            self.hfh_busts.extend(busts)
            if table in self.hfh.tables and self.hfh.hand_finished(table):
                await self._eliminate(self.hfh_busts)
                self.hfh_busts = []
                await self._hand_for_hand_round()
        else:
            await self._eliminate(busts)
        if not self.finished.is_set():
            await self._rearrange()

    async def _eliminate(self, busts: list[mtt.Bust]) -> None:
        st = self.standings
        assert st is not None
        if busts:
            st.eliminate(busts)
            for bust in busts:
                self._note(f"{bust.player} finishes in place {st.places[bust.player]}.")
                await self.conn.execute(
                    "UPDATE registrations SET place = %s, prize = %s "
                    "WHERE tournament_id = %s AND player_id = %s",
                    (st.places[bust.player], st.won.get(bust.player), self.spec.id, bust.player),
                )
        left = [p for s in self.room.values() for p in s.values()]
        if len(left) == 1 and st.left == 1:
            st.winner(left[0])
            await self.conn.execute(
                "UPDATE registrations SET place = 1, prize = %s "
                "WHERE tournament_id = %s AND player_id = %s",
                (st.won.get(left[0]), self.spec.id, left[0]),
            )
            self._note(f"{left[0]} wins the tournament.")
            await self._deal_all(0)
            self.finished.set()
        elif (
            self.hfh is None
            and mtt.hand_for_hand_due(st.left, len(st.prizes))
            and len(self.room) > 1
        ):
            self.hfh = mtt.HandForHand(frozenset(self.room))
            self._note("FLOOR-HFH: hand-for-hand play begins.")
            await self._deal_all(0)
            await self._hand_for_hand_round(first=True)
        elif self.hfh is not None and st.left <= len(st.prizes):
            self.hfh = None
            self._note("FLOOR-HFH: the money is reached; play resumes at every table.")
            await self._deal_all(None)
        await self._save_state()

    async def _hand_for_hand_round(self, first: bool = False) -> None:
        """Deal one hand at every table once none is playing (FLOOR-HFH)."""
        if self.hfh is None:
            return
        self.hfh = mtt.HandForHand(frozenset(self.room), self.hfh.round)
        if first:
            # Tables finishing the hand they were playing are done for round 0.
            replies = await asyncio.gather(
                *(self.command(t, {"kind": "deal", "hands": 0}) for t in self.room)
            )
            playing = {t for t, r in zip(self.room, replies, strict=True) if r.get("playing")}
            self.hfh.done = set(self.room) - playing
            if playing:
                self.hfh.round = 0
                return
        await self._deal_all(1)

    # ------------------------------------------------------------ moving players

    async def _rearrange(self) -> None:
        spec = self.spec
        order = spec.break_order or tuple(reversed(spec.tables))
        while len(self.room) > 1:
            broken = mtt.table_to_break(self.room, spec.seats_per_table, order)
            if broken is not None:
                if mtt.tables_needed(self._count(), spec.seats_per_table) == 1:
                    await self._final_table(broken, order)
                    return
                for move in mtt.break_table(self.room, broken, spec.seats_per_table, self.rng):
                    await self._move(move)
                del self.room[broken]
                self._note(f"TDA-24: table {broken} broke.")
                if self.hfh is not None:
                    self.hfh.tables = frozenset(self.room)
                continue
            big_blinds = {t: self._blind(t, "big_blind") for t in self.room}
            buttons = {t: self._blind(t, "button") for t in self.room}
            moves = mtt.balance_room(
                self.room, big_blinds, buttons, spec.method, spec.seats_per_table
            )
            for move in moves[:1]:  # one at a time: the room changes with every move
                await self._move(move)
            if not moves:
                return

    async def _final_table(self, broken: str, order: tuple[str, ...]) -> None:
        """Everyone left fits at one table: draw all seats again there (HG-5)."""
        final = next(t for t in reversed(order) if t in self.room)
        seats = mtt.final_table_draw(self.room, final, self.spec.seats_per_table, self.rng)
        chips: dict[str, int] = {}
        for table, seated in list(self.room.items()):
            for seat, player in list(seated.items()):
                reply = await self.command(
                    table, {"kind": "remove", "seat": seat, "player": player}
                )
                self._check([reply], f"take {player} off for the final table")
                chips[player] = int(reply["chips"])
                del seated[seat]
        self.room = {final: {}}
        for player, seat in sorted(seats.items(), key=lambda item: item[1]):
            if chips[player] == 0:
                self.gone[player] = final  # busted in a hand the floor has not seen yet
                continue
            await self._seat(player, final, seat, chips[player], "HG-5 final table draw")
        self._note(f"HG-5: final table at {final}, every seat drawn again.")
        if self.hfh is not None:
            # Players out in the unfinished hand-for-hand round are out all the same.
            busts, self.hfh_busts = self.hfh_busts, []
            await self._eliminate(busts)
            self.hfh = None
            await self._deal_all(None)

    async def _move(self, move: Move[str]) -> None:
        reply = await self.command(
            move.from_table, {"kind": "remove", "seat": move.from_seat, "player": move.player}
        )
        self._check([reply], f"take {move.player} off to move him")
        del self.room[move.from_table][move.from_seat]
        if int(reply["chips"]) == 0:
            self.gone[move.player] = move.from_table  # busted in a hand not yet seen
            return
        await self._seat(move.player, move.to_table, move.to_seat, int(reply["chips"]), move.reason)
        self._note(move.reason)

    async def _seat(self, player: str, table: str, seat: int, chips: int, reason: str) -> None:
        reply = await self.command(
            table, {"kind": "seat", "seat": seat, "player": player, "chips": chips}
        )
        self._check([reply], f"seat {player} at table {table}")
        self.room[table][seat] = player
        await self.conn.execute(
            "INSERT INTO seat_assignments (tournament_id, player_id, table_id, seat, chips, reason)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            (self.spec.id, player, table, seat, chips, reason),
        )

    # ------------------------------------------------------------ helpers

    async def _deal_all(self, hands: int | None) -> None:
        replies = await asyncio.gather(
            *(self.command(t, {"kind": "deal", "hands": hands}) for t in self.room)
        )
        self._check(replies, "set the dealing")

    def _blind(self, table: str, key: str) -> int:
        value = self.status.get(table, {}).get(key)
        return int(value) if value else min(self.room[table], default=1)

    def _count(self) -> int:
        return sum(len(s) for s in self.room.values())

    def _check(self, replies: list[dict[str, Any]], what: str) -> None:
        for reply in replies:
            if not reply.get("ok"):
                raise IllegalAction(f"A table refused to {what}: {reply.get('error')}")

    def _note(self, text: str) -> None:
        log.info(text)
        self.decisions.append(text)

    async def _save_state(self) -> None:
        st = self.standings
        state = {
            "room": {t: {str(s): p for s, p in seated.items()} for t, seated in self.room.items()},
            "left": st.left if st else len(self.players),
            "entries": st.entries if st else len(self.players),
            "prizes": st.prizes if st else [],
            "hand_for_hand": self.hfh is not None,
            "levels": list(self.spec.levels),
            "started_at": self.started_at,
            "chips": self.spec.starting_chips * len(self.players),
            "winner": next((p for p, n in (st.places if st else {}).items() if n == 1), ""),
            "finished": self.finished.is_set(),
            "decisions": self.decisions[-20:],
        }
        await self.conn.execute(
            "UPDATE tournaments SET state = %s WHERE id = %s", (Jsonb(state), self.spec.id)
        )
