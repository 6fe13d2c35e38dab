"""Every tournament ends: the director over many random tournaments, in memory.

The director is run as it is (its decisions, its outbox, its stored state)
against two stand-ins that do in memory what their real counterparts do:

- :class:`MemoryStore` keeps what the director writes (the state document as
  JSON, the outbox's commands and replies, registrations with their places
  and prizes) and what the ingest commits (each finished hand, each table's
  status), and answers the director's and the resume's queries from it. A
  transaction is applied whole (no await inside), as PostgreSQL commits it.
- :class:`Room` plays the tables the way a table's floor link does: a player
  is taken off only between hands (a command for a seat waits behind an
  earlier one for that seat), a repeated command id is answered from the
  stored reply (or waits for the same answer), a deal order limits the hands
  (hand-for-hand, held tables), and a hand moves chips between its players,
  some of whom lose everything.

Each seed draws a tournament: 10-400 players, 6-10 seats a table, random
hand lengths (the order in which hands start and end at the tables) and bust
rates, late registrations and re-entries while the window is open, tables
breaking while others play their hand-for-hand hand, and at a random moment
a floor restart: the director's work is cancelled where it stands and a new
director is rebuilt from the store by :func:`firmware.floor.tournament.resume.resume`
and :func:`~firmware.floor.tournament.resume.recover`, as a restarted floor does. Every
tournament must end with every entry placed once (tied players share the
best of the places they cover), the prize pool paid exactly, and every chip
bought in at the winner's seat.

``POKERTABLE_DIRECTOR_SEEDS`` sets how many seeds run (default 30, so the
test takes well under a minute); ``POKERTABLE_DIRECTOR_SEED0`` the first one.
The real tables, NATS and PostgreSQL are ``tests/test_floor_tournament.py``,
``tests/test_floor_resume.py`` and ``bench/bench_floor_mtt.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from firmware.errors import IllegalAction
from firmware.floor.store.ingest import Ingested
from firmware.floor.tournament import mtt
from firmware.floor.tournament.director import Director, TournamentSpec
from firmware.floor.tournament.resume import recover, resume

SEEDS = int(os.environ.get("POKERTABLE_DIRECTOR_SEEDS", "30"))
SEED0 = int(os.environ.get("POKERTABLE_DIRECTOR_SEED0", "1"))
CHIPS = 1000
BUY_IN = 100


def _json(value: Any) -> Any:
    """What PostgreSQL gives back for a ``jsonb`` value written from ``value``."""
    return json.loads(json.dumps(getattr(value, "obj", value)))


class _Rows:
    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.rows = rows

    async def fetchone(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None

    async def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows


@dataclass
class MemoryStore:
    """The floor's store as the director and the ingest use it, in memory."""

    state: dict[str, Any] | None = None
    commands: dict[str, dict[str, Any]] = field(default_factory=dict)
    registrations: dict[tuple[str, int], list[int | None]] = field(default_factory=dict)
    hands: list[tuple[str, int, dict[str, Any], float]] = field(default_factory=list)
    statuses: dict[str, dict[str, Any]] = field(default_factory=dict)
    writes: int = 0

    @asynccontextmanager
    async def transaction(self) -> Any:
        yield self

    async def execute(self, query: str, params: Any = None) -> _Rows:
        self.writes += 1
        words = " ".join(query.split())
        p = list(params or ())
        if words.startswith(("CREATE ", "INSERT INTO tournaments ", "INSERT INTO players ")):
            return _Rows([])
        if words.startswith(
            (
                "INSERT INTO seat_assignments",
                "INSERT INTO tournament_log",
                "INSERT INTO tables (id)",  # the store's foreign keys (tables named first)
                "DELETE FROM floor_commands WHERE settled",  # the outbox's retention
            )
        ):
            return _Rows([])
        if words.startswith("UPDATE tournaments SET state"):
            self.state = getattr(p[0], "obj", p[0])  # a new document each time: read as JSON
            return _Rows([])
        if words.startswith("INSERT INTO floor_commands"):
            _t, cid, table, key, body, follow = p
            self.commands.setdefault(
                cid,
                {
                    "n": len(self.commands),
                    "table": table,
                    "key": key,
                    "body": getattr(body, "obj", body),
                    "follow": getattr(follow, "obj", follow),
                    "reply": None,
                    "settled": False,
                },
            )
            return _Rows([])
        if words.startswith("UPDATE floor_commands SET settled"):
            for cid in p[0]:
                self.commands[cid]["settled"] = True
            return _Rows([])
        if words.startswith("UPDATE floor_commands SET reply"):
            self.commands[p[1]]["reply"] = getattr(p[0], "obj", p[0])
            return _Rows([])
        if words.startswith("INSERT INTO registrations"):
            self.registrations.setdefault((p[1], int(p[2])), [None, None])
            return _Rows([])
        if words.startswith("UPDATE registrations SET place"):
            self.registrations[(p[3], int(p[4]))] = [p[0], p[1]]
            return _Rows([])
        if words.startswith("SELECT state FROM tournaments"):
            return _Rows([] if self.state is None else [(_json(self.state),)])
        if words.startswith("SELECT table_id, max(seq) FROM hands"):
            last: dict[str, int] = {}
            for table, seq, _r, _at in self.hands:
                if table in p[0]:
                    last[table] = max(last.get(table, 0), seq)
            return _Rows(list(last.items()))
        if words.startswith("SELECT h.table_id, h.seq, h.record, e.time"):
            tables, cursor = p[0], _json(p[1])
            rows = [
                (t, seq, record, at)
                for t, seq, record, at in self.hands
                if t in tables and seq > int(cursor.get(t, 0))
            ]
            return _Rows(sorted(rows, key=lambda r: (r[3], r[0], r[1])))
        if words.startswith("SELECT id, table_id, key, body, follow, reply FROM floor_commands"):
            open_ = sorted((c["n"], cid, c) for cid, c in self.commands.items() if not c["settled"])
            return _Rows(
                [
                    (
                        cid,
                        c["table"],
                        c["key"],
                        _json(c["body"]),
                        _json(c["follow"]),
                        _json(c["reply"]),
                    )
                    for _n, cid, c in open_
                ]
            )
        if words.startswith("SELECT id, status FROM tables"):
            return _Rows([(t, s) for t, s in self.statuses.items() if t in p[0]])
        raise AssertionError(f"The director asked the store something new: {words}")


