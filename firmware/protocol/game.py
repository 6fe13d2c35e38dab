"""A seat's call for the floor (issue 12).

The console's game-management reports (``sit``, ``rebuy``, ``sit_out``,
``away``, ``cash_out``, ``set_button``) are declared with their fields in
:mod:`firmware.protocol.schema` like every other request. A seat's
``call_floor`` is no table event: it becomes an alert on the console, shown
in each console's language (``alert.call_floor``), and is logged on
``firmware.protocol``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from firmware.protocol.clients import ClientState
from firmware.protocol.schema import Refused
from firmware.service.controller import Controller
from firmware.service.controller_state import Alert

log = logging.getLogger("firmware.protocol")


def call_floor(
    client: ClientState,
    run_for: Callable[[ClientState, Callable[[], None]], None],
    controller: Controller,
) -> None:
    """A seat calls the floor: an alert on the console, in the console's language."""
    seat = client.seat
    if seat is None:
        raise Refused("Only a seat's own screen calls the floor.", key="protocol.permission.seat")

    def alert() -> None:
        log.info("seat %d calls the floor", seat)
        controller.alerts.append(
            Alert(
                controller.table_time(),
                f"Seat {seat} calls the floor.",
                f"seat{seat}",
                key="alert.call_floor",
                params={"seat": seat},
            )
        )

    run_for(client, alert)


__all__ = ["call_floor"]
