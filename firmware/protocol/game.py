"""Game requests the controller completes itself (issue 12).

Most of the console's game-management reports (``sit``, ``rebuy``,
``sit_out``, ``away``, ``cash_out``, ``set_button``, ``answer_floor``) and a
seat's ``call_floor`` become their table event directly
(:mod:`firmware.protocol.schema`). Two take something from the table itself,
on the controller's loop thread, so that no client can choose it (and a call for the
floor also alerts the console):

* ``call_floor`` (a seat): journaled as :class:`~firmware.table.events.FloorCall`, open
  on the console until a staff member answers it (``report answer_floor {seat}``), and
  an alert on the console in its language (``alert.call_floor``).
* ``report draw_button``: the draw for the button (TDA-13). One card for each
  occupied seat, in seat order, from the operating system's random source
  (:data:`DRAW_RANDOM`); the draw and its cards are journaled as
  :class:`~firmware.table.events.DrawButton`, so a replay rebuilds them.
* ``report dismiss_alert {id}``: the dealer read the alert numbered ``id`` and takes it
  off the console (:meth:`~firmware.service.controller_state.AlertLog.dismiss`); an
  alert no longer kept is refused with a sentence.
* ``report rake_zone {answer}``: the dealer's answer to a difference between the
  chip trays' rake zone and the rake (HOUSE-RAKE-ZONE): ``recount`` reads the zone
  again, ``confirm`` accepts the count, journaled with the logged-in staff's badge.
* ``report sit_card {seat, reader, chips}``: seat the player whose card is on
  ``reader`` now (``console`` or ``seatN``). The card must be a player card
  (``player:<id>``) and its id must be in the player directory (the
  configuration's ``[[players]]``), which gives the name; the
  :class:`~firmware.table.events.SitDown` carries the card's id.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any

from firmware.engine.cards import full_deck
from firmware.errors import IllegalAction
from firmware.protocol.clients import ClientState
from firmware.protocol.schema import Refused
from firmware.service.controller import Controller
from firmware.service.controller_state import Alert
from firmware.table import events as te

log = logging.getLogger("firmware.protocol")

GAME_REQUESTS = (
    "call_floor",
    "report:draw_button",
    "report:sit_card",
    "report:dismiss_alert",
    "report:rake_zone",
)
"""Requests completed on the loop thread from the table's own state."""

DRAW_RANDOM: random.Random = random.SystemRandom()
"""The draw for the button's random source (TDA-13: the system's cryptographic source)."""

PLAYER_PREFIX = "player:"
"""A player card's identity as the readers report it (``player:P-000123``)."""


def game_request(
    client: ClientState,
    name: str,
    values: dict[str, Any],
    run_for: Callable[[ClientState, Callable[[], None], str], None],
    controller: Controller,
) -> None:
    """Run ``name`` (one of :data:`GAME_REQUESTS`, fields already checked) on the loop thread."""
    if name == "call_floor":
        caller = client.seat
        if caller is None:  # the schema lets only a seat's terminal call the floor
            raise Refused(
                "Only a seat's own screen calls the floor.", key="protocol.permission.seat"
            )
        run_for(client, lambda: call_floor(controller, caller), name)
    elif name == "report:draw_button":
        run_for(client, lambda: _no_result(draw_button(controller)), name)
    elif name == "report:rake_zone":  # HOUSE-RAKE-ZONE: confirmed with the login's badge
        answer, badge = str(values["answer"]), client.badge or ""
        run_for(client, lambda: controller.rake_zone_answer(answer, badge), name)
    elif name == "report:dismiss_alert":
        number = int(values["id"])
        run_for(client, lambda: dismiss_alert(controller, number), name)
    else:
        chosen, reader, chips = int(values["seat"]), str(values["reader"]), int(values["chips"])
        run_for(client, lambda: sit_by_card(controller, chosen, reader, chips), name)


def call_floor(controller: Controller, seat: int) -> None:
    """``seat`` calls the floor: journaled (open until answered) and an alert on the console."""
    controller.submit(te.FloorCall(seat))
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


def dismiss_alert(controller: Controller, number: int) -> None:
    """Take the alert numbered ``number`` off the console.

    :raises IllegalAction: when the controller no longer keeps that alert.
    """
    if not controller.alerts.dismiss(number):
        raise IllegalAction(
            f"Alert {number} is no longer on the console; nothing to dismiss.",
            key="error.alert.gone",
            number=number,
        )
    log.info("alert %d dismissed on the console", number)


def _no_result(_: object) -> None:
    """Drop a result (``run_for`` runs a procedure)."""


def draw_button(controller: Controller, rng: random.Random | None = None) -> te.DrawButton:
    """Deal one card to each occupied seat from a shuffled deck and journal the draw.

    :raises IllegalAction: during a hand or with fewer than two players (the table refuses).
    """
    seats = tuple(sorted(controller.table.seating.seats))
    deck = full_deck()
    (rng or DRAW_RANDOM).shuffle(deck)
    event = te.DrawButton(seats, tuple(deck[: len(seats)]))
    controller.submit(event)
    log.info("Draw for the button: seats %s, cards %s", seats, event.cards)
    return event


def player_card(controller: Controller, reader: str) -> tuple[str, str]:
    """The id and the name of the player card on ``reader`` now.

    :raises IllegalAction: no card there, not a player card, or a card the
        player directory does not know.
    """
    identity = controller.state.readers.get(reader)
    if identity is None:
        raise IllegalAction(
            f"No card is on the reader {reader}; put the player's card on it and try again.",
            key="error.player_card.none",
            reader=reader,
        )
    if not identity.startswith(PLAYER_PREFIX):
        raise IllegalAction(
            f"The card on the reader {reader} is not a player card.",
            key="error.player_card.not_player",
            reader=reader,
        )
    card = identity[len(PLAYER_PREFIX) :]
    name = controller.players.get(card)
    if name is None:
        raise IllegalAction(
            f"The player card {card} is not in the player directory; seat the player by "
            "name, or add the card to [[players]] in the configuration.",
            key="error.player_card.unknown",
            card=card,
        )
    return card, name


def sit_by_card(controller: Controller, seat: int, reader: str, chips: int) -> None:
    """Seat the player whose card is on ``reader`` at ``seat`` with ``chips`` (CC-16)."""
    card, name = player_card(controller, reader)
    controller.submit(te.SitDown(seat, name, chips, card=card))


__all__ = [
    "DRAW_RANDOM",
    "GAME_REQUESTS",
    "PLAYER_PREFIX",
    "call_floor",
    "dismiss_alert",
    "draw_button",
    "game_request",
    "player_card",
    "sit_by_card",
]
