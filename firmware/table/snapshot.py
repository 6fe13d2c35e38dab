"""The table's state between hands as a plain record, and back.

A snapshot lets the journal be rotated at a hand boundary: the new journal
starts with the table's set-up and a :class:`~firmware.table.events.Restore`
event carrying this record, so recovery replays only what came after it and
the old journal can be archived or deleted by the retention policy.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Protocol

from firmware.errors import IllegalAction
from firmware.table.bank import BankState
from firmware.table.dealing import TableHand
from firmware.table.house import HouseBook
from firmware.table.jackpot_table import JackpotBook
from firmware.table.penalties import Penalty, PenaltyBook, PenaltyKind, PenaltyRecord
from firmware.table.seating import Seat, Seating
from firmware.table.seating_floor import ButtonDrawResult, FloorCalls, restore_button_draw
from firmware.table.tournament import TournamentClock


@dataclass
class DeckState:
    """The deck in play and its procedures (PE-1, PE-2, HG-11, TDA-16)."""

    ready: bool = False
    checklist: list[str] = field(default_factory=list)
    withdrawn: list[int] = field(default_factory=list)
    needs_repair: list[int] = field(default_factory=list)
    change_requested: bool = False
    cut: bool = False


class TableParts(Protocol):
    """The parts of a :class:`~firmware.table.table.Table` a snapshot records."""

    hand: TableHand | None
    hand_number: int
    seating: Seating
    levels: TournamentClock | None
    deck: DeckState
    now: float
    wall_anchor: tuple[float, float] | None
    deal_limit: int | None
    deal_round: int
    records: list[dict[str, Any]]
    penalties: PenaltyBook
    floor_calls: FloorCalls
    button_draw: ButtonDrawResult | None
    raced_unit: int
    bank: BankState
    jackpot: JackpotBook
    house: HouseBook


KEEP_RECORDS = 10
"""Records carried over (game recall needs the last ten hands)."""


def table_state(table: TableParts) -> dict[str, Any]:
    """The table between hands as a msgpack-serializable dict.

    :raises IllegalAction: during a hand (the open hand is never cut in two).
    """
    if table.hand is not None:
        raise IllegalAction("A snapshot is taken between hands; finish the hand first.")
    seating = table.seating
    levels = table.levels
    return {
        "seats": [dataclasses.asdict(s) for s in seating.seats.values()],
        "button": seating.button,
        "last_small_blind": seating.last_small_blind,
        "last_big_blind": seating.last_big_blind,
        "next_button": seating.next_button,
        "button_buyer": seating.button_buyer,
        "straddler": seating.straddler,
        "cashed_out": dict(seating.cashed_out),
        "deck": dataclasses.asdict(table.deck),
        "hand_number": table.hand_number,
        "now": table.now,
        "wall_anchor": None if table.wall_anchor is None else list(table.wall_anchor),
        "deal": [table.deal_limit, table.deal_round],
        "records": table.records[-KEEP_RECORDS:],
        "penalties": [
            {**dataclasses.asdict(r), "penalty": [r.penalty.kind.value, r.penalty.rounds]}
            for r in table.penalties.records
        ],
        "penalties_closed": [
            {**dataclasses.asdict(r), "penalty": [r.penalty.kind.value, r.penalty.rounds]}
            for r in table.penalties.closed
        ],
        "floor_calls": table.floor_calls.state(),
        "button_draw": None if table.button_draw is None else table.button_draw.as_record(),
        "raced_unit": table.raced_unit,
        "bank": table.bank.state(),
        "jackpot": table.jackpot.state(),
        "house": table.house.state(),
        "levels": None
        if levels is None
        else {
            "started_at": levels.started_at,
            "paused_at": levels.paused_at,
            "pauses": [list(p) for p in levels.pauses],
        },
    }


def restore_state(table: TableParts, state: dict[str, Any]) -> None:
    """Put ``table`` (fresh, between hands) in the state of a snapshot."""
    if table.hand is not None or table.hand_number:
        raise IllegalAction("A snapshot can only start a new journal, before any hand.")
    seating = table.seating
    seating.seats = {s["number"]: Seat(**s) for s in state["seats"]}
    seating.button = state["button"]
    seating.last_small_blind = state["last_small_blind"]
    seating.last_big_blind = state["last_big_blind"]
    seating.next_button = state["next_button"]
    seating.button_buyer = state["button_buyer"]
    seating.straddler = state["straddler"]
    seating.cashed_out = dict(state["cashed_out"])
    for name, value in state["deck"].items():
        setattr(table.deck, name, value)
    table.hand_number = state["hand_number"]
    table.now = state["now"]
    anchor = state.get("wall_anchor")
    table.wall_anchor = None if anchor is None else (float(anchor[0]), float(anchor[1]))
    table.deal_limit, table.deal_round = state.get("deal", [None, 0])
    table.records = list(state["records"])

    def record(r: dict[str, Any]) -> PenaltyRecord:
        penalty = Penalty(PenaltyKind(r["penalty"][0]), r["penalty"][1])
        return PenaltyRecord(**{**r, "penalty": penalty})

    table.penalties.records = [record(r) for r in state["penalties"]]
    table.penalties.closed = [record(r) for r in state.get("penalties_closed", [])]
    table.floor_calls.restore(list(state.get("floor_calls", [])))
    table.button_draw = restore_button_draw(state.get("button_draw"))
    table.raced_unit = int(state.get("raced_unit", 0))
    table.bank = BankState.from_state(state.get("bank"))
    table.jackpot.restore(state.get("jackpot"))
    table.house = HouseBook.from_state(state.get("house"))
    if state["levels"] is not None and table.levels is not None:
        table.levels.started_at = state["levels"]["started_at"]
        table.levels.paused_at = state["levels"]["paused_at"]
        table.levels.pauses = [(p[0], p[1]) for p in state["levels"]["pauses"]]
