"""Data retention on the SD card: snapshots, journal rotation and hand-history pruning.

Every ``snapshot_every_hands`` hands the table's state between hands is saved
in the journal, so recovery replays only the hands after it. The journal
grows by about 3 MB per 1,000 hands, so it is rotated at a hand boundary
every ``rotate_every_hands`` hands: the current file is archived under a
name with the hand number, and a new journal starts with the table's set-up
and a snapshot of the table between hands (:mod:`firmware.table.snapshot`).
Only ``keep_journals`` archives are kept. The hand history keeps
``keep_hands`` hands and none older than ``keep_days``. The open hand is
never touched: snapshots and rotation happen only between hands, and the
history holds finished hands only.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from firmware.errors import ConfigError
from firmware.service.history import HandHistory
from firmware.service.journal import Journal
from firmware.table import events as te
from firmware.table.snapshot import table_state
from firmware.table.table import Table


@dataclass(frozen=True)
class Retention:
    """The retention policy (``[retention]`` in the table configuration)."""

    snapshot_every_hands: int = 10
    """A snapshot of the table goes into the journal every so many hands, so recovery
    replays at most that many hands (:func:`firmware.service.recovery.restore`)."""
    rotate_every_hands: int = 5_000
    keep_journals: int = 4
    keep_hands: int = 200_000
    keep_days: float = 0.0
    """0 keeps hands of any age (only ``keep_hands`` bounds them)."""

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> Retention:
        """Read ``[retention]``; unknown keys or bad values are errors naming them."""
        known = {f.name for f in cls.__dataclass_fields__.values()}
        unknown = sorted(set(section) - known)
        if unknown:
            names = ", ".join(sorted(known))
            raise ConfigError(
                f"Unknown [retention] option(s): {', '.join(unknown)}; known: {names}.",
                key="config.retention.unknown",
                unknown=", ".join(unknown),
                known=names,
            )
        policy = cls(**section)
        if (
            policy.rotate_every_hands < 1
            or policy.snapshot_every_hands < 1
            or policy.keep_journals < 0
            or policy.keep_hands < 1
        ):
            raise ConfigError(
                "[retention] needs rotate_every_hands, snapshot_every_hands and keep_hands "
                "of at least 1 and keep_journals of 0 or more.",
                key="config.retention.values",
            )
        return policy


def rotate_journal(journal: Journal, table: Table, keep: int) -> Journal:
    """Archive ``journal`` and start a new one from a snapshot of ``table``.

    Returns the new journal (same path). Call only between hands.
    """
    state = table_state(table)
    setup = journal.meta("table")
    path = journal.path
    base_seq = journal.seq_base + len(journal)
    journal.close()
    folder = os.path.dirname(path) or "."
    base = os.path.splitext(os.path.basename(path))[0]
    archive = os.path.join(folder, f"{base}-to-hand-{table.hand_number:08d}.sqlite")
    for suffix in ("", "-wal", "-shm", ".head"):
        if os.path.exists(path + suffix):
            os.replace(path + suffix, archive + suffix)
    fresh = Journal(path, key=journal.key)
    fresh.set_meta("table", setup)
    fresh.set_meta("seq_base", base_seq)  # the floor's sequence goes on across files
    fresh.append(te.Restore(state))
    archives = sorted(
        f for f in os.listdir(folder) if f.startswith(f"{base}-to-hand-") and f.endswith(".sqlite")
    )
    for old in archives[: max(0, len(archives) - keep)]:
        for suffix in ("", "-wal", "-shm", ".head"):
            target = os.path.join(folder, old + suffix)
            if os.path.exists(target):
                os.remove(target)
    return fresh


def after_hand(
    journal: Journal, table: Table, policy: Retention, hands_since_rotation: int
) -> Journal:
    """What the journal needs between hands: a snapshot every ``snapshot_every_hands``
    hands, a rotation every ``rotate_every_hands``. Returns the journal to go on with
    (a new one after a rotation, which starts from a snapshot of its own)."""
    if hands_since_rotation >= policy.rotate_every_hands:
        return rotate_journal(journal, table, policy.keep_journals)
    if hands_since_rotation % policy.snapshot_every_hands == 0:
        journal.save_snapshot(table_state(table))
    return journal


def prune_history(history: HandHistory, policy: Retention, now: float | None = None) -> int:
    """Delete hands beyond the policy; return how many."""
    cutoff = None
    if policy.keep_days:
        cutoff = (time.time() if now is None else now) - policy.keep_days * 86_400
    return history.prune(keep_hands=policy.keep_hands, older_than=cutoff)
