"""What the controller knows beyond the table (split from :mod:`firmware.service.controller`).

:class:`Alert` is a sentence for the dealer console, :class:`AlertLog` the
bounded list of them; :class:`ControllerState`
the faults, readers, chip zones, LEDs and the controller's own pauses;
:class:`DiagSession` one run of the technician's diagnostics.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from firmware.service.diag import Diagnostics, RelayTechnician, Report
from firmware.table import events as te


@dataclass(frozen=True)
class Alert:
    """Something the dealer console must show: a sentence, and the device if any."""

    time: float
    text: str
    device: str | None = None
    key: str | None = None
    """A message-catalog key: the views show the alert in each screen's language."""
    params: dict[str, Any] = field(default_factory=dict)
    id: int = 0
    """The alert's number, from 1, given by :meth:`AlertLog.append` (a console dismisses
    an alert by its number)."""


def said_error(exc: BaseException) -> dict[str, Any]:
    """An error as an alert's value: its catalog key and values when it has them, and its
    English sentence; a screen says it in its language (:func:`firmware.views.alerts.said`),
    never a driver's English inside a Spanish alert."""
    key = getattr(exc, "key", None)
    params = getattr(exc, "params", None) or {}
    plain = {k: v for k, v in params.items() if isinstance(v, str | int | float)}
    return {"key": key, "params": plain, "text": str(exc)}


KEEP_ALERTS = 200
"""Alerts the controller keeps (the console shows the last few; a flood must not grow memory)."""


class AlertLog(list[Alert]):
    """The console's alerts, newest last, at most ``limit`` of them.

    When full, the oldest alert goes first, except that an alert about a device
    still in fault (``faults``, not yet recovered) goes only when nothing else is
    left to drop: a flood of other alerts never buries a device fault. ``added``
    counts every alert ever appended (a reader's cursor: see
    :class:`~firmware.service.floorlink.FloorLink`) and numbers them.

    A dealer dismisses an alert on the console (:meth:`dismiss`): it stays in the
    log (the system journal and the floor read it there) but the console no longer
    shows it. Alerts are the controller's memory, not journaled table state, so a
    dismissal is not journaled either (a restart starts with no alert).
    """

    def __init__(self, faults: dict[str, str], limit: int = KEEP_ALERTS) -> None:
        super().__init__()
        self.faults = faults
        self.limit = limit
        self.added = 0
        self.dismissed: set[int] = set()
        """The numbers of the alerts a dealer dismissed (only alerts still kept)."""

    def append(self, alert: Alert) -> None:
        """Add ``alert`` (numbered) and drop the oldest ones beyond the limit."""
        self.added += 1
        super().append(replace(alert, id=self.added))
        while len(self) > self.limit:
            drop = next(
                (i for i, a in enumerate(self) if a.device is None or a.device not in self.faults),
                0,
            )
            self.dismissed.discard(self[drop].id)
            del self[drop]

    def dismiss(self, number: int) -> bool:
        """Dismiss the alert numbered ``number``; whether it was there to dismiss."""
        if any(a.id == number for a in self):
            self.dismissed.add(number)
            return True
        return False

    def showing(self) -> list[Alert]:
        """The alerts nobody dismissed, oldest first."""
        return [a for a in self if a.id not in self.dismissed]


@dataclass
class ControllerState:
    """What the controller knows beyond the table: faults, readers, zones."""

    faults: dict[str, str] = field(default_factory=dict)
    fault_keys: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    """Each fault's message-catalog key and values, when its device gave them."""
    manual_pause: bool = False
    held: list[tuple[te.TableEvent, str, str | None]] = field(default_factory=list)
    last_seq: dict[str, int] = field(default_factory=dict)
    readers: dict[str, str] = field(default_factory=dict)
    zones: dict[str, frozenset[str]] = field(default_factory=dict)
    leds: dict[tuple[str, str], bool] = field(default_factory=dict)
    export: dict[str, Any] | None = None
    """The technician's last report export: ``path`` and ``time``, or ``error``."""
    stops: dict[str, str] = field(default_factory=dict)
    """Why the controller itself paused the table: ``journal`` (the journal cannot be
    written: disk full) or ``error`` (a fault of the firmware); each a sentence."""


@dataclass
class DiagSession:
    """One run of the diagnostics from the console (test mode).

    Changed on the loop thread only; the worker thread hands its changes over
    with :meth:`Controller.call_soon`.
    """

    device: str | None
    """The device tested, or ``None`` for all."""
    staff: str | None
    """Who started it (the technician logged in on the console)."""
    diagnostics: Diagnostics
    relay: RelayTechnician
    running: bool = True
    prompt: dict[str, Any] | None = None
    """The step shown to the technician (see :class:`~firmware.service.diag.RelayTechnician`)."""
    report: Report | None = None
    dropped: int = 0
    """Device events that reached the controller during the test (not applied)."""


__all__ = ["KEEP_ALERTS", "Alert", "AlertLog", "ControllerState", "DiagSession"]
