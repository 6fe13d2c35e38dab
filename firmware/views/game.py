"""The game-management parts of the views (issue 12): the action timer, the draw for
the button, calls for the floor, player cards on the readers.

* ``table.timer`` (every audience): the acting seat's automatic action timer
  (house option ``action_timer_seconds``): ``phase`` ``action`` or ``bank``
  (the time bank is being spent), ``left`` (seconds left in that phase at the
  view's time) and ``bank`` (seconds left in the bank); ``None`` without a timer.
* ``table.button_draw`` (every audience): the last draw for the button, until
  the first hand after it starts: each seat's card (dealt face up) and the
  seat that won.
* ``console.floor_calls``: the open calls for the floor, oldest first, with
  the seat, its player and the table time of the call.
* ``table.jackpot`` and ``console.jackpot``: see :mod:`firmware.views.jackpot`.
* ``console.player_cards``: the player cards on the readers now: the reader,
  its seat (``seatN`` readers), the card's id and the name the player
  directory gives (``""`` for a card it does not know).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.engine.hand import Phase
from firmware.table.table import Table
from firmware.views.house import house_view
from firmware.views.jackpot import awarded_lines, console_jackpot
from firmware.views.share import ViewShare

if TYPE_CHECKING:
    from firmware.service.controller import Controller

PLAYER_PREFIX = "player:"


def timer_view(table: Table) -> dict[str, Any] | None:
    """The acting seat's action timer and time bank, or ``None``."""
    th = table.hand
    if th is None or th.hand.phase is not Phase.BETTING:
        return None
    actor = th.s.timer_actor
    if actor is None or actor not in th.s.timers:
        return None
    status = th.s.timers[actor].status(table.now)
    if status.phase not in ("action", "bank"):
        return None
    return {
        "seat": th.seat(actor),
        "phase": status.phase,
        "left": round(status.seconds_left, 1),
        "bank": round(status.bank_left, 1),
        "bank_total": th.time_bank_seconds,
    }


def button_draw_view(table: Table) -> dict[str, Any] | None:
    """The last draw for the button while no hand has started since, or ``None``."""
    draw = table.button_draw
    if draw is None or table.hand_number != draw.hand_number or table.hand is not None:
        return None
    return {
        "cards": [{"seat": s, "card": draw.card_of(s)} for s in draw.seats],
        "button": draw.button,
    }


def floor_calls_view(table: Table) -> list[dict[str, Any]]:
    """The open calls for the floor, oldest first."""
    seats = table.seating.seats
    return [
        {
            "seat": c.seat,
            "name": seats[c.seat].player if c.seat in seats else "",
            "time": c.called_at,
        }
        for c in table.floor_calls.open()
    ]


def player_cards_view(controller: Controller | None) -> list[dict[str, Any]]:
    """The player cards on the readers now (the console seats them)."""
    if controller is None:
        return []
    rows = []
    for reader, identity in sorted(controller.state.readers.items()):
        if not identity.startswith(PLAYER_PREFIX):
            continue
        card = identity[len(PLAYER_PREFIX) :]
        seat = int(reader[4:]) if reader.startswith("seat") and reader[4:].isdigit() else None
        rows.append(
            {"reader": reader, "seat": seat, "card": card, "name": controller.players.get(card, "")}
        )
    return rows


def add_game_parts(
    view: dict[str, Any],
    table: Table,
    controller: Controller | None,
    console: bool,
    share: ViewShare | None = None,
) -> None:
    """Add this module's parts to a seat's or the console's ``view`` (in place).

    :param share: What the views of this change have in common: the timer and the
        button draw are the same in every one (computed once, read only).
    """
    part = view["table"]
    if share is None:
        part["timer"] = timer_view(table)
        part["button_draw"] = button_draw_view(table)
    else:
        part["timer"] = share.get(("timer",), lambda: timer_view(table))
        part["button_draw"] = share.get(("button_draw",), lambda: button_draw_view(table))
    part["jackpot"] = awarded_lines(table, str(view.get("lang", "es")))  # JACKPOT
    # The time charge and the rake zone (HOUSE-TIME, HOUSE-RAKE-ZONE).
    view["house"] = house_view(table, view["lang"], None if console else view.get("seat"))
    if console:
        view["console"]["jackpot"] = console_jackpot(table, str(view.get("lang", "es")))
        view["console"]["floor_calls"] = floor_calls_view(table)
        view["console"]["player_cards"] = player_cards_view(controller)
        view["console"]["now"] = table.now


__all__ = [
    "add_game_parts",
    "button_draw_view",
    "floor_calls_view",
    "player_cards_view",
    "timer_view",
]
