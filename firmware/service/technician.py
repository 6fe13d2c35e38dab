"""Test mode: the technician's diagnostics on the table's own devices (a mixin of
:class:`~firmware.service.controller.Controller`, split from it).

Between hands a technician runs :class:`~firmware.service.diag.Diagnostics`
on the table's devices from the console. The devices are closed (outputs
safe) and tested on a worker thread, never the loop thread; while the test
runs nothing reaches the table. Afterwards the devices are reopened and the
outputs restored. Every method here runs on the loop thread except
:meth:`TechnicianMode._diag_worker` and the prompt relay, which hand their results
over with ``call_soon``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from firmware.errors import IllegalAction
from firmware.hal import Device
from firmware.service.controller_state import ControllerState, DiagSession
from firmware.service.diag import Diagnostics, Item, RelayTechnician, Report
from firmware.service.registry import TagRegistry
from firmware.table.table import Table


class TechnicianMode:
    """Starting, answering and cancelling the diagnostics; reopening the devices after."""

    table: Table
    devices: dict[str, Device]
    registry: TagRegistry
    state: ControllerState
    diag: DiagSession | None
    diag_timeout: float
    diag_answer_timeout: float
    data_dir: str | None
    _diag_thread: threading.Thread | None
    _closed: bool

    @property
    def testing(self) -> bool:
        raise NotImplementedError

    def call_soon(self, fn: Callable[[], None]) -> None:
        raise NotImplementedError

    def post(self, event: Any) -> None:
        raise NotImplementedError

    def _alert(
        self, text: str, source: str | None = None, key: str | None = None, **params: Any
    ) -> None:
        raise NotImplementedError

    def _outputs(self) -> None:
        raise NotImplementedError

    def start_diagnostics(self, device: str | None = None, staff: str | None = None) -> None:
        """Start the technician's diagnostics of every device, or of ``device``.

        Between hands only. The table pauses; every device is closed (its
        outputs safe) and the ones tested are opened by the diagnostics on a
        worker thread, so their events go to the test, not to the table.

        :raises IllegalAction: during a hand (``diag.refused.hand``), while a
            test runs (``diag.refused.running``), for an unknown device
            (``diag.refused.device``) or with no device (``diag.refused.none``).
        """
        if self.table.hand is not None:
            raise IllegalAction(
                "Diagnostics run between hands only: finish or void this hand first.",
                key="diag.refused.hand",
            )
        if self.testing:
            raise IllegalAction(
                "The diagnostics are already running; cancel them or wait for the report.",
                key="diag.refused.running",
            )
        if device is not None and device not in self.devices:
            raise IllegalAction(
                f"There is no device '{device}' on this table.",
                key="diag.refused.device",
                device=device,
            )
        if not self.devices:
            raise IllegalAction("This table has no device to test.", key="diag.refused.none")
        tested = {device: self.devices[device]} if device is not None else dict(self.devices)
        self._close_devices()
        relay = RelayTechnician(self._show_prompt, timeout=self.diag_answer_timeout)
        diagnostics = Diagnostics(
            tested,
            self.registry,
            relay,
            timeout=self.diag_timeout,
            data_dir=self.data_dir if device is None else None,
        )
        session = DiagSession(device, staff, diagnostics, relay)
        self.diag = session
        self._diag_thread = threading.Thread(
            target=self._diag_worker, args=(session,), name="diagnostics", daemon=True
        )
        self._diag_thread.start()

    def answer_diagnostics(self, yes: bool) -> None:
        """The technician's answer to the question on the screen (an LED lit?).

        :raises IllegalAction: when no question is waiting (``diag.refused.no_question``).
        """
        session = self.diag
        if session is None or not session.running or not (session.prompt or {}).get("question"):
            raise IllegalAction(
                "No question is waiting for an answer.", key="diag.refused.no_question"
            )
        session.prompt = {**(session.prompt or {}), "question": False}
        session.relay.answer(yes)

    def cancel_diagnostics(self) -> None:
        """Stop the diagnostics; the report keeps what was tested.

        :raises IllegalAction: when no test is running (``diag.refused.idle``).
        """
        session = self.diag
        if session is None or not session.running:
            raise IllegalAction("No diagnostics are running.", key="diag.refused.idle")
        session.diagnostics.cancel()
        session.relay.stop()

    def _show_prompt(self, prompt: dict[str, Any]) -> None:
        """Relay a step to the screens (worker thread: handed to the loop)."""
        session = self.diag

        def show() -> None:
            if session is not None and session is self.diag and session.running:
                session.prompt = prompt

        self.call_soon(show)

    def _diag_worker(self, session: DiagSession) -> None:
        """Run the diagnostics (worker thread), then hand the report to the loop."""
        try:
            report = session.diagnostics.run()
        except Exception as exc:  # a broken driver must not leave the table in test mode
            report = session.diagnostics.report
            stopped = Item("diagnostics", "run", False, f"stopped: {exc}", "diag.item.stopped")
            stopped.params = {"error": str(exc)}
            report.items.append(stopped)
        self.call_soon(lambda: self._diag_finished(session, report))

    def _diag_finished(self, session: DiagSession, report: Report) -> None:
        """Reopen the devices and restore the outputs: the table is as it was."""
        session.running = False
        session.prompt = None
        if not self._closed:
            for name, device in self.devices.items():
                try:
                    device.open(self.post)
                except Exception as exc:
                    detail = f"cannot be reopened after the test: {exc}"
                    report.items.append(
                        Item(
                            name,
                            "reopen",
                            False,
                            detail,
                            "diag.item.reopen_failed",
                            {"error": str(exc)},
                        )
                    )
                    self.state.faults[name] = f"The device '{name}' {detail}."
                    reason = ("alert.device.reopen_failed", {"device": name, "error": str(exc)})
                    self.state.fault_keys[name] = reason
                    self._alert(self.state.faults[name], name, reason[0], **reason[1])
            self._outputs()
        session.report = report

    def _close_devices(self) -> None:
        """Take every device out of play: close it (outputs safe), forget the LED states."""
        for device in self.devices.values():
            try:
                device.close()
            except Exception as exc:
                self._alert(
                    f"The device '{device.name}' did not close cleanly: {exc}.",
                    device.name,
                    "alert.device.close_failed",
                    device=device.name,
                    error=str(exc),
                )
        self.state.leds.clear()


__all__ = ["TechnicianMode"]
