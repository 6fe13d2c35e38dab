"""The garbage collector tuned for the table loop (``pokertable serve`` calls it once)."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firmware.service.controller import Controller


def collect_between_hands(controller: Controller) -> None:
    """Tune the process's garbage collector for the table loop (call once, at start).

    A full collection scans every object the process holds (milliseconds to tens
    of milliseconds), in the middle of a hand whenever the collector decided. What start-up built
    (imports, the restored table) is frozen out of the scans, automatic full
    collections are turned off, and one runs on the loop thread after each hand
    ends, once that hand's last views are out, while the dealer gathers the
    cards. The young generations are still collected as usual.
    """
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTIONS_OFF)

    def collect() -> None:
        gc.collect()

    controller.table.hand_listeners.append(lambda record, hand: controller.call_soon(collect))


FULL_COLLECTIONS_OFF = 1 << 30
"""A threshold for the oldest generation that is never reached."""


__all__ = ["FULL_COLLECTIONS_OFF", "collect_between_hands"]
