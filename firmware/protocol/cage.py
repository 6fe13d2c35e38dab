"""The table's bank at the console: two different badges confirm each movement (TABLE-BANK).

A bank movement (the opening float, a fill, a credit, the shift count) is
proposed by one staff member logged in on the console (dealer or floor) and
journaled only when a second, different staff member, logged in with their own
badge in the console's reader, confirms it. Until then it waits here, in the
server's memory, and nothing is journaled: a restart forgets it, a cancel drops
it, and the same badge confirming its own proposal is refused with a sentence
(the proposal keeps waiting for somebody else). A movement the table would
refuse now (a fill before the opening float, a credit above the tray) is
refused at once, tried on a copy of the bank, before anybody confirms it.

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

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from firmware.errors import IllegalAction
from firmware.protocol.clients import ClientState
from firmware.protocol.schema import Refused
from firmware.table import events as te
from firmware.table.bank import apply_bank, expected_on_table, seat_chips

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

    def propose(
        self,
        controller: Controller,
        action: str,
        amount: int,
        badge: str | None,
        name: str | None,
    ) -> None:
        """Keep a proposal from the staff member with ``badge``, once the table would take
        it now (tried on a copy of the bank, so a refusal comes before the second badge).

        :raises IllegalAction: without a badge, while another proposal waits, or as the
            table would refuse the movement.
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
        table = controller.table
        trial = dataclasses.replace(table.bank)
        event = movement(controller, action, amount, (badge, "second badge"))
        apply_bank(trial, event, table.seating, table.hand is not None, table.now)
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
        controller.submit(
            movement(controller, pending.action, pending.amount, (pending.badge, badge))
        )

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


def movement(
    controller: Controller, action: str, amount: int, staff: tuple[str, str]
) -> te.BankOpen | te.ShiftCount:
    """The table event of a bank movement; for a count, ``amount`` is the tray's chips and
    the seats' chips are added, and the chips expected are the table's now."""
    table = controller.table
    if action == "count":
        counted = amount + seat_chips(table.seating)
        return te.ShiftCount(counted, expected_on_table(table.bank, table.seating), staff)
    return EVENTS[action](amount, staff)


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
        run_for(client, lambda: desk.propose(controller, action, amount, badge, staff), name)
    elif name == "bank_confirm":
        run_for(client, lambda: desk.confirm(controller, badge), name)
    else:
        run_for(client, desk.cancel, name)


__all__ = ["ACTIONS", "CAGE_REQUESTS", "CageDesk", "Proposal", "cage_request", "movement"]
