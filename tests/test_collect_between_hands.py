"""The garbage collector's full collections run between hands, not in the middle of one."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from firmware.service.controller import Controller
from firmware.service.controller_gc import FULL_COLLECTIONS_OFF, collect_between_hands
from firmware.service.registry import TagRegistry
from hal_sim.table_soak import Soak


@pytest.fixture
def collector() -> Iterator[list[int]]:
    """The generations collected while the test runs; the collector restored after it."""
    threshold = gc.get_threshold()
    seen: list[int] = []

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(int(info["generation"]))

    gc.callbacks.append(watch)
    try:
        yield seen
    finally:
        gc.callbacks.remove(watch)
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_full_collections_wait_for_the_end_of_a_hand(collector: list[int]) -> None:
    soak = Soak("casino-cash", seed=8)
    controller = Controller(soak.table, {}, TagRegistry(":memory:"))
    collect_between_hands(controller)
    assert gc.get_threshold()[2] == FULL_COLLECTIONS_OFF and gc.get_freeze_count() > 0
    collector.clear()
    soak.play_hand()  # the soak applies to the table itself: the controller's loop waits
    assert 2 not in collector  # no full collection during the hand
    assert controller.run_pending() == 1  # the one queued when the hand ended
    assert collector[-1] == 2
