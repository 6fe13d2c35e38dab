"""A floor killed with SIGKILL mid-tournament, started again, resumes the tournament.

Three simulated tables (real controllers, journals and floor links) play into a
real NATS and PostgreSQL; the floor is ``pokertable floor --config`` with a
``[tournament]`` section, a child process. It is killed at a moment when a
seat move is under way (a player to be taken off one table and seated at
another: an outbox row not settled), then started again with the same
configuration. The new floor finds the tournament in the store, sends the
unsettled commands again with their ids, catches up on the hands it missed
and plays the tournament to the end: every entry placed once, the pool paid
exactly, every chip at the winner's seat, every hand stored once.
"""

from __future__ import annotations

import signal
from pathlib import Path

import psycopg
import pytest

from firmware.floor.servers import NatsServer
from firmware.floor.simroom import SimTable
from firmware.service.floorwire import FloorConfig
from tests.floor_kit import TOURNAMENT_LEVELS, wait_until
from tests.test_floor_standby import FloorProcess

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

LEVELS = TOURNAMENT_LEVELS

PLAYERS = 13
CHIPS = 1000
BUY_IN = 100
TABLES = ["T1", "T2", "T3"]

MOVE_UNDER_WAY = (
    "SELECT count(*) FROM floor_commands WHERE follow ? 'table' AND NOT settled "
    "AND tournament_id = 'mtt'"
)
FINISHED = (
    "SELECT count(*) FROM tournaments WHERE id = 'mtt' "
    "AND (state->>'finished')::boolean AND state->>'winner' <> ''"
)


def _count(conninfo: str, sql: str) -> int:
    with psycopg.connect(conninfo) as conn:
        row = conn.execute(sql).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _config(path: Path, url: str, conninfo: str) -> Path:
    levels = "".join(
        "[[tournament.levels]]\n"
        f"small_blind = {lv['small_blind']}\nbig_blind = {lv['big_blind']}\n"
        f"minutes = {lv['minutes']}\n"
        for lv in LEVELS
    )
    path.write_text(
        f'[nats]\nurl = "{url}"\n[database]\nconninfo = "{conninfo}"\n[web]\nport = 0\n'
        f'[tournament]\nid = "mtt"\nname = "Resume"\nbuy_in = {BUY_IN}\n'
        f"starting_chips = {CHIPS}\ntables = {TABLES!r}\nseats_per_table = 5\n"
        f"players = {PLAYERS}\n{levels}".replace("'", '"')
    )
    return path


def test_a_floor_killed_with_a_move_under_way_resumes_the_tournament_to_a_correct_end(
    tmp_path: Path, nats_server: NatsServer, pg_conninfo: str
) -> None:
    config = _config(tmp_path / "floor.toml", nats_server.url, pg_conninfo)
    sims = [
        SimTable(
            t, str(tmp_path / t), FloorConfig(nats_server.url, t), 5, LEVELS, seed=i, pace=0.004
        )
        for i, t in enumerate(TABLES)
    ]
    for sim in sims:
        sim.hands_to_play = 0  # the floor says when to deal
        sim.start()
    first = second = None
    try:
        first = FloorProcess(config)
        assert wait_until(lambda: first.said("players drawn"), 300), first.lines
        # Kill -9 while a player is being moved (taken off, or about to be, not seated).
        assert wait_until(lambda: _count(pg_conninfo, MOVE_UNDER_WAY) > 0, 900), first.lines
        assert first.stop(signal.SIGKILL) == -signal.SIGKILL
        assert _count(pg_conninfo, FINISHED) == 0
        assert _count(pg_conninfo, MOVE_UNDER_WAY) > 0  # the kill left a move half done
        second = FloorProcess(config)
        assert wait_until(lambda: second.said("resumed from the store"), 300), second.lines
        assert wait_until(lambda: _count(pg_conninfo, FINISHED) == 1, 1800), second.lines
        print("".join(second.lines))  # what the restarted floor caught up on (with -s)
        for sim in sims:  # every table has published its whole journal
            assert sim.link is not None
            link = sim.link
            assert wait_until(lambda s=sim, k=link: k.acked == len(s.journal), 300)  # type: ignore[misc]
        for sim in sims:
            last = f"SELECT last_seq FROM tables WHERE id = '{sim.table_id}'"
            assert wait_until(lambda s=sim, q=last: _count(pg_conninfo, q) == len(s.journal), 300)  # type: ignore[misc]
    finally:
        for sim in sims:
            sim.stop()
        code = second.stop(signal.SIGTERM) if second is not None else 0
        if first is not None:
            first.stop(signal.SIGKILL)
    assert code == 0, second.lines if second else ""
    assert second is not None and not second.said("The tournament stopped"), second.lines
    with psycopg.connect(pg_conninfo) as conn:
        rows = conn.execute(
            "SELECT player_id, entry, place, prize FROM registrations WHERE tournament_id = 'mtt'"
        ).fetchall()
        state = conn.execute("SELECT state FROM tournaments WHERE id = 'mtt'").fetchone()
        open_commands = conn.execute(
            "SELECT count(*) FROM floor_commands WHERE NOT settled"
        ).fetchone()
        hands = {
            t: n for t, n in conn.execute("SELECT table_id, count(*) FROM hands GROUP BY table_id")
        }
        events = conn.execute(
            "SELECT count(*), count(DISTINCT (table_id, seq)) FROM events"
        ).fetchone()
    # Every entry placed once, places 1..N (entries out in one hand-for-hand round share
    # the best of the places they cover); the pool paid exactly.
    assert len(rows) == PLAYERS
    places = sorted(place for _p, _e, place, _prize in rows)
    assert places == [places.index(p) + 1 for p in places], places
    assert sum(prize or 0 for *_rest, prize in rows) == PLAYERS * BUY_IN
    assert state is not None
    winner = state[0]["winner"]
    assert [p for p, _e, place, _prize in rows if place == 1] == [winner]
    # Every chip bought in sits at the winner's seat.
    stacks = [(s.player, s.stack) for sim in sims for s in sim.table.seating.seats.values()]
    assert [entry for entry in stacks if entry[1] > 0] == [(winner, PLAYERS * CHIPS)]
    # Every hand and record stored exactly once; no command left unsettled.
    assert hands == {sim.table_id: len(sim.table.records) for sim in sims if sim.table.records}
    assert events is not None and events[0] == events[1] == sum(len(s.journal) for s in sims)
    assert open_commands is not None and open_commands[0] == 0
