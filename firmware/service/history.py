"""Hand history: every finished hand, queryable, exportable.

Stored in SQLite beside the journal, one row per hand with its record (cards
by role, actions, incidents, pots, stacks), the engine events (for PHH
export) and the table events (for the table-script export). Queries by hand
number, seat, player and time; exports to PHH, to the PokerStars-style text
that players' tracking tools import, and to a table script. Retention keeps
the newest hands within a count or an age (never the open hand, which is
not in the history until it ends).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import msgpack

from firmware.engine.events import StartHand, from_record, to_record
from firmware.engine.hand import Hand
from firmware.engine.rules import GameKind
from firmware.service.storage import opening
from firmware.table import event_records
from firmware.table.walltime import local_time

if TYPE_CHECKING:
    from firmware.table.dealing import TableHand

_SCHEMA = """
CREATE TABLE IF NOT EXISTS hands (
    number INTEGER PRIMARY KEY,
    finished REAL NOT NULL,
    seats TEXT NOT NULL,
    players TEXT NOT NULL,
    record BLOB NOT NULL,
    engine BLOB NOT NULL,
    script BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS hands_finished ON hands (finished);
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
"""

log = logging.getLogger("firmware.service.history")


DEFAULT_UNIT = Decimal("0.01")
"""Money value of one chip unit in cash-game exports unless told otherwise."""


class HandHistory:
    """The table's hand history in an SQLite file.

    :param path: The database file.
    """

    def __init__(self, path: str) -> None:
        self._db = sqlite3.connect(path)
        with opening(path, "hand history"):
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def set_zone(self, zone: str) -> None:
        """Keep the table's time zone (``[table] timezone``; "": the system's) for
        ``history list`` and the exports."""
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('timezone', ?)", (zone,))

    @property
    def zone(self) -> str:
        """The table's time zone as :meth:`set_zone` kept it ("": the system's)."""
        row = self._db.execute("SELECT v FROM meta WHERE k = 'timezone'").fetchone()
        return str(row[0]) if row else ""

    def add(self, record: dict[str, Any], hand: TableHand, finished: float) -> None:
        """Store a finished hand (see :meth:`listener` for the table hook). The hand's
        own ``finished_wall`` (UTC, from the journal) is its time when it has one;
        ``finished`` (the clock when it was stored) otherwise."""
        finished = float(record.get("finished_wall") or finished)
        seats = "," + ",".join(str(s) for s in record["seats"]) + ","
        players = "\x1f".join(record["players"].values())
        engine = msgpack.packb([to_record(e) for e in hand.hand.events])
        script = msgpack.packb([event_records.to_record(e) for e in hand.log])
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO hands VALUES (?, ?, ?, ?, ?, ?, ?)",
                (record["hand"], finished, seats, players, msgpack.packb(record), engine, script),
            )

    def listener(self, clock: Any) -> Any:
        """A hand listener for :class:`~firmware.table.table.Table` storing each hand."""

        def store(record: dict[str, Any], hand: TableHand) -> None:
            # Called after the hand's last event is journaled and applied: a history
            # that cannot be written (a full disk) must not make that event look refused.
            # The journal keeps the hand; the error is for the technician.
            try:
                self.add(record, hand, clock())
            except sqlite3.Error as exc:
                log.error(
                    "The hand history could not store hand %s (%s); the journal keeps it. "
                    "Free space in the data folder.",
                    record.get("hand"),
                    exc,
                )

        return store

    # ------------------------------------------------------------ queries

    def find(
        self,
        seat: int | None = None,
        player: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int = 50,
    ) -> list[dict[str, Any]]:
        """Records of the newest hands matching every given filter, newest first."""
        where: list[str] = []
        args: list[Any] = []
        if seat is not None:
            where.append("seats LIKE ?")
            args.append(f"%,{seat},%")
        if since is not None:
            where.append("finished >= ?")
            args.append(since)
        if until is not None:
            where.append("finished <= ?")
            args.append(until)
        sql = "SELECT record, players FROM hands"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY number DESC"
        found = []
        for blob, players in self._db.execute(sql, args):
            if player is not None and player not in players.split("\x1f"):
                continue
            found.append(msgpack.unpackb(blob, strict_map_key=False))
            if len(found) >= limit:
                break
        return found

    def get(self, number: int) -> dict[str, Any] | None:
        """The record of hand ``number``, or ``None``."""
        row = self._db.execute("SELECT record FROM hands WHERE number = ?", (number,)).fetchone()
        return msgpack.unpackb(row[0], strict_map_key=False) if row else None

    def get_row_exists(self, number: int) -> bool:
        """Whether hand ``number`` has a row (read or not)."""
        row = self._db.execute("SELECT 1 FROM hands WHERE number = ?", (number,)).fetchone()
        return row is not None

    def numbers(self) -> Iterator[int]:
        """Every stored hand number, oldest first."""
        for (number,) in self._db.execute("SELECT number FROM hands ORDER BY number"):
            yield number

    # ------------------------------------------------------------ exports

    def engine_hand(self, number: int) -> Hand:
        """The engine hand of ``number`` rebuilt from its events."""
        row = self._db.execute("SELECT engine FROM hands WHERE number = ?", (number,)).fetchone()
        if row is None:
            raise KeyError(f"There is no hand {number} in the history.")
        return Hand.replay(from_record(r) for r in msgpack.unpackb(row[0]))

    def to_phh(self, number: int) -> str:
        """Hand ``number`` in the PHH format."""
        from firmware.engine.histories.phh import hand_to_phh  # exports only: not at start-up

        return hand_to_phh(self.engine_hand(number))

    def to_script(self, number: int) -> str:
        """Hand ``number``'s table events as table-script lines."""
        from firmware.table.script_write import format_event

        row = self._db.execute("SELECT script FROM hands WHERE number = ?", (number,)).fetchone()
        if row is None:
            raise KeyError(f"There is no hand {number} in the history.")
        events = [event_records.from_record(r) for r in msgpack.unpackb(row[0])]
        return "\n".join(["shuffle", "cut", *(format_event(e) for e in events)]) + "\n"

    def to_pokerstars(
        self,
        number: int,
        table_name: str = "Mesa 1",
        unit: Decimal | None = DEFAULT_UNIT,
        currency: str = "USD",
        *,
        tournament: int | None = None,
        hero: int | None = None,
        zone: str | None = None,
    ) -> str:
        """Hand ``number`` as PokerStars-style text for tracking tools.

        :param unit: The money value of one chip unit (``0.01`` for cents);
            ``None`` writes whole chips without a currency, as tournament and
            play-money hands are written (tournament hands always are).
        :param zone: The time zone of the header's date (default: the table's,
            :meth:`set_zone`); the hand's real start (``started_wall``, UTC) in it.
        :param tournament: Tournament number for the header; by default a
            tournament hand is numbered 1.
        :raises HandHistoryError: for a void hand (it has no PokerStars form).
        """
        from firmware.engine.histories.pokerstars import PokerStarsStyle, hand_to_pokerstars

        record = self.get(number)
        if record is None:
            raise KeyError(f"There is no hand {number} in the history.")
        hand = self.engine_hand(number)
        start = hand.events[0]
        assert isinstance(start, StartHand)
        if start.config.game is GameKind.TOURNAMENT:
            unit, tournament = None, tournament or 1
        started = local_time(self.started_wall(number, record), zone or self.zone)
        style = PokerStarsStyle(
            hand_id=number,
            table=table_name,
            started=started,
            eastern=_eastern(started),
            zone=started.tzname() or "UTC",
            unit=unit,
            currency=currency,
            button=record.get("button"),
            tournament=tournament,
            hero=hero,
        )
        return hand_to_pokerstars(hand, style)

    def started_wall(self, number: int, record: dict[str, Any] | None = None) -> float:
        """When hand ``number`` started (seconds since the epoch, UTC): its record's
        ``started_wall``; for a hand recorded before real times were kept, the time it
        was stored less its length at the table."""
        record = record if record is not None else self.get(number)
        if record is None:
            raise KeyError(f"There is no hand {number} in the history.")
        if record.get("started_wall") is not None:
            return float(record["started_wall"])
        row = self._db.execute("SELECT finished FROM hands WHERE number = ?", (number,)).fetchone()
        length = float(record.get("finished_at") or 0.0) - float(record.get("started_at") or 0.0)
        return float(row[0]) - max(0.0, length)

    # ------------------------------------------------------------ retention

    def prune(self, keep_hands: int | None = None, older_than: float | None = None) -> int:
        """Delete old hands beyond ``keep_hands`` or finished before ``older_than``."""
        deleted = 0
        with self._db:
            if keep_hands is not None:
                cur = self._db.execute(
                    "DELETE FROM hands WHERE number NOT IN "
                    "(SELECT number FROM hands ORDER BY number DESC LIMIT ?)",
                    (keep_hands,),
                )
                deleted += cur.rowcount
            if older_than is not None:
                cur = self._db.execute("DELETE FROM hands WHERE finished < ?", (older_than,))
                deleted += cur.rowcount
        return deleted


def _eastern(when: datetime) -> datetime:
    """``when`` in US Eastern time, which PokerStars headers also give."""
    try:
        from zoneinfo import ZoneInfo

        return when.astimezone(ZoneInfo("America/New_York"))
    except (ImportError, KeyError, OSError, ValueError):
        return when - timedelta(hours=5)  # no time-zone data: Eastern standard time
