"""The house's money at the table between hands: the time charge and the rake zone.

Two house procedures (docs/rules.md) that :class:`~firmware.table.table.Table`
applies through its events, kept here so the table module stays small:

* **HOUSE-TIME**, the time charge (:class:`~firmware.table.events.TimeCharge`):
  instead of a rake, each seated player pays ``time_charge`` chips per period of
  ``time_charge_minutes`` on the table's journaled clock. Period ``k`` begins at
  table time ``k * minutes * 60`` (the table's clock starts with its journal and
  goes on across restarts); its charge is taken between hands at or after that
  moment, never during a hand, from every seat whose player sat down before
  the period's start and holds chips (a seat without chips pays once it
  has chips again in the period). A player whose stack is smaller than the
  charge pays what he has and is then out of chips (he rebuys or leaves,
  HG-13). The chips leave the table to the house.
* **HOUSE-RAKE-ZONE**, the rake zone of the chip trays
  (:class:`~firmware.table.events.RakeZone`): after a raked hand the dealer
  drops its rake in the tray's ``rake`` zone; the controller compares what the
  tray read with the rake the table computed and journals the comparison. A
  mismatch stays open, and no hand starts, until the dealer recounts (a new
  comparison that agrees) or confirms the read with a staff badge.

Everything here is decided from the table's own state and the events applied,
so a replay of the journal rebuilds it exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from firmware.errors import IllegalAction
from firmware.table import events as te
from firmware.table.options import TableConfig
from firmware.table.seating import Seating


@dataclass
class HouseBook:
    """What the house took between hands, and the rake zone's open question."""

    period: int = 0
    """The period of the latest time collection (0: none yet)."""
    paid: dict[int, int] = field(default_factory=dict)
    """Each seat's last period paid (HOUSE-TIME)."""
    seated_at: dict[int, float] = field(default_factory=dict)
    """The table time each seat's player sat down (a seat not here: from the start)."""
    since_hand: list[dict[str, Any]] = field(default_factory=list)
    """Time charges taken since the last hand started (they go into its record)."""
    last_charges: list[dict[str, Any]] = field(default_factory=list)
    """The time charges of the latest collection, for the seats and the console."""
    time_taken: int = 0
    """Every chip the time charge took from this table's stacks."""
    zone_open: dict[str, int] | None = None
    """An unresolved rake-zone mismatch: ``hand``, ``read``, ``computed``."""
    zone_checked: int = 0
    """The last hand whose rake the rake zone agreed with or the dealer confirmed."""

    def state(self) -> dict[str, Any]:
        """The book as a plain dict for a snapshot."""
        return {
            "period": self.period,
            "paid": [[n, k] for n, k in sorted(self.paid.items())],
            "seated_at": [[n, t] for n, t in sorted(self.seated_at.items())],
            "since_hand": list(self.since_hand),
            "last_charges": list(self.last_charges),
            "time_taken": self.time_taken,
            "zone_open": self.zone_open,
            "zone_checked": self.zone_checked,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any] | None) -> HouseBook:
        """The book of a snapshot's :meth:`state` (an empty one for older snapshots)."""
        if not state:
            return cls()
        return cls(
            period=int(state["period"]),
            paid={int(n): int(k) for n, k in state["paid"]},
            seated_at={int(n): float(t) for n, t in state["seated_at"]},
            since_hand=list(state["since_hand"]),
            last_charges=list(state["last_charges"]),
            time_taken=int(state["time_taken"]),
            zone_open=state["zone_open"],
            zone_checked=int(state["zone_checked"]),
        )


class Table(Protocol):
    """The parts of a :class:`~firmware.table.table.Table` these procedures read and change
    (a protocol: this module does not import the table, which imports it)."""

    config: TableConfig
    seating: Seating
    now: float
    records: list[dict[str, Any]]
    house: HouseBook

    @property
    def hand(self) -> object | None:
        """The hand in progress (``None`` between hands)."""


