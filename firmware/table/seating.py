"""Seats, stacks, the button and the blinds across hands.

:class:`Seating` is the table between hands: who sits where with how many
chips, who is sitting out, who owes missed blinds, where the button is. For
each hand it produces a :class:`HandPlan`: the players dealt in (in position
order), the button and blind seats, and what each one posts.

Cash games use a forward-moving button (CC-12) with missed-blind markers
(CC-14, CC-15, HG-15) and new-player rules (CC-13); tournaments use the dead
button (TDA-6) with absent players dealt in (TDA-8, HG-17). Heads-up, the
button posts the small blind (TDA-35) and nobody posts the big blind twice in
a row across the change from three players to two. The limits on a buy-in,
a rebuy and an add-on it inherits from
:class:`~firmware.table.seating_money.SeatMoney`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from firmware.engine.events import StartHand
from firmware.errors import IllegalAction
from firmware.table.options import Stakes, TableConfig
from firmware.table.seat import Seat
from firmware.table.seating_money import SeatMoney

__all__ = ["HandPlan", "Seat", "Seating", "same_player"]


def same_player(name: str) -> str:
    """The form two names are compared in (PE-4 one seat, HG-6 re-entry wait): case
    and runs of spaces do not make another player ("ANA  perez" is "Ana Perez")."""
    return " ".join(name.split()).casefold()


@dataclass(frozen=True)
class HandPlan:
    """Who plays the next hand and what each posts, in position order."""

    seats: tuple[int, ...]
    button: int
    small_blind_seat: int | None
    big_blind_seat: int
    start: StartHand
    absent: tuple[int, ...] = ()
    penalised: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()
    small_blind_place: int | None = None
    """The seat where the small blind is (even when nobody there posts it, TDA-6):
    next hand's button goes there."""


