"""The tournament director's state as stored, and a director rebuilt from it.

The director writes everything it needs to go on into ``tournaments.state``
(one JSON document, written in one transaction with the commands it decided,
:mod:`firmware.floor.store.outbox`): the set-up, the room, the entries, every
elimination with the moment of its hand, the clock, hand-for-hand, the held
tables, the players moving or taken off, and the *cursor*: for each table the
last record whose finished hands the director has handled. The same document
carries what the dashboard and the clock page show (players left, prizes,
level, decisions), under the keys they read.

:func:`restore` fills a new director from that document; what happened after
it was written comes from the store: the hands stored after the cursor
(:func:`hands_after`) and the commands not settled (the outbox).
"""

from __future__ import annotations

import asyncio
from dataclasses import fields
from typing import Any, Protocol

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from firmware.floor.store.conn import StoreConnection
from firmware.floor.store.ingest import Ingested
from firmware.floor.tournament import mtt
from firmware.floor.tournament.spec import TournamentSpec

Conn = AsyncConnection[Any] | StoreConnection


class Stored(Protocol):
    """What of a director is stored and restored (the director is one; this module
    does not know the director, so nothing imports back)."""

    spec: TournamentSpec
    room: dict[str, dict[int, str]]
    players: list[str]
    standings: mtt.Standings | None
    hfh: mtt.HandForHand[str] | None
    hfh_busts: list[mtt.Bust]
    hfh_dealt: int | None
    decisions: list[str]
    finished: asyncio.Event
    started_at: float | None
    clock_paused_at: float | None
    clock_paused: float
    gone: dict[str, str]
    entries: dict[str, int]
    live: dict[str, str]
    arriving: set[tuple[str, int]]
    leaving: dict[str, str]
    held: set[str]
    vanished: dict[str, str]
    error: str
    cursor: dict[str, int]
    last_hand: dict[str, int]

    def level_now(self) -> tuple[int, bool]:
        """The level in force and whether it is a break."""
        ...


def spec_document(spec: TournamentSpec) -> dict[str, Any]:
    """The set-up as JSON (written at every decision: built by hand, not by the
    slower recursive :func:`dataclasses.asdict`)."""
    document = {f.name: getattr(spec, f.name) for f in fields(spec)}
    document["tables"] = list(spec.tables)
    document["break_order"] = list(spec.break_order)
    document["levels"] = [dict(level) for level in spec.levels]
    return document


def spec_from(document: dict[str, Any]) -> TournamentSpec:
    """The set-up stored by :func:`spec_document`."""
    return TournamentSpec(
        id=str(document["id"]),
        name=str(document["name"]),
        buy_in=int(document["buy_in"]),
        starting_chips=int(document["starting_chips"]),
        tables=tuple(document["tables"]),
        seats_per_table=int(document["seats_per_table"]),
        method=str(document["method"]),
        break_order=tuple(document["break_order"]),
        levels=tuple(document["levels"]),
        late_until_level=int(document["late_until_level"]),
        max_entries=int(document["max_entries"]),
    )


def document(d: Stored) -> dict[str, Any]:
    """Everything a restarted director needs, and what the pages show."""
    st = d.standings
    level, on_break = d.level_now()
    hfh = d.hfh
    return {
        # Shown by the dashboard and the clock page.
        "room": {t: {str(s): p for s, p in seated.items()} for t, seated in d.room.items()},
        "left": st.left if st else len(d.players),
        "entries": st.entries if st else len(d.players),
        "prizes": st.prizes if st else [],
        "hand_for_hand": hfh is not None,
        "hfh_round": hfh.round if hfh is not None else None,
        "held": sorted(d.held),
        "level": level,
        "on_break": on_break,
        "late_open": bool(st) and level <= d.spec.late_until_level,
        "levels": list(d.spec.levels),
        "started_at": d.started_at,
        "clock_paused_at": d.clock_paused_at,
        "clock_paused": d.clock_paused,
        "chips": d.spec.starting_chips * (st.entries if st else len(d.players)),
        "winner": st.champion if st else "",
        "finished": d.finished.is_set(),
        "decisions": d.decisions[-20:],
        # For a restarted director only.
        "spec": spec_document(d.spec),
        "started": st is not None,
        "players": list(d.players),
        "entry_counts": dict(d.entries),
        "live": dict(d.live),
        "busts": [_bust(b) for b in st.busts] if st else [],
        "hfh": (
            {"round": hfh.round, "done": sorted(hfh.done), "tables": sorted(hfh.tables)}
            if hfh is not None
            else None
        ),
        "hfh_busts": [_bust(b) for b in d.hfh_busts],
        "hfh_dealt": d.hfh_dealt,
        "gone": dict(d.gone),
        "arriving": sorted([t, s] for t, s in d.arriving),
        "leaving": dict(d.leaving),
        "vanished": dict(d.vanished),
        "cursor": dict(d.cursor),
        "last_hand": dict(d.last_hand),
        "error": d.error,
    }


