"""The limits on the chips a seat brings (split from :mod:`firmware.table.seating`).

:class:`SeatMoney` holds the checks of a buy-in (CC-16), a rebuy asked for
on the seat's own screen (HG-13) and an add-on (CC-16 with the table's
maximum) that :class:`~firmware.table.seating.Seating` makes before a chip
reaches the table. They read the house options, the stakes and the stacks
and change nothing, so they stand apart from seating and the plan of each
hand, in a base class ``Seating`` inherits: ``seating.py`` stays under the
project's module size and every method keeps its name.
"""

from __future__ import annotations

from firmware.errors import IllegalAction
from firmware.table.options import TableConfig
from firmware.table.seat import Seat


class SeatMoney:
    """The buy-in, own-rebuy and add-on limits of a
    :class:`~firmware.table.seating.Seating`."""

    config: TableConfig
    seats: dict[int, Seat]

    def check_buy_in(self, amount: int) -> None:
        """Refuse a buy-in below the minimum or above the maximum (CC-16)."""
        opts, stakes = self.config.options, self.config.stakes
        low = opts.min_buy_in_multiple * stakes.big_blind
        high = opts.max_buy_in_multiple * stakes.big_blind
        if not isinstance(amount, int) or amount < 1:
            raise IllegalAction(
                f"A buy-in must be a whole number of chips, not {amount!r}.",
                key="error.buyin.whole",
                amount=amount,
            )
        if amount < low:
            raise IllegalAction(
                f"The minimum buy-in is {low} ({opts.min_buy_in_multiple} times the lower limit, "
                f"CC-16); {amount} is not enough.",
                key="error.table.buy_in_low",
            )
        if high and amount > high:
            raise IllegalAction(
                f"The maximum buy-in at this table is {high}; {amount} is too much.",
                key="error.table.buy_in_high",
            )

    def check_own_rebuy(self, seat: Seat, amount: int) -> None:
        """Refuse a rebuy asked for on the seat's own screen unless no money can be
        in doubt: a cash table (a tournament's rebuys follow its structure, with
        the dealer or the floor), a player out of chips (HG-13: the prompt a
        busted player answers before the next hand), one request per hand, and at
        most the table's maximum buy-in (where the table sets no maximum: the
        minimum buy-in or the biggest stack at the table, whichever is larger).
        Larger amounts and add-ons are made with the dealer."""
        opts, stakes = self.config.options, self.config.stakes
        if opts.game != "cash":
            raise IllegalAction(
                "At a tournament table a rebuy is made with the dealer or the floor, not "
                "from the seat's screen.",
                key="error.rebuy.own_tournament",
            )
        if seat.stack > 0 or seat.rebuy > 0:
            raise IllegalAction(
                f"Seat {seat.number} may ask for a rebuy on its screen only when out of chips "
                "(HG-13); for an add-on, ask the dealer.",
                key="error.rebuy.own_not_busted",
                seat=seat.number,
            )
        high = opts.max_buy_in_multiple * stakes.big_blind
        biggest = max((s.stack + s.rebuy for s in self.seats.values()), default=0)
        most = high or max(opts.min_buy_in_multiple * stakes.big_blind, biggest)
        if not most or amount > most:
            raise IllegalAction(
                f"A rebuy asked for on the seat's screen may be at most {most} chips; for "
                f"{amount}, ask the dealer.",
                key="error.rebuy.own_high",
                most=most,
                amount=amount,
            )

    def check_add_on(self, seat: Seat, amount: int) -> None:
        """Refuse an add-on that would take the seat's chips above the table's
        maximum buy-in (CC-16 with ``max_buy_in_multiple``), naming the most the
        player may add."""
        opts, stakes = self.config.options, self.config.stakes
        high = opts.max_buy_in_multiple * stakes.big_blind
        have = seat.stack + seat.rebuy
        if high and have + amount > high:
            room = max(0, high - have)
            raise IllegalAction(
                f"Seat {seat.number} has {have} chips and the maximum buy-in at this table is "
                f"{high}; seat {seat.number} may add at most {room}, not {amount} (CC-16).",
                key="error.table.add_on_high",
                seat=seat.number,
                have=have,
                high=high,
                room=room,
                amount=amount,
            )
