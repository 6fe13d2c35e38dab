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


def _recall_base(record: dict[str, Any]) -> dict[str, Any]:
    """One finished hand as everyone at the table could see it: no hole card of its own.

    Every audience's entry is this one with its own hole cards and, where a
    reason names cards, the reasons redacted for what it could see.
    """
    shown = _record_shown(record)
    roles = record["cards"]["by_role"]
    exposed = [c for role in ("exposed", "removed") for c in roles.get(role, [])]
    board = _split(record["cards"]["board"])
    visible = set(board) | set(exposed)
    for cards in shown.values():
        visible.update(cards)
    return {
        "hand": record["hand"],
        "button": record["button"],
        "players": dict(record["players"]),
        "board": board,
        "exposed": exposed,
        "hole": [],
        "shown": shown,
        "actions": _actions(record, visible),
        "void": record["void"],
        "pots": [
            {"amount": p["amount"], "winners": list(p["winners"]), "shares": dict(p["shares"])}
            for p in record["pots"]
        ],
        "starting_stacks": dict(record["starting_stacks"]),
        "finishing_stacks": dict(record["finishing_stacks"]),
        "_visible": visible,
    }


def _actions(record: dict[str, Any], visible: set[str]) -> list[dict[str, Any]]:
    """The hand's actions, cards as lists and reasons redacted to ``visible``."""
    actions = []
    for action in record["actions"]:
        entry = dict(action)
        if "cards" in entry:
            entry["cards"] = _split(entry["cards"])
        if "reason" in entry:
            entry["reason"] = redact(entry["reason"], visible)
        actions.append(entry)
    return actions


def _recall_entry(record: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """One finished hand as ``viewer`` (a seat, or ``None`` for the console) could see it.

    The parts every audience sees alike are built once per record and shared
    between the audiences' entries (read only, as the entries themselves).
    """
    base = _cached_base(record)
    visible = base["_visible"]
    entry = {k: v for k, v in base.items() if k != "_visible"}
    if viewer is None:
        return entry
    own = list(record["cards"]["hole"].get(str(viewer), []))
    entry["hole"] = own
    if own and any("reason" in a for a in record["actions"]):
        entry["actions"] = _actions(record, visible | set(own))
    return entry


_RECALL_CACHE: dict[tuple[int, int | str | None], tuple[dict[str, Any], dict[str, Any]]] = {}
"""Recall entries already built, by record identity and viewer (records never change);
viewer ``"base"``: the parts every audience sees alike."""


def _cached(record: dict[str, Any], viewer: int | str | None) -> dict[str, Any] | None:
    hit = _RECALL_CACHE.get((id(record), viewer))
    return hit[1] if hit is not None and hit[0] is record else None


def _keep(record: dict[str, Any], viewer: int | str | None, entry: dict[str, Any]) -> None:
    if len(_RECALL_CACHE) > 4096:
        _RECALL_CACHE.clear()
    _RECALL_CACHE[(id(record), viewer)] = (record, entry)


def _cached_base(record: dict[str, Any]) -> dict[str, Any]:
    base = _cached(record, "base")
    if base is None:
        base = _recall_base(record)
        _keep(record, "base", base)
    return base


def _cached_entry(record: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    entry = _cached(record, viewer)
    if entry is None:
        entry = _recall_entry(record, viewer)
        _keep(record, viewer, entry)
    return entry


_RECALL_LISTS: dict[tuple[int, int | None], tuple[Any, ...]] = {}
"""Each viewer's last recall, by records list and viewer: (records list, newest record,
player at the seat, the recall, the records it shows), kept while no hand ends and
nobody sits down; when one hand ended since, the next is made from it."""

WINDOW = RECALL_HANDS * 5
"""How many of the latest records a seat's recall looks through for its player's hands."""


def recall(table: Table, viewer: int | None) -> list[dict[str, Any]]:
    """The last ten hands as ``viewer`` could see them.

    Read only: the entries are shared between views, and between the views of
    one viewer the list itself is too, until a hand ends or the player at the
    seat changes (an encoder may keep their bytes by identity).
    """
    records = table.records
    newest = records[-1] if records else None
    player = None
    if viewer is not None:
        seat = table.seating.seats.get(viewer)
        player = seat.player if seat is not None else None
    key = (id(records), viewer)
    hit = _RECALL_LISTS.get(key)
    picked: list[dict[str, Any]]
    if hit is not None and hit[0] is records and hit[2] == player:
        if hit[1] is newest:
            kept: list[dict[str, Any]] = hit[3]
            return kept
        picked = _one_more(records, viewer, player, hit[1], hit[4])
    else:
        picked = _picked(records, viewer, player)
    made = [_cached_entry(r, viewer) for r in picked]
    if len(_RECALL_LISTS) > 256:
        _RECALL_LISTS.clear()
    _RECALL_LISTS[key] = (records, newest, player, made, picked)
    return made


def _mine(record: dict[str, Any], viewer: int, player: str | None) -> bool:
    """Whether ``record`` is a hand the player now at seat ``viewer`` played there."""
    return viewer in record["seats"] and record["players"].get(str(viewer)) == player


def _picked(
    records: list[dict[str, Any]], viewer: int | None, player: str | None
) -> list[dict[str, Any]]:
    """The records ``viewer``'s recall shows, looked for in the latest ones."""
    if viewer is None:
        return records[-RECALL_HANDS:]
    # Only the hands of the player sitting there now, never a previous occupant's.
    mine = [r for r in records[-WINDOW:] if _mine(r, viewer, player)]
    return mine[-RECALL_HANDS:]


def _one_more(
    records: list[dict[str, Any]],
    viewer: int | None,
    player: str | None,
    before: dict[str, Any] | None,
    picked: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The records shown, from those shown before the newest hand ended (the same as
    :func:`_picked` gives, without looking through the window again): the newest if
    it is the viewer's, less the record the window left behind."""
    if len(records) < 2 or records[-2] is not before:
        return _picked(records, viewer, player)  # more than one hand, or a restored table
    newest = records[-1]
    if viewer is None:
        return [*picked, newest][-RECALL_HANDS:]
    out = picked
    window = records[-WINDOW:]
    while out and all(r is not out[0] for r in reversed(window)):
        out = out[1:]  # the oldest shown is now outside the window (or trimmed away)
    if _mine(newest, viewer, player):
        out = [*out, newest][-RECALL_HANDS:]
    return out
