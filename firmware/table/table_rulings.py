"""The floor's rulings a :class:`~firmware.table.table.Table` applies, and its audit log.

Kept beside the table so the table module stays small (as :mod:`firmware.table.house`
and :mod:`firmware.table.table_deck` are); the table calls these with itself:

* floor overrides, each with a reason written to the audit log (TDA-1): a stack
  adjusted between hands, a pot awarded, a hand voided, the last action undone;
* penalties (TDA-7): a warning, missed rounds, a disqualification, and taking a
  disqualified player's seat and chips out of play;
* the chip race that colours up between hands (TDA-2, HG-19);
* the tournament's level clock, started, paused or resumed (TDA-17).

Everything here is decided from the table's own state and the events applied,
so a replay of the journal rebuilds it exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from firmware.errors import IllegalAction
from firmware.table import events as te
from firmware.table.chiprace import ChipRaceResult, chip_race
from firmware.table.dealing import TableHand
from firmware.table.options import TableConfig
from firmware.table.penalties import Penalty, PenaltyBook, PenaltyKind
from firmware.table.seating import Seating
from firmware.table.tournament import TournamentClock


@dataclass
class AuditEntry:
    """A floor override or another decision that must be traceable (TDA-1)."""

    time: float
    staff: str
    action: str
    reason: str
    detail: str = ""


class Table(Protocol):
    """The parts of a :class:`~firmware.table.table.Table` these rulings read and change
    (a protocol: this module does not import the table, which imports it)."""

    config: TableConfig
    seating: Seating
    now: float
    hand: TableHand | None
    levels: TournamentClock | None
    penalties: PenaltyBook
    audit: list[AuditEntry]
    chip_races: list[ChipRaceResult]
    raced_unit: int


# ------------------------------------------------------------------ tournament


def level_clock(table: Table, event: te.LevelClock) -> None:
    """Start, pause or resume the tournament's level clock (TDA-17)."""
    if table.levels is None:
        raise IllegalAction(
            "This table has no blind structure; it plays fixed stakes.", key="error.levels.none"
        )
    actions = {
        "start": table.levels.start,
        "pause": table.levels.pause,
        "resume": table.levels.resume,
    }
    if event.action not in actions:
        raise IllegalAction(
            f"The level clock can start, pause or resume, not {event.action!r}.",
            key="error.levels.action",
            action=event.action,
        )
    at = event.at
    if at is not None and (
        isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at)
    ):  # NaN or infinity would stop every later clock reading (issue 27, item 12)
        raise IllegalAction(
            "The level clock's moment must be a finite time in seconds; the command was "
            "not carried out.",
            key="error.levels.at",
        )
    actions[event.action](table.now if at is None else at)


def give_penalty(table: Table, event: te.GivePenalty) -> None:
    """A warning, missed rounds or a disqualification for a seat (TDA-7), audited."""
    kinds = {
        "warning": PenaltyKind.WARNING,
        "rounds": PenaltyKind.ROUNDS,
        "disqualification": PenaltyKind.DISQUALIFICATION,
    }
    if event.penalty not in kinds:
        raise IllegalAction(
            f"A penalty is a warning, rounds or disqualification, not {event.penalty!r} (TDA-7).",
            key="error.penalty.kind",
            penalty=event.penalty,
        )
    seat = table.seating.seat_of(event.seat)
    penalty = Penalty(kinds[event.penalty], event.rounds)
    record = table.penalties.give(
        event.seat,
        penalty,
        event.reason,
        table.now,
        players_at_table=len(table.seating.seats),
        starts_next_hand=event.next_hand,
        chips=seat.stack,
    )
    table.audit.append(
        AuditEntry(
            table.now,
            event.staff,
            f"penalty {event.penalty}",
            event.reason,
            f"seat {event.seat}: {record.hands_total} hand(s)",
        )
    )
    th = table.hand
    in_hand = th is not None and event.seat in th.plan.seats
    if (
        record.kill_now
        and th is not None
        and in_hand
        and not th.hand.folded[th.position(event.seat)]
    ):
        th.apply(te.KillSeat(event.seat, f"penalty: {event.reason} (TDA-7)"))
    if table.hand is None and table.penalties.is_disqualified(event.seat):
        remove_disqualified(table, event.seat)


