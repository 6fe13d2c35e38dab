"""The recall: the last hands as each audience could see them (split from ``audience``).

A seat sees only the hands of the player sitting there now, its own hole cards,
the board, exposed cards and the hands tabled; the console sees every hand
without hole cards. Entries are built once per record and viewer and shared
between views (read only): records never change once the hand ended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.views.redact import redact

if TYPE_CHECKING:
    from firmware.table.table import Table

RECALL_HANDS = 10
"""How many past hands a recall shows."""


def _split(run: str) -> list[str]:
    """``"AhKd"`` -> ``["Ah", "Kd"]``."""
    return [run[i : i + 2] for i in range(0, len(run), 2)]


def _record_shown(record: dict[str, Any]) -> dict[str, list[str]]:
    """The hands tabled in a finished hand, by seat, from its record.

    Hands shown with a show action, and hands turned up when no more betting
    was possible: in a hand neither void nor awarded by the floor, every hand
    still in contention at the end (two or more) was tabled, since the pots
    are awarded at the showdown only when each has been.
    """
    shown: dict[str, list[str]] = {}
    out: set[str] = set()
    for action in record["actions"]:
        seat = str(action["seat"])
        if action["action"] in ("show", "turned_up"):
            shown[seat] = list(dict.fromkeys(shown.get(seat, []) + _split(action["cards"])))
        elif action["action"] in ("fold", "kill_hand", "muck"):
            out.add(seat)
    awarded = any(i["rule"] == "TDA-1" for i in record["incidents"])
    contenders = [str(x) for x in record["seats"] if str(x) not in out]
    if not record["void"] and not awarded and len(contenders) >= 2:
        for seat in contenders:
            cards = record["cards"]["hole"].get(seat, [])
            if len(cards) == 2 and seat not in shown:
                shown[seat] = list(cards)
    return shown


def _recall_entry(record: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """One finished hand as ``viewer`` (a seat, or ``None`` for the console) could see it."""
    shown = _record_shown(record)
    roles = record["cards"]["by_role"]
    exposed = [c for role in ("exposed", "removed") for c in roles.get(role, [])]
    board = _split(record["cards"]["board"])
    visible = set(board) | set(exposed)
    for cards in shown.values():
        visible.update(cards)
    own: list[str] = []
    if viewer is not None:
        own = list(record["cards"]["hole"].get(str(viewer), []))
        visible.update(own)
    actions = []
    for action in record["actions"]:
        entry = dict(action)
        if "cards" in entry:
            entry["cards"] = _split(entry["cards"])
        if "reason" in entry:
            entry["reason"] = redact(entry["reason"], visible)
        actions.append(entry)
    return {
        "hand": record["hand"],
        "button": record["button"],
        "players": dict(record["players"]),
        "board": board,
        "exposed": exposed,
        "hole": own,
        "shown": shown,
        "actions": actions,
        "void": record["void"],
        "pots": [
            {"amount": p["amount"], "winners": list(p["winners"]), "shares": dict(p["shares"])}
            for p in record["pots"]
        ],
        "starting_stacks": dict(record["starting_stacks"]),
        "finishing_stacks": dict(record["finishing_stacks"]),
    }


_RECALL_CACHE: dict[tuple[int, int | None], tuple[dict[str, Any], dict[str, Any]]] = {}
"""Recall entries already built, by record identity and viewer (records never change)."""


def _cached_entry(record: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    key = (id(record), viewer)
    hit = _RECALL_CACHE.get(key)
    if hit is not None and hit[0] is record:
        return hit[1]
    if len(_RECALL_CACHE) > 4096:
        _RECALL_CACHE.clear()
    entry = _recall_entry(record, viewer)
    _RECALL_CACHE[key] = (record, entry)
    return entry


def recall(table: Table, viewer: int | None) -> list[dict[str, Any]]:
    """The last ten hands as ``viewer`` could see them (entries are shared: read only)."""
    records = table.records
    if viewer is not None:
        # Only the hands of the player sitting there now, never a previous occupant's.
        seat = table.seating.seats.get(viewer)
        player = seat.player if seat is not None else None
        mine = [
            r
            for r in records[-(RECALL_HANDS * 5) :]
            if viewer in r["seats"] and r["players"].get(str(viewer)) == player
        ]
        return [_cached_entry(r, viewer) for r in mine[-RECALL_HANDS:]]
    return [_cached_entry(r, None) for r in records[-RECALL_HANDS:]]
