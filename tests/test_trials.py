"""Events tried on a twin of the table kept in step (``firmware.service.safety.Trials``).

The controller tries each event before journaling it; the twin must stay exactly
the table (so a trial answers what the table would do), and be copied again
whenever it may not be.
"""

from __future__ import annotations

from typing import Any

import pytest

from firmware.errors import IllegalAction
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.dealing import TableHand
from firmware.table.report import hand_record
from firmware.table.table import Table
from hal_sim.table_soak import Soak


def picture(table: Table) -> dict[str, Any]:
    """What a player or the floor can see of a table, with the hand's inner state."""
    th = table.hand
    seen: dict[str, Any] = {
        "now": table.now,
        "hand_number": table.hand_number,
        "log": len(table.log),
        "seats": {k: (v.stack, v.rebuy, v.markers) for k, v in table.seating.seats.items()},
        "button": table.seating.button,
    }
    if th is not None:
        seen["hand"] = th.hand.snapshot()
        seen["draws"] = [(d.card, d.role, d.public) for d in th.s.draws]
        seen["incidents"] = [(i.rule, i.what) for i in th.s.incidents]
        seen["clock"] = (th.s.clock.seat, th.s.now)
    return seen


class ControlledSoak(Soak):
    """The soak with every event going through the controller, as on a table."""

    def __init__(self, seed: int) -> None:
        self.controller: Controller | None = None
        super().__init__("casino-cash", seed, incident_rate=0.3)
        self.journaled: list[te.TableEvent] = []
        self.controller = Controller(
            self.table, {}, TagRegistry(":memory:"), journal=self.journaled.append
        )
        self.in_step = 0
        self.refused = 0
        self.records_taken = 0
        """Hands whose record the table took from the trial instead of building it."""
        self.table.hand_listeners.append(self._check_record)

    def _check_record(self, record: dict[str, Any], th: TableHand) -> None:
        """The table's record of a hand is the one built from the hand itself."""
        fresh = hand_record(record["hand"], th)
        fresh["started_at"], fresh["finished_at"] = record["started_at"], record["finished_at"]
        # The real times come from the table's journaled wall-clock anchor, not the hand.
        fresh["started_wall"], fresh["finished_wall"] = (
            record["started_wall"],
            record["finished_wall"],
        )
        assert record == fresh
        controller = self.controller
        if controller is not None and record is controller.trials.record:
            self.records_taken += 1

    def _apply(self, event: te.TableEvent) -> bool:
        controller = self.controller
        if controller is None:
            return super()._apply(event)
        if len(self.journaled) % 3 == 0:
            controller.tick(self.table.now + 0.25)  # the clock moves on, not journaled yet
        before = len(self.journaled)
        try:
            controller.submit(event)
        except IllegalAction:
            assert len(self.journaled) == before  # nothing journaled that was refused
            assert controller.trials._twin is None
            return False
        twin = controller.trials._twin
        if twin is not None:
            assert twin is not self.table and picture(twin) == picture(self.table)
            self.in_step += 1
        th = self.table.hand
        if th is not None and th.hand.actor is not None and len(self.journaled) % 5 == 0:
            # A tap out of turn now and then: refused, nothing journaled, twin dropped.
            wrong = next(s for s in th.plan.seats if s != th.seat(th.hand.actor))
            with pytest.raises(IllegalAction):
                controller.submit(te.Act(wrong, "fold", 0))
            assert len(self.journaled) in (before + 1, before + 2)  # event (and catch-up tick)
            assert controller.trials._twin is None
            self.refused += 1
        return True


@pytest.mark.parametrize("seed", [3, 4])
def test_the_twin_stays_the_table_through_hands_with_incidents_and_refusals(seed: int) -> None:
    soak = ControlledSoak(seed)
    for _ in range(15):
        soak.play_hand()
    assert soak.in_step > 300 and soak.refused > 0
    # The hand records the trials built were taken, not built again (issue 15).
    assert soak.records_taken >= 10


def test_a_hand_record_that_does_not_match_the_hand_is_not_taken() -> None:
    soak = ControlledSoak(8)
    controller = soak.controller
    assert controller is not None
    trial = controller.trials.trial
    forged: list[dict[str, Any]] = []

    def forging(table: Table, events: list[te.TableEvent]) -> None:
        trial(table, events)
        record = controller.trials.record
        if record is not None:  # the trial finished a hand: lend a wrong record instead
            stacks = dict(record["finishing_stacks"])
            first = next(iter(stacks))
            stacks[first] += 1
            controller.trials.record = {**record, "finishing_stacks": stacks}
            forged.append(controller.trials.record)

    controller.trials.trial = forging  # type: ignore[method-assign]
    for _ in range(3):
        soak.play_hand()
    assert len(forged) >= 3 and soak.table.records
    assert all(r is not f for r in soak.table.records for f in forged)
    assert soak.records_taken == 0 and soak.table.record_ready is None


def test_a_table_changed_behind_the_controller_is_copied_again() -> None:
    soak = ControlledSoak(5)
    soak.play_hand()
    assert soak._apply(te.Shuffle()) and soak._apply(te.Cut())
    controller = soak.controller
    assert controller is not None and soak.table.hand is not None
    twin = controller.trials._twin
    assert twin is not None
    soak.table.apply(te.Tick(soak.table.now + 1))  # not through the controller
    controller.submit(te.Tick(soak.table.now + 2))
    assert controller.trials._twin is not twin
    assert picture(controller.trials._twin) == picture(soak.table)  # type: ignore[arg-type]


def test_a_journal_failure_drops_the_twin_and_leaves_the_table_as_it_was() -> None:
    soak = ControlledSoak(6)
    soak.play_hand()
    controller = soak.controller
    assert controller is not None
    before = picture(soak.table)

    def full(event: te.TableEvent) -> None:
        raise OSError("No space left on device")

    controller.journal = full
    with pytest.raises(IllegalAction, match="No space left"):
        controller.submit(te.Shuffle())
    assert controller.trials._twin is None and picture(soak.table) == before


def test_the_twin_goes_on_to_the_next_hand_unless_the_table_changed_between_hands() -> None:
    soak = ControlledSoak(7)
    soak.play_hand()
    controller = soak.controller
    assert controller is not None and soak.table.hand is None
    twin = controller.trials._twin
    assert twin is not None
    assert soak._apply(te.Shuffle())  # the shuffle is tried on the same twin, not a copy
    assert controller.trials._twin is twin and picture(twin) == picture(soak.table)
    assert soak._apply(te.Cut())
    soak.finish_hand()
    soak._between_hands()  # busted players leave, new ones sit down (through the controller)
    twin = controller.trials._twin
    assert twin is not None
    seat = next(iter(soak.table.seating.seats.values()))
    seat.stack += 5  # changed behind the controller: the log does not show it
    assert soak._apply(te.Shuffle())
    assert controller.trials._twin is not twin
    assert picture(controller.trials._twin) == picture(soak.table)  # type: ignore[arg-type]
