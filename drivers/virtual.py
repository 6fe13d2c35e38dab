"""The card source of a fully electronic table: a virtual deck.

:class:`VirtualShoe` is a card shoe with no hardware: its deck is shuffled
with the operating system's cryptographic random source and it deals when
the table needs a card (the controller's :class:`~firmware.service.virtual_dealer.VirtualDealer`
asks it). Its "tags" are fixed names of the 52 cards (:func:`virtual_tag`),
registered like a physical deck's. The order of the cards is never written
anywhere: after a restart the deck is shuffled again from the cards not yet
seen in the hand.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from firmware import __version__
from firmware.errors import ConfigError, HardwareError
from firmware.hal.deck import DECK_SIZE, VirtualDeck, new_deck_order
from firmware.hal.devices import CardShoe, DeviceIdentity, Health, Post
from firmware.hal.messages import CardRead, DeckScanned, ShoeState


def virtual_tag(card: int) -> str:
    """The fixed tag name of ``card`` in the virtual deck (``F1D0`` + two hex digits)."""
    if not 0 <= card < DECK_SIZE:
        raise ValueError(f"{card} is not a card number (0 to 51).")
    return f"F1D0{card:02X}"


class VirtualShoe(CardShoe):
    """A virtual deck dealing card by card on request.

    :param options: none (an electronic table's deck is never seeded).
    """

    automatic = True
    """The table asks this shoe for cards; nobody draws them by hand."""

    def __init__(self, name: str, options: Mapping[str, Any]) -> None:
        super().__init__(name)
        if options:
            raise ConfigError(
                f"[devices.{name}] the virtual shoe takes no options, not "
                f"{', '.join(sorted(options))}.",
                key="config.virtual.options",
                name=name,
                unknown=", ".join(sorted(options)),
            )
        self._post: Post | None = None
        self._deck: VirtualDeck | None = None
        self._seq = 0

    def open(self, post: Post) -> None:
        """Ready to deal (nothing to connect)."""
        self._post = post

    def close(self) -> None:
        """Forget the deck (its order is never kept)."""
        self._post = None
        self._deck = None

    def identity(self) -> DeviceIdentity:
        """A virtual device of this firmware version."""
        return DeviceIdentity("virtual-shoe", self.name, __version__)

    def health(self) -> Health:
        """OK while open."""
        return Health.OK if self._post is not None else Health.CLOSED

    def request_scan(self) -> None:
        """Report the whole deck in new-deck order (its tags are fixed)."""
        self._emit_scan()

    def new_deck(self, exclude: Iterable[int] = ()) -> None:
        """Shuffle a fresh deck, less the cards already seen in the hand."""
        self._deck = VirtualDeck(exclude=exclude)
        post = self._require()
        post(ShoeState(self.name, time.monotonic(), "deck_in"))

    def deal_one(self) -> None:
        """Deal the next card: posts its read, or ``empty`` when none is left."""
        post = self._require()
        if self._deck is None or len(self._deck) == 0:
            post(ShoeState(self.name, time.monotonic(), "empty"))
            return
        card = self._deck.draw()
        self._seq += 1
        post(CardRead(self.name, time.monotonic(), virtual_tag(card), self._seq))

    def tags(self) -> list[str]:
        """Every tag in new-deck order (to register the deck)."""
        return [virtual_tag(c) for c in new_deck_order()]

    def _emit_scan(self) -> None:
        post = self._require()
        post(DeckScanned(self.name, time.monotonic(), tuple(self.tags())))

    def _require(self) -> Post:
        if self._post is None:
            raise HardwareError(f"The virtual shoe '{self.name}' is not open.")
        return self._post
