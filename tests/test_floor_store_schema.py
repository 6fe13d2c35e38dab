"""The floor's store lasts: versioned migrations over a store with data in it, constraints
that state the invariants, and indexes for the dashboard's and an accountant's queries,
on a real PostgreSQL (issue 24, item 4).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgpack
import psycopg
import pytest
from psycopg.types.json import Jsonb

from firmware.errors import ConfigError
from firmware.floor.simroom import SimTable
from firmware.floor.store import central
from firmware.floor.store.ingest import Ingestor
from firmware.floor.store.lease import Lease
from firmware.service.floorwire import read_outbox
from tests.floor_kit import pg_conninfo, pg_server, run, wait_until

__all__ = ["pg_conninfo", "pg_server"]

pytestmark = pytest.mark.xdist_group("floor")

OLD_SCHEMA = Path(__file__).parent / "data" / "floor_schema_v0.sql"
"""The DDL the floor ran before versioned migrations (captured from that code)."""
STARTED = 1_764_000_000.0
"""A wall-clock time (November 2025) the old store's records carry."""


def _hand(number: int, players: dict[str, str], **wall: float) -> dict[str, Any]:
    return {"hand": number, "players": players, "finished_at": 40.0 + number, "incidents": [],
            **wall}  # fmt: skip


def _old_store(conninfo: str) -> None:
    """A store made by the old code, with a night's data in it (and what the old schema
    let through: a second copy of a hand number, a repeated table-less alert, a seat
    assignment at a table the store never saw)."""
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(OLD_SCHEMA.read_text())
        conn.execute("INSERT INTO tables (id, last_seq) VALUES ('T1', 4), ('T2', 1)")
        setup = msgpack.packb({"seats": 6, "name": "T1"})
        for seq in range(1, 5):
            record = msgpack.packb({"kind": "act", "seat": seq, "amount": 10 * seq})
            conn.execute(
                "INSERT INTO events (table_id, seq, time, kind, record, setup) "
                "VALUES ('T1', %s, %s, 'act', %s, %s)",
                (seq, STARTED + seq, record, setup if seq == 1 else None),
            )
        conn.execute(
            "INSERT INTO events (table_id, seq, time, kind, record) VALUES ('T2', 1, %s, 'x', %s)",
            (STARTED, b"\xc1"),  # not msgpack: kept, its jsonb copy is JSON null
        )
        hands = [
            (2, _hand(1, {"1": "ana", "3": "beto"})),
            (3, _hand(2, {"1": "ana", "4": "carla"}, started_wall=STARTED + 2.5)),
            (4, _hand(2, {"1": "mallory"})),  # a second copy of hand 2
        ]
        for seq, record in hands:
            conn.execute(
                "INSERT INTO hands (table_id, seq, hand, finished, record) "
                "VALUES ('T1', %s, %s, %s, %s)",
                (seq, record["hand"], record["finished_at"], Jsonb(record)),
            )
        for _ in range(2):
            conn.execute("INSERT INTO alerts (text, rule) VALUES ('Store was away.', 'S')")
        conn.execute("INSERT INTO alerts (table_id, seq, text) VALUES ('T1', 2, 'Misdeal.')")
        conn.execute("INSERT INTO players (id, name) VALUES ('p1', 'Ana')")
        conn.execute(
            "INSERT INTO tournaments (id, name, buy_in, starting_chips) "
            "VALUES ('m1', 'Monday', 100, 5000)"
        )
        conn.execute(
            "INSERT INTO registrations (tournament_id, player_id, entry) VALUES ('m1', 'p1', 1)"
        )
        conn.execute(
            "INSERT INTO seat_assignments (tournament_id, player_id, table_id, seat, chips, "
            "reason) VALUES ('m1', 'p1', 'T9', 3, 5000, 'draw')"
        )
        conn.execute(
            "INSERT INTO floor_commands (tournament_id, id, table_id, key, body, settled, reply) "
            "VALUES ('m1', 'c1', 'T9', 'T9:3', '{}', true, '{\"ok\": true}')"
        )
        conn.execute(
            "INSERT INTO tournament_log (tournament_id, kind, text) VALUES ('m1', 'k', 't')"
        )
        conn.execute(
            "INSERT INTO table_notices (table_id, kind, text) VALUES ('T1', 'call', 'Seat 2.')"
        )