@dataclass
class Seating(SeatMoney):
    """The table between hands.

    :param config: Profile, options and stakes.
    """

    config: TableConfig
    seats: dict[int, Seat] = field(default_factory=dict)
    button: int | None = None
    last_small_blind: int | None = None
    last_big_blind: int | None = None
    cashed_out: dict[str, float] = field(default_factory=dict)
    hand_active: bool = False
    next_button: int | None = None
    button_buyer: int | None = None
    straddler: int | None = None

    # ------------------------------------------------------------ seating

    def sit(self, seat: int, player: str, buy_in: int, now: float = 0.0) -> Seat:
        """Seat ``player`` at ``seat`` with ``buy_in`` chips (CC-16, PE-4, HG-6)."""
        opts = self.config.options
        if not 1 <= seat <= opts.max_seats:
            raise IllegalAction(
                f"Seat {seat} does not exist; this table has seats 1 to {opts.max_seats}.",
                key="error.table.no_seat",
            )
        if not isinstance(player, str) or not player.strip() or not player.isprintable():
            # Names reach every screen, record and export one line each (a player
            # directory in the configuration is not checked by the protocol's fields).
            raise IllegalAction(
                f"The name {player!r} cannot be seated: a player's name is printable text on "
                "one line, with no control or invisible character.",
                key="error.table.player_name",
            )
        if seat in self.seats:
            raise IllegalAction(
                f"Seat {seat} is taken by {self.seats[seat].player}; one player per seat (PE-4).",
                key="error.table.seat_taken",
            )
        who = same_player(player)
        if any(same_player(s.player) == who for s in self.seats.values()):
            raise IllegalAction(
                f"{player} already has a seat; a player plays one position only (PE-4).",
                key="error.table.two_seats",
            )
        left = max(
            (t for name, t in self.cashed_out.items() if same_player(name) == who), default=None
        )
        wait = opts.reentry_wait_minutes * 60
        if left is not None and now - left < wait:
            minutes = int((wait - (now - left)) // 60) + 1
            raise IllegalAction(
                f"{player} cashed out less than {opts.reentry_wait_minutes} minutes ago and may "
                f"sit again in this game in {minutes} minute(s) (HG-6).",
                key="error.table.reentry_wait",
            )
        self.check_buy_in(buy_in)
        # Before the first hand nobody is "new": new-player rules apply once play has begun.
        new = Seat(number=seat, player=player, stack=buy_in, new=self.button is not None)
        self.seats[seat] = new
        return new

    def seat_of(self, seat: int) -> Seat:
        """Return the occupied seat ``seat``."""
        try:
            return self.seats[seat]
        except KeyError:
            raise IllegalAction(f"Seat {seat} is empty.", key="error.table.empty_seat") from None

    def sit_out(self, seat: int, out: bool = True) -> None:
        """Mark a player as sitting out (or back in) from the next hand."""
        self.seat_of(seat).sitting_out = out

    def set_away(self, seat: int, away: bool = True) -> None:
        """Mark a player as away from the table (TDA-8: his hand will be killed)."""
        self.seat_of(seat).away = away

    def declare_rebuy(self, seat: int, amount: int, own: bool = False) -> None:
        """A binding rebuy or add-on for the next hand (TDA-18, HG-13).

        :param own: The player asked on his own seat screen (no money in the
            dealer's hand): see :meth:`check_own_rebuy`.
        """
        s = self.seat_of(seat)
        if not isinstance(amount, int) or amount < 1:
            raise IllegalAction(
                f"A rebuy must be a whole number of chips, not {amount!r}.",
                key="error.rebuy.whole",
                amount=amount,
            )
        if own:
            self.check_own_rebuy(s, amount)
        # No chips on the table (busted, or the stack lost in the last hand): the rebuy
        # is a new buy-in, held to the minimum and maximum with what is declared already.
        # (`busted` is set exactly when a stack becomes 0, so it adds nothing here.)
        if s.stack == 0:
            self.check_buy_in(amount + s.rebuy)
        else:
            self.check_add_on(s, amount)
        s.rebuy += amount

    def buy_button(self, seat: int) -> None:
        """A new player asks to buy the button for the next hand (HG-16)."""
        if not self.config.options.buy_button:
            raise IllegalAction(
                "Buying the button is not allowed at this table (HG-16 is a house option).",
                key="error.table.no_buy_button",
            )
        if not self.seat_of(seat).new:
            raise IllegalAction(
                f"Only a player who has just sat down can buy the button; seat {seat} has "
                "already played (HG-16).",
                key="error.table.no_buy_button",
            )
        self.button_buyer = seat

    def straddle(self, seat: int) -> None:
        """Seat ``seat`` straddles next hand if it is then left of the big blind."""
        if not self.config.options.straddle:
            raise IllegalAction(
                "Straddles are not allowed at this table (house option).",
                key="error.table.no_straddle",
            )
        self.seat_of(seat)
        self.straddler = seat

    def cash_out(self, seat: int, now: float = 0.0) -> int:
        """Remove the player with his whole stack (HG-6); return the chips taken."""
        if self.hand_active:
            raise IllegalAction(
                "Nobody can leave with chips during a hand (PE-4); cash out after the hand.",
                key="error.table.stakes",
            )
        s = self.seat_of(seat)
        del self.seats[seat]
        self.cashed_out[s.player] = now
        return s.stack + s.rebuy

    def remove_chips(self, seat: int, amount: int) -> None:
        """Always refused: a player plays all his chips or none (HG-6, PE-4)."""
        raise IllegalAction(
            "Chips cannot be taken off the table; a player plays all his chips or cashes out "
            "with all of them (HG-6).",
            key="error.table.partial_cash_out",
        )

    def transfer(self, from_seat: int, to_seat: int, amount: int) -> None:
        """Always refused: chips are bought from the dealer or cashier only (HG-7)."""
        raise IllegalAction(
            "Chips cannot pass between players; buy chips from the dealer or the cashier (HG-7).",
            key="error.table.transfer",
        )

    # ------------------------------------------------------------ planning

    def _clockwise(self, start: int) -> list[int]:
        """Occupied seat numbers clockwise starting after seat ``start``."""
        n = self.config.options.max_seats
        order = [((start + k - 1) % n) + 1 for k in range(1, n + 1)]
        return [s for s in order if s in self.seats]

    def _chips(self, seat: Seat) -> int:
        return seat.stack + seat.rebuy

    def plan_hand(self, stakes: Stakes | None = None) -> HandPlan:
        """Decide the next hand's players, button, blinds and posts.

        :raises IllegalAction: when fewer than two players can play (PE-4).
        """
        stakes = stakes or self.config.stakes
        for s in self.seats.values():
            if s.busted and not s.rebuy:
                raise IllegalAction(
                    f"Seat {s.number} ({s.player}) is out of chips and must rebuy or leave "
                    "before the next hand is dealt (HG-13).",
                    key="error.table.rebuy_pending",
                )
        if self.config.options.button == "dead":
            return self._plan_dead_button(stakes)
        return self._plan_forward(stakes)

    def _plan_dead_button(self, stakes: Stakes) -> HandPlan:
        opts = self.config.options
        playing = [
            s
            for s in self.seats.values()
            if self._chips(s) > 0 and (opts.absent_dealt_in or not (s.sitting_out or s.away))
        ]
        live = {s.number for s in playing}
        if len(playing) < 2:
            raise _too_few()
        notes: list[str] = []
        if self.last_big_blind is None or self.button is None or self.next_button is not None:
            chosen = self.next_button if self.next_button is not None else self.button
            button = chosen if chosen in live else min(live)
            ring = [x for x in self._clockwise(button) if x in live]
            if len(live) == 2:
                sb, bb = button, ring[0]
            else:
                sb, bb = ring[0], ring[1]
        else:
            bb = next(x for x in self._clockwise(self.last_big_blind) if x in live)
            if len(live) == 2:
                # Heads-up: the button posts the small blind; the big blind moves on, so
                # nobody posts it twice in a row (TDA-35).
                sb = next(x for x in live if x != bb)
                button = sb
            else:
                prev_bb = self.last_big_blind
                sb_seat: int | None = prev_bb if prev_bb in live and prev_bb != bb else None
                button = self.last_small_blind if self.last_small_blind is not None else prev_bb
                if sb_seat is None:
                    notes.append("dead small blind: nobody posts the small blind (TDA-6)")
                if button not in live:
                    notes.append(f"dead button on seat {button} (TDA-6)")
                if button == bb:
                    button = prev_bb
                self._arrivals_wait(button, sb_seat if sb_seat is not None else bb, live, notes)
                plan = self._build(stakes, button, sb_seat, bb, live, notes, dead_button=True)
                return dataclasses.replace(plan, small_blind_place=prev_bb)
        return self._build(stakes, button, sb, bb, live, notes, dead_button=True)

    def _arrivals_wait(
        self, button: int, first_blind: int, live: set[int], notes: list[str]
    ) -> None:
        """Keep out a player arriving between the button and the small blind (TDA-24).

        Anywhere else an arriving player takes his seat's obligations.
        """
        between: list[int] = []
        for x in self._clockwise(button):
            if x == first_blind:
                break
            between.append(x)
        for x in between:
            if x in live and self.seats[x].new and len(live) > 2:
                live.discard(x)
                notes.append(f"seat {x} arrived between the button and the blinds (TDA-24)")

    def _plan_forward(self, stakes: Stakes) -> HandPlan:
        opts = self.config.options
        candidates = {
            s.number
            for s in self.seats.values()
            if self._chips(s) > 0 and not s.sitting_out and (opts.absent_dealt_in or not s.away)
        }
        if len(candidates) < 2:
            raise _too_few()
        # Players who have played here before can take the button; a new player
        # must have paid full blinds first (CC-12).
        veterans = {x for x in candidates if not self.seats[x].new} or candidates
        buyer = self.button_buyer if self.button_buyer in candidates else None
        if buyer is not None and len(candidates) > 2:
            return self._plan_bought_button(stakes, buyer, candidates)
        notes: list[str] = []
        heads_up_before = self.button is not None and self.last_small_blind == self.button
        if self.next_button is not None and self.next_button in candidates:
            button = self.next_button
        elif self.button is None:
            button = min(veterans)
        elif len(candidates) == 2 and veterans == candidates and self.last_big_blind is not None:
            # Heads-up the button posts the small blind and the big blind moves on
            # from last hand's big blind, so nobody posts it twice in a row, also
            # when three players become two (TDA-35 adjusts CC-12).
            bb = next(x for x in self._clockwise(self.last_big_blind) if x in candidates)
            button = next(x for x in candidates if x != bb)
        elif self.last_small_blind in veterans and not heads_up_before:
            button = self.last_small_blind
        else:
            # After a heads-up hand the small blind was the button: the button
            # moves one seat on (CC-12 read with TDA-35).
            button = next((x for x in self._clockwise(self.button) if x in veterans), min(veterans))
        ring = [x for x in self._clockwise(button) if x in candidates]
        live = set(candidates)
        # Missed blinds: sitting-out players in the small- and big-blind places.
        if opts.missed_blinds:
            places = [x for x in self._clockwise(button) if x in self.seats]
            for place, x in enumerate(places[:2]):
                seat = self.seats[x]
                if seat.sitting_out and not seat.new:
                    if place == 0 and not seat.missed_big:
                        seat.missed_small = True
                    elif place == 1:
                        seat.missed_big = True
        if len(live) == 2:
            sb, bb = button, next(x for x in ring if x != button)
        else:
            sb, bb = ring[0], ring[1]
            # New or returning players between the button and the big blind wait
            # for the button to pass (CC-13, CC-15, HG-15).
            waiting = [x for x in (sb,) if (self.seats[x].new or self.seats[x].markers) and x != bb]
            for x in waiting:
                live.discard(x)
                notes.append(f"seat {x} waits for the button to pass (CC-13, HG-15)")
            if waiting:
                ring = [x for x in self._clockwise(button) if x in live]
                if len(live) < 2:
                    raise _too_few()
                sb, bb = (button, ring[0]) if len(live) == 2 else (ring[0], ring[1])
        for x in list(live):
            seat = self.seats[x]
            if x not in (sb, bb) and seat.new and seat.wait_for_big_blind:
                live.discard(x)
                notes.append(f"seat {x} waits for the big blind (CC-13)")
        return self._build(stakes, button, sb, bb, live, notes, dead_button=False)

    def _plan_bought_button(self, stakes: Stakes, buyer: int, live: set[int]) -> HandPlan:
        """HG-16: the buyer takes the button and pays both blinds; the players in the
        blind positions post nothing this hand."""
        plan = self._build(stakes, buyer, None, buyer, live, [], dead_button=False)
        n = len(plan.seats)
        blinds = [0] * n
        dead = list(plan.start.dead)
        blinds[n - 1] = stakes.big_blind
        dead[n - 1] += stakes.small_blind
        for i, x in enumerate(plan.seats[:-1]):
            seat = self.seats[x]
            if seat.new or seat.markers:
                blinds[i] = plan.start.blinds[i]
        start = dataclasses.replace(plan.start, blinds=tuple(blinds), dead=tuple(dead))
        note = f"seat {buyer} bought the button: pays both blinds (HG-16)"
        return dataclasses.replace(
            plan, start=start, small_blind_seat=None, notes=(*plan.notes, note)
        )

    def _build(
        self,
        stakes: Stakes,
        button: int,
        sb: int | None,
        bb: int,
        live: set[int],
        notes: list[str],
        dead_button: bool,
    ) -> HandPlan:
        opts = self.config.options
        order = [x for x in self._clockwise(button) if x in live]
        if len(order) == 2 and sb is not None and sb in live:
            # Heads-up engine order: the big blind first, the button (small blind) last.
            order = [bb, sb]
        n = len(order)
        blinds = [0] * n
        antes = [0] * n
        dead = [0] * n
        first_after_big = order[(order.index(bb) + 1) % len(order)] if bb in order else None
        opener = order.index(bb) if bb in order else None
        for i, x in enumerate(order):
            seat = self.seats[x]
            chips = self._chips(seat)
            straddles = x == self.straddler and x == first_after_big and len(order) > 2
            if x == bb:
                blinds[i] = stakes.big_blind
                if not dead_button and seat.markers and not opts.missed_blinds_free_in_big_blind:
                    # Back exactly in the big blind: the small blind he missed is
                    # owed too, dead (CC-14, HG-15; no exception in the seeds).
                    if opts.dead_small_blind:
                        dead[i] = stakes.small_blind
                    else:
                        blinds[i] += stakes.small_blind
            elif x == sb:
                blinds[i] = stakes.small_blind
            elif straddles and not dead_button:
                blinds[i] = 2 * stakes.big_blind  # a live straddle (house option)
                opener = i
            elif dead_button and seat.missed_big:
                blinds[i] = stakes.big_blind  # owed from the table he left (TDA-22, HG-15)
            elif not dead_button and seat.new:
                blinds[i] = stakes.big_blind  # a new player posts a live big blind (CC-13)
            elif not dead_button and seat.markers:
                if seat.missed_big:
                    blinds[i] = stakes.big_blind
                if opts.dead_small_blind:
                    dead[i] = stakes.small_blind
                else:
                    blinds[i] += stakes.small_blind
            if stakes.ante and not stakes.big_blind_ante:
                antes[i] = stakes.ante
            if stakes.ante and stakes.big_blind_ante and x == bb:
                dead[i] += stakes.ante
            if (
                opts.auto_all_in_below_small_blind
                and chips < stakes.small_blind
                and blinds[i] < chips
            ):
                blinds[i] = chips  # automatically all-in (HG-18)
        stacks = tuple(self._chips(self.seats[x]) for x in order)
        start = StartHand(
            config=self.config.hand_config(stakes),
            seats=tuple(order),
            names=tuple(self.seats[x].player for x in order),
            stacks=stacks,
            antes=tuple(antes),
            blinds=tuple(blinds),
            dead=tuple(dead),
            big_blind=opener,
        )
        absent = tuple(
            i for i, x in enumerate(order) if self.seats[x].away or self.seats[x].sitting_out
        )
        return HandPlan(
            seats=tuple(order),
            button=button,
            small_blind_seat=sb,
            big_blind_seat=bb,
            start=start,
            absent=absent,
            notes=tuple(notes),
        )

    # ------------------------------------------------------------ results

    def begin_hand(self, plan: HandPlan) -> None:
        """The hand of ``plan`` starts: rebuys join the stacks, markers are paid."""
        for x in plan.seats:
            seat = self.seats[x]
            seat.stack += seat.rebuy
            seat.rebuy = 0
            seat.busted = False
            seat.missed_big = seat.missed_small = False
            seat.new = False
        self.hand_active = True
        self.next_button = None
        if plan.big_blind_seat == self.button_buyer:
            self.last_small_blind = None  # the button moves on from the buyer's seat
        self.button_buyer = None
        self.straddler = None

    def finish_hand(self, plan: HandPlan, finishing: tuple[int, ...], moved: bool = True) -> None:
        """Record a hand's finishing stacks and move the button (unless voided)."""
        for x, chips in zip(plan.seats, finishing, strict=True):
            seat = self.seats[x]
            seat.stack = chips
            seat.busted = chips == 0
        self.hand_active = False
        if moved:
            self.button = plan.button
            place = plan.small_blind_place
            self.last_small_blind = place if place is not None else plan.small_blind_seat
            self.last_big_blind = plan.big_blind_seat


def _too_few() -> IllegalAction:
    return IllegalAction(
        "A hand needs at least two players with chips (PE-4); wait for another player.",
        key="error.hand.too_few",
    )
