"""The table's physical buttons (a mixin of
:class:`~firmware.service.controller.Controller`): what each press asks the table.

* The dealer's: ``dealer.next`` shuffles (the hand starts at the shuffle,
  TDA-17), ``dealer.misdeal`` reports a misdeal, ``dealer.pause`` pauses the
  hand or resumes it (held reads are then applied).
* Each seat's (physical chips): ``seatN.action`` turns the chips pushed into the
  seat's bet zone into an action, ``seatN.raise`` declares a raise (TDA-11),
  ``seatN.time`` asks for the clock (an alert the console confirms),
  ``seatN.sitout`` sits the seat out or back in.

A press the table refuses becomes an alert, like any refused event.
"""

from __future__ import annotations

import re
from typing import Any

from firmware.errors import IllegalAction
from firmware.hal import ButtonPressed
from firmware.service.chipbets import ChipBets
from firmware.service.controller_state import Alert, AlertLog, ControllerState
from firmware.table import events as te
from firmware.table.table import Table

SEAT_BUTTON = re.compile(r"seat(\d+)\.(action|raise|time)")


class TableButtons:
    """The dealer's and the seats' buttons of the controller."""

    table: Table
    state: ControllerState
    chip_bets: ChipBets
    alerts: AlertLog

    @property
    def paused(self) -> bool:
        raise NotImplementedError

    def apply(self, event: te.TableEvent) -> bool:
        raise NotImplementedError

    def table_time(self, now: float | None = None) -> float:
        raise NotImplementedError

    def _alert(
        self, text: str, source: str | None = None, key: str | None = None, **params: Any
    ) -> None:
        raise NotImplementedError

    def _refusal(self, exc: IllegalAction, device: str | None = None, origin: str = "") -> None:
        raise NotImplementedError

    def _release_held(self) -> None:
        raise NotImplementedError

    def _outputs(self) -> None:
        raise NotImplementedError

    def _button(self, event: ButtonPressed) -> None:
        name = event.button
        if name == "dealer.next":
            if self.table.hand is None:
                self.apply(te.Shuffle())  # the hand starts at the shuffle (TDA-17)
        elif name == "dealer.misdeal":
            self.apply(te.Misdeal("declared with the dealer's misdeal button"))
        elif name == "dealer.pause":
            self.state.manual_pause = not self.state.manual_pause
            if self.paused:
                self._alert("The dealer paused the hand.", None, "alert.dealer.paused")
            else:
                self._alert("The hand resumes.", None, "alert.dealer.resumed")
            self._release_held()
            self._outputs()  # the attention LED follows the pause
        elif SEAT_BUTTON.fullmatch(name):
            self._seat_button(event)
        elif name.startswith("seat") and name.endswith(".sitout"):
            seat = int(name[4:].split(".")[0])
            current = self.table.seating.seats.get(seat)
            if current is not None:
                self.apply(te.SitOut(seat, not current.sitting_out))

    def _seat_button(self, event: ButtonPressed) -> None:
        """A seat's action, raise-declaration or time button (physical chips)."""
        match = SEAT_BUTTON.fullmatch(event.button)
        assert match is not None
        seat, what = int(match.group(1)), match.group(2)
        if what == "raise":
            self.apply(te.DeclareRaise(seat))
        elif what == "time":
            actor = self.table.prompt()
            self.alerts.append(
                Alert(
                    self.table_time(),
                    f"Seat {seat} asks for the clock ({actor}); confirm it on the console.",
                    key="alert.ask_clock",
                    params={"seat": seat},
                )
            )
        else:
            try:
                act, notes = self.chip_bets.action(self.table, seat)
            except IllegalAction as exc:
                self._refusal(exc, event.device)
                return
            for text, key, params in notes:
                self._alert(text, event.device, key, **params)
            if act is not None:
                self.apply(act)
