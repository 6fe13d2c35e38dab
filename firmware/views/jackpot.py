"""The jackpot in the views (house procedure JACKPOT).

* A pot's line says the jackpot drop next to the rake: ``Bote 480 · comisión 20 ·
  jackpot 5`` (:func:`pot_said`).
* ``console.jackpot``: the fund and each award the table decided and a floor badge
  has not confirmed yet: its ``jackpot`` and ``hand`` (what ``report jackpot``
  names), a ``title``, the hands in words and one line per share, in the console's
  language.
* ``table.jackpot`` (every audience): the awards confirmed since the last hand
  ended, one line each in the screen's language (the seats announce them).
"""

from __future__ import annotations

from typing import Any

from firmware.i18n import tr
from firmware.table.jackpot_table import best_of
from firmware.table.table import Table


def pot_said(pot: dict[str, Any], label: str, lang: str) -> str:
    """A pot's line with what the house took from it: the rake, the jackpot drop, both;
    ``""`` when the pot went whole to its winners."""
    rake, drop = pot.get("rake", 0), pot.get("jackpot_drop", 0)
    if rake and drop:
        return tr("pot.raked_jackpot", lang, pot=label, amount=pot["amount"], rake=rake, drop=drop)
    if drop:
        return tr("pot.jackpot_drop", lang, pot=label, amount=pot["amount"], drop=drop)
    if rake:
        return tr("pot.raked", lang, pot=label, amount=pot["amount"], rake=rake)
    return ""


def _name(table: Table, award: dict[str, Any], index: int) -> str:
    """The name of the player of the award's share ``index`` in the hand it was won in
    (the seat may have changed hands since), or of the seat's occupant now for an award
    decided without names."""
    names = award.get("names")
    if isinstance(names, list) and len(names) == len(award["shares"]) and names[index]:
        return str(names[index])
    occupant = table.seating.seats.get(award["shares"][index]["seat"])
    return occupant.player if occupant is not None else ""


def _share_line(table: Table, award: dict[str, Any], index: int, lang: str) -> str:
    share = award["shares"][index]
    kind = tr(f"jackpot.share.{share['share']}", lang)
    if share["share"] == "reserve":
        return tr("jackpot.reserve_line", lang, share=kind, amount=share["amount"])
    return tr(
        "jackpot.share_line",
        lang,
        share=kind,
        seat=share["seat"],
        name=_name(table, award, index),
        amount=share["amount"],
    )


def _pending(table: Table, award: dict[str, Any], lang: str) -> dict[str, Any]:
    kind = tr(f"jackpot.kind.{award['jackpot']}", lang)
    if award["jackpot"] == "bad_beat":
        # The seats of the award (a share of 0 chips, from an empty fund, is not listed).
        loser, winner = award.get("seats") or [
            next((s["seat"] for s in award["shares"] if s["share"] == kind), 0)
            for kind in ("loser", "winner")
        ]
        hands = tr(
            "jackpot.pending.hands",
            lang,
            loser=loser,
            loser_hand=best_of(award["loser"]).describe(lang),
            winner=winner,
            winner_hand=best_of(award["winner"]).describe(lang),
        )
    else:
        hands = tr(
            "jackpot.pending.high",
            lang,
            seats=", ".join(str(s["seat"]) for s in award["shares"]),
            hand=best_of(award["cards"]).describe(lang),
        )
    return {
        "jackpot": award["jackpot"],
        "hand": award["hand"],
        "title": tr("jackpot.pending.title", lang, kind=kind, hand=award["hand"]),
        "hands": hands,
        "lines": [_share_line(table, award, i, lang) for i in range(len(award["shares"]))],
    }


def console_jackpot(table: Table, lang: str) -> dict[str, Any] | None:
    """The console's jackpot part, ``None`` for a table without a jackpot."""
    book = table.jackpot
    if book.rules is None:
        return None
    return {
        "fund": book.fund,
        "said": tr("jackpot.fund", lang, fund=book.fund),
        "pending": [_pending(table, award, lang) for award in book.pending],
    }


def awarded_lines(table: Table, lang: str) -> list[str]:
    """The awards confirmed since the last hand ended, one line each."""
    lines = []
    for award in table.jackpot.shown:
        shares = ", ".join(
            tr(
                "jackpot.awarded_share",
                lang,
                seat=s["seat"],
                name=_name(table, award, i),
                amount=s["amount"],
            )
            for i, s in enumerate(award["shares"])
            if s["share"] != "reserve"
        )
        kind = tr(f"jackpot.kind.{award['jackpot']}", lang)
        lines.append(tr("jackpot.awarded", lang, kind=kind, hand=award["hand"], shares=shares))
    return lines


__all__ = ["awarded_lines", "console_jackpot", "pot_said"]
