"""Table meters: counters kept across restarts (hands played, power-ups,
device faults, floor overrides...), in SQLite beside the journal.

Diagnostics never touch them; only the running table counts.
"""

from __future__ import annotations

import sqlite3

from firmware.service.storage import opening

METERS = ("power_ups", "hands_played", "hands_void", "device_faults", "overrides", "incidents")


class Meters:
    """Persistent counters of one table.

    :param path: The database file.
    """

    def __init__(self, path: str) -> None:
        self._db = sqlite3.connect(path)
        with opening(path, "meters database"):
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS meters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)"
            )
            self._db.commit()

    def bump(self, name: str, by: int = 1) -> None:
        """Add ``by`` to meter ``name``."""
        if name not in METERS:
            raise ValueError(f"'{name}' is not a meter; meters are {', '.join(METERS)}.")
        with self._db:
            self._db.execute(
                "INSERT INTO meters (name, value) VALUES (?, ?) "
                "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value",
                (name, by),
            )

    def read(self) -> dict[str, int]:
        """Every meter's value (0 for one never bumped)."""
        values = dict.fromkeys(METERS, 0)
        values.update(self._db.execute("SELECT name, value FROM meters").fetchall())
        return values

    def close(self) -> None:
        """Close the database."""
        self._db.close()
