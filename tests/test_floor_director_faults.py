"""The tournament director through faults: PostgreSQL killed with SIGKILL mid-tournament.

Simulated tables play a small tournament into a real NATS and PostgreSQL; the
test kills the database after the first player is out, waits until the floor
has noticed, and starts it again. The director's own connection is
reconnected and its statements sent again (:class:`StoreConnection`), so the
tournament plays on to the end: every entry placed once, the pool paid out,
and all the chips bought in at the winner's seat.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import psycopg
import pytest

from firmware.floor.servers import NatsServer, PostgresServer
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


async def _until(check: Any, director: Director, running: asyncio.Task[None]) -> None:
    """Let the floor work until ``check()`` holds (a stopped director fails the test)."""
    while not check():
        if running.done():
            running.result()  # raises what crashed the director
            raise AssertionError(f"The director stopped: {director.error or 'it finished'}.")
        await asyncio.sleep(0.05)


async def _play(url: str, pg: PostgresServer, tables: list[str]) -> tuple[Director, Floor]:
    floor = Floor(pg.conninfo, url)
    await floor.open()
    assert floor.conn is not None and floor.ingestor is not None
    spec = TournamentSpec(
        "mtt1", "Faults", BUY_IN, CHIPS, tuple(tables), seats_per_table=5, levels=tuple(LEVELS)
    )
    director = Director(spec, floor.conn, floor.command, random.Random(7))
    floor.ingestor.listeners.append(director.on_ingested)
    await director.create()
    for number in range(PLAYERS):
        await director.register(f"player{number:02d}")
    ingest = asyncio.create_task(floor.ingest_forever())
    await director.start()
    running = asyncio.create_task(director.run())
    st = director.standings
    assert st is not None
    await _until(lambda: bool(st.busts), director, running)
    pg.kill()  # kill -9 of PostgreSQL while the tables play on
    await _until(lambda: floor.outages > 0, director, running)
    pg.start()
    await _until(director.finished.is_set, director, running)
    await asyncio.wait_for(running, 60)  # a guard against a hang only
    floor.stopping.set()
    await ingest
    await floor.close()
    return director, floor


def test_the_tournament_survives_kill_9_of_postgres_and_ends_correct(
    nats_server: NatsServer, tmp_path: Path
) -> None:
    pg = PostgresServer.temporary().start()
    tables = ["T1", "T2", "T3"]
    sims = [
        SimTable(
            t, str(tmp_path / t), FloorConfig(nats_server.url, t), 5, LEVELS, seed=i, pace=0.002
        )
        for i, t in enumerate(tables)
    ]
    for sim in sims:
        sim.hands_to_play = 0  # the floor says when to deal
        sim.start()
    try:
        director, floor = run(asyncio.wait_for(_play(nats_server.url, pg, tables), 1200))
        for sim in sims:
            sim.stop()
        assert director.error == ""
        assert floor.conn is not None and floor.conn.outages >= 1  # the director's too
        st = director.standings
        assert st is not None and st.left == 0
        assert sorted(st.places.values()) == list(range(1, PLAYERS + 1))
        assert sum(st.won.values()) == PLAYERS * BUY_IN
        winner = next(p for p, place in st.places.items() if place == 1)
        stacks = [(s.player, s.stack) for sim in sims for s in sim.table.seating.seats.values()]
        assert [entry for entry in stacks if entry[1] > 0] == [(winner, PLAYERS * CHIPS)]
        with psycopg.connect(pg.conninfo) as conn:
            rows = conn.execute(
                "SELECT player_id, place, prize FROM registrations WHERE tournament_id = 'mtt1'"
            ).fetchall()
            assert {player: place for player, place, _prize in rows} == st.places
            assert sum(prize or 0 for _p, _place, prize in rows) == PLAYERS * BUY_IN
            state = conn.execute("SELECT state FROM tournaments WHERE id = 'mtt1'").fetchone()
            assert state is not None and state[0]["finished"] and state[0]["winner"] == winner
            for sim in sims:
                stored = conn.execute(
                    "SELECT count(*) FROM hands WHERE table_id = %s", (sim.table_id,)
                ).fetchone()
                assert stored is not None and stored[0] == len(sim.table.records)
    finally:
        for sim in sims:
            if sim._thread is not None and sim._thread.is_alive():
                sim.stop()
        pg.stop()
