"""The room's shift report from PostgreSQL: a 100-table room over a 12-hour day.

Usage::

    .venv/bin/python bench/bench_books.py [--tables 100] [--hours 12] [--per-hour 35]
                                          [--records-per-hand 40]

Starts a throw-away PostgreSQL, applies the floor's migrations and fills one day of a
cash room the way the ingest stores it: per table a set-up, a bank opened, every hand's
records (``--records-per-hand``, the last one finishing the hand, stored in ``hands``
with its rake and jackpot drop), sit-downs, rebuys and cash-outs in ``seat_money``,
fills every two hours, a jackpot award, a credit and the shift's count at the end.
Then it times the accountant's views (``docs/accounting.md``) the dashboard's CSV
reads: ``room_shift_report`` and ``table_shifts`` (best of three), and checks their
totals against what it stored. Issue 25 asks for the shift report in under 10 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import psycopg

from firmware.floor.servers import PostgresServer
from firmware.floor.store import books, central

DAY = 1_773_100_000  # 2026-03-09 23:46 UTC
SETUP = '{"stakes": {"structure": "NL", "small_blind": 1, "big_blind": 2}}'


def fill(conn: psycopg.Connection[Any], tables: int, hands: int, per_hand: int, span: int) -> None:
    """One day of ``tables`` cash tables, ``hands`` hands each."""
    last = 2 + hands * per_hand  # the hands' records are 3 .. last
    step = span / (hands * per_hand)
    conn.execute(
        "INSERT INTO tables (id, last_seq) SELECT 'T' || t, %s FROM generate_series(1, %s) t",
        (last + 4, tables),
    )
    conn.execute(
        "INSERT INTO events (table_id, seq, time, kind, record, setup, data, setup_data) "
        "SELECT 'T' || t, 1, %s, 'wall_clock', '\\x80', '\\x80', '{}', %s::jsonb "
        "FROM generate_series(1, %s) t",
        (DAY, SETUP, tables),
    )
    conn.execute(
        "INSERT INTO events (table_id, seq, time, kind, record, data) "
        "SELECT 'T' || t, 2, %s, 'bank_open', '\\x80', '{\"amount\": 50000}' "
        "FROM generate_series(1, %s) t",
        (DAY, tables),
    )
    conn.execute(
        "INSERT INTO events (table_id, seq, time, kind, record, data) "
        "SELECT 'T' || t, s, %s + (s - 2) * %s, 'act', '\\x80', '{\"seat\": 1}' "
        "FROM generate_series(1, %s) t, generate_series(3, %s) s",
        (DAY, step, tables, last),
    )
    conn.execute(
        "INSERT INTO hands (table_id, seq, hand, session, finished, finished_wall, record) "
        "SELECT 'T' || t, 2 + h * %s, h, 1, h, to_timestamp(%s + h * %s * %s), "
        "jsonb_build_object('hand', h, 'rake', h %% 5, 'jackpot_drop', (h %% 3 = 0)::int) "
        "FROM generate_series(1, %s) t, generate_series(1, %s) h",
        (per_hand, DAY, per_hand, step, tables, hands),
    )
    # Nine sit-downs at the start, a rebuy every 20 hands, a cash-out and a new player
    # every 40 (on the first record of that hand).
    conn.execute(
        "INSERT INTO seat_money (table_id, seq, at, kind, seat, player, card, amount) "
        "SELECT 'T' || t, 3 + (h - 1) * %s, to_timestamp(%s + (h - 1) * %s * %s), k, "
        "1 + (h / 20) %% 9, 'p' || t || '-' || h, 'C' || t || '-' || h, "
        "CASE k WHEN 'sit' THEN 200 WHEN 'rebuy' THEN 100 ELSE 150 END "
        "FROM generate_series(1, %s) t, generate_series(1, %s) h, "
        "LATERAL (SELECT CASE WHEN h %% 40 = 0 THEN 'cash_out' WHEN h %% 20 = 0 THEN 'rebuy' "
        "WHEN h <= 9 THEN 'sit' END AS k) kinds WHERE k IS NOT NULL",
        (per_hand, DAY, per_hand, step, tables, hands),
    )
    tail = [
        (1, "bank_fill", '{"amount": 5000}'),
        (
            2,
            "jackpot_award",
            '{"jackpot": "bad_beat", "hand": 7, "shares": '
            '[{"seat": 1, "player": "C", "share": "loser", "amount": 40}]}',
        ),
        (3, "bank_credit", '{"amount": 3000}'),
        (4, "shift_count", '{"counted": 100, "expected": 101}'),
    ]
    for offset, kind, data in tail:
        conn.execute(
            "INSERT INTO events (table_id, seq, time, kind, record, data) "
            "SELECT 'T' || t, %s, %s, %s, '\\x80', %s::jsonb FROM generate_series(1, %s) t",
            (last + offset, DAY + span, kind, data, tables),
        )
    conn.execute("ANALYZE")


def timed(conn: psycopg.Connection[Any], sql: str) -> tuple[float, list[tuple[Any, ...]]]:
    """Best of three runs of ``sql``: seconds and the rows."""
    best, rows = float("inf"), []
    for _ in range(3):
        start = time.perf_counter()
        rows = conn.execute(sql).fetchall()
        best = min(best, time.perf_counter() - start)
    return best, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--hours", type=int, default=12)
    parser.add_argument("--per-hour", type=int, default=35)
    parser.add_argument("--records-per-hand", type=int, default=40)
    args = parser.parse_args(argv)
    hands = args.hours * args.per_hour
    pg = PostgresServer.temporary().start()
    try:
        central.migrate(pg.conninfo)
        books.set_room_zone(pg.conninfo, "America/Lima")
        with psycopg.connect(pg.conninfo, autocommit=True) as conn:
            start = time.perf_counter()
            fill(conn, args.tables, hands, args.records_per_hand, args.hours * 3600)
            filled = time.perf_counter() - start
            (events,) = conn.execute("SELECT count(*) FROM events").fetchone() or (0,)
            print(
                f"{args.tables} tables, {hands} hands each, {events} records "
                f"(filled in {filled:.1f} s)"
            )
            room_s, room = timed(conn, "SELECT * FROM room_shift_report")
            shifts_s, shifts = timed(conn, "SELECT * FROM table_shifts")
            revenue_s, _ = timed(conn, "SELECT * FROM revenue_by_table_day")
            print(f"room_shift_report: {room_s:.3f} s ({len(room)} day)")
            print(f"table_shifts: {shifts_s:.3f} s ({len(shifts)} shifts)")
            print(f"revenue_by_table_day: {revenue_s:.3f} s")
            rake = sum(h % 5 for h in range(1, hands + 1)) * args.tables
            (got,) = conn.execute("SELECT sum(rake) FROM room_shift_report").fetchone() or (0,)
            if got != rake or len(shifts) != args.tables:
                print(f"The totals are wrong: rake {got} (expected {rake}).")
                return 1
            if room_s > 10:
                print("The shift report took more than 10 s.")
                return 1
    finally:
        pg.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
