"""Technician requests of the table protocol (split from :mod:`firmware.protocol.server`).

Test mode from the console's technician page (``docs/protocols/table.md``):

* ``diag_start {device?}`` - run the diagnostics of every device, or of one;
* ``diag_answer {yes: bool}`` - the answer to the question shown (an LED lit?);
* ``diag_cancel`` - stop the test; the report keeps what was tested.

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
from firmware.protocol.requests import Refused

if TYPE_CHECKING:
    from firmware.service.controller import Controller

DIAG_REQUESTS = ("diag_start", "diag_answer", "diag_cancel")
"""The technician's request types."""

DIAG_FIELDS = {"diag_start": {"device"}, "diag_answer": {"yes"}, "diag_cancel": set()}
"""The fields each request takes (besides ``type``)."""


def diag_request(
    client: ClientState,
    kind: str,
    message: dict[str, Any],
    staff_run: Callable[[ClientState, Callable[[], None]], None],
    controller: Controller,
) -> None:
    """Check a technician request and hand it to the controller's loop.

    :param staff_run: Runs a callable on the loop thread and sends a refusal
        it raises back to ``client`` (:meth:`TableServer.run_for`).
    :raises Refused: (the server's ``Refused``) for the wrong role or fields,
        sent back at once.
    """
    if client.role != "technician":
        raise Refused(
            "Only a technician, logged in on the console, runs the diagnostics.",
            key="protocol.permission.technician",
        )
    extra = sorted(set(message) - {"type"} - DIAG_FIELDS[kind])
    if extra:
        raise Refused(
            f"The {kind} request has fields it does not take: {', '.join(extra)}.",
            key="protocol.fields",
        )
    if kind == "diag_start":
        device = message.get("device")
        if device is not None and not isinstance(device, str):
            raise Refused("The field 'device' must be a device's name.", key="protocol.fields")
        staff = client.staff
        staff_run(client, lambda: controller.start_diagnostics(device, staff))
    elif kind == "diag_answer":
        yes = message.get("yes")
        if not isinstance(yes, bool):
            raise Refused("The field 'yes' must be true or false.", key="protocol.fields")
        staff_run(client, lambda: controller.answer_diagnostics(yes))
    else:
        staff_run(client, controller.cancel_diagnostics)


__all__ = ["DIAG_FIELDS", "DIAG_REQUESTS", "diag_request"]
