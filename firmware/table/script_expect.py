"""The ``expect`` lines of table scripts (see ``docs/table-scripts.md``).

Split from :mod:`firmware.table.script`; every number on an ``expect`` line is
read with :func:`~firmware.table.script_text.whole`, so a bad one is a
one-line :class:`~firmware.table.script_text.ScriptError` naming the line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware.engine.cards import format_cards
from firmware.table.script_text import ScriptError, whole
from firmware.table.table import Table

ViewExpectation = Callable[[Table, list[str], int], bool]
"""Checks an ``expect`` line about what an audience sees; ``False`` if not its form
(:func:`firmware.views.expect.check_view_expectation`: the views are a layer above)."""

AfterEvent = Callable[[Table], None]
"""Called after every table event a script applied (e.g. the audience leak check)."""

DRAW_ROLES = (
    "hole",
    "replacement",
    "dead",
    "exposed",
    "removed",
    "premature",
    "returned",
    "burn",
    "flop",
    "turn",
    "river",
    "held",
)
"""Every role a drawn card can take (``docs/table-scripts.md``, ``draw``)."""

RECORDED_ROLES = ("burn", "exposed", "removed", "flop", "turn", "river", "held")
"""The roles a finished hand's record lists (``cards.by_role``); the others stay private."""


def run_after(after_event: AfterEvent, table: Table, number: int, line: str) -> None:
    """Run ``after_event``; a failure names the line of the event it followed."""
    try:
        after_event(table)
    except ScriptError as exc:
        raise ScriptError(f"Line {number} ({line}): {exc}") from exc


def role_cards(table: Table, role: str) -> str:
    """The cards drawn in ``role``, in draw order, as one string (``"3c4h"``).

    During a hand from its draw log; after it from the last hand's record,
    which lists only :data:`RECORDED_ROLES`.
    """
    if table.hand is not None:
        return format_cards(d.card for d in table.hand.draws if d.role == role)
    last = table.records[-1] if table.records else {}
    return "".join(last.get("cards", {}).get("by_role", {}).get(role, []))


def check_expectation(table: Table, words: list[str], number: int) -> None:
    """Check one ``expect`` line against the table (see docs/table-scripts.md)."""
    if not words:
        raise ScriptError(f"Line {number}: say what to expect, for example 'expect hands 1'.")
    what, args = words[0], words[1:]
    last = table.records[-1] if table.records else None
    current = table.hand
    actual: Any
    if what == "stacks":
        wanted: dict[str, str] = {}
        for arg in args:
            label, sep, chips = arg.partition("=")
            if not sep:
                raise ScriptError(
                    f"Line {number}: write expected stacks as SEAT=CHIPS, not {arg!r}."
                )
            wanted[label] = chips
        actual = {str(k): v.stack for k, v in table.seating.seats.items() if str(k) in wanted}
        if current is not None:
            # During a hand, a seat in the hand has its chips behind in the engine.
            for position, seat in enumerate(current.plan.seats):
                if str(seat) in wanted:
                    actual[str(seat)] = current.hand.stacks[position]
        wanted_ints = {k: whole(v, number, "a stack") for k, v in wanted.items()}
        if actual != wanted_ints:
            raise ScriptError(f"Line {number}: expected stacks {wanted_ints}, found {actual}.")
        return
    if what == "board":
        actual = (
            format_cards(current.hand.board)
            if current
            else (last or {}).get("cards", {}).get("board")
        )
        if actual != "".join(args):
            raise ScriptError(f"Line {number}: expected board {''.join(args)}, found {actual}.")
        return
    if what == "burns":
        burns = current.hand.burns if current else None
        actual = (
            format_cards(c for c in burns if c is not None)
            if burns is not None
            else "".join((last or {}).get("cards", {}).get("burns", []))
        )
        if actual != "".join(args):
            raise ScriptError(f"Line {number}: expected burns {''.join(args)}, found {actual}.")
        return
    if what == "hole" and len(args) == 2:
        if current is not None:
            position = current.position(whole(args[0], number, "a seat"))
            actual = format_cards(c for c in current.hand.hole[position] if c is not None)
        else:
            actual = "".join((last or {}).get("cards", {}).get("hole", {}).get(args[0], []))
        if actual != args[1]:
            raise ScriptError(
                f"Line {number}: expected seat {args[0]} to hold {args[1]}, found {actual}."
            )
        return
    if what == "role" and args:
        role = args[0]
        if role not in DRAW_ROLES or (table.hand is None and role not in RECORDED_ROLES):
            kinds = DRAW_ROLES if table.hand is not None else RECORDED_ROLES
            raise ScriptError(
                f"Line {number}: {role!r} is no draw role here; use one of {', '.join(kinds)}."
            )
        actual = role_cards(table, role)
        if actual != "".join(args[1:]):
            raise ScriptError(
                f"Line {number}: expected the {role} cards {''.join(args[1:]) or 'none'}, "
                f"found {actual or 'none'}."
            )
        return
    if what == "void":
        if not last or not last.get("void"):
            raise ScriptError(f"Line {number}: expected the last hand to be void.")
        return
    if what == "incident" and args:
        incidents = (
            (last or {}).get("incidents", [])
            if current is None
            else [{"rule": i.rule} for i in current.incidents]
        )
        if not any(i["rule"] == args[0] for i in incidents):
            raise ScriptError(f"Line {number}: expected an incident {args[0]}, found {incidents}.")
        return
    if what == "button" and len(args) == 1:
        actual = last["button"] if last else None
        if actual != whole(args[0], number, "a seat"):
            raise ScriptError(
                f"Line {number}: expected the button on seat {args[0]}, found {actual}."
            )
        return
    if what == "next" and args:
        actual = table.prompt()
        if " ".join(args).lower() not in actual.lower():
            raise ScriptError(
                f"Line {number}: expected the prompt to say {' '.join(args)!r}, found {actual!r}."
            )
        return
    if what == "countdown":
        said = [str(n) for n in current.s.announced] if current is not None else []
        if said != args:
            raise ScriptError(f"Line {number}: expected the countdown {args}, heard {said}.")
        return
    if what == "unfinished" and not args:
        if current is None:
            raise ScriptError(f"Line {number}: expected a hand in progress, but none is.")
        return
    if what == "hands" and len(args) == 1:
        if len(table.records) != whole(args[0], number, "a number of hands"):
            raise ScriptError(
                f"Line {number}: expected {args[0]} hands played, found {len(table.records)}."
            )
        return
    raise ScriptError(f"Line {number}: unknown expectation {' '.join(words)!r}.")
