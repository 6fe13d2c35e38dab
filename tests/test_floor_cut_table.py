"""A table cut off from the network in the middle of a tournament is waited for.

Three simulated tables play a small tournament into a real NATS and
PostgreSQL; table T1 (the final table: it never breaks) reaches NATS through
a TCP relay that can be cut (``bench/floor_room.py``'s ``CuttableLink``).
After the first player is out, the next command the director sends to T1
cuts T1's network first; the network comes back only once that command has
gone out while T1 was cut off and T1 has tried to reconnect and been refused
three times. The director asks T1 again with the same command id until it
answers, the other tables play on, and the tournament ends with every player
placed once, the pool paid and all the chips at the winner's seat; every hand
of every table is stored once.

No wait depends on the wall clock, and none can hang: the cut is made at a
moment the director certainly needs T1 (a command is on its way to it), the
network is mended on an event that certainly comes (T1's link retries for
ever), and a wait during which nothing at all moves (no table event, no
decision of the director) for :data:`PATIENCE`
polls fails with a description of the room instead of waiting for ever.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench.floor_room import CuttableLink
from firmware.floor.servers import NatsServer
from firmware.floor.service import Floor
from firmware.floor.simroom import SimTable
from firmware.floor.tournament.director import Director, TournamentSpec
from firmware.service.floorwire import FloorConfig
from tests.floor_kit import TOURNAMENT_LEVELS, run

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

LEVELS = TOURNAMENT_LEVELS

PLAYERS = 10
CHIPS = 1000
BUY_IN = 100
TABLES = ("T1", "T2", "T3")

POLL = 0.05
"""Seconds between two looks at the room."""
PATIENCE = 2400
"""Polls in a row with nothing moving anywhere before a wait fails (at least two
minutes: a live room moves every few milliseconds)."""


class Room:
    """Everything the test runs, and what it looks at while it waits."""

    def __init__(self) -> None:
        self.sims: list[SimTable] = []
        self.link = CuttableLink("", 0)
        """The relay between T1 and NATS (replaced by the started one)."""
        self.director: Director | None = None
        self.running: asyncio.Task[None] | None = None
        self.armed = False
        """Set after the first bust: the next command to T1 cuts T1's network first."""
        self.asked_while_cut: list[dict[str, Any]] = []
        self.answers: list[dict[str, Any]] = []
        self.floor: Floor | None = None

    @property
    def t1(self) -> SimTable:
        return self.sims[0]

    async def command(self, table: str, command: dict[str, Any]) -> dict[str, Any]:
        """The director's way to the tables: the floor's, with the cut made on the way."""
        assert self.floor is not None
        if table == self.t1.table_id and self.armed:
            self.armed = False
            self.link.cut()  # T1's network is gone; it plays on and journals
            await self.until(lambda: not self.t1_connected(), "T1's link to see the cut")
        cut = table == self.t1.table_id and self.link.cut_now
        if cut:
            self.asked_while_cut.append(command)
        reply = await self.floor.command(table, command)
        if cut:
            self.answers.append(reply)
        return reply

    def t1_connected(self) -> bool:
        return self.t1.link is not None and self.t1.link.connected

    def progress(self) -> tuple[int, ...]:
        """Counters that grow while anything at all happens in the room."""
        decisions = len(self.director.decisions) if self.director is not None else 0
        journaled = tuple(len(sim.table.log) for sim in self.sims)
        return (*journaled, decisions)

    def describe(self) -> str:
        """The room in a few lines, for a failure's message."""
        lines = [
            f"network of T1: {'cut' if self.link.cut_now else 'up'}, refused "
            f"{self.link.refused}; asked while cut: {len(self.asked_while_cut)}"
        ]
        for sim in self.sims:
            t = sim.table
            seats = {n: (s.player, s.stack) for n, s in t.seating.seats.items() if s.player}
            lines.append(
                f"{sim.table_id}: linked={sim.link is not None and sim.link.connected} "
                f"hands={len(t.records)} in_hand={t.hand is not None} "
                f"deal_limit={t.deal_limit} seats={seats}"
            )
        d = self.director
        if d is not None:
            st = d.standings
            left = st.left if st is not None else None
            lines.append(
                f"director: left={left} error={d.error!r} held={sorted(d.held)} "
                f"last decisions={d.decisions[-3:]}"
            )
        return "\n".join(lines)

    async def until(self, check: Any, what: str) -> None:
        """Let the room work until ``check()`` holds. A director that stopped, or a room
        in which nothing moved for :data:`PATIENCE` polls, fails with what was awaited."""
        last, quiet = self.progress(), 0
        while not check():
            running = self.running
            if running is not None and running.done() and not running.cancelled():
                running.result()  # raises what crashed the director
                if not check():
                    raise AssertionError(
                        f"The director stopped while the test waited for {what}:\n{self.describe()}"
                    )
            await asyncio.sleep(POLL)
            now = self.progress()
            quiet = quiet + 1 if now == last else 0
            last = now
            if quiet >= PATIENCE:
                raise AssertionError(
                    f"Nothing moved in the room for {PATIENCE} polls while the test waited "
                    f"for {what}:\n{self.describe()}"
                )