def race_chips(table: Table, event: te.ChipRace) -> None:
    """Colour up between hands (TDA-2, HG-19); stacks change by the race's result."""
    seats = table.seating.seats
    removed = {x: (s.stack % event.new) // event.old for x, s in seats.items()}
    other = {x: s.stack - removed[x] * event.old for x, s in seats.items()}
    cards = iter(event.cards)

    def deal() -> int:
        try:
            return next(cards)
        except StopIteration:
            raise IllegalAction(
                f"The chip race needs more cards than the {len(event.cards)} given; deal "
                "one card per odd chip.",
                key="error.chiprace.cards",
            ) from None

    result = chip_race(
        removed,
        event.old,
        event.new,
        deal,
        round_up=table.config.options.chip_race_round_up,
        other_chips=other,
    )
    for x, seat in seats.items():
        seat.stack = other[x] + result.value_after[x]
    table.audit.append(
        AuditEntry(
            table.now,
            "dealer",
            "chip race",
            f"colour-up {event.old} -> {event.new}",
            f"rounding {result.rounding_difference:+d}, guarantee {result.guarantee_value}",
        )
    )
    table.chip_races.append(result)
    table.raced_unit = max(table.raced_unit, event.new)


def remove_disqualified(table: Table, seat: int) -> None:
    """Take a disqualified player's seat and chips out of play (TDA-7), audited."""
    removed = table.seating.seats.pop(seat)
    table.penalties.seat_vacated(seat)
    table.audit.append(
        AuditEntry(
            table.now,
            "floor",
            "disqualified",
            "TDA-7",
            f"seat {seat} ({removed.player}): {removed.stack} chips removed from play",
        )
    )


# ------------------------------------------------------------------ overrides


def override(
    table: Table, event: te.AdjustStack | te.AwardPot | te.VoidByFloor | te.UndoLast
) -> None:
    """A floor override with its reason (TDA-1): a stack adjusted between hands, a pot
    awarded, a hand voided or its last action undone; written to the audit log."""
    if not event.reason.strip():
        raise IllegalAction(
            "Every floor override needs a reason; it is written to the audit log (TDA-1).",
            key="error.ruling.no_reason",
        )
    if isinstance(event, te.AdjustStack):
        if table.hand is not None:
            raise IllegalAction(
                "Stacks are adjusted between hands; finish or void the hand first.",
                key="error.adjust.in_hand",
            )
        seat = table.seating.seat_of(event.seat)
        detail = f"seat {event.seat}: {seat.stack} -> {event.chips}"
        if event.chips < 0:
            raise IllegalAction("A stack cannot be negative.", key="error.adjust.negative")
        seat.stack = event.chips
        seat.busted = event.chips == 0
    else:
        if table.hand is None:
            raise IllegalAction(
                "There is no hand in progress to rule on.", key="error.ruling.no_hand"
            )
        if isinstance(event, te.UndoLast):
            detail = _undo(table)
        else:
            detail = repr(event)
            table.hand.apply(event)
    table.audit.append(AuditEntry(table.now, event.staff, event.kind, event.reason, detail))


def _undo(table: Table) -> str:
    """Rebuild the hand without its last player action; what was undone."""
    hand = table.hand
    assert hand is not None
    acts = [i for i, e in enumerate(hand.log) if isinstance(e, te.Act)]
    if not acts:
        raise IllegalAction("No player action to undo in this hand.", key="error.undo.nothing")
    last = acts[-1]
    if any(isinstance(e, te.CardDrawn) for e in hand.log[last + 1 :]):
        raise IllegalAction(
            "Cards were dealt after the last action; it cannot be undone. Void the hand or "
            "award the pot instead.",
            key="error.ruling.undo_late",
        )
    kept = hand.log[:last] + hand.log[last + 1 :]
    table.hand = hand.rebuilt(kept)
    return f"undid {hand.log[last]!r}"