def period_of(now: float, minutes: int) -> int:
    """The period of the time charge that table time ``now`` falls in (0: the first
    ``minutes``, before the first charge).

    >>> period_of(1799.9, 30), period_of(1800.0, 30), period_of(5400.0, 30)
    (0, 1, 3)
    """
    return int(now // (minutes * 60))


def owes_time(table: Table, seat: int) -> bool:
    """Whether ``seat`` owes the time charge of the period the table's clock is in: it
    holds chips, its player sat down before the period's start, and it has not
    paid for this period (HOUSE-TIME)."""
    stakes, book = table.config.stakes, table.house
    period = period_of(table.now, stakes.time_charge_minutes)
    held = table.seating.seats.get(seat)
    if period < 1 or held is None or held.stack <= 0:
        return False
    start = period * stakes.time_charge_minutes * 60
    return book.paid.get(seat, 0) < period and book.seated_at.get(seat, 0.0) < start


def due_time_charges(table: Table) -> list[te.TimeCharge]:
    """The time charges the table would take now (HOUSE-TIME), in seat order: none
    during a hand, before the first period ends, or at stakes without a time charge."""
    stakes = table.config.stakes
    if not stakes.time_charge or table.hand is not None or table.config.options.game != "cash":
        return []
    seats = table.seating.seats
    minutes, charge = stakes.time_charge_minutes, stakes.time_charge
    return [
        te.TimeCharge(n, seats[n].card, min(charge, seats[n].stack), minutes)
        for n in sorted(seats)
        if owes_time(table, n)
    ]


def seated(table: Table, seat: int) -> None:
    """A player sat down at ``seat`` now: he owes time from the next period's start."""
    table.house.seated_at[seat] = table.now
    table.house.paid.pop(seat, None)


def take_time_charge(table: Table, event: te.TimeCharge) -> None:
    """Apply a :class:`~firmware.table.events.TimeCharge` or refuse it with a sentence."""
    stakes = table.config.stakes
    numbers = (event.seat, event.amount, event.minutes)
    if any(isinstance(n, bool) or not isinstance(n, int) for n in numbers):
        raise IllegalAction(
            "A time charge names its seat, chips and minutes as whole numbers; this record "
            "does not, so nothing was taken.",
            key="error.time_charge.whole",
        )
    if table.hand is not None:
        raise IllegalAction(
            "The time charge is taken between hands, never during one; take it after this hand.",
            key="error.time_charge.in_hand",
        )
    if not stakes.time_charge or table.config.options.game != "cash":
        raise IllegalAction(
            "These stakes charge no time (time_charge is 0 or the game is not a cash game).",
            key="error.time_charge.none",
        )
    if event.minutes != stakes.time_charge_minutes:
        raise IllegalAction(
            f"The time charge is for {stakes.time_charge_minutes} minutes here, not "
            f"{event.minutes}.",
            key="error.time_charge.minutes",
            minutes=stakes.time_charge_minutes,
        )
    seat = table.seating.seat_of(event.seat)
    book = table.house
    period = period_of(table.now, stakes.time_charge_minutes)
    if not owes_time(table, event.seat):
        raise IllegalAction(
            f"Seat {event.seat} owes no time charge now: it is due once per period, at its start.",
            key="error.time_charge.not_due",
            seat=event.seat,
        )
    if event.player != seat.card:
        raise IllegalAction(
            f"Seat {event.seat}'s time charge names its own player's card "
            f"({seat.card or 'none: seated by name'}), not {event.player or 'none'}.",
            key="error.time_charge.player",
            seat=event.seat,
        )
    expected = min(stakes.time_charge, seat.stack)
    if event.amount != expected:
        raise IllegalAction(
            f"The time charge of seat {event.seat} is {expected} chips from its player; "
            f"{event.amount} is not it.",
            key="error.time_charge.amount",
            seat=event.seat,
            amount=expected,
        )
    if period != book.period:  # the first charge of a new collection
        book.period, book.last_charges = period, []
    book.paid[event.seat] = period
    seat.stack -= event.amount
    seat.busted = seat.stack == 0
    book.time_taken += event.amount
    charge = {"seat": event.seat, "player": event.player, "amount": event.amount,
              "minutes": event.minutes, "at": table.now}  # fmt: skip
    book.since_hand.append(charge)
    book.last_charges.append(charge)


def hand_started(table: Table) -> list[dict[str, Any]]:
    """The time charges taken since the last hand began, for the starting hand's record."""
    book = table.house
    taken, book.since_hand = book.since_hand, []
    return taken


def check_rake_zone(table: Table, event: te.RakeZone) -> None:
    """Apply a :class:`~firmware.table.events.RakeZone` comparison or refuse it."""
    book = table.house
    numbers = (event.hand, event.read, event.computed)
    if any(isinstance(a, bool) or not isinstance(a, int) or a < 0 for a in numbers) or (
        not isinstance(event.resolved_by, str)
    ):
        raise IllegalAction(
            "A rake-zone count is a whole number of chips, 0 or more, for a hand named by its "
            "number, confirmed (if at all) by a badge.",
            key="error.rake_zone.count",
        )
    # Only the hand of the open difference, or else the last finished hand: a snapshot
    # keeps fewer records than the table, so an older hand's comparison could be taken
    # live and refused after a journal rotation.
    opened = book.zone_open
    if opened is not None and opened["hand"] != event.hand:
        raise IllegalAction(
            f"The rake zone's difference of hand {opened['hand']} is open; recount "
            "it or confirm it with a badge before comparing another hand.",
            key="error.rake_zone.other_hand",
            hand=opened["hand"],
        )
    wanted = opened["hand"] if opened is not None else None
    if wanted is None and table.records:
        wanted = table.records[-1]["hand"]
    record = next((r for r in reversed(table.records) if r["hand"] == wanted), None)
    if event.hand != wanted:
        record = None
    if record is None or int(record.get("rake", 0)) != event.computed:
        raise IllegalAction(
            f"Hand {event.hand} is not the last hand of this table with a rake of "
            f"{event.computed}; compare the rake zone with the last hand's rake.",
            key="error.rake_zone.hand",
            hand=event.hand,
        )
    if event.resolved_by:
        opened = book.zone_open
        if opened is None or opened["hand"] != event.hand or opened["read"] != event.read:
            raise IllegalAction(
                f"There is no open rake-zone difference of hand {event.hand} reading "
                f"{event.read} to confirm.",
                key="error.rake_zone.nothing_open",
                hand=event.hand,
            )
        book.zone_open, book.zone_checked = None, event.hand
        return
    if event.read == event.computed:
        book.zone_open, book.zone_checked = None, event.hand
    else:
        book.zone_open = {"hand": event.hand, "read": event.read, "computed": event.computed}


def check_no_open_zone(table: Table) -> None:
    """Refuse to start a hand while a rake-zone difference is open (HOUSE-RAKE-ZONE)."""
    opened = table.house.zone_open
    if opened is not None:
        raise IllegalAction(
            f"The rake zone reads {opened['read']} but the table took {opened['computed']} "
            f"from hand {opened['hand']}: recount the rake zone or confirm the count with "
            "a badge before the next hand.",
            key="error.rake_zone.open",
            **opened,
        )


__all__ = [
    "HouseBook",
    "check_no_open_zone",
    "check_rake_zone",
    "due_time_charges",
    "hand_started",
    "owes_time",
    "period_of",
    "seated",
    "take_time_charge",
]