def _one(conn: psycopg.Connection[Any], sql: str, *args: Any) -> Any:
    row = conn.execute(sql, args).fetchone()
    return row[0] if row is not None and len(row) == 1 else row


def test_an_old_store_with_data_is_upgraded_and_keeps_it(pg_conninfo: str) -> None:
    _old_store(pg_conninfo)
    applied = central.migrate(pg_conninfo)
    assert applied == ["0001.baseline", "0002.store-invariants", "0003.books"]
    assert central.migrate(pg_conninfo) == []  # a second start applies nothing
    with psycopg.connect(pg_conninfo, autocommit=True) as conn:
        versions = [r[0] for r in conn.execute("SELECT migration_id FROM _yoyo_migration")]
        assert sorted(versions) == applied
        # Every record kept, readable by SQL, with its wall-clock time.
        assert _one(conn, "SELECT count(*) FROM events") == 5
        assert _one(conn, "SELECT data->>'amount' FROM events WHERE seq = 3 AND table_id = 'T1'")
        assert _one(conn, "SELECT (data->>'amount')::int FROM events WHERE table_id = 'T1' "
                    "AND seq = 3") == 30  # fmt: skip
        assert _one(conn, "SELECT setup_data->>'name' FROM events WHERE seq = 1") == "T1"
        assert _one(conn, "SELECT jsonb_typeof(data) FROM events WHERE table_id = 'T2'") == "null"
        assert _one(conn, "SELECT at FROM events WHERE table_id = 'T1' AND seq = 2") == (
            datetime.fromtimestamp(STARTED + 2, UTC)
        )
        # Hands: wall-clock times from the record, else from the record that finished it.
        rows = conn.execute(
            "SELECT seq, hand, session, started_wall, finished_wall FROM hands ORDER BY seq"
        ).fetchall()
        assert rows == [
            (2, 1, 1, None, datetime.fromtimestamp(STARTED + 2, UTC)),
            (3, 2, 1, datetime.fromtimestamp(STARTED + 2.5, UTC),
             datetime.fromtimestamp(STARTED + 3, UTC)),
        ]  # fmt: skip
        # The second copy of hand 2 is parked, not lost.
        assert conn.execute("SELECT subject, table_id, reason FROM dead_letters").fetchall() == [
            ("hands", "T1", "a second copy of hand 2 at record 4")
        ]
        players = conn.execute("SELECT seq, seat, player FROM hand_players ORDER BY seq, seat")
        assert players.fetchall() == [(2, 1, "ana"), (2, 3, "beto"), (3, 1, "ana"), (3, 4, "carla")]
        # The repeated table-less alert is one; the table the assignment named has its row.
        assert _one(conn, "SELECT count(*) FROM alerts WHERE text = 'Store was away.'") == 1
        assert _one(conn, "SELECT count(*) FROM tables WHERE id = 'T9'") == 1
        assert _one(conn, "SELECT count(*) FROM registrations") == 1
        assert _one(conn, "SELECT reply->>'ok' FROM floor_commands WHERE id = 'c1'") == "true"


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        (  # a second copy of a hand number in the same set-up
            "INSERT INTO hands (table_id, seq, hand, session, finished, record) "
            "VALUES ('T1', 9, 1, 1, 0, '{}')",
            psycopg.errors.UniqueViolation,
        ),
        (
            "INSERT INTO seat_assignments (tournament_id, player_id, table_id, seat, chips, "
            "reason) VALUES ('m1', 'p1', 'T1', 11, 100, 'draw')",
            psycopg.errors.CheckViolation,
        ),
        (
            "INSERT INTO seat_assignments (tournament_id, player_id, table_id, seat, chips, "
            "reason) VALUES ('m1', 'p1', 'T1', 2, -1, 'draw')",
            psycopg.errors.CheckViolation,
        ),
        (
            "INSERT INTO seat_assignments (tournament_id, player_id, table_id, seat, chips, "
            "reason) VALUES ('m1', 'p1', 'NOWHERE', 2, 100, 'draw')",
            psycopg.errors.ForeignKeyViolation,
        ),
        (
            "INSERT INTO floor_commands (tournament_id, id, table_id, key, body) "
            "VALUES ('m1', 'c9', 'NOWHERE', 'k', '{}')",
            psycopg.errors.ForeignKeyViolation,
        ),
        (
            "INSERT INTO alerts (table_id, text) VALUES ('NOWHERE', 'x')",
            psycopg.errors.ForeignKeyViolation,
        ),
        (
            "INSERT INTO tournaments (id, name, buy_in, starting_chips) "
            "VALUES ('m2', 'x', -5, 100)",
            psycopg.errors.CheckViolation,
        ),
        ("UPDATE registrations SET prize = -1", psycopg.errors.CheckViolation),
        ("UPDATE registrations SET place = 0", psycopg.errors.CheckViolation),
        (
            "INSERT INTO events (table_id, seq, time, kind, record) VALUES ('T1', 99, -5, 'x', '')",
            psycopg.errors.CheckViolation,
        ),
        ("INSERT INTO tables (id) VALUES ('T 1; x')", psycopg.errors.CheckViolation),
    ],
)
def test_the_constraints_refuse_what_breaks_an_invariant(
    pg_conninfo: str, sql: str, error: type[Exception]
) -> None:
    _old_store(pg_conninfo)
    central.migrate(pg_conninfo)
    with psycopg.connect(pg_conninfo, autocommit=True) as conn, pytest.raises(error):
        conn.execute(sql)