async def _play_cut(url: str, conninfo: str, room: Room) -> Director:
    floor = Floor(conninfo, url)
    room.floor = floor
    await floor.open()
    assert floor.conn is not None and floor.ingestor is not None
    spec = TournamentSpec(
        "mtt2", "Cut", BUY_IN, CHIPS, TABLES, seats_per_table=5, levels=tuple(LEVELS)
    )
    director = Director(spec, floor.conn, room.command, random.Random(11))
    room.director = director
    floor.ingestor.listeners.append(director.on_ingested)
    await director.create()
    for number in range(PLAYERS):
        await director.register(f"player{number:02d}")
    ingest = asyncio.create_task(floor.ingest_forever())
    try:
        await director.start()
        room.running = asyncio.create_task(director.run())
        st = director.standings
        assert st is not None
        await room.until(lambda: bool(st.busts), "the first player out")
        room.armed = True
        await room.until(lambda: room.link.cut_now, "a command to T1 (which cuts it off)")
        # Mended only once the command certainly went out while T1 was cut off (and T1
        # was refused three times): the command's own wait for T1 to see the cut and
        # this wait no longer race (a link that noticed the cut at once and retried at
        # every journaled record was refused three times before that command left).
        await room.until(
            lambda: room.link.refused >= 3 and bool(room.asked_while_cut),
            "a command sent to T1 while cut off, and T1 refused three times",
        )
        room.link.mend()
        await room.until(director.finished.is_set, "the end of the tournament")
        await room.until(room.running.done, "the director to stop")
        room.running.result()
    finally:
        if room.running is not None:
            room.running.cancel()
        floor.stopping.set()
        await ingest
        await floor.close()
    return director


async def _relay_and_play(url: str, conninfo: str, folder: Path, room: Room) -> Director:
    """Start the relay, the tables behind it and the floor; play the tournament; stop
    the tables (on every way out, so a failure leaves no table playing)."""
    host, port = url.removeprefix("nats://").split(":")
    room.link = await CuttableLink(host, int(port)).start()
    room.sims = [
        SimTable(
            t,
            str(folder / t),
            FloorConfig(room.link.url if t == "T1" else url, t),
            5,
            LEVELS,
            seed=i,
            pace=0.002,
        )
        for i, t in enumerate(TABLES)
    ]
    try:
        for sim in room.sims:
            sim.hands_to_play = 0  # the floor says when to deal
            sim.start()
        return await _play_cut(url, conninfo, room)
    finally:
        for sim in room.sims:
            await asyncio.to_thread(sim.stop)
        await room.link.close()


def test_a_table_cut_off_mid_tournament_is_waited_for_and_the_tournament_ends_correct(
    nats_server: NatsServer, pg_conninfo: str, tmp_path: Path
) -> None:
    """The director asks the cut table again with the same command id until it answers,
    instead of stopping the tournament; the table acts once and the result is exact."""
    room = Room()
    director = run(_relay_and_play(nats_server.url, pg_conninfo, tmp_path, room))
    sims = room.sims
    assert director.error == ""
    assert room.asked_while_cut, "no command went to T1 while it was cut off"
    assert len(room.answers) == len(room.asked_while_cut)
    assert all(reply.get("ok") for reply in room.answers), room.answers
    st = director.standings
    assert st is not None and st.left == 0
    assert sorted(st.places.values()) == list(range(1, PLAYERS + 1))
    assert sum(st.won.values()) == PLAYERS * BUY_IN
    winner = next(p for p, place in st.places.items() if place == 1)
    stacks = [(s.player, s.stack) for sim in sims for s in sim.table.seating.seats.values()]
    assert [entry for entry in stacks if entry[1] > 0] == [(winner, PLAYERS * CHIPS)]
    with psycopg.connect(pg_conninfo) as conn:
        for sim in sims:
            stored = conn.execute(
                "SELECT count(*), count(DISTINCT hand) FROM hands WHERE table_id = %s",
                (sim.table_id,),
            ).fetchone()
            assert stored is not None and stored[0] == stored[1] == len(sim.table.records)
