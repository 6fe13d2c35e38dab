"""A restarted floor resuming a tournament from the store.

:func:`resume` builds the director again from ``tournaments.state``
(:mod:`firmware.floor.tournament.director_state`) and the tables' last status;
:func:`recover` (once the director listens to the ingest again) collects
what happened after that state was written:

1. the hands stored after each table's cursor, handled first by
   :meth:`~firmware.floor.tournament.director.Director.run`, in the order they ended (a
   hand the ingest committed just before the crash is not lost: the ingest
   does not report a record again once it is stored);
2. the commands of the outbox not settled, sent again with their ids (the
   table answers a repeated id from its stored reply, without acting twice),
   and the moves they began carried on: a player taken off is seated at the
   seat drawn for him with the chips the table's reply gives;
3. then (:func:`repair`, run by the director before anything new) what may
   have been decided but not given yet: the clock's start, the winner, the
   start or the end of hand-for-hand, the tables' deal orders, balancing.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any, TypeVar

from firmware.floor.store.outbox import Entry, unsettled
from firmware.floor.tournament import director_state
from firmware.floor.tournament.director import Director
from firmware.floor.tournament.orders import Command

D = TypeVar("D", bound=Director)


async def resume(
    conn: director_state.Conn,
    command: Command,
    tournament: str,
    rng: random.Random | None = None,
    kind: type[D] = Director,  # type: ignore[assignment]
    **options: Any,
) -> D | None:
    """The director of ``tournament`` as stored, or ``None`` if the store has none.

    :param kind: The director's class (:class:`~firmware.floor.tournament.control.StaffDirector`
        for the dashboard's), built with ``options``.
    """
    state = await director_state.load(conn, tournament)
    if state is None:
        return None
    spec = director_state.spec_from(state["spec"])
    director = kind(spec, conn, command, rng or random.SystemRandom(), **options)
    director_state.restore(director, state)
    director.status = await director_state.statuses(conn, list(spec.tables))
    if hasattr(director, "paused"):  # the dashboard's pause (clock_pauses)
        cur = await conn.execute(
            "SELECT paused_at FROM clock_pauses WHERE tournament_id = %s", (tournament,)
        )
        row = await cur.fetchone()
        if row is not None and row[0] is not None:
            director.paused, director.paused_at = True, float(row[0])  # type: ignore[attr-defined]
    director.repair = lambda: repair(director)
    return director


async def recover(director: Director) -> None:
    """Queue the hands the director missed and send the unsettled commands again
    (call once its ingest listener is attached)."""
    d = director
    d.replay = await director_state.hands_after(d.conn, d.cursor, list(d.spec.tables))
    for entry in await unsettled(d.conn, d.spec.id):
        resend(d, entry)


def resend(d: Director, entry: Entry) -> None:
    """Send an unsettled command again with its id, and carry on what followed it."""
    kind = entry.body.get("kind")
    seat = entry.body.get("seat")
    if kind == "remove" and isinstance(seat, int):
        removed = d._remove_task(entry, seat)
        if entry.follow is not None and "table" in entry.follow:
            d._follow(entry, removed)
    elif kind == "seat" and isinstance(seat, int):
        reason = str((entry.follow or {}).get("reason", "seat"))
        d.orders.after((entry.table, seat), lambda: d._sat(entry, reason))
    else:

        async def again() -> None:
            d._check([await d._deliver(entry)], f"repeat the {kind} command")

        d.resent.append(d.orders.after(entry.key, again))


async def repair(d: Director) -> None:
    """Give what was decided before the crash but may not have been given yet
    (every order here is safe to give twice)."""
    if d.standings is None or d.finished.is_set():
        return
    if d.started_at is None:
        await d.clock("start")
    await d._eliminate([])  # the winner, hand-for-hand's start or end
    if d.finished.is_set():
        return
    if d.resent:  # the orders given before the crash are carried out before new ones
        await asyncio.wait(d.resent)
        d.resent.clear()
    paused = bool(getattr(d, "paused", False)) or d.clock_paused_at is not None
    if d.hfh is not None and not paused:
        if d.hfh.round > 0 and d.hfh_dealt != d.hfh.round:
            due = [t for t in d.room if d.hfh.may_deal(t)]
            d.hfh_dealt = d.hfh.round
            order = {"kind": "deal", "hands": 1, "round": d.hfh.round}
            replies = await asyncio.gather(*(d._send(t, dict(order)) for t in due))
            d._check(list(replies), "deal the hand-for-hand hand")
    elif d.hfh is None and not paused:
        replies = await asyncio.gather(
            *(d._send(t, {"kind": "deal", "hands": 0 if t in d.held else None}) for t in d.room)
        )
        d._check(list(replies), "set the dealing")
    d._note("The floor restarted and resumed the tournament from the store.", "resume")
    await d._report(None)  # balance, hold, save
