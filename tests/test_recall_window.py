"""A viewer's recall made from the one before it when a hand ends is the recall
made afresh (``firmware.views.recall``, issue 15): the window of the latest
records, players leaving and sitting down, the table's records trimmed."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from firmware.views import recall as recall_module
from firmware.views.recall import RECALL_HANDS, WINDOW, recall


def fresh(records: list[dict[str, Any]], viewer: int | None, player: str | None) -> list[Any]:
    """The records a recall shows, looked for from scratch."""
    if viewer is None:
        return records[-RECALL_HANDS:]
    mine = [
        r
        for r in records[-WINDOW:]
        if viewer in r["seats"] and r["players"].get(str(viewer)) == player
    ]
    return mine[-RECALL_HANDS:]


@pytest.mark.parametrize("seed", range(6))
def test_the_recall_after_each_hand_is_the_recall_made_afresh(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The entries themselves are tested with the views; here each entry is its record.
    monkeypatch.setattr(recall_module, "_cached_entry", lambda record, viewer: record)
    monkeypatch.setattr(recall_module, "_RECALL_LISTS", {})
    rng = random.Random(seed)
    keep = rng.choice([WINDOW - 1, WINDOW, WINDOW + 1, 3 * WINDOW])  # the table's trim
    players = {seat: f"P{seat}" for seat in range(1, 10)}
    seats = {n: SimpleNamespace(player=name) for n, name in players.items()}
    table: Any = SimpleNamespace(records=[], seating=SimpleNamespace(seats=seats))
    incremental = 0
    for number in range(1, 400):
        if rng.random() < 0.05:  # a player leaves, another sits down
            seat = rng.randint(1, 9)
            seats[seat] = SimpleNamespace(player=f"P{seat}-{number}")
        if rng.random() < 0.03:
            seats.pop(rng.randint(1, 9), None)  # an empty seat
        # Some players play nearly every hand, seat 9 seldom (the window matters).
        playing = [s for s in seats if rng.random() < (0.1 if s == 9 else 0.8)]
        record = {
            "hand": number,
            "seats": playing,
            "players": {str(s): seats[s].player for s in playing},
        }
        table.records.append(record)
        del table.records[:-keep]
        for viewer in [None, *range(1, 10)]:
            seat_now = seats.get(viewer) if viewer is not None else None
            player = seat_now.player if seat_now is not None else None
            hit = recall_module._RECALL_LISTS.get((id(table.records), viewer))
            if hit is not None and hit[2] == player and hit[1] is table.records[-2]:
                incremental += 1
            shown = recall(table, viewer)
            assert shown == fresh(table.records, viewer, player), (number, viewer)
            assert recall(table, viewer) is shown  # unchanged until the next hand
    assert incremental > 3000  # most recalls were made from the one before