def test_an_alert_with_no_table_is_stored_once(pg_conninfo: str) -> None:
    central.migrate(pg_conninfo)
    with psycopg.connect(pg_conninfo, autocommit=True) as conn:
        for _ in range(3):
            conn.execute(
                "INSERT INTO alerts (text, rule) VALUES ('NATS was away.', 'N') "
                "ON CONFLICT DO NOTHING"
            )
        assert _one(conn, "SELECT count(*) FROM alerts") == 1


QUERIES = {
    "hands of a player": (
        "SELECT h.table_id, h.hand, h.finished_wall FROM hand_players p "
        "JOIN hands h USING (table_id, seq) WHERE p.player = 'player42' ORDER BY h.finished_wall",
        ("hand_players", "hands"),
    ),
    "hands finished in an hour": (
        "SELECT count(*), sum((record->>'hand')::int) FROM hands "
        "WHERE finished_wall >= to_timestamp(1764000000) "
        "AND finished_wall < to_timestamp(1764003600)",
        ("hands",),
    ),
    "a table's hands page": (
        "SELECT seq, hand, record FROM hands WHERE table_id = 'T3' AND seq < 5000 "
        "ORDER BY seq DESC LIMIT 20",
        ("hands",),
    ),
    "records ingested in the last minutes": (
        "SELECT count(*) FROM events WHERE ingested_at > to_timestamp(1766590000)",
        ("events",),
    ),
    "records journaled in an hour": (
        "SELECT kind, count(*) FROM events WHERE at >= to_timestamp(1764000000) "
        "AND at < to_timestamp(1764003600) GROUP BY kind",
        ("events",),
    ),
    "a player's tournaments": (
        "SELECT t.name, r.place, r.prize FROM registrations r JOIN tournaments t "
        "ON t.id = r.tournament_id WHERE r.player_id = 'player42'",
        ("registrations",),
    ),
    "a tournament's seat assignments": (
        "SELECT player_id, table_id, seat FROM seat_assignments WHERE tournament_id = 'm7' "
        "ORDER BY id",
        ("seat_assignments",),
    ),
    "a player's seat assignments": (
        "SELECT tournament_id, table_id, seat FROM seat_assignments WHERE player_id = 'player42'",
        ("seat_assignments",),
    ),
    "a tournament's log": (
        "SELECT kind, text FROM tournament_log WHERE tournament_id = 'm7' ORDER BY id",
        ("tournament_log",),
    ),
    "open notices (the dashboard)": (
        "SELECT id FROM table_notices WHERE acked_at IS NULL AND table_id = 'T3' ORDER BY id",
        ("table_notices",),
    ),
    "open alerts (the dashboard)": (
        "SELECT id FROM alerts WHERE NOT resolved ORDER BY id DESC LIMIT 20",
        ("alerts",),
    ),
    "settled commands past retention": (
        "SELECT count(*) FROM floor_commands WHERE settled AND at < to_timestamp(1764000000)",
        ("floor_commands",),
    ),
}


