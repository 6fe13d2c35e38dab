"""Rules on what a view may tell, shared by the views (firmware/views/audience.py).

* TDA-34: the pot's size is told to players always, or only in pot-limit,
  by the house option ``pot_display``.
* TDA-19: each stack's chips by denomination, where the chip trays read them.
* The seat whose turn it is to show at the showdown (TDA-37 order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.engine.hand import Phase
from firmware.engine.rules import Structure
from firmware.engine.showdown import next_to_show

if TYPE_CHECKING:
    from firmware.service.controller import Controller
    from firmware.table.dealing import TableHand
    from firmware.table.table import Table


def pot_shown(table: Table) -> bool:
    """Whether players are told the pot (TDA-34): always, or only in pot-limit."""
    if table.config.options.pot_display == "always":
        return True
    th = table.hand
    structure = th.hand.config.structure if th is not None else table.config.stakes.structure
    return structure is Structure.POT_LIMIT


def to_show(th: TableHand | None) -> int | None:
    """The seat whose turn it is to show or muck at the showdown."""
    if th is None or th.hand.phase is not Phase.SHOWDOWN:
        return None
    position = next_to_show(th.hand)
    return None if position is None else th.seat(position)


def chip_breakdown(controller: Controller | None, seat: int) -> dict[str, int]:
    """Chips of each denomination in the seat's stack, as the trays read them (TDA-19)."""
    if controller is None:
        return {}
    tags = controller.state.zones.get(f"seat{seat}.stack")
    if not tags:
        return {}
    counts: dict[str, int] = {}
    for tag in tags:
        value = controller.registry.chip_value(tag)
        if value is not None:
            counts[str(value)] = counts.get(str(value), 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -int(kv[0])))


def hide_pot(view: dict[str, Any]) -> None:
    """Take the pot's size out of a seat's view where the house does not tell it (TDA-34)."""
    part = view["table"]
    if part.get("pot_shown", True):
        return
    part["pot_total"] = None
    # The pots are shared by the views of one change (read only): this view gets copies.
    part["pots"] = [{**pot, "amount": None} for pot in part["pots"]]
    legal = view.get("legal")
    if legal:
        for key in ("half_pot", "pot"):
            legal["presets"].pop(key, None)
