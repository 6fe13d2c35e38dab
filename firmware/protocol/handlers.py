"""Technician requests of the table protocol (split from :mod:`firmware.protocol.server`).

Test mode from the console's technician page (``docs/protocols/table.md``):

* ``diag_start {device?}`` - run the diagnostics of every device, or of one;
* ``diag_answer {yes: bool}`` - the answer to the question shown (an LED lit?);
* ``diag_cancel`` - stop the test; the report keeps what was tested;
* ``diag_export`` - write the technician's report (devices, locations, rates,
  link counters, the last test) to the export folder, in the console's language.

Only a console logged in with the technician role may send them; anyone
else gets ``refused`` with ``protocol.permission.technician``. The requests
run on the controller's loop thread; a refusal there (during a hand, no
question waiting...) comes back as ``refused`` with its ``diag.*`` key.
Progress, prompts and the report reach the technician in the view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from firmware.protocol.clients import ClientState
from firmware.views.diag import export_report

if TYPE_CHECKING:
    from firmware.service.controller import Controller

DIAG_REQUESTS = ("diag_start", "diag_answer", "diag_cancel", "diag_export")
"""The technician's request types."""

DIAG_FIELDS = {
    "diag_start": {"device"},
    "diag_answer": {"yes"},
    "diag_cancel": set(),
    "diag_export": set(),
}
"""The fields each request takes (besides ``type``); declared in :mod:`firmware.protocol.schema`."""


def diag_request(
    client: ClientState,
    kind: str,
    values: dict[str, Any],
    staff_run: Callable[[ClientState, Callable[[], None], str], None],
    controller: Controller,
) -> None:
    """Hand a technician request, already checked against its declared fields
    and the technician role (:mod:`firmware.protocol.schema`), to the controller's loop.

    :param staff_run: Runs a callable on the loop thread and answers ``client``
        with ``ok`` or the refusal it raises (:meth:`TableServer.run_for`).
    """
    if kind == "diag_start":
        device, staff = values.get("device"), client.staff
        staff_run(client, lambda: controller.start_diagnostics(device, staff), kind)
    elif kind == "diag_answer":
        yes = bool(values["yes"])
        staff_run(client, lambda: controller.answer_diagnostics(yes), kind)
    elif kind == "diag_export":
        lang = client.lang
        staff_run(client, lambda: _export(controller, lang), kind)
    else:
        staff_run(client, controller.cancel_diagnostics, kind)


def _export(controller: Controller, lang: str) -> None:
    export_report(controller, lang)


__all__ = ["DIAG_FIELDS", "DIAG_REQUESTS", "diag_request"]