@dataclass
class SimTable:
    """One table as its floor link answers the floor."""

    name: str
    seats: dict[int, list[Any]] = field(default_factory=dict)
    hand: dict[str, Any] | None = None
    deal: int | None = None
    seq: int = 0
    number: int = 0
    replies: dict[str, dict[str, Any]] = field(default_factory=dict)
    waiting: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    pending: list[tuple[dict[str, Any], asyncio.Future[dict[str, Any]]]] = field(
        default_factory=list
    )

    def blocked(self, cmd: dict[str, Any], earlier: list[dict[str, Any]]) -> bool:
        if cmd["kind"] not in ("seat", "remove"):
            return False
        if any(c["kind"] in ("seat", "remove") and c["seat"] == cmd["seat"] for c in earlier):
            return True
        return cmd["kind"] == "remove" and self.hand is not None

    def execute(self, cmd: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        reply: dict[str, Any] = {"id": cmd["id"], "ok": True, "error": "", "chips": 0}
        kind = cmd["kind"]
        if kind == "seat":
            if cmd["seat"] in self.seats:
                reply.update(ok=False, error=f"Seat {cmd['seat']} at {self.name} is taken.")
            else:
                self.seats[cmd["seat"]] = [cmd["player"], cmd["chips"]]
        elif kind == "remove":
            sitting = self.seats.get(cmd["seat"])
            if sitting is None or sitting[0] != cmd["player"]:
                reply.update(ok=False, error=f"{cmd['player']} is not at {self.name}.")
            else:
                del self.seats[cmd["seat"]]
                reply.update(chips=sitting[1], player=sitting[0])
        elif kind == "deal":
            self.deal = cmd["hands"]
        reply["playing"] = self.hand is not None
        reply["hand"] = self.number
        self.replies[cmd["id"]] = reply
        return reply

    def drain(self) -> None:
        """Carry out the commands that may run now, in the order they came."""
        waiting, self.pending = self.pending, []
        for cmd, future in waiting:
            if self.blocked(cmd, [c for c, _f in self.pending]):
                self.pending.append((cmd, future))
            else:
                self.waiting.pop(cmd["id"], None)
                future.set_result(self.execute(cmd))

    def may_deal(self) -> bool:
        return (
            self.hand is None
            and self.deal != 0
            and sum(1 for _p, c in self.seats.values() if c > 0) >= 2
        )


class Room:
    """The tables of one tournament, played by the test."""

    def __init__(self, names: tuple[str, ...], rng: random.Random) -> None:
        self.tables = {n: SimTable(n) for n in names}
        self.rng = rng
        self.commands = 0

    async def command(self, table: str, cmd: dict[str, Any]) -> dict[str, Any]:
        self.commands += 1
        t = self.tables[table]
        if cmd["id"] in t.replies:
            return t.replies[cmd["id"]]
        if cmd["id"] in t.waiting:  # repeated while the first is still waiting
            return await asyncio.shield(t.waiting[cmd["id"]])
        if t.blocked(cmd, [c for c, _f in t.pending]):
            future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            t.pending.append((dict(cmd), future))
            t.waiting[cmd["id"]] = future
            return await asyncio.shield(future)
        return t.execute(cmd)

    def start_hand(self, t: SimTable) -> None:
        if t.deal is not None:
            t.deal -= 1
        t.number += 1
        t.seq += 1
        t.hand = {"start": {s: c for s, (_p, c) in t.seats.items()}}

    def end_hand(
        self, t: SimTable, bust_rate: float, at: float, busts: int | None = None
    ) -> Ingested:
        """The hand ends: one winner takes what the others lose (some lose it all;
        with ``busts``, exactly that many lose it all and nobody else loses)."""
        assert t.hand is not None
        start = t.hand["start"]
        playing = [s for s, c in start.items() if c > 0 and s in t.seats]
        winner = self.rng.choice(playing)
        out = self.rng.sample([s for s in playing if s != winner], busts or 0)
        for seat in playing:
            if seat == winner or (busts is None and self.rng.random() < 0.4):
                continue  # folded: loses nothing
            if busts is not None and seat not in out:
                continue
            stack = t.seats[seat][1]
            lost = (
                stack
                if busts is not None or self.rng.random() < bust_rate
                else self.rng.randrange(stack)
            )
            t.seats[seat][1] -= lost
            t.seats[winner][1] += lost
        t.seq += 1
        t.hand = None
        record = {
            "hand": t.number,
            "players": {str(s): p for s, (p, _c) in t.seats.items()},
            "starting_stacks": {str(s): start.get(s, c) for s, (_p, c) in t.seats.items()},
            "finishing_stacks": {str(s): c for s, (_p, c) in t.seats.items()},
        }
        ordered = sorted(t.seats)
        status = {
            "button": ordered[t.number % len(ordered)] if ordered else 1,
            "big_blind": ordered[(t.number + 2) % len(ordered)] if ordered else 1,
        }
        return Ingested(t.name, t.seq, "act", [record], status, at)

    def chips(self) -> list[tuple[str, int]]:
        return [(p, c) for t in self.tables.values() for p, c in t.seats.values()]


def places_complete(places: list[int]) -> bool:
    """Places 1..N, one winner; tied entries share the best of the places they cover."""
    ordered = sorted(places)
    if ordered.count(1) != 1:
        return False
    return all(p == k or (p < k and p == ordered[k - 2]) for k, p in enumerate(ordered, 1))


@dataclass
class Outcome:
    entries: int
    steps: int
    restarted: bool
    tables_broken: int
    hand_for_hand: bool
    broke_mid_round: int
    late_entries: int


BROKE_MID_ROUND: list[str] = []
"""Tables that broke while their hand-for-hand hand was still being played (seen, not changed)."""

_table_broke = mtt.HandForHand.table_broke


def _watch_break(
    self: mtt.HandForHand[str], table: str, left: frozenset[str], playing: bool
) -> bool:
    if playing and table in self.tables and table not in self.done:
        BROKE_MID_ROUND.append(table)
    return _table_broke(self, table, left, playing)


async def _quiet(store: MemoryStore, room: Room, director: Director) -> None:
    """Let the director's tasks run until nothing moves any more (no clock involved)."""
    idle, last = 0, None
    for _ in range(200_000):  # a guard against a livelock only
        mark = (store.writes, room.commands, director.queue.qsize(), len(director.decisions))
        idle = idle + 1 if mark == last else 0
        last = mark
        if idle >= 25:
            return
        await asyncio.sleep(0)
    raise AssertionError("The director never came to rest.")


async def _stop(director: Director, running: asyncio.Task[None], extra: list[Any]) -> None:
    """The floor dies: the director's work stops where it stands."""
    running.cancel()
    for task in extra:
        task.cancel()
    await director.orders.cancel()
    await asyncio.gather(running, *extra, return_exceptions=True)


async def tournament(seed: int) -> Outcome:
    """One random tournament to its end; raises if it does not end correctly."""
    rng = random.Random(seed)
    BROKE_MID_ROUND.clear()
    players = rng.randint(10, 400)
    seats = rng.randint(6, 10)
    count = -(-players // seats) + rng.randint(0, 2)
    names = tuple(f"T{n}" for n in range(1, count + 1))
    late = rng.random() < 0.7
    spec = TournamentSpec(
        f"mtt{seed}",
        "Property",
        BUY_IN,
        CHIPS,
        names,
        seats,
        method=rng.choice(["tda", "hg"]),
        late_until_level=1 if late else 0,
        max_entries=rng.randint(1, 3),
    )
    bust_rate = rng.uniform(0.05, 0.4)
    speed = {name: rng.uniform(0.05, 1.0) for name in names}
    store, room = MemoryStore(), Room(names, random.Random(seed * 7919))
    director = Director(spec, store, room.command, random.Random(seed))  # type: ignore[arg-type]
    await director.create()
    for number in range(players):
        await director.register(f"p{number}")
    await director.start()
    running = asyncio.create_task(director.run())
    entering: list[asyncio.Task[Any]] = []
    late_steps = rng.randint(0, 300) if late else 0
    restart_at = rng.randint(1, 3 * players)
    restarted = False
    at = 1_000.0
    step = 0
    while not director.finished.is_set():
        step += 1
        assert step < 500_000, "The tournament does not end."
        await _quiet(store, room, director)
        if running.done():
            running.result()  # the director's own failure, as it is
        if director.finished.is_set():
            break
        if step == restart_at:  # the floor dies here and is started again
            await _stop(director, running, entering)
            entering = []
            rebuilt = await resume(store, room.command, spec.id, random.Random(seed + 1))  # type: ignore[arg-type]
            assert rebuilt is not None
            director, restarted = rebuilt, True
            await recover(director)
            running = asyncio.create_task(director.run())
            continue
        if step < late_steps and rng.random() < 0.05:
            out = [p for p in director.entries if p not in director.live]
            who = rng.choice(out) if out and rng.random() < 0.5 else f"late{step}"
            entry = asyncio.create_task(director.enter(who))
            entering.append(entry)
            continue
        playing = [t for t in room.tables.values() if t.hand is not None]
        ready = [t for t in room.tables.values() if t.may_deal()]
        if not playing and not ready:
            stuck = "\n  ".join(director.decisions[-12:])
            hfh = director.hfh
            tables = {t.name: (t.deal, len(t.seats), len(t.pending)) for t in room.tables.values()}
            raise AssertionError(
                f"seed {seed}: the tournament stalled: hand-for-hand "
                f"{hfh and (hfh.round, sorted(hfh.tables), sorted(hfh.done))}, room "
                f"{ {t: len(s) for t, s in director.room.items()} }, held {sorted(director.held)}, "
                f"tables (deal, seated, waiting) {tables}; last decisions:\n  {stuck}"
            )
        if ready and (not playing or rng.random() < 0.5):
            room.start_hand(rng.choice(ready))
            continue
        # Hands take longer at some tables than at others (a slow table is still
        # playing its hand-for-hand hand when busts elsewhere break it).
        table = rng.choices(playing, [speed[t.name] for t in playing])[0]
        at += rng.uniform(1.0, 90.0)
        ingested = room.end_hand(table, bust_rate, at)
        store.hands.append((table.name, ingested.seq, ingested.hands[0], at))
        store.statuses[table.name] = ingested.status
        director.on_ingested(ingested)
        table.drain()
    for entry in entering:  # an entry refused (no seat, window) says why; none is lost
        if entry.done() and entry.exception() is not None:
            assert isinstance(entry.exception(), IllegalAction)
    await asyncio.wait_for(running, timeout=None)
    assert director.error == "", f"seed {seed}: {director.error}"
    st = director.standings
    assert st is not None
    entries = sum(director.entries.values())
    assert st.entries == entries == len(store.registrations)
    places = [place for place, _prize in store.registrations.values()]
    assert None not in places, f"seed {seed}: an entry was never placed"
    assert places_complete([int(p) for p in places if p is not None]), sorted(places)  # type: ignore[type-var]
    assert sum(prize or 0 for _place, prize in store.registrations.values()) == entries * BUY_IN
    holding = [(p, c) for p, c in room.chips() if c > 0]
    assert sum(c for _p, c in room.chips()) == entries * CHIPS
    assert len(holding) == 1, f"seed {seed}: chips left at {holding}"
    champion = st.champion.partition(" #")[0]
    assert holding[0][0] == champion and holding[0][1] == entries * CHIPS
    text = "\n".join(director.decisions)
    return Outcome(
        entries,
        step,
        restarted,
        text.count(" broke."),
        "hand-for-hand play begins" in text,
        len(BROKE_MID_ROUND),
        entries - players,
    )


def _seeds() -> Iterator[int]:
    return iter(range(SEED0, SEED0 + SEEDS))


@pytest.mark.soak
def test_every_random_tournament_ends_with_everyone_placed_and_paid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hundreds of random tournaments (``POKERTABLE_DIRECTOR_SEEDS``) end correctly."""
    monkeypatch.setattr(mtt.HandForHand, "table_broke", _watch_break)
    outcomes = [asyncio.run(tournament(seed)) for seed in _seeds()]
    print(
        f"{len(outcomes)} tournaments, {sum(o.entries for o in outcomes)} entries, "
        f"{sum(o.restarted for o in outcomes)} restarted, "
        f"{sum(o.hand_for_hand for o in outcomes)} with hand-for-hand, "
        f"{sum(o.broke_mid_round > 0 for o in outcomes)} with a table broken mid-round, "
        f"{sum(o.late_entries > 0 for o in outcomes)} with late entries or re-entries"
    )
    # The draw met what it is meant to meet, or the property says little.
    assert sum(o.restarted for o in outcomes) >= len(outcomes) // 2
    assert sum(o.hand_for_hand for o in outcomes) >= len(outcomes) // 2
    assert sum(o.tables_broken > 0 for o in outcomes) >= len(outcomes) // 2
    assert sum(o.broke_mid_round > 0 for o in outcomes) >= 1  # the 1,000-player stall
    assert sum(o.late_entries > 0 for o in outcomes) >= len(outcomes) // 4


def test_a_table_breaking_while_it_plays_its_hand_for_hand_hand_ends_the_round_later() -> None:
    """The 1,000-player stall, met exactly: on the bubble two tables finish their
    hand-for-hand hand with a bust each, which lets the third break (TDA-24) while
    it still plays its own; the round ends when that hand does (its bust is out in
    this round), the next round is dealt at the tables left, and the tournament
    goes on to its end."""

    async def play() -> None:
        rng = random.Random(3)
        names = ("T1", "T2", "T3", "T4", "T5", "T6")
        spec = TournamentSpec("bubble", "Bubble", BUY_IN, CHIPS, names, 4)
        store, room = MemoryStore(), Room(names, random.Random(3))
        director = Director(spec, store, room.command, random.Random(3))  # type: ignore[arg-type]
        await director.create()
        for number in range(22):  # 9 paid: hand-for-hand with 10 left
            await director.register(f"p{number}")
        await director.start()
        running = asyncio.create_task(director.run())
        at = 0.0

        async def hand(t: SimTable, busts: int, end: bool = True) -> None:
            nonlocal at
            if t.hand is None:
                room.start_hand(t)
            if end:
                at += 1.0
                ingested = room.end_hand(t, 0.0, at, busts)
                store.hands.append((t.name, ingested.seq, ingested.hands[0], at))
                director.on_ingested(ingested)
                t.drain()
            await _quiet(store, room, director)

        while director.hfh is None:  # one bust a hand until the bubble
            await hand(rng.choice([t for t in room.tables.values() if t.may_deal()]), 1)
        hfh = director.hfh
        tables = [room.tables[t] for t in sorted(director.room)]
        assert len(tables) == 3 and all(t.deal == 1 for t in tables), director.decisions[-5:]
        slow = next(t for t in tables if t.name == min(director.room, key=names[::-1].index))
        for t in tables:
            await hand(t, 0, end=False)  # every table deals its round hand
        for t in tables:
            if t is not slow:
                await hand(t, 1)  # two busts: 8 left fit at two tables of 4
        assert slow.name not in director.room, "the slow table did not break"
        assert slow.hand is not None and director.hfh is hfh and hfh.round == 1
        assert all(t.deal == 0 for t in tables)  # the round waits for the slow table
        await hand(slow, 1)
        assert director.hfh is None or director.hfh.round == 2
        assert all(room.tables[t].deal != 0 for t in director.room), "no table was told to deal"
        while not director.finished.is_set():
            await hand(rng.choice([t for t in room.tables.values() if t.may_deal()]), 1)
        await running
        assert director.error == ""
        places = [place for place, _prize in store.registrations.values()]
        assert places_complete([int(p or 0) for p in places]), places
        assert sum(prize or 0 for _p, prize in store.registrations.values()) == 22 * BUY_IN
        assert [c for _p, c in room.chips() if c] == [22 * CHIPS]

    asyncio.run(play())


@pytest.mark.parametrize("seed", [4, 125])
def test_one_tournament_with_late_entries_and_a_restart(seed: int) -> None:
    """One seed on its own (a failing seed of the loop above is rerun like this).
    Seed 125: a re-entry drew the seat his busted first entry never reached on a move;
    the mark left for that move made the director take nobody off when the table
    broke, and lose the player from the room while he sat there with his chips."""
    outcome = asyncio.run(tournament(seed))
    assert outcome.entries >= 10