def _big_store(conn: psycopg.Connection[Any]) -> None:
    """A season of a 20-table room: 30,000 hands, their players and records, 400
    tournaments; a few open notices and alerts among many handled ones."""
    conn.execute(
        "INSERT INTO tables (id) SELECT 'T' || n FROM generate_series(1, 20) n;"
        "INSERT INTO events (table_id, seq, time, kind, record, ingested_at) "
        "SELECT 'T' || (n % 20 + 1), n / 20 + 1, 1763000000 + n * 60, 'act', '\\x80', "
        "to_timestamp(1763000000 + n * 60) FROM generate_series(0, 59999) n;"
        "INSERT INTO hands (table_id, seq, hand, session, finished, finished_wall, record) "
        "SELECT 'T' || (n % 20 + 1), n / 20 + 1, n / 20 + 1, 1, 0, "
        "to_timestamp(1763000000 + n * 60), jsonb_build_object('hand', n / 20 + 1) "
        "FROM generate_series(0, 29999) n;"
        "INSERT INTO hand_players (table_id, seq, seat, player) "
        "SELECT 'T' || (n % 20 + 1), n / 20 + 1, s, 'player' || ((n * 7 + s * 13) % 3000) "
        "FROM generate_series(0, 29999) n, generate_series(1, 4) s;"
        "INSERT INTO players (id, name) SELECT 'player' || n, 'P' || n "
        "FROM generate_series(0, 2999) n;"
        "INSERT INTO tournaments (id, name, buy_in, starting_chips) "
        "SELECT 'm' || n, 'M' || n, 100, 5000 FROM generate_series(1, 400) n;"
        "INSERT INTO registrations (tournament_id, player_id, entry) "
        "SELECT 'm' || (n % 400 + 1), 'player' || (n % 3000), n / 3000 + 1 "
        "FROM generate_series(0, 29999) n ON CONFLICT DO NOTHING;"
        "INSERT INTO seat_assignments (tournament_id, player_id, table_id, seat, chips, reason) "
        "SELECT 'm' || (n % 400 + 1), 'player' || (n % 3000), 'T' || (n % 20 + 1), n % 9 + 1, "
        "5000, 'draw' FROM generate_series(0, 59999) n;"
        "INSERT INTO tournament_log (tournament_id, kind, text) "
        "SELECT 'm' || (n % 400 + 1), 'k', 'text' FROM generate_series(0, 39999) n;"
        "INSERT INTO table_notices (table_id, kind, text, acked_at) "
        "SELECT 'T' || (n % 20 + 1), 'alert', 'n' || n, CASE WHEN n % 1000 = 0 THEN NULL "
        "ELSE now() END FROM generate_series(0, 39999) n;"
        "INSERT INTO alerts (table_id, seq, text, resolved) "
        "SELECT 'T' || (n % 20 + 1), n, 'a', n % 1000 <> 0 FROM generate_series(0, 39999) n;"
        "INSERT INTO floor_commands (tournament_id, id, table_id, key, body, settled, at) "
        "SELECT 'm' || (n % 400 + 1), 'c' || n, 'T' || (n % 20 + 1), 'k', '{}', true, "
        "to_timestamp(1763000000 + n * 60) FROM generate_series(0, 39999) n;"
        "ANALYZE;"
    )


def test_the_dashboards_and_an_accountants_queries_use_indexes(pg_conninfo: str) -> None:
    central.migrate(pg_conninfo)
    with psycopg.connect(pg_conninfo, autocommit=True) as conn:
        _big_store(conn)
        scans = {}
        for name, (sql, big) in QUERIES.items():
            plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql))
            scans[name] = [t for t in big if f"Seq Scan on {t} " in plan + " "]
        assert scans == {name: [] for name in QUERIES}


def _room(conninfo: str, room: str) -> str:
    return f"{conninfo} options='-csearch_path={room}'"


async def _leases(rooms: list[str]) -> list[bool]:
    leases = [Lease(conninfo) for conninfo in rooms]
    taken = [await lease.try_acquire() for lease in leases]
    for lease in leases:
        if lease.conn is not None:
            await lease.conn.close()
    return taken


