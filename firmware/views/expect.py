"""Table-script checks of what each audience sees, computed by the real views.

Two things for :func:`firmware.table.script.run_script`:

* :func:`check_view_expectation` - the ``expect`` forms about visibility
  (``docs/table-scripts.md``): ``expect public CARDS`` (the cards everyone may
  see) and ``expect view SEAT ...`` (what that seat's screen shows);
* :func:`check_audiences` - the audience leak check, run after every event:
  no seat's screen and not the console shows another seat's hole card before
  it is tabled or exposed, a burn or a card held back (HG-20 c) before it is
  shown, a card returned to the stub (HG-9), an empty seat's dead card
  (HG-12), or any card not yet drawn (TDA-21).

The leak check judges from the hand's draw log and showdown state, not from
the views' own notion of "public", so a view that shows too much fails it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from firmware.engine.cards import format_card, parse_cards
from firmware.errors import CardError
from firmware.table.dealing import TableHand
from firmware.table.script_text import ScriptError
from firmware.table.table import Table
from firmware.views.audience import console_view, public_cards, seat_view
from firmware.views.recall import _record_shown
from firmware.views.redact import UNSEEN, cards_in_text

NONE = "-"
"""Written for "no cards" in an ``expect public`` or ``expect view`` line."""

_CARDS = re.compile(r"^(?:[2-9TJQKA][cdhs]|\?\?)+$")


def _shown(message: Any) -> set[str]:
    """Every card named anywhere in a view (values and keys, recursively)."""
    return set(cards_in_text(json.dumps(message, ensure_ascii=False, default=str)))


def _wanted(words: list[str], number: int) -> set[str]:
    text = "".join(words)
    if text == NONE:
        return set()
    try:
        return {format_card(c) for c in parse_cards(text)}
    except CardError as exc:
        raise ScriptError(f"Line {number}: {exc}") from exc


def _text(cards: set[str]) -> str:
    return "".join(sorted(cards)) or NONE


def _public_now(table: Table) -> set[str]:
    """The public cards of the hand in progress, or of the last hand as recalled."""
    if table.hand is not None:
        return public_cards(table.hand)
    recall = console_view(table, "en")["recall"]
    if not recall:
        return set()
    last = recall[-1]
    seen = set(last["board"]) | set(last["exposed"])
    for cards in last["shown"].values():
        seen.update(cards)
    return seen


def _seat_view(table: Table, seat: int) -> dict[str, Any]:
    view = seat_view(table, seat, "en")
    view.pop("recall")
    return view


def check_view_expectation(table: Table, words: list[str], number: int) -> bool:
    """Check an ``expect public`` or ``expect view`` line; ``False`` for other forms.

    :raises ScriptError: naming the line, when the table does not match.
    """
    what, args = words[0], words[1:]
    if what == "public" and args:
        wanted, actual = _wanted(args, number), _public_now(table)
        if wanted != actual:
            raise ScriptError(
                f"Line {number}: expected the public cards {_text(wanted)}, found {_text(actual)}."
            )
        return True
    if what == "view" and len(args) >= 2 and args[0].isdigit():
        viewer = int(args[0])
        view = _seat_view(table, viewer)
        if args[1] == "seat" and len(args) == 4 and args[2].isdigit():
            rows = [r for r in view["table"]["seats"] if r["seat"] == int(args[2])]
            found = "".join(rows[0]["cards"]) if rows else ""
            want = "" if args[3] == NONE else args[3]
            if not _CARDS.match(want or "??") or found != want:
                raise ScriptError(
                    f"Line {number}: expected seat {viewer}'s screen to show {args[3]} at "
                    f"seat {args[2]}, found {found or NONE}."
                )
            return True
        wanted, actual = _wanted(args[1:], number), _shown(view)
        if wanted != actual:
            raise ScriptError(
                f"Line {number}: expected seat {viewer}'s screen to show {_text(wanted)}, "
                f"found {_text(actual)}."
            )
        return True
    return False


def _forbidden(th: TableHand, viewer: int | None) -> set[str]:
    """The drawn cards ``viewer`` (a seat, ``None`` for the console) must not see now."""
    hand = th.hand
    seats = th.plan.seats
    board = {format_card(c) for c in hand.board}
    tabled: set[str] = set()
    for position in range(hand.player_count):
        shown = hand.shown[position]
        if shown is not None:
            tabled.update(format_card(c) for c in shown)
    exposed = {
        format_card(d.card)
        for d in th.draws
        if d.public and d.role in ("exposed", "removed", "burn")
    }
    hidden: set[str] = set()
    for position, seat in enumerate(seats):
        if seat == viewer:
            continue
        if hand.cards_up and not hand.folded[position]:
            continue  # turned up: no more betting is possible (TDA-9)
        held = hand.hole[position] if th.s.dealt else th.s.buffer.get(position, [])
        hidden.update(format_card(c) for c in held if c is not None)
    for draw in th.draws:
        if draw.role in ("dead", "returned", "premature", "held", "burn"):
            hidden.add(format_card(draw.card))
    return hidden - board - tabled - exposed


def _untabled(table: Table, viewer: int | None) -> set[str]:
    """The last hand's hole cards never tabled, except ``viewer``'s own."""
    if not table.records:
        return set()
    record = table.records[-1]
    tabled = {c for cards in _record_shown(record).values() for c in cards}
    hidden = {
        c for seat, cards in record["cards"]["hole"].items() if seat != str(viewer) for c in cards
    }
    return hidden - tabled


def check_audiences(table: Table) -> None:
    """The audience leak check: every seat's screen and the console show nothing private.

    :raises ScriptError: naming the audience and the cards it should not see.
    """
    th = table.hand
    seated = sorted(table.seating.seats)
    empty = next((x for x in range(1, 11) if x not in seated), None)
    audiences: list[int | None] = [*seated, None] + ([empty] if empty is not None else [])
    drawn: set[str] = set()
    if th is not None:
        drawn = {format_card(d.card) for d in th.draws} | {format_card(c) for c in th.hand.board}
    for viewer in audiences:
        view = console_view(table, "en") if viewer is None else seat_view(table, viewer, "en")
        view.pop("recall")
        if viewer is None:
            # The dealer must find a marked card to replace it (HG-11): the console names it.
            view["console"]["deck"].pop("needs_repair", None)
        shown = _shown(view) - {UNSEEN}
        who = "the console" if viewer is None else f"seat {viewer}'s screen"
        if th is None or not (th.draws or th.hand.board):
            # Between hands, and from the next hand's shuffle to its first card, the
            # screens keep the last hand's end (views/ending.py): only what was public.
            leaked = shown & _untabled(table, viewer)
            if leaked:
                raise ScriptError(f"Between hands {who} shows {_text(leaked)} of the last hand.")
            continue
        undrawn = shown - drawn
        if undrawn:
            raise ScriptError(f"{who} shows {_text(undrawn)}, never drawn (TDA-21).")
        leaked = shown & _forbidden(th, viewer)
        if leaked:
            raise ScriptError(f"{who} shows {_text(leaked)}, which it may not see.")
