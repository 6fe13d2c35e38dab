"""The house's money on the screens: the time charge (HOUSE-TIME) and an open
rake-zone difference (HOUSE-RAKE-ZONE).

A seat's screen shows what its player paid at the latest time collection
("Tiempo 20 · 30 min"); the console shows the whole collection ("Tiempo
cobrado: asiento 1 20, asiento 3 20") and an open difference between the rake
zone and the rake, which the dealer must recount or confirm.
"""

from __future__ import annotations

from typing import Any

from firmware.i18n import tr
from firmware.table.table import Table


def house_view(table: Table, lang: str, seat: int | None = None) -> dict[str, Any]:
    """The house's lines for ``seat``'s screen, or for the console (``seat`` ``None``)."""
    book = table.house
    charges = book.last_charges
    lines: list[str] = []
    part: dict[str, Any] = {"time_charges": [dict(c) for c in charges], "lines": lines}
    if seat is not None:
        own = [c for c in charges if c["seat"] == seat]
        part["time_charges"] = own
        lines += [
            tr("house.time_charge", lang, amount=c["amount"], minutes=c["minutes"]) for c in own
        ]
        return part
    if charges:
        seats = ", ".join(
            tr("house.time_seat", lang, seat=c["seat"], amount=c["amount"]) for c in charges
        )
        lines.append(tr("house.time_collected", lang, seats=seats))
    part["time_taken"] = book.time_taken
    part["rake_zone"] = dict(book.zone_open) if book.zone_open is not None else None
    if book.zone_open is not None:
        lines.append(tr("house.rake_zone_open", lang, **book.zone_open))
    return part


__all__ = ["house_view"]
