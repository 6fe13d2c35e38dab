"""Retention: the journal rotates at hand boundaries from a snapshot, recovery replays only
the newest file, old archives and hands are pruned by policy, never the open hand."""

import os

import pytest

from firmware.errors import ConfigError, IllegalAction
from firmware.service.history import HandHistory
from firmware.service.journal import Journal
from firmware.service.recovery import restore
from firmware.service.retention import Retention, prune_history, rotate_journal
from firmware.table.snapshot import table_state
from hal_sim.table_soak import Soak


def test_rotation_keeps_the_table_exactly_and_bounds_the_journal(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "journal.sqlite")
    soak = Soak("tda-tournament", seed=4, journal=Journal(path))
    for _ in range(3):
        for _ in range(15):
            soak.play_hand()
        assert soak.journal is not None
        soak.journal = rotate_journal(soak.journal, soak.table, keep=2)
    archives = sorted(f for f in os.listdir(tmp_path) if f.startswith("journal-to-hand-"))
    assert archives == ["journal-to-hand-00000030.sqlite", "journal-to-hand-00000045.sqlite"]
    for _ in range(5):
        soak.play_hand()  # the hands after the last rotation
    live = soak.table
    assert soak.journal is not None
    soak.journal.close()
    again = restore(Journal(path))  # replays the snapshot and five hands only
    assert again.hand_number == live.hand_number
    assert {k: (v.stack, v.markers) for k, v in again.seating.seats.items()} == {
        k: (v.stack, v.markers) for k, v in live.seating.seats.items()
    }
    assert again.seating.button == live.seating.button
    assert again.penalties.records == live.penalties.records
    assert again.records[-1] == live.records[-1]


def test_no_snapshot_during_a_hand(tmp_path) -> None:  # type: ignore[no-untyped-def]
    soak = Soak("casino-cash", seed=2)
    soak.play_hand()
    from firmware.table import events as te

    soak.table.apply(te.Shuffle())
    with pytest.raises(IllegalAction, match="between hands"):
        table_state(soak.table)


def test_history_pruned_by_count_and_age(tmp_path) -> None:  # type: ignore[no-untyped-def]
    history = HandHistory(str(tmp_path / "h.sqlite"))
    soak = Soak("casino-cash", seed=8)
    clock = iter(float(x) for x in range(0, 10**6, 3600))
    soak.table.hand_listeners.append(history.listener(lambda: next(clock)))
    for _ in range(30):
        soak.play_hand()
    # 30 hands finished an hour apart (t = 0 .. 29 h). At t = 30 h, keeping one day drops
    # the six finished before t = 6 h; then keeping 20 hands drops four more.
    by_age = prune_history(history, Retention(keep_hands=1000, keep_days=1.0), now=30 * 3600.0)
    assert by_age == 6
    assert prune_history(history, Retention(keep_hands=20)) == 4
    left = list(history.numbers())
    assert left == list(range(11, 31))


def test_retention_config_errors_name_the_option() -> None:
    with pytest.raises(ConfigError, match="keep_hand"):
        Retention.from_config({"keep_hand": 5})
    assert Retention.from_config({"rotate_every_hands": 100}).rotate_every_hands == 100
