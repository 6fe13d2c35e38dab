"""The table's bank at the console: two different badges confirm each movement (TABLE-BANK).

A bank movement (the opening float, a fill, a credit, the shift count) is
proposed by one staff member logged in on the console (dealer or floor) and
journaled only when a second, different staff member, logged in with their own
badge in the console's reader, confirms it. Until then it waits here, in the
server's memory, and nothing is journaled: a restart forgets it, a cancel drops
it, and the same badge confirming its own proposal is refused with a sentence
(the proposal keeps waiting for somebody else).

* ``bank {action: open|fill|credit|count, amount}`` - propose; for ``count`` the
  amount is the chips counted in the tray: the table adds the chips on the
  seats (stacks and declared rebuys) to make the chips counted on the table;
* ``bank_confirm`` - the second badge confirms: the event is built with both
  badges (``staff: [first, second]``) and journaled, or refused by the table;
* ``bank_cancel`` - drop the waiting proposal.

The console's view carries ``bank``: whether the bank is open, the tray and the
seats' chips by the journal, the chips expected, and the proposal waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from firmware.errors import IllegalAction
from firmware.protocol.clients import ClientState
from firmware.protocol.schema import Refused
from firmware.table import events as te
from firmware.table.bank import expected_on_table, seat_chips

if TYPE_CHECKING:
    from firmware.service.controller import Controller

CAGE_REQUESTS = ("bank", "bank_confirm", "bank_cancel")
"""The console's bank requests (declared in :mod:`firmware.protocol.schema`)."""

ACTIONS = ("open", "fill", "credit", "count")
"""What a bank proposal does."""

EVENTS: dict[str, type[te.BankOpen]] = {
    "open": te.BankOpen,
    "fill": te.BankFill,
    "credit": te.BankCredit,
}


@dataclass(frozen=True)
class Proposal:
    """A bank movement waiting for its second badge."""

    action: str
    amount: int
    badge: str
    name: str


class CageDesk:
    """The proposal waiting for a second badge (loop thread only)."""

    def __init__(self) -> None:
        self.pending: Proposal | None = None

    def propose(self, action: str, amount: int, badge: str | None, name: str | None) -> None:
        """Keep a proposal from the staff member with ``badge``.

        :raises IllegalAction: without a badge, or while another proposal waits.
        """
        if not badge:
            raise IllegalAction(
                "Log in with your staff badge to propose or confirm a bank movement.",
                key="protocol.bank.login",
            )
        if self.pending is not None:
            raise IllegalAction(
                "Another bank movement waits for its second badge; confirm or cancel it first.",
                key="protocol.bank.waiting",
            )
        if amount < (0 if action == "count" else 1):
            raise IllegalAction(
                f"A bank movement is a whole number of chips above zero, not {amount!r}; "
                "nothing was recorded.",
                key="error.bank.amount",
                amount=repr(amount),
            )
        self.pending = Proposal(action, amount, badge, name or badge)

    def confirm(self, controller: Controller, badge: str | None) -> None:
        """The second badge confirms: journal the movement with both badges.

        :raises IllegalAction: with nothing waiting, for the proposer's own badge
            (the proposal keeps waiting), or as the table refuses the movement
            (the proposal is dropped; nothing was journaled).
        """
        pending = self.pending
        if pending is None:
            raise IllegalAction(
                "No bank movement waits for a second badge.", key="protocol.bank.nothing"
            )
        if not badge:
            raise IllegalAction(
                "Log in with your staff badge to propose or confirm a bank movement.",
                key="protocol.bank.login",
            )
        if badge == pending.badge:
            raise IllegalAction(
                "The same badge cannot confirm its own bank movement; nothing was recorded. "
                "A second, different staff member must confirm it with their own badge.",
                key="error.bank.same_badge",
            )
        self.pending = None
        staff = (pending.badge, badge)
        table = controller.table
        if pending.action == "count":
            counted = pending.amount + seat_chips(table.seating)
            expected = expected_on_table(table.bank, table.seating)
            controller.submit(te.ShiftCount(counted, expected, staff))
        else:
            controller.submit(EVENTS[pending.action](pending.amount, staff))

    def cancel(self) -> None:
        """Drop the waiting proposal (nothing was journaled)."""
        self.pending = None

    def view(self, controller: Controller) -> dict[str, Any]:
        """The console's ``bank`` part: the bank by the journal and the proposal waiting."""
        table = controller.table
        bank = table.bank
        pending = self.pending
        return {
            "open": bank.open,
            "tray": bank.tray,
            "seats": seat_chips(table.seating),
            "expected": expected_on_table(bank, table.seating),
            "pending": None
            if pending is None
            else {"action": pending.action, "amount": pending.amount, "name": pending.name},
        }


def cage_request(
    client: ClientState,
    name: str,
    values: dict[str, Any],
    run_for: Callable[[ClientState, Callable[[], None], str], None],
    controller: Controller,
    desk: CageDesk,
) -> None:
    """Run a bank request (fields and role already checked) on the loop thread."""
    badge, staff = client.badge, client.staff
    if name == "bank":
        action, amount = str(values["action"]), int(values["amount"])
        if action not in ACTIONS:  # the schema allows only these
            raise Refused(f"{action!r} is no bank movement.", key="protocol.fields")
        run_for(client, lambda: desk.propose(action, amount, badge, staff), name)
    elif name == "bank_confirm":
        run_for(client, lambda: desk.confirm(controller, badge), name)
    else:
        run_for(client, desk.cancel, name)


__all__ = ["ACTIONS", "CAGE_REQUESTS", "CageDesk", "Proposal", "cage_request"]
