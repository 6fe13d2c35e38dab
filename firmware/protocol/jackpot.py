"""The console's confirmation of a jackpot (house procedure JACKPOT).

``report jackpot {jackpot, hand, badge?}``: the table decided an award at the end of
a hand (:class:`~firmware.table.jackpot_table.JackpotBook`) and the console shows it
pending; a floor member confirms it with the badge in the console's reader (a floor
member logged in has it there already; a dealer logged in asks the floor to insert
theirs). The badge must be a staff account's, with the ``floor`` role: anything else
is refused with a sentence and nothing is journaled. On the controller's loop the
award is taken from the table's own pending list, so no client chooses its shares,
and journaled as one :class:`~firmware.table.events.JackpotAward` carrying the badge.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware.errors import IllegalAction
from firmware.protocol.auth import StaffDirectory
from firmware.protocol.clients import ClientState
from firmware.protocol.schema import Refused
from firmware.service.controller import Controller
from firmware.table import events as te

CONFIRMING_ROLE = "floor"
"""The staff role whose badge confirms a jackpot."""


def confirm_jackpot(
    client: ClientState,
    values: dict[str, Any],
    staff: StaffDirectory,
    run_for: Callable[[ClientState, Callable[[], None], str], None],
    controller: Controller,
) -> None:
    """Check the badge in the console's reader, then journal the award on the loop thread.

    :raises Refused: without a card in the reader, for a card that is not the badge
        named, not a staff badge, or not a floor member's.
    """
    inserted = controller.state.readers.get("console")
    named = values.get("badge")
    if inserted is None or (named is not None and named != inserted):
        raise Refused(
            "Insert a floor badge in the console's reader to confirm the jackpot.",
            key="protocol.jackpot.card",
        )
    account = staff.account(inserted)
    if account is None:
        raise Refused(
            "The card in the console's reader is not a staff badge; a floor member's badge "
            "confirms a jackpot.",
            key="protocol.jackpot.not_staff",
        )
    if account.role != CONFIRMING_ROLE:
        raise Refused(
            "This badge is not a floor member's; only a floor member's badge confirms a jackpot.",
            key="protocol.jackpot.not_floor",
            role=account.role,
        )
    jackpot, hand, badge = str(values["jackpot"]), int(values["hand"]), account.badge

    def run() -> None:
        for pending in controller.table.jackpot.pending:
            if (pending["jackpot"], pending["hand"]) == (jackpot, hand):
                shares = tuple(dict(s) for s in pending["shares"])
                controller.submit(te.JackpotAward(jackpot, hand, shares, badge))
                return
        raise IllegalAction(
            f"No jackpot award of hand {hand} is waiting for confirmation.",
            key="error.jackpot.none",
            jackpot=jackpot,
            hand=hand,
        )

    run_for(client, run, "report:jackpot")


__all__ = ["CONFIRMING_ROLE", "confirm_jackpot"]
