"""Journal growth over a day: a typical session, timer ticks journaled two ways.

A day is ``--hours`` of play at ``--hands-per-hour`` (the random table soak,
incidents included) and the rest of 24 hours idle. Table time moves
``--seconds-per-event`` with each event and the idle gap between hands is
spread evenly. Each event is committed to a real SQLite journal, with the
timer's ticks journaled either

* ``every-second``: a tick record every second, as the controller did, or
* ``derived``: only the time reached, once, before the next event (what the
  controller does now; ticks that change something are rare and not modelled).

    .venv/bin/python bench/bench_session.py --hours 12 --hands-per-hour 30
"""

from __future__ import annotations

import argparse
import os
import tempfile

from firmware.service.journal import Journal
from firmware.table import events as te
from hal_sim.table_soak import Soak


class ClockedSoak(Soak):
    """The soak with a table clock and the timer's ticks journaled per ``mode``."""

    def __init__(self, journal: Journal, mode: str, per_event: float) -> None:
        self.mode, self.per_event, self.clock, self.ticks = mode, per_event, 0.0, 0
        super().__init__("casino-cash", seed=7, journal=journal)

    def advance(self, seconds: float) -> None:
        target = self.clock + seconds
        if self.mode == "every-second":
            second = int(self.clock) + 1
            while second <= target:
                self._tick(float(second))
                second += 1
        self.clock = target

    def _tick(self, now: float) -> None:
        if self.journal is not None and now > self.table.now:
            self.journal.append(te.Tick(now))
            self.table.apply(te.Tick(now))
            self.ticks += 1

    def _apply(self, event: te.TableEvent) -> bool:
        if isinstance(event, te.Tick):  # the soak's own pause before a hand
            self.advance(max(0.0, event.now - self.clock))
            if event.now <= self.table.now:
                return True  # already there: nothing to journal
        else:
            self.advance(self.per_event)
            if self.mode == "derived":
                self._tick(round(self.clock, 3))
        return super()._apply(event)


def day(mode: str, hours: float, per_hour: int, per_event: float, folder: str) -> tuple[int, int]:
    """Journal bytes and records for one day in ``mode``."""
    path = os.path.join(folder, f"{mode}.sqlite")
    journal = Journal(path)
    soak = ClockedSoak(journal, mode, per_event)
    hands = int(hours * per_hour)
    for _ in range(hands):
        before = soak.clock
        soak.play_hand()
        spent = soak.clock - before
        soak.advance(max(0.0, 3600.0 / per_hour - spent))  # shuffling, chatting
    soak.advance((24 - hours) * 3600.0)  # closed: idle until tomorrow
    records = len(journal)
    journal.close()
    size = sum(
        os.path.getsize(path + suffix) for suffix in ("", "-wal") if os.path.exists(path + suffix)
    )
    return size, records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hours", type=float, default=12.0)
    parser.add_argument("--hands-per-hour", type=int, default=30)
    parser.add_argument("--seconds-per-event", type=float, default=3.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for mode in ("every-second", "derived"):
            size, records = day(
                mode, args.hours, args.hands_per_hour, args.seconds_per_event, folder
            )
            print(
                f"{mode:13} {records:8d} records  {size / 1e6:7.2f} MB per day "
                f"({args.hours:g} h at {args.hands_per_hour} hands/h, then idle)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