def test_two_rooms_in_one_database_keep_their_own_t1_and_their_own_lease(
    pg_conninfo: str,
) -> None:
    with psycopg.connect(pg_conninfo, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA room_a; CREATE SCHEMA room_b")
    room_a, room_b = _room(pg_conninfo, "room_a"), _room(pg_conninfo, "room_b")
    assert (
        central.migrate(room_a)
        == central.migrate(room_b)
        == [
            "0001.baseline",
            "0002.store-invariants",
            "0003.books",
        ]
    )
    for conninfo, last in ((room_a, 7), (room_b, 9)):
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute("INSERT INTO tables (id, last_seq) VALUES ('T1', %s)", (last,))
    with psycopg.connect(pg_conninfo, autocommit=True) as conn:
        both = conn.execute(
            "SELECT 'a', last_seq FROM room_a.tables UNION ALL SELECT 'b', last_seq "
            "FROM room_b.tables ORDER BY 1"
        ).fetchall()
    assert both == [("a", 7), ("b", 9)]
    # Each room's floor holds its own lease; a second floor of one room waits.
    assert run(_leases([room_a, room_b, room_a])) == [True, True, False]
    with pytest.raises(ConfigError, match="CREATE SCHEMA"):
        central.migrate(_room(pg_conninfo, "room_c"))


def test_an_upgrade_that_meets_a_broken_row_says_so_and_changes_nothing(
    pg_conninfo: str,
) -> None:
    _old_store(pg_conninfo)
    with psycopg.connect(pg_conninfo, autocommit=True) as conn:
        conn.execute("UPDATE seat_assignments SET seat = 12")
    with pytest.raises(ConfigError, match=r"upgrade stopped .*seat_assignments_seat"):
        central.migrate(pg_conninfo)
    with psycopg.connect(pg_conninfo, autocommit=True) as conn:
        assert _one(conn, "SELECT to_regclass('dead_letters')") is None
        assert _one(conn, "SELECT count(*) FROM hands") == 3  # the second copy not moved yet
        conn.execute("UPDATE seat_assignments SET seat = 2")
    assert central.migrate(pg_conninfo) == ["0002.store-invariants", "0003.books"]


async def _ingest(conninfo: str, bodies: list[bytes]) -> list[Any]:
    conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    outcomes = await Ingestor(conn).ingest_batch(bodies)
    await conn.close()
    return outcomes


def test_the_ingest_fills_wall_clock_times_players_and_jsonb(
    pg_conninfo: str, tmp_path: Path
) -> None:
    central.migrate(pg_conninfo)
    sim = SimTable("T1", str(tmp_path / "T1"), None, seats=6, seed=5, pace=0.0)
    sim.seat({1: ("ana", 200), 3: ("beto", 200), 5: ("carla", 200)})
    sim.hands_to_play = 2
    sim.start()
    assert wait_until(lambda: len(sim.table.records) == 2 and sim.table.hand is None)
    sim.stop()
    records = read_outbox(sim.journal.path, 0, 100_000)
    outcomes = run(_ingest(pg_conninfo, [r.message("T1") for r in records]))
    assert all(not isinstance(o, str) for o in outcomes)
    with psycopg.connect(pg_conninfo) as conn:
        # The records carry their real times (started_wall / finished_wall): stored as
        # they are, the end after the start and within a minute of when the table wrote
        # the record that finished the hand.
        hands = conn.execute(
            "SELECT h.hand, h.session, h.started_wall IS NOT NULL, "
            "h.finished_wall >= h.started_wall, "
            "abs(extract(epoch FROM h.finished_wall - e.at)) < 60, "
            "abs(extract(epoch FROM h.finished_wall) - (h.record->>'finished_wall')::float) "
            "< 0.001 FROM hands h JOIN events e USING (table_id, seq) ORDER BY h.hand"
        ).fetchall()
        assert hands == [(1, 1, True, True, True, True), (2, 1, True, True, True, True)]
        players = conn.execute(
            "SELECT DISTINCT seat, player FROM hand_players ORDER BY seat"
        ).fetchall()
        assert players == [(1, "ana"), (3, "beto"), (5, "carla")]
        kinds = conn.execute("SELECT data->>'kind', kind FROM events ORDER BY seq").fetchall()
        assert [k for k, _ in kinds] == [r.record.get("kind") for r in records]
        assert conn.execute("SELECT count(*) FROM events WHERE data IS NULL").fetchone() == (0,)
    # Records that carry the table's wall-clock fields (the hand record's started_wall and
    # finished_wall, seconds since the epoch, UTC) keep them.
    row = central.hand_row("T1", 9, {"hand": 3, "started_wall": STARTED,
                                   "finished_wall": STARTED + 61.5}, 1, 0.0)  # fmt: skip
    assert row[5:7] == (
        datetime.fromtimestamp(STARTED, UTC),
        datetime.fromtimestamp(STARTED + 61.5, UTC),
    )