def _bust(b: mtt.Bust) -> list[Any]:
    return [b.player, b.table, b.hand, b.chips_at_start, b.round, b.at]


def _bust_from(row: list[Any]) -> mtt.Bust:
    player, table, hand, chips, round_, at = row
    return mtt.Bust(
        str(player), str(table), int(hand), int(chips), None if round_ is None else int(round_), at
    )


def restore(d: Stored, state: dict[str, Any]) -> None:
    """Fill a new director (built with the stored set-up) from its stored state."""
    d.room = {t: {int(s): p for s, p in seated.items()} for t, seated in state["room"].items()}
    d.players = list(state["players"])
    d.entries = {p: int(n) for p, n in state["entry_counts"].items()}
    d.live = dict(state["live"])
    if state["started"]:
        st = mtt.Standings(int(state["entries"]), [int(p) for p in state["prizes"]])
        st.busts = [_bust_from(b) for b in state["busts"]]
        st.champion = str(state["winner"])
        st.rank()
        d.standings = st
    hfh = state["hfh"]
    if hfh is not None:
        d.hfh = mtt.HandForHand(frozenset(hfh["tables"]), int(hfh["round"]), set(hfh["done"]))
    d.hfh_busts = [_bust_from(b) for b in state["hfh_busts"]]
    d.hfh_dealt = state["hfh_dealt"]
    d.held = set(state["held"])
    d.started_at = state["started_at"]
    d.clock_paused_at = state["clock_paused_at"]
    d.clock_paused = float(state["clock_paused"])
    d.gone = dict(state["gone"])
    d.arriving = {(str(t), int(s)) for t, s in state["arriving"]}
    d.leaving = dict(state["leaving"])
    d.vanished = dict(state.get("vanished", {}))
    d.cursor = {t: int(n) for t, n in state["cursor"].items()}
    d.last_hand = {t: int(n) for t, n in state.get("last_hand", {}).items()}
    d.decisions = list(state["decisions"])
    d.error = str(state.get("error", ""))
    if state["finished"]:
        d.finished.set()


async def load(conn: Conn, tournament: str) -> dict[str, Any] | None:
    """A tournament's stored state, or ``None`` if it has none a director can resume."""
    cur = await conn.execute("SELECT state FROM tournaments WHERE id = %s", (tournament,))
    row = await cur.fetchone()
    if row is None or not isinstance(row[0], dict) or "spec" not in row[0]:
        return None
    return dict(row[0])


async def running(conn: Conn) -> list[str]:
    """The tournaments a restarted floor resumes: recorded by a director, not finished."""
    cur = await conn.execute(
        "SELECT id FROM tournaments WHERE state ? 'spec' "
        "AND NOT coalesce((state->>'finished')::boolean, false) "
        "AND coalesce(state->>'error', '') = '' ORDER BY created"
    )
    return [str(row[0]) for row in await cur.fetchall()]


async def last_hands(conn: Conn, tables: tuple[str, ...]) -> dict[str, int]:
    """Each table's last stored record with a finished hand (the cursor at the start)."""
    cur = await conn.execute(
        "SELECT table_id, max(seq) FROM hands WHERE table_id = ANY(%s) GROUP BY table_id",
        (list(tables),),
    )
    return {str(t): int(n) for t, n in await cur.fetchall()}


async def hands_after(conn: Conn, cursor: dict[str, int], tables: list[str]) -> list[Ingested]:
    """The hands stored after the cursor, as the ingest reported them (one per record,
    with the table's time of the record), in the order they ended."""
    cur = await conn.execute(
        "SELECT h.table_id, h.seq, h.record, e.time FROM hands h "
        "JOIN events e ON e.table_id = h.table_id AND e.seq = h.seq "
        "WHERE h.table_id = ANY(%s) AND h.seq > coalesce((%s::jsonb ->> h.table_id)::bigint, 0) "
        "ORDER BY e.time, h.table_id, h.seq",
        (tables, Jsonb(cursor)),
    )
    out: list[Ingested] = []
    for table, seq, record, at in await cur.fetchall():
        if out and out[-1].table_id == table and out[-1].seq == seq:
            out[-1].hands.append(dict(record))
        else:
            out.append(Ingested(str(table), int(seq), "hand", [dict(record)], {}, float(at)))
    return out


async def statuses(conn: Conn, tables: list[str]) -> dict[str, dict[str, Any]]:
    """What the ingest last stored of each table (button, big blind, seats)."""
    cur = await conn.execute("SELECT id, status FROM tables WHERE id = ANY(%s)", (tables,))
    return {str(t): dict(s) for t, s in await cur.fetchall()}
