"""Table events as plain records and back: what the journal, the hand history,
the floor's copy and the table scripts store.

:func:`to_record` turns a table event (:mod:`firmware.table.events`) into a dict
of ints, strings, lists and ``None`` (msgpack-serializable);
:func:`from_record` rebuilds it, and refuses a record of no known kind or one
missing a field with a sentence (a journal record that does not parse).
:data:`TABLE_EVENT_TYPES` names every table event by its ``kind``: a new event
is added there too.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from firmware.errors import IllegalAction
from firmware.table import events as te

TABLE_EVENT_TYPES: dict[str, type[te.TableEvent]] = {
    cls.kind: cls
    for cls in (
        te.SitDown,
        te.SitOut,
        te.Away,
        te.Rebuy,
        te.SeatRebuy,
        te.CashOut,
        te.TimeCharge,
        te.RakeZone,
        te.Shuffle,
        te.Cut,
        te.Tick,
        te.CardDrawn,
        te.DeckEmpty,
        te.ExposedCard,
        te.Misdeal,
        te.FaceUpInDeck,
        te.PrematureCard,
        te.BurnError,
        te.EmptySeatDealt,
        te.MarkedCard,
        te.Act,
        te.Advance,
        te.DeclareRaise,
        te.ShowCards,
        te.MuckCards,
        te.KillSeat,
        te.CallClock,
        te.DeckStep,
        te.DeckChange,
        te.RepairCard,
        te.WithdrawCard,
        te.SetButton,
        te.DrawButton,
        te.FloorCall,
        te.FloorAnswer,
        te.JackpotAward,
        te.AdjustStack,
        te.AwardPot,
        te.VoidByFloor,
        te.UndoLast,
        te.LevelClock,
        te.WallClock,
        te.DealOrder,
        te.GivePenalty,
        te.BankOpen,
        te.BankFill,
        te.BankCredit,
        te.ShiftCount,
        te.BuyButton,
        te.Straddle,
        te.ChipRace,
        te.Restore,
    )
}


def to_record(event: te.TableEvent) -> dict[str, Any]:
    """Return ``event`` as a plain dict."""
    record: dict[str, Any] = {"kind": event.kind}
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        record[field.name] = list(value) if isinstance(value, tuple) else value
    return record


def from_record(record: dict[str, Any]) -> te.TableEvent:
    """Rebuild a table event from :func:`to_record` output."""
    cls = TABLE_EVENT_TYPES.get(record.get("kind", ""))
    if cls is None:
        raise IllegalAction(f"The record {record!r} names no known table event.")
    values = {
        f.name: tuple(record[f.name]) if isinstance(record.get(f.name), list) else record[f.name]
        for f in dataclasses.fields(cls)
        if f.name in record
    }
    try:
        return cls(**values)
    except TypeError as exc:
        raise IllegalAction(f"The {cls.kind} record {record!r} is incomplete: {exc}.") from exc
