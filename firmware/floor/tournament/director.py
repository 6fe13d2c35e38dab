"""The tournament director: one multi-table tournament, decided by the floor, applied by tables.

The director keeps the room (who sits where) and the standings. It decides
with the pure procedures of :mod:`firmware.floor.tournament.mtt` and acts only through
the tables' commands (:mod:`firmware.floor.messaging.commands`): a player is seated
with chips, taken off with the chips the table says he had, and seated
again elsewhere with exactly those chips, so chips move between tables and
are never created. Every decision is written to PostgreSQL (registrations,
seat assignments with their reason, places and prizes, and the log of
decisions: hand-for-hand, tables held, late entries).

It learns what happened from the ingest (:class:`~firmware.floor.store.ingest.Ingested`,
after the store committed): a hand finished at a table with players at zero
chips eliminates them, placed by the moment the hand ended; then tables
break (TDA-24), are balanced (TDA-25 or HG-4) or merge into the final table
with a new draw (HG-5); a table short three or more players waits until the
players moved to it arrive (TDA-25). Near the money the tables play
hand-for-hand (FLOOR-HFH). The level clock starts, pauses and resumes on
every table at one common instant (TDA-17), so levels and breaks change at
the same moment everywhere.

Commands run as tasks (:class:`~firmware.floor.messaging.commands.CommandQueue`): the
room is updated when the director decides, and a move waiting for the hand
to end at one table holds up nothing else. The commands for one seat keep
their order.

Nothing is sent before it is stored: each command is written to the outbox
(:mod:`firmware.floor.store.outbox`) in one transaction with the state that decided
it (:mod:`firmware.floor.tournament.director_state`), so a floor killed at any moment is
resumed from the store by :mod:`firmware.floor.tournament.resume`.
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

from firmware.errors import IllegalAction
from firmware.floor.messaging.commands import CommandQueue
from firmware.floor.store.conn import StoreConnection
from firmware.floor.store.ingest import Ingested
from firmware.floor.store.outbox import Outbox, Statement
from firmware.floor.tournament import director_state, mtt
from firmware.floor.tournament.orders import Command, Orders
from firmware.floor.tournament.spec import TournamentSpec
from firmware.table.draws import Move, table_should_pause
from firmware.table.tournament import LevelSchedule

__all__ = ["Director", "TournamentSpec"]

log = logging.getLogger(__name__)


@dataclass
class Director(Orders):
    """Runs one tournament over its tables.

    :param spec: The tournament.
    :param conn: PostgreSQL (autocommit; the floor's :class:`StoreConnection` reconnects
        when the server comes back).
    :param command: Sends a command to a table.
    :param rng: The draw's randomness (production: :class:`random.SystemRandom`).
    """

    spec: TournamentSpec
    conn: AsyncConnection[Any] | StoreConnection
    command: Command
    rng: random.Random = field(default_factory=random.SystemRandom)
    room: dict[str, dict[int, str]] = field(default_factory=dict)
    """Who sits where, as decided (a moving player already counts at his new seat)."""
    players: list[str] = field(default_factory=list)
    standings: mtt.Standings | None = None
    status: dict[str, dict[str, Any]] = field(default_factory=dict)
    hfh: mtt.HandForHand[str] | None = None
    hfh_busts: list[mtt.Bust] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    queue: asyncio.Queue[Ingested | None] = field(default_factory=asyncio.Queue)
    started_at: float | None = None
    """Wall-clock instant the level clocks started on every table (TDA-17)."""
    clock_paused_at: float | None = None
    clock_paused: float = 0.0
    """Seconds the level clock was paused before :attr:`clock_paused_at`."""
    gone: dict[str, str] = field(default_factory=dict)
    """Players taken off with no chips before the floor saw the hand that busted them:
    their elimination is recorded when that hand arrives, placed by its moment."""
    entries: dict[str, int] = field(default_factory=dict)
    """Each player's entries so far."""
    live: dict[str, str] = field(default_factory=dict)
    """Each player still in: the name his entry is ranked under."""
    arriving: set[tuple[str, int]] = field(default_factory=set)
    """Seats decided for moving players who have not sat down yet."""
    leaving: dict[str, str] = field(default_factory=dict)
    """Moving players not yet taken off: the table they leave."""
    held: set[str] = field(default_factory=set)
    vanished: dict[str, str] = field(default_factory=dict)
    moving: dict[str, int] = field(default_factory=dict)
    """Each moving player's moves not finished (a player may be moved on before he
    arrives: a table breaks into one that breaks next)."""
    """Seats (``table:seat``) a moving player never reached, busted on the way: a
    later move of his from there takes nobody off."""
    """Tables waiting, three or more players short (TDA-25)."""
    error: str = ""
    """Why the tournament stopped, if a table refused the floor (shown to the staff)."""
    cursor: dict[str, int] = field(default_factory=dict)
    """Each table's last record whose finished hands the director has handled."""
    last_hand: dict[str, int] = field(default_factory=dict)
    """Each table's last hand number the director has handled (a broken table's
    hand-for-hand hand finished but not yet seen is one above it)."""
    hfh_dealt: int | None = None
    """The hand-for-hand round whose deal orders were given."""
    replay: list[Ingested] = field(default_factory=list)
    """Hands stored before a restart that the director had not handled (run first)."""
    repair: Callable[[], Awaitable[None]] | None = None
    """Rebuilt from the store: what to repair before going on (set by
    :func:`firmware.floor.tournament.resume.resume`, which knows the director; the director
    does not know it)."""
    resent: list[asyncio.Task[Any]] = field(default_factory=list)
    """Deal and clock orders given again after a restart."""
    _log: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.orders = CommandQueue(self._fail)
        self.outbox = Outbox(self.spec.id)
        self._sql: list[Statement] = []
        """Statements written with the next state (registrations, places, seats)."""
        self._saving = asyncio.Lock()
        self._stored: dict[str, tuple[int, int | None]] = {}
        """Each entry's place and prize as last written to the store."""
        self._deciding = asyncio.Lock()
        """Held while the director works on one report (a hand, a move that ended), so
        a late entry never lands in the middle of a table breaking or the final draw."""
        self.entry_rules = mtt.EntryRules(self.spec.late_until_level, self.spec.max_entries)

    # ------------------------------------------------------------ before the start

    async def create(self) -> None:
        """Record the tournament."""
        await self.conn.execute(
            "INSERT INTO tournaments (id, name, buy_in, starting_chips) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (id) DO NOTHING",
            (self.spec.id, self.spec.name, self.spec.buy_in, self.spec.starting_chips),
        )

    async def register(self, player: str) -> None:
        """Register a player before the start (one entry; the draw seats everyone);
        after the start, :meth:`enter`."""
        if self.standings is not None:
            raise IllegalAction("The tournament has started: late entries go through the floor.")
        if player in self.players:
            raise IllegalAction(f"{player} is already registered.")
        self.players.append(player)
        self._store_entry(player, self._add_entry(player)[1])
        await self._save_state()

    def _add_entry(self, player: str) -> tuple[str, int]:
        """One more entry for ``player``: its name and number."""
        entry = self.entries.get(player, 0) + 1
        self.entries[player] = entry
        self.live[player] = mtt.entry_name(player, entry)
        return self.live[player], entry

    def _store_entry(self, player: str, entry: int) -> None:
        """Write the entry with the next state."""
        self._sql.append(
            (
                "INSERT INTO players (id, name) VALUES (%s, %s) ON CONFLICT (id) DO NOTHING",
                (player, player),
            )
        )
        self._sql.append(
            (
                "INSERT INTO registrations (tournament_id, player_id, entry) "
                "VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",  # repeated: stored once
                (self.spec.id, player, entry),
            )
        )

    # ------------------------------------------------------------ start

    async def start(self) -> None:
        """Draw every seat over all tables (TDA-13), seat the players with their chips,
        start the level clock on all tables at one instant (TDA-17) and let them deal."""
        spec = self.spec
        draw = mtt.draw_over_tables(self.players, spec.tables, spec.seats_per_table, self.rng)
        self.cursor = await director_state.last_hands(self.conn, spec.tables)
        self.room = {t: {} for t in spec.tables}
        count = len(self.players)
        self.standings = mtt.Standings(count, self._prizes(count))
        for player, seat in draw.items():
            self._seat(player, seat.table, seat.seat, spec.starting_chips, "TDA-13 draw")
        await self.orders.settle()
        await self.clock("start")
        await self._deal_all(None)
        await self._save_state()

    async def clock(self, action: str) -> None:
        """Start, pause or resume the level clock on every table at the same instant
        (TDA-17): each table converts the instant to its own time, so levels and
        breaks change at that moment everywhere, whenever the command arrives."""
        at = time.time()
        tables = list(self.room)
        if action == "start":
            self.started_at = at
        elif action == "pause":
            self.clock_paused_at = at
        elif self.clock_paused_at is not None:
            self.clock_paused += at - self.clock_paused_at
            self.clock_paused_at = None
        entries = [
            self._give(t, {"kind": "levels", "action": action, "at": at}, "levels") for t in tables
        ]
        replies = await asyncio.gather(*(self._deliver(e) for e in entries))
        self._check(list(replies), f"{action} the level clock")
        self._note(f"TDA-17: the level clock {action}s on {len(tables)} tables at once.", "clock")
        await self._save_state()

    def level_now(self) -> tuple[int, bool]:
        """The level in force by the common clock (1-based) and whether it is a break."""
        if not self.spec.levels or self.started_at is None:
            return 1, False
        now = self.clock_paused_at if self.clock_paused_at is not None else time.time()
        schedule = LevelSchedule.from_dicts(list(self.spec.levels))
        position = schedule.position(max(0.0, now - self.started_at - self.clock_paused))
        return position.number, position.on_break

    def _prizes(self, entries: int) -> list[int]:
        return mtt.payouts(self.spec.buy_in * entries, mtt.payout_percentages(entries))

    # ------------------------------------------------------------ late entries (FLOOR-LATE)

    async def enter(self, player: str) -> mtt.Seat[str]:
        """A late registration or a re-entry while the window is open: one more entry,
        a bigger prize pool, and a seat drawn at random at a shortest table (TDA-13).

        :raises IllegalAction: saying why the entry is refused (window closed, the
            player still in, the maximum reached, no empty seat).
        """
        async with self._deciding:
            seat, seated = self._enter(player)
        await self._write_places()  # more entries: the places of those out move down
        await seated  # a move waiting elsewhere does not hold the entry
        await self._save_state()
        return seat

    def _enter(self, player: str) -> tuple[mtt.Seat[str], asyncio.Task[None]]:
        st = self.standings
        if st is None or self.finished.is_set():
            raise IllegalAction("Late entries are taken only while the tournament runs.")
        level, _break = self.level_now()
        self.entry_rules.check(level, self.entries.get(player, 0), player in self.live)
        seat = mtt.draw_late_seat(self.room, self.spec.seats_per_table, self.rng)
        what = "FLOOR-LATE re-entry" if player in self.entries else "FLOOR-LATE late registration"
        # Decided at once (no await until the seat's command is queued), so no other
        # decision can take the seat or slip a command for it in before this one.
        name, entry = self._add_entry(player)
        st.add_entries(1, self._prizes(st.entries + 1))
        self._store_entry(player, entry)  # written with the seat's command
        chips, reason = self.spec.starting_chips, f"{what}, TDA-13 draw"
        seated = self._seat(player, seat.table, seat.seat, chips, reason)
        self._note(
            f"{what}: {name} drew seat {seat.seat} at table {seat.table}; "
            f"{st.entries} entries, prize pool {sum(st.prizes)}.",
            "entry",
        )
        return seat, seated

    # ------------------------------------------------------------ running

    def on_ingested(self, ingested: Ingested) -> None:
        """The ingest's listener: queue what happened for :meth:`run`."""
        self.queue.put_nowait(ingested)

    async def run(self) -> None:
        """Handle what the tables report until the tournament is over."""
        while not self.finished.is_set():
            ingested: Ingested | None
            try:
                if self.replay:
                    ingested = self.replay.pop(0)
                elif self.repair is not None:
                    repair, self.repair = self.repair, None
                    async with self._deciding:
                        await repair()
                    continue
                else:
                    ingested = await self.queue.get()
                async with self._deciding:
                    await self._report(ingested)
            except IllegalAction as exc:
                self._fail(exc)
        await self.orders.cancel()

    async def _report(self, ingested: Ingested | None) -> None:
        """One report: a record with the hands it finished, or ``None``: a move ended
        (or a task failed), so look at the room again."""
        if ingested is None:
            if not self.finished.is_set():
                await self._rearrange()
                await self._hold_short_tables()
                await self._save_state()
            return
        if ingested.seq <= self.cursor.get(ingested.table_id, 0):
            return  # handled before a restart (replayed from the store)
        if ingested.status:
            self.status[ingested.table_id] = ingested.status
        if ingested.hands:
            self.cursor[ingested.table_id] = ingested.seq
        for hand in ingested.hands:
            number = int(hand.get("hand", 0))
            self.last_hand[ingested.table_id] = max(
                number, self.last_hand.get(ingested.table_id, 0)
            )
            await self._hand_finished(ingested.table_id, hand, ingested.time)

    def _fail(self, exc: BaseException) -> None:
        if not self.finished.is_set():
            self.error = str(exc)
            log.error("The tournament stops: %s", exc)
            self.finished.set()
            self.queue.put_nowait(None)

    async def _hand_finished(self, table: str, hand: dict[str, Any], at: float) -> None:
        if self.standings is None or self.finished.is_set():
            return
        seated = self.room.get(table, {})  # a broken table's last hand may still bust players
        busts = []
        for seat, chips in hand["finishing_stacks"].items():
            player = hand["players"].get(seat)
            if chips != 0 or player is None:
                continue
            if player not in self.live:
                continue  # eliminated already
            if self.gone.pop(player, None) is None and self.leaving.get(player) != table:
                if seated.get(int(seat)) != player or (table, int(seat)) in self.arriving:
                    continue
                del seated[int(seat)]
                self._remove(table, int(seat), player)
            start = int(hand["starting_stacks"][seat])
            hfh_round = self.hfh.round if self.hfh is not None else None
            name = self.live.pop(player, player)
            busts.append(mtt.Bust(name, table, int(hand["hand"]), start, hfh_round, at))
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
            await self._hold_short_tables()
            await self._save_state()

    async def _eliminate(self, busts: list[mtt.Bust]) -> None:
        st = self.standings
        assert st is not None
        if busts:
            st.eliminate(busts)
            for bust in busts:
                self._note(f"{bust.player} finishes in place {st.places[bust.player]}.")
            await self._write_places()
        left = [p for s in self.room.values() for p in s.values()]
        if len(left) == 1 and st.left == 1:
            await self.orders.settle()  # the last busted players are taken off first
            st.winner(self.live.get(left[0], left[0]))
            await self._write_places()
            self._note(f"{left[0]} wins the tournament.")
            await self._deal_all(0)
            self.finished.set()
        elif (
            self.hfh is None
            and mtt.hand_for_hand_due(st.left, len(st.prizes))
            and len(self.room) > 1
        ):
            self.hfh = mtt.HandForHand(frozenset(self.room))
            self._note("FLOOR-HFH: hand-for-hand play begins.", "hand_for_hand")
            await self._hand_for_hand_round(first=True)
        elif self.hfh is not None and st.left <= len(st.prizes):
            self._stop_hand_for_hand("FLOOR-HFH: the money is reached; play resumes everywhere.")
            await self._deal_all(None)
        await self._save_state()

    async def _write_places(self) -> None:
        """Store every place or prize that changed (a late hand or entry moves places)."""
        st = self.standings
        assert st is not None
        for name, place in st.places.items():
            if self._stored.get(name) == (place, st.won.get(name)):
                continue
            self._stored[name] = (place, st.won.get(name))
            player, _, entry = name.partition(" #")
            self._sql.append(
                (
                    "UPDATE registrations SET place = %s, prize = %s "
                    "WHERE tournament_id = %s AND player_id = %s AND entry = %s",
                    (place, st.won.get(name), self.spec.id, player, int(entry or 1)),
                )
            )
        await self._save_state()  # the places with the eliminations that gave them

    # ------------------------------------------------------------ hand-for-hand (FLOOR-HFH)

    async def _hand_for_hand_round(self, first: bool = False) -> None:
        """Deal one hand at every table once none is playing (FLOOR-HFH); every order
        is a journaled table event with its round."""
        if self.hfh is None:
            return
        self.hfh = mtt.HandForHand(frozenset(self.room), self.hfh.round)
        if first:
            # Tables finishing the hand they were playing are done for round 0.
            replies = await self._deal_all(0, self.hfh.round)
            playing = {t for t, r in replies.items() if r.get("playing")}
            if playing:  # they finish the hand they are playing first (round 0)
                self.hfh.done = set(self.room) - playing
                self.hfh.round = 0
                return
        self._note(f"FLOOR-HFH: round {self.hfh.round}, one hand at every table.", "hfh_round")
        await self._deal_all(1, self.hfh.round)

    async def _broke_in_hand_for_hand(self, broken: str) -> None:
        """A table broke during hand-for-hand (TDA-24, FLOOR-HFH): it deals no more; if
        its hand of this round is being played, or finished but not yet seen, the round
        waits for that hand; if not, the round may end now."""
        hfh = self.hfh
        if hfh is None:
            return
        playing = False
        if broken in hfh.tables and broken not in hfh.done:
            reply = await self._send(broken, {"kind": "deal", "hands": 0, "round": hfh.round})
            self._check([reply], "stop dealing at a broken table")
            unseen = int(reply.get("hand", 0)) > self.last_hand.get(broken, 0)
            playing = bool(reply.get("playing")) or unseen
        if hfh.table_broke(broken, frozenset(self.room), playing):
            busts, self.hfh_busts = self.hfh_busts, []
            await self._eliminate(busts)
            await self._hand_for_hand_round()

    def _stop_hand_for_hand(self, why: str) -> None:
        self.hfh = None
        self._note(why, "hand_for_hand")
        self.held.clear()  # the orders that follow replace every hold

    # ------------------------------------------------------------ moving players

    async def _rearrange(self) -> None:
        spec = self.spec
        order = spec.break_order or tuple(reversed(spec.tables))
        while len(self.room) > 1:
            broken = mtt.table_to_break(self.room, spec.seats_per_table, order)
            if broken is not None:
                if mtt.tables_needed(self._count(), spec.seats_per_table) == 1:
                    await self._final_table(order)
                    return
                for move in mtt.break_table(self.room, broken, spec.seats_per_table, self.rng):
                    self._move(move)
                del self.room[broken]
                self.held.discard(broken)
                self._note(f"TDA-24: table {broken} broke.")
                await self._broke_in_hand_for_hand(broken)
                if self.finished.is_set():
                    return
                continue
            big_blinds = {t: self._blind(t, "big_blind") for t in self.room}
            buttons = {t: self._blind(t, "button") for t in self.room}
            moves = mtt.balance_room(
                self.room, big_blinds, buttons, spec.method, spec.seats_per_table
            )
            if not moves:
                return
            self._move(moves[0])  # one at a time: the room changes with every move

    async def _final_table(self, order: tuple[str, ...]) -> None:
        """Everyone left fits at one table: draw all seats again there (HG-5)."""
        await self.orders.settle()  # every move under way ends first
        final = next(t for t in reversed(order) if t in self.room)
        seats = mtt.final_table_draw(self.room, final, self.spec.seats_per_table, self.rng)
        moves = [
            Move(player, table, seat, final, seats[player], "HG-5 final table draw")
            for table, seated in self.room.items()
            for seat, player in seated.items()
        ]
        self.room = {final: {}}
        self.held.clear()
        self._moves(moves)  # everyone is taken off before anyone sits down again
        await self._save_state()
        await self.orders.settle()
        self._note(f"HG-5: final table at {final}, every seat drawn again.")
        if self.hfh is not None:
            # Players out in the unfinished hand-for-hand round are out all the same.
            busts, self.hfh_busts = self.hfh_busts, []
            await self._eliminate(busts)
            self._stop_hand_for_hand("FLOOR-HFH: the final table plays on its own.")
        await self._deal_all(None)

    async def _hold_short_tables(self) -> None:
        """A table three or more players short of the fullest waits until the players
        moved to it arrive (TDA-25); it deals again once it is not. Counts the players
        sitting at each table: a moving player counts where he still sits."""
        if self.hfh is not None or len(self.room) < 2 or self.finished.is_set():
            return
        counts = {  # who sits there now: arriving players not yet, leaving ones still
            t: sum(1 for s in seated if (t, s) not in self.arriving)
            + sum(1 for source in self.leaving.values() if source == t)
            for t, seated in self.room.items()
        }
        for table in list(self.room):
            short = table_should_pause(counts, table)
            if short and table not in self.held:
                self.held.add(table)
                gap = max(counts.values()) - counts[table]
                self._note(
                    f"TDA-25: table {table} is {gap} players short; play stops there "
                    "until the players moved to it arrive.",
                    "hold",
                )
                self._check([await self._send(table, {"kind": "deal", "hands": 0})], "hold")
            elif not short and table in self.held:
                self.held.discard(table)
                self._note(f"TDA-25: table {table} is balanced; play resumes there.", "hold")
                self._check([await self._send(table, {"kind": "deal", "hands": None})], "deal")

    # ------------------------------------------------------------ helpers

    async def _deal_all(self, hands: int | None, round_: int = 0) -> dict[str, dict[str, Any]]:
        tables = list(self.room)
        order: dict[str, Any] = {"kind": "deal", "hands": hands, "round": round_}
        entries = [self._give(t, dict(order), f"{t}:deal") for t in tables]
        if hands is None:
            self.held.clear()
        elif hands == 1:
            self.hfh_dealt = round_
        replies = await asyncio.gather(*(self._deliver(e) for e in entries))
        self._check(list(replies), "set the dealing")
        return dict(zip(tables, replies, strict=True))

    def _document(self) -> dict[str, Any]:
        return director_state.document(self)

    def _blind(self, table: str, key: str) -> int:
        value = self.status.get(table, {}).get(key)
        return int(value) if value else min(self.room[table], default=1)

    def _count(self) -> int:
        return sum(len(s) for s in self.room.values())
