"""A multi-table tournament played to the end on simulated tables, real NATS and PostgreSQL.

The floor draws the seats over all tables (TDA-13), starts the level clock
everywhere at once (TDA-17), breaks tables (TDA-24), balances them (TDA-25),
draws the final table again (HG-5), plays hand-for-hand on the bubble
(FLOOR-HFH), records places and pays the pool (FLOOR-PAY); the chips at the
end are exactly the chips bought in, all at the winner's seat.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import psycopg
import pytest

from firmware.errors import IllegalAction
from firmware.floor.servers import NatsServer
from firmware.floor.service import Floor
from firmware.floor.simroom import SimTable
from firmware.floor.tournament import mtt
from firmware.floor.tournament.director import Director, TournamentSpec
from firmware.service.floorwire import FloorConfig
from firmware.service.journal import Journal
from tests.floor_kit import run

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

FAST_LEVELS: list[dict[str, Any]] = [
    {"small_blind": sb, "big_blind": 2 * sb, "minutes": 0.1}
    for sb in (10, 25, 50, 100, 200, 500, 1000)
] + [{"small_blind": 5000, "big_blind": 10000, "minutes": 600}]

PLAYERS = 14
CHIPS = 1000
BUY_IN = 100
ENTRIES = PLAYERS + 2
"""The fourteen registered, one late registration and one re-entry (FLOOR-LATE)."""


async def _play(url: str, conninfo: str, tables: list[str]) -> Director:
    floor = Floor(conninfo, url)
    await floor.open()
    assert floor.conn is not None and floor.ingestor is not None
    spec = TournamentSpec(
        "mtt1",
        "Test MTT",
        BUY_IN,
        CHIPS,
        tuple(tables),
        seats_per_table=6,
        levels=tuple(FAST_LEVELS),
        late_until_level=len(FAST_LEVELS),  # open all along: the re-entry always fits
        max_entries=2,
    )
    director = Director(spec, floor.conn, floor.command, random.Random(42))
    floor.ingestor.listeners.append(director.on_ingested)
    await director.create()
    for number in range(PLAYERS):
        await director.register(f"player{number:02d}")
    ingest = asyncio.create_task(floor.ingest_forever())
    await director.start()
    running = asyncio.create_task(director.run())
    await director.enter("late00")  # a late registration, drawn to a shortest table
    st = director.standings
    assert st is not None
    while not director.finished.is_set():  # a re-entry of the first player out
        await asyncio.sleep(0.05)  # polling the standings; the tables play on meanwhile
        if not st.busts:
            continue
        try:
            await director.enter(st.busts[0].player)
            break
        except IllegalAction as exc:  # every seat taken: wait for the next bust
            assert "Every table is full" in str(exc)
    await asyncio.wait_for(director.finished.wait(), 1200)  # a guard against a hang only
    running.cancel()
    floor.stopping.set()
    await ingest
    await floor.close()
    return director


def test_tda_13_17_24_25_hg_5_a_tournament_over_three_tables_to_the_end(
    nats_server: NatsServer, pg_conninfo: str, tmp_path: Path
) -> None:
    tables = ["T1", "T2", "T3"]
    sims = [
        SimTable(
            t,
            str(tmp_path / t),
            FloorConfig(nats_server.url, t),
            6,
            FAST_LEVELS,
            seed=i,
            pace=0.002,
        )
        for i, t in enumerate(tables)
    ]
    for sim in sims:
        sim.hands_to_play = 0  # the floor says when to deal
        sim.start()
    director = run(_play(nats_server.url, conninfo := pg_conninfo, tables))
    for sim in sims:
        sim.stop()
    st = director.standings
    assert st is not None and st.left == 0 and st.entries == ENTRIES
    # Places: every entry has one, one winner, the pool paid out exactly (FLOOR-PAY).
    assert len(st.places) == ENTRIES and list(st.places.values()).count(1) == 1
    assert sorted(st.places.values())[-1] == ENTRIES
    assert sum(st.won.values()) == ENTRIES * BUY_IN
    assert any(name.endswith(" #2") for name in st.places)  # the re-entry was placed
    # Chips conserved: all chips bought in sit at the winner's seat on one table.
    winner = next(p for p, place in st.places.items() if place == 1)
    stacks = [
        (sim.table_id, s.player, s.stack) for sim in sims for s in sim.table.seating.seats.values()
    ]
    live = [entry for entry in stacks if entry[2] > 0]
    assert live == [(live[0][0], winner.split(" #")[0], ENTRIES * CHIPS)]
    text = "\n".join(director.decisions)
    assert "TDA-17" in text and "TDA-24" in text and "HG-5" in text
    with psycopg.connect(conninfo) as conn:
        rows = conn.execute(
            "SELECT player_id, entry, place FROM registrations WHERE tournament_id = 'mtt1'"
        )
        places = {mtt.entry_name(player, entry): place for player, entry, place in rows}
        assert places == st.places
        prizes = conn.execute(
            "SELECT sum(prize) FROM registrations WHERE tournament_id = 'mtt1'"
        ).fetchone()[0]
        assert prizes == ENTRIES * BUY_IN
        late = conn.execute(
            "SELECT count(*) FROM seat_assignments WHERE reason LIKE 'FLOOR-LATE%%'"
        ).fetchone()[0]
        assert late == 2
        moves = conn.execute(
            "SELECT count(*) FROM seat_assignments WHERE reason LIKE 'TDA-24%%'"
        ).fetchone()[0]
        assert moves >= 1
        for sim in sims:
            stored = conn.execute(
                "SELECT count(*) FROM hands WHERE table_id = %s", (sim.table_id,)
            ).fetchone()[0]
            assert len(sim.table.records) < sim.table.KEEP_RECORDS
            assert stored == len(sim.table.records)  # every hand, once
    # TDA-17: every table journaled exactly one start of the level clock.
    for sim in sims:
        journal = Journal(sim.journal.path)
        starts = [e for e in journal.events() if e.kind == "levels"]
        journal.close()
        assert [e.action for e in starts] == ["start"]  # type: ignore[attr-defined]
        assert starts[0].at is not None  # type: ignore[attr-defined]
    # TDA-17: one instant for all: every table's clock started at the same wall moment.
    assert director.started_at is not None
