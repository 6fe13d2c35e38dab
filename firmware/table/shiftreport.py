"""A table's shift report, computed from its journal alone (TABLE-BANK).

:func:`shift_report` replays the table's events through a fresh
:class:`~firmware.table.table.Table` (the journal's set-up) and sorts every chip
that moved into the report's lines: the opening float, fills and credits (the
bank), buy-ins and rebuys (the drop: chips players brought to the table),
cash-outs, the rake and the jackpot drop of every finished hand, time
charges, jackpots and promotions paid (by the cage: outside the expected count; a
bad beat's reserve share stays in the fund), and adjustments (any
other change of the seats' chips: a floor's stack adjustment, a colour-up's
rounding). A shift ends with a ``shift_count``; the chips counted are the next
shift's opening. Replay never stops on a record: an event the table refuses
is skipped, as recovery skips it, and counted in ``skipped``.

The expected chips are::

    opening + float + fills - credits + drop - cash-outs - rake - jackpot drop
            - time charges + adjustments

which is what the table itself must hold (its tray plus its seats'
chips, :func:`~firmware.table.bank.expected_on_table`) whenever nobody made a
mistake: the report checks the two agree and says so in ``agrees``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from firmware.table import events as te
from firmware.table.bank import expected_on_table, seat_chips
from firmware.table.table import Table

LINES = (
    "opening",
    "float",
    "fills",
    "credits",
    "buy_ins",
    "rebuys",
    "drop",
    "cash_outs",
    "rake",
    "jackpot_drop",
    "time_charges",
    "jackpots_paid",
    "promotions_paid",
    "adjustments",
    "expected",
    "counted",
    "difference",
)
"""The report's money lines, in order (each a whole number of chips)."""


@dataclass
class Shift:
    """One shift of a table: what the journal says moved, and its count."""

    number: int
    started_wall: float | None = None
    ended_wall: float | None = None
    opening: int = 0
    """The chips on the table when the shift began (the previous count)."""
    float: int = 0
    fills: int = 0
    credits: int = 0
    buy_ins: int = 0
    rebuys: int = 0
    cash_outs: int = 0
    rake: int = 0
    jackpot_drop: int = 0
    time_charges: int = 0
    jackpots_paid: int = 0
    promotions_paid: int = 0
    adjustments: int = 0
    hands: int = 0
    counted: int | None = None
    """The chips counted at the shift's end (``None``: the shift is still open)."""
    recorded_expected: int | None = None
    """What the ``shift_count`` record says was expected."""
    staff: tuple[str, ...] = ()
    """The badges that confirmed the count."""
    on_table: int = 0
    """The table's own tray plus seats at the end of the shift (before its count)."""
    movements: list[dict[str, Any]] = field(default_factory=list)
    """The bank's movements: kind, amount, badges and wall time."""

    @property
    def drop(self) -> int:
        """The chips players brought to the table: buy-ins and rebuys."""
        return self.buy_ins + self.rebuys

    @property
    def expected(self) -> int:
        """What the journal says must be on the table at the end of the shift."""
        return (
            self.opening
            + self.float
            + self.fills
            - self.credits
            + self.drop
            - self.cash_outs
            - self.rake
            - self.jackpot_drop
            - self.time_charges
            + self.adjustments
        )

    @property
    def difference(self) -> int | None:
        """Counted minus expected (``None`` before the count)."""
        return None if self.counted is None else self.counted - self.expected

    @property
    def agrees(self) -> bool:
        """The report's expected equals the table's own (and the count record's)."""
        ok = self.expected == self.on_table
        return ok and (self.recorded_expected in (None, self.expected))

    def lines(self) -> dict[str, int | None]:
        """The money lines (:data:`LINES`) by name."""
        return {name: getattr(self, name) for name in LINES}


@dataclass
class ShiftReport:
    """Every shift of a table's journal, oldest first, and the events replay skipped."""

    shifts: list[Shift]
    skipped: int = 0


def shift_report(table: Table, events: Iterable[te.TableEvent]) -> ShiftReport:
    """Replay ``events`` on ``table`` (fresh, from the journal's set-up) and report
    every shift. A pure function of the records: the same journal, the same report."""
    shifts = [Shift(1)]
    finished: list[dict[str, Any]] = []
    table.hand_listeners.append(lambda record, _hand: finished.append(record))
    skipped = 0
    for event in events:
        shift = shifts[-1]
        before = seat_chips(table.seating)
        stacks = {n: s.stack + s.rebuy for n, s in table.seating.seats.items()}
        finished.clear()
        try:
            table.apply(event)
        except Exception:  # refused (IllegalAction) or a fault: skipped, as recovery does
            skipped += 1
            continue
        wall = table.wall_at(table.now)
        if shift.started_wall is None and not isinstance(event, te.WallClock):
            shift.started_wall = wall
        shift.ended_wall = wall if wall is not None else shift.ended_wall
        delta = seat_chips(table.seating) - before
        if isinstance(event, te.Restore):
            shift.opening += expected_on_table(table.bank, table.seating)
        else:
            _sort(shift, event, delta, stacks, finished)
        shift.on_table = expected_on_table(table.bank, table.seating)
        if isinstance(event, te.ShiftCount):
            shift.on_table = event.expected
            shift.counted, shift.recorded_expected = event.counted, event.expected
            shift.staff = tuple(event.staff)
            shifts.append(Shift(len(shifts) + 1, opening=event.counted))
    last = shifts[-1]
    idle = last.lines() == Shift(last.number, opening=last.opening).lines()
    if len(shifts) > 1 and idle and not last.hands:
        shifts.pop()  # no chip moved after the last count: no shift is open
    return ShiftReport(shifts, skipped)


def _sort(
    shift: Shift,
    event: te.TableEvent,
    delta: int,
    stacks: dict[int, int],
    finished: list[dict[str, Any]],
) -> None:
    """Add one applied event's chips to the shift's lines."""
    explained = 0
    if isinstance(event, te.BankOpen):
        name = {"bank_open": "float", "bank_fill": "fills", "bank_credit": "credits"}[event.kind]
        setattr(shift, name, getattr(shift, name) + event.amount)
        shift.movements.append(
            {"kind": event.kind, "amount": event.amount, "staff": list(event.staff)}
        )
    elif isinstance(event, te.ShiftCount):
        pass
    elif isinstance(event, te.SitDown):
        shift.buy_ins += event.chips
        explained = event.chips
    elif isinstance(event, te.Rebuy):
        shift.rebuys += event.chips
        explained = event.chips
    elif isinstance(event, te.CashOut):
        out = stacks.get(event.seat, 0)
        shift.cash_outs += out
        explained = -out
    elif event.kind == "time_charge":
        amount = _int(getattr(event, "amount", 0))
        shift.time_charges += amount
        explained = -amount
    elif event.kind == "jackpot_award":
        # Paid by the cage (any chips handed to the seats came from the tray): no change
        # of the table's chips.
        paid = sum(
            _int(s.get("amount", 0))
            for s in getattr(event, "shares", ())
            if isinstance(s, dict) and s.get("share") != "reserve"
        )
        if getattr(event, "jackpot", "") == "high_hand":
            shift.promotions_paid += paid
        else:
            shift.jackpots_paid += paid
        explained = delta
    for record in finished:
        shift.hands += 1
        rake, drop = _int(record.get("rake", 0)), _int(record.get("jackpot_drop", 0))
        shift.rake += rake
        shift.jackpot_drop += drop
        explained -= rake + drop
    shift.adjustments += delta - explained


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


__all__ = ["LINES", "Shift", "ShiftReport", "shift_report"]
