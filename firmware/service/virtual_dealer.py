"""Dealing on a fully electronic table: the controller asks the virtual shoe.

A :class:`VirtualDealer` is a controller listener. After every event it
looks at the table: when the dealer's "next" button starts a hand it cuts
(there is nothing to cut by hand), and while the hand needs a card and is
not paused it has the virtual shoe deal one. A new hand gets a freshly
shuffled deck; after a restart in the middle of a hand the deck is shuffled
again from the cards not yet seen in that hand.
"""

from __future__ import annotations

from typing import Any

from firmware.hal.deck import new_deck_order
from firmware.service.controller import Controller
from firmware.table import events as te


class VirtualDealer:
    """Feeds cards from a virtual shoe to the table the controller owns.

    :param controller: The controller; the dealer registers itself as a listener.
    :param shoe: A device with ``new_deck(exclude)``, ``deal_one()`` and ``tags()``
        (:class:`drivers.virtual.VirtualShoe`).
    """

    def __init__(self, controller: Controller, shoe: Any) -> None:
        self.controller = controller
        self.shoe = shoe
        self._dealing_hand: int | None = None
        self._asked_at: int | None = None
        if controller.registry.card_for(shoe.tags()[0]) is None:
            controller.registry.learn_deck(shoe.tags(), deck="virtual", order=new_deck_order())
        controller.listeners.append(self.after_event)

    def after_event(self, controller: Controller) -> None:
        """Cut a fresh hand, then ask for the next card when one is needed."""
        table = controller.table
        th = table.hand
        if th is None:
            self._dealing_hand = self._asked_at = None
            return
        if not table.deck.cut and not th.draws:
            controller.apply(te.Cut())
        if self._dealing_hand != table.hand_number:
            seen = {d.card for d in th.draws if d.role != "returned"}
            self.shoe.new_deck(exclude=seen)
            self._dealing_hand = table.hand_number
            self._asked_at = None
        if self._asked_at == len(th.draws):
            return  # the card asked for is still on its way through the queue
        role, _ = th.next_card_role()
        if role != "none" and not controller.paused and table.deck.cut:
            self._asked_at = len(th.draws)
            self.shoe.deal_one()  # the read comes back through the controller's queue


def attach_virtual_dealers(controller: Controller) -> list[VirtualDealer]:
    """A dealer for every automatic (virtual) shoe among the controller's devices."""
    return [
        VirtualDealer(controller, device)
        for device in controller.devices.values()
        if getattr(device, "automatic", False)
    ]
