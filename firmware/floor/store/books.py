"""The cash game's books on the floor: each seat's money move as the replica saw it, and
the room's time zone the accountant's views count days in (issue 25).

The journal's ``sit``, ``rebuy``, ``seat_rebuy``, ``cash_out``, ``sit_out`` and
``adjust_stack`` records say what a seat asked for; what the table accepted, and how
many chips a cash-out took (the record names only the seat) or an adjustment changed,
only a copy of the table knows. The ingest's replica
is that copy: :func:`seat_move` reads the seat just before a record applies, and
:meth:`PendingMove.accepted` turns it into a ``seat_money`` row once the table took it.
Nothing here reads a card: a session never shows a hole card.

The views over these rows and the tables' money records are in
``migrations/0003.books.sql``; ``docs/accounting.md`` documents each one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg

from firmware.table.table import Table
from firmware.table.walltime import check_zone, zone_of

MONEY_KINDS = frozenset({"sit", "rebuy", "seat_rebuy", "cash_out", "sit_out", "adjust_stack"})
"""Journal records that move a seat's money or its time at the table (``adjust_stack``:
the floor set a stack, TDA-1; its amount is the change, which may be negative)."""

SEAT_MONEY_INSERT = (
    "INSERT INTO seat_money (table_id, seq, at, kind, seat, player, card, amount) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
)


@dataclass(frozen=True)
class SeatMove:
    """One ``seat_money`` row without its table and time (the ingest adds them)."""

    seq: int
    kind: str
    seat: int
    player: str
    card: str
    amount: int

    def row(self, table_id: str, time: float) -> tuple[Any, ...]:
        """The row for ``seat_money``, journaled at ``time`` (seconds since the epoch)."""
        at = datetime.fromtimestamp(time, UTC)
        return (table_id, self.seq, at, self.kind, self.seat, self.player, self.card, self.amount)


@dataclass(frozen=True)
class PendingMove:
    """A seat as it was before a money record applied."""

    kind: str
    seat: int
    player: str
    card: str
    amount: int
    was_out: bool = False

    def accepted(self, seq: int, table: Table) -> SeatMove | None:
        """The move, now that the table took the record (``None``: nothing changed, as a
        sit-out of a player already out)."""
        kind = self.kind
        if kind == "sit_out":
            seat = table.seating.seats.get(self.seat)
            out = bool(seat is not None and seat.sitting_out)
            if out == self.was_out:
                return None
            kind = "sit_out" if out else "sit_in"
        return SeatMove(seq, kind, self.seat, self.player, self.card, self.amount)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def seat_move(table: Table, record: dict[str, Any]) -> PendingMove | None:
    """What ``record`` would move at ``table`` (read before it applies); ``None`` for a
    record that moves no seat money, a tournament table's (its chips are not money), or
    one naming a seat or amount the table would refuse anyway."""
    kind = record.get("kind")
    if kind not in MONEY_KINDS or table.config.options.game != "cash":
        return None
    seat_no = _int(record.get("seat"))
    if seat_no is None or not 1 <= seat_no <= 10:
        return None
    if kind == "sit":
        chips = _int(record.get("chips"))
        if chips is None or chips < 0:
            return None
        return PendingMove(
            "sit", seat_no, str(record.get("player", "")), str(record.get("card", "")), chips
        )
    seat = table.seating.seats.get(seat_no)
    if seat is None:
        return None
    if kind in ("rebuy", "seat_rebuy"):
        chips = _int(record.get("chips"))
        if chips is None or chips < 0:
            return None
        return PendingMove(str(kind), seat_no, seat.player, seat.card, chips)
    if kind == "cash_out":
        return PendingMove("cash_out", seat_no, seat.player, seat.card, seat.stack + seat.rebuy)
    if kind == "adjust_stack":
        chips = _int(record.get("chips"))
        if chips is None or chips < 0 or chips == seat.stack:
            return None
        return PendingMove("adjust_stack", seat_no, seat.player, seat.card, chips - seat.stack)
    return PendingMove("sit_out", seat_no, seat.player, seat.card, 0, was_out=seat.sitting_out)


def room_zone(configured: object) -> str:
    """The room's time zone: ``[room] timezone`` if given, else the system's, else UTC.

    :raises ConfigError: for a zone this system does not know.
    """
    name = check_zone(configured if configured is not None else "")
    return name or str(getattr(zone_of(""), "key", "") or "UTC")


def set_room_zone(conninfo: str, zone: str) -> None:
    """Write the room's time zone where the views read it (after the migrations ran)."""
    with psycopg.connect(conninfo, autocommit=True, connect_timeout=10) as conn:
        conn.execute(
            "INSERT INTO room_settings (key, value) VALUES ('timezone', %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (zone,),
        )
