"""The controller's part of the house's money (a mixin of
:class:`~firmware.service.controller.Controller`): it takes the time charge when
a period begins and compares the chip trays' rake zone with the rake.

* **HOUSE-TIME**: on each tick between hands, and just before a hand starts,
  the charges :func:`~firmware.table.house.due_time_charges` names are journaled
  and applied one by one as :class:`~firmware.table.events.TimeCharge` events.
* **HOUSE-RAKE-ZONE**: where a chip tray has a zone named :data:`RAKE_ZONE`, the
  value of the chips read there is compared, just before the next hand starts,
  with the rake the table took from the last hand; the comparison is journaled as
  :class:`~firmware.table.events.RakeZone`. A difference is an alert on the
  console, and the table starts no hand until the dealer recounts
  (:meth:`HouseMoney.rake_zone_answer` with ``"recount"``: the zone is read again
  and compared again) or confirms the count with a staff badge (``"confirm"``).
"""

from __future__ import annotations

from typing import Any

from firmware.errors import IllegalAction
from firmware.hal import ChipTrays, Device
from firmware.service.controller_state import ControllerState
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.house import due_time_charges
from firmware.table.table import Table

RAKE_ZONE = "rake"
"""The chip trays' zone the dealer drops each hand's rake in (HOUSE-RAKE-ZONE)."""

RAKE_ZONE_ANSWERS = ("recount", "confirm")
"""The dealer's answers to a rake-zone difference."""


class HouseMoney:
    """The time charge and the rake zone of the controller."""

    table: Table
    devices: dict[str, Device]
    registry: TagRegistry
    state: ControllerState

    def apply(self, event: te.TableEvent) -> bool:
        raise NotImplementedError

    def submit(self, event: te.TableEvent) -> None:
        raise NotImplementedError

    def _alert(
        self, text: str, source: str | None = None, key: str | None = None, **params: Any
    ) -> None:
        raise NotImplementedError

    def collect_time(self) -> bool:
        """Take the time charges due now (HOUSE-TIME); whether any was taken."""
        taken = False
        for charge in due_time_charges(self.table):
            taken = self.apply(charge) or taken
        return taken

    def before_hand(self) -> None:
        """What the house settles before a hand starts: the time charge due and the
        comparison of the rake zone with the last hand's rake."""
        self.collect_time()
        self.compare_rake_zone()

    def has_rake_zone(self) -> bool:
        """Whether a chip tray of this table reads a :data:`RAKE_ZONE`."""
        return any(
            isinstance(d, ChipTrays) and RAKE_ZONE in d.zones() for d in self.devices.values()
        )

    def rake_zone_read(self) -> int:
        """The value of the registered chips the trays read in the rake zone now."""
        tags = self.state.zones.get(RAKE_ZONE, frozenset())
        return self.registry.chips_value(tags)[0]

    def compare_rake_zone(self) -> bool:
        """Compare the rake zone with the last hand's rake, once per hand; journal the
        comparison when either is not 0, and alert the console to a difference.

        :returns: whether the comparison agreed (or there was nothing to compare).
        """
        table = self.table
        if table.hand is not None or not table.records or not self.has_rake_zone():
            return True
        if table.house.zone_open is not None:
            return False  # the dealer recounts or confirms it first (rake_zone_answer)
        record = table.records[-1]
        hand, computed = int(record["hand"]), int(record.get("rake", 0))
        if table.house.zone_checked >= hand:
            return True
        read = self.rake_zone_read()
        if not read and not computed:
            return True
        if not self.apply(te.RakeZone(hand, read, computed)):
            return False
        if read == computed:
            return True
        self._alert(
            f"The rake zone reads {read} but the table took a rake of {computed} from hand "
            f"{hand}: recount the rake zone, or confirm the count with your badge.",
            None,
            "alert.rake_zone.mismatch",
            hand=hand,
            read=read,
            computed=computed,
        )
        return False

    def rake_zone_answer(self, answer: str, badge: str) -> None:
        """The dealer's answer to an open rake-zone difference: ``recount`` reads the zone
        again and compares; ``confirm`` accepts the count, journaled with ``badge``.

        :raises IllegalAction: with no open difference, or a confirmation without a badge.
        """
        opened = self.table.house.zone_open
        if opened is None:
            raise IllegalAction(
                "The rake zone agrees with the rake; there is nothing to recount or confirm.",
                key="error.rake_zone.none_open",
            )
        if answer == "recount":
            read = self.rake_zone_read()
            self.submit(te.RakeZone(opened["hand"], read, opened["computed"]))
            if read != opened["computed"]:
                self._alert(
                    f"The rake zone still reads {read}, not the {opened['computed']} of hand "
                    f"{opened['hand']}: recount again, or confirm the count with your badge.",
                    None,
                    "alert.rake_zone.mismatch",
                    hand=opened["hand"],
                    read=read,
                    computed=opened["computed"],
                )
            return
        if answer != "confirm" or not badge:
            raise IllegalAction(
                "A rake-zone count is confirmed by a staff member logged in with a badge.",
                key="error.rake_zone.badge",
            )
        self.submit(te.RakeZone(opened["hand"], opened["read"], opened["computed"], badge))


__all__ = ["RAKE_ZONE", "RAKE_ZONE_ANSWERS", "HouseMoney"]
