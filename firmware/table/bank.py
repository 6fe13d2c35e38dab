"""The table's bank: opening float, fills, credits and the shift count (TABLE-BANK).

A house procedure (the seeds say nothing of a table's bank); ``docs/rules.md``
describes it under **TABLE-BANK**. The table keeps what the journal says is in
its tray: the opening float, plus fills, minus credits (minus any chips the tray
handed to the seats with a jackpot award; the table's own awards are paid by the
cage and hand none, JACKPOT). Players bring
the chips they buy to the table (bought at the cage), so the chips that must
be on the table between hands are the tray plus every seat's chips (stack and
declared rebuy): :func:`expected_on_table`. A shift count compares what staff
counted with that; the count then becomes the tray's new starting point, so a
difference is booked once, to the shift it was found in.

Every bank movement carries the badges of two different staff members
(:func:`check_badges`); one that does not is refused and journals nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from firmware.errors import IllegalAction
from firmware.table import events as te

if TYPE_CHECKING:
    from firmware.table.seating import Seating

RULE = "TABLE-BANK"
"""The house procedure's name in ``docs/rules.md``."""

MONEY_KINDS = frozenset(
    {
        "sit",
        "rebuy",
        "seat_rebuy",
        "cash_out",
        "adjust_stack",
        "chip_race",
        "time_charge",
        "jackpot_award",
        "bank_open",
        "bank_fill",
        "bank_credit",
    }
)
"""Event kinds that move chips to, from or on the table: after one, the shift has
something new to count."""


@dataclass
class BankState:
    """What the journal says about the table's bank."""

    open: bool = False
    """The opening float was brought and the bank not yet closed by a count of nothing."""
    tray: int = 0
    """The chips the tray must hold: float + fills - credits - chips paid to seats from it,
    reset by each shift count to what was counted less the seats' chips."""
    activity: bool = False
    """Something moved chips since the last shift count (a hand, a buy-in, a fill...)."""
    counted_at: float | None = None
    """The table time of the last shift count (``None``: no count yet)."""

    def state(self) -> dict[str, Any]:
        """The bank as a plain record (for the table's snapshot)."""
        return asdict(self)

    @classmethod
    def from_state(cls, state: dict[str, Any] | None) -> BankState:
        """The bank of a snapshot (an older snapshot without one: a closed bank)."""
        return cls(**state) if state else cls()


def seat_chips(seating: Seating) -> int:
    """The chips on the seats: every stack and every declared rebuy."""
    return sum(s.stack + s.rebuy for s in seating.seats.values())


def expected_on_table(bank: BankState, seating: Seating) -> int:
    """The chips that must be on the table between hands: the tray and the seats."""
    return bank.tray + seat_chips(seating)


def check_badges(staff: object) -> tuple[str, str]:
    """The two staff badges of a bank movement.

    :raises IllegalAction: unless ``staff`` is two different, non-empty badges.
    """
    badges = tuple(staff) if isinstance(staff, list | tuple) else ()
    if len(badges) != 2 or not all(isinstance(b, str) and b.strip() for b in badges):
        raise IllegalAction(
            "A bank movement needs the badges of two staff members; nothing was recorded. "
            "Have a second staff member confirm it with their own badge.",
            key="error.bank.two_badges",
        )
    if badges[0] == badges[1]:
        raise IllegalAction(
            "The same badge cannot confirm its own bank movement; nothing was recorded. "
            "A second, different staff member must confirm it with their own badge.",
            key="error.bank.same_badge",
        )
    return badges[0], badges[1]


def _amount(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise IllegalAction(
            f"A bank movement is a whole number of chips above zero, not {value!r}; nothing "
            "was recorded.",
            key="error.bank.amount",
            amount=repr(value),
        )
    return value


def apply_bank(
    bank: BankState,
    event: te.BankOpen | te.ShiftCount,
    seating: Seating,
    in_hand: bool,
    now: float,
) -> None:
    """Check and apply a bank event; a refused one raises and changes nothing."""
    check_badges(event.staff)
    if isinstance(event, te.ShiftCount):
        _count(bank, event, seating, in_hand, now)
        return
    amount = _amount(event.amount)
    if isinstance(event, te.BankFill | te.BankCredit):
        if not bank.open:
            raise IllegalAction(
                "The table's bank is not open; open it with its float before a fill or a credit.",
                key="error.bank.not_open",
            )
        if isinstance(event, te.BankCredit) and amount > bank.tray:
            raise IllegalAction(
                f"The tray holds {bank.tray} chips by the journal; a credit of {amount} is "
                "more than that. Count the tray and credit at most what it holds.",
                key="error.bank.credit_high",
                tray=bank.tray,
                amount=amount,
            )
        bank.tray += amount if isinstance(event, te.BankFill) else -amount
    else:
        if bank.open:
            raise IllegalAction(
                f"The table's bank is already open (the tray holds {bank.tray} chips by the "
                "journal); bring more chips with a fill.",
                key="error.bank.open_twice",
                tray=bank.tray,
            )
        bank.open, bank.tray = True, amount
    bank.activity = True


def _count(
    bank: BankState, event: te.ShiftCount, seating: Seating, in_hand: bool, now: float
) -> None:
    if not bank.open:
        raise IllegalAction(
            "The table's bank is not open, so there is no shift to count; open it with its "
            "float first.",
            key="error.bank.not_open_count",
        )
    if in_hand:
        raise IllegalAction(
            "Count the table between hands, when no chips are in a pot.",
            key="error.bank.count_in_hand",
        )
    if not bank.activity:
        raise IllegalAction(
            "This shift is already counted and closed, and no chips have moved since; the "
            "next count comes after the next hand or bank movement.",
            key="error.bank.counted_twice",
        )
    if isinstance(event.counted, bool) or not isinstance(event.counted, int) or event.counted < 0:
        raise IllegalAction(
            f"The chips counted must be a whole number, zero or more, not {event.counted!r}.",
            key="error.bank.counted",
            counted=repr(event.counted),
        )
    expected = expected_on_table(bank, seating)
    whole = isinstance(event.expected, int) and not isinstance(event.expected, bool)
    if not whole or event.expected != expected:  # 1000.0 is not 1000 chips
        raise IllegalAction(
            f"The count says {event.expected} chips were expected but the journal says "
            f"{expected}; count again.",
            key="error.bank.expected",
            said=repr(event.expected),
            expected=expected,
        )
    bank.tray = event.counted - seat_chips(seating)
    bank.activity, bank.counted_at = False, now
    if event.counted == 0 and not seating.seats:
        bank.open = False  # the table is closed: everything went back to the cage


def bank_audit(event: te.BankOpen | te.ShiftCount) -> tuple[str, str, str, str]:
    """The audit log's staff, action, reason and detail for an applied bank event: the
    two badges, the kind, the chips moved (or counted/expected for a count)."""
    staff = " + ".join(event.staff)
    if isinstance(event, te.ShiftCount):
        return staff, event.kind, "", f"{event.counted}/{event.expected}"
    return staff, event.kind, str(event.amount), ""


def tray_paid(bank: BankState, before: int, after: int) -> None:
    """A jackpot or promotion paid at the table: the chips the seats gained came from
    the tray (``before`` and ``after`` are the seats' chips around the award)."""
    bank.tray -= after - before


__all__ = [
    "MONEY_KINDS",
    "RULE",
    "BankState",
    "apply_bank",
    "bank_audit",
    "check_badges",
    "expected_on_table",
    "seat_chips",
    "tray_paid",
]
