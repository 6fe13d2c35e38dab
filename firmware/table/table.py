"""The table: seats across hands, the hand in progress, the deck, the floor.

:class:`Table` is the one object the controller drives with table events
(:mod:`firmware.table.events`). Between hands it seats players, takes rebuys
and cash-outs and runs the deck procedures; a shuffle starts a hand (TDA-17,
PE-3); during the hand it forwards events to the :class:`TableHand`; when the
hand ends it settles the stacks, moves the button (not after a void) and keeps
the hand's record. Floor overrides need a reason and land in the audit log
(TDA-1); they, penalties, chip races and the level clock are applied by
:mod:`firmware.table.table_rulings`, the house's money by
:mod:`firmware.table.house` and :mod:`firmware.table.bank`.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

from firmware.errors import IllegalAction
from firmware.table import bank as tb
from firmware.table import events as te
from firmware.table import house, table_rulings
from firmware.table.chiprace import ChipRaceResult
from firmware.table.dealing import TableHand
from firmware.table.jackpot_table import JackpotBook
from firmware.table.options import TableConfig
from firmware.table.penalties import PenaltyBook
from firmware.table.report import hand_record, same_record
from firmware.table.seating import HandPlan, Seating
from firmware.table.seating_floor import ButtonDrawResult, FloorCalls, button_draw
from firmware.table.snapshot import DeckState, restore_state
from firmware.table.table_deck import CHECKLIST as CHECKLIST
from firmware.table.table_deck import check_deck_ready, deck_change, deck_step, repair_card
from firmware.table.table_deck import deck_scan_problems as deck_scan_problems
from firmware.table.table_deck import verify_deck_scan as verify_deck_scan
from firmware.table.table_rulings import AuditEntry
from firmware.table.tournament import LevelSchedule, TournamentClock


class Table:
    """A poker table across hands.

    Keeps the records of the latest :attr:`KEEP_RECORDS` hands in memory.

    :param config: Profile, options and stakes.
    :param deck_ready: Whether a verified deck is already in play (a virtual
        deck always is); otherwise the new-deck checklist must run first.
    :param schedule: For tournaments, the blind levels; a hand is played at
        the level in force when it starts (TDA-17). Cash tables use the
        configured stakes.
    """

    KEEP_RECORDS = 200

    def __init__(
        self,
        config: TableConfig,
        deck_ready: bool = False,
        schedule: LevelSchedule | None = None,
    ) -> None:
        self.config = config
        self.seating = Seating(config)
        self.deck = DeckState(ready=deck_ready)
        self.levels = TournamentClock(schedule) if schedule is not None else None
        self.penalties = PenaltyBook()
        self.floor_calls = FloorCalls()
        """Calls for the floor, open until a staff member answers them."""
        self.jackpot = JackpotBook(config.jackpot, config.stakes.chip_unit)
        """The jackpot's fund, the awards decided and those confirmed (JACKPOT)."""
        self.button_draw: ButtonDrawResult | None = None
        """The last draw for the button (TDA-13)."""
        self.chip_races: list[ChipRaceResult] = []
        self.raced_unit = 0
        self.house = house.HouseBook()
        """The time charge and the rake zone (HOUSE-TIME, HOUSE-RAKE-ZONE)."""
        self.hand_charges: list[dict[str, Any]] = []
        """The time charges taken before the hand in progress (into its record)."""
        """The higher chip of the last colour-up (TDA-2): from then on the smallest chip
        in play, the unit split pots are divided in (TDA-3); 0 before any chip race."""
        self.bank = tb.BankState()
        """The table's bank: float, fills, credits, shift counts (TABLE-BANK)."""
        self.hand: TableHand | None = None
        self.hand_number = 0
        self.hand_started_at = 0.0
        self.hand_started_wall: float | None = None
        """The real time of the hand's start, from the anchor in force then: a later anchor
        (journaled after a restart in the middle of the hand) dates only what follows it."""
        self.now = 0.0
        self.wall_anchor: tuple[float, float] | None = None
        """(table time, wall-clock time) of the last :class:`~firmware.table.events.WallClock`:
        how the table's clock maps to real time (``None``: not known, e.g. a script)."""
        self.deal_limit: int | None = None
        """Hands the floor lets the dealer start before waiting (``None``: any number;
        FLOOR-HFH, TDA-25), with :attr:`deal_round`, the hand-for-hand round."""
        self.deal_round = 0
        self.log: list[te.TableEvent] = []
        self.audit: list[AuditEntry] = []
        self.records: list[dict[str, Any]] = []
        """Records of the latest hands (the full history is in firmware.service.history)."""
        self.hand_listeners: list[Callable[[dict[str, Any], TableHand], None]] = []
        """Called with each finished hand's record and its TableHand."""
        self._seats_before: Any = None
        self._next_button_before: int | None = None
        self.record_ready: dict[str, Any] | None = None
        """A finished hand's record already made from the same events (the controller's
        trial on its twin of the table, issue 15): taken instead of building it again
        when it is this hand's, then forgotten either way."""

    # ------------------------------------------------------------ apply

    def apply(self, event: te.TableEvent) -> None:
        """Check and apply ``event``; refused events raise and change nothing."""
        award = event.kind == "jackpot_award"  # paid from the tray (TABLE-BANK)
        before = tb.seat_chips(self.seating) if award else 0
        self._apply(event)
        if award:
            tb.tray_paid(self.bank, before, tb.seat_chips(self.seating))
        self.log.append(event)
        if event.kind in tb.MONEY_KINDS:
            self.bank.activity = True
        if self.hand is not None and self.hand.complete:
            self._finish_hand()
            self.bank.activity = True

    def tick_matters(self, now: float) -> bool:
        """Whether a :class:`~firmware.table.events.Tick` at ``now`` would change more than
        the time: a called clock runs in the open hand (TDA-5), or the tournament's level or
        break changes (TDA-17). Any other tick is derived, not an event: see
        :meth:`advance_clock`.
        """
        if self.hand is not None and self.hand.s.clock.running:
            return True
        actor = self.hand.s.timer_actor if self.hand is not None else None
        if self.hand is not None and actor is not None and self.hand.s.timers[actor].expired(now):
            return True  # the automatic action timer and time bank are spent
        levels = self.levels
        if levels is None or levels.started_at is None or levels.paused_at is not None:
            return False
        before, after = levels.current(self.now), levels.current(now)
        return (before.index, before.on_break) != (after.index, after.on_break)

    def wall_at(self, table_time: float) -> float | None:
        """The wall-clock time (seconds since the Unix epoch, UTC) at ``table_time``, from
        the last :class:`~firmware.table.events.WallClock` anchor (``None`` without one)."""
        if self.wall_anchor is None:
            return None
        at, wall = self.wall_anchor
        return round(wall + (table_time - at), 3)

    def advance_clock(self, now: float) -> None:
        """Move the table's clock to ``now`` when no tick would change anything else
        (:meth:`tick_matters` is false): nothing is logged or journaled. The controller
        journals a tick at the table's time before the next event, so a replay reaches
        the same state."""
        self.now = max(self.now, now)

    def _apply(self, event: te.TableEvent) -> None:
        if isinstance(event, te.Tick):
            if event.now < self.now:
                raise IllegalAction(
                    f"Time cannot go back from {self.now} to {event.now}.",
                    key="error.table.time_back",
                    before=self.now,
                    after=event.now,
                )
            self.now = event.now
            if self.hand is not None:
                self.hand.apply(event)
            return
        if isinstance(event, te.WallClock):
            self.wall_anchor = (self.now, float(event.wall))
            return
        if isinstance(event, te.AdjustStack | te.AwardPot | te.VoidByFloor | te.UndoLast):
            table_rulings.override(self, event)
            return
        if isinstance(event, te.GivePenalty):
            table_rulings.give_penalty(self, event)
            return
        if isinstance(event, te.BankOpen | te.ShiftCount):
            tb.apply_bank(self.bank, event, self.seating, self.hand is not None, self.now)
            self.audit.append(AuditEntry(self.now, *tb.bank_audit(event)))  # who, what, how much
            return
        if isinstance(event, te.LevelClock):
            table_rulings.level_clock(self, event)
            return
        if isinstance(event, te.FloorCall):
            self.floor_calls.call(event.seat, self.now)
            return
        if isinstance(event, te.FloorAnswer):
            self.floor_calls.answer(event.seat, event.staff, self.now)
            return
        if isinstance(event, te.JackpotAward):
            detail = f"hand {event.hand}: {self.jackpot.award(event)['shares']}"
            self.audit.append(AuditEntry(self.now, event.staff, event.kind, event.jackpot, detail))
            return
        if isinstance(event, te.DealOrder):
            if event.hands < -1 or event.round < 0:
                raise IllegalAction(
                    "A deal order gives 0 or more hands, or -1 for any number.",
                    key="error.table.deal_order",
                )
            self.deal_limit = None if event.hands == -1 else event.hands
            self.deal_round = event.round
            return
        if self.hand is not None:
            self._during_hand(event)
        else:
            self._between_hands(event)

    def _during_hand(self, event: te.TableEvent) -> None:
        assert self.hand is not None
        if isinstance(event, te.CardDrawn) and not self.deck.cut:
            raise IllegalAction("Cut the deck before dealing (PE-3).", key="error.deck.cut_first")
        if isinstance(event, te.Cut):
            if any(isinstance(e, te.CardDrawn) for e in self.hand.log):
                raise IllegalAction(
                    "The deck is cut before the deal, not during it.", key="error.deck.cut_in_hand"
                )
            self.deck.cut = True
            return
        if isinstance(event, te.SitOut | te.Rebuy | te.SitDown | te.CashOut | te.TimeCharge):
            self._between_hands(event)
            return
        if isinstance(event, te.RakeZone):
            house.check_rake_zone(self, event)
            return
        if isinstance(event, te.Away):
            self.seating.set_away(event.seat, event.away)
            if event.seat in self.hand.plan.seats:
                self.hand.apply(event)
            return
        if isinstance(event, te.Shuffle | te.DeckStep):
            raise IllegalAction(
                "A hand is in progress; finish it before shuffling.", key="error.table.hand_on"
            )
        self.hand.apply(event)

    def _between_hands(self, event: te.TableEvent) -> None:
        seating = self.seating
        if isinstance(event, te.SitDown):
            if self.hand is not None and event.seat in self.hand.plan.seats:
                raise IllegalAction(
                    f"Seat {event.seat} is playing a hand.",
                    key="error.seat.in_hand",
                    seat=event.seat,
                )
            if event.card:
                other = next((s for s in seating.seats.values() if s.card == event.card), None)
                if other is not None:
                    raise IllegalAction(
                        f"This player card is already seated at seat {other.number}; one "
                        "player, one seat (PE-4).",
                        key="error.table.card_seated",
                        seat=other.number,
                    )
            seat = seating.sit(event.seat, event.player, event.chips, now=self.now)
            house.seated(self, event.seat)  # owes time from the next period (HOUSE-TIME)
            seat.card = event.card
            seat.wait_for_big_blind = event.wait_for_big_blind
            seat.missed_big = event.owes_big_blind
        elif isinstance(event, te.SitOut):
            seating.sit_out(event.seat, event.out)
        elif isinstance(event, te.Away):
            seating.set_away(event.seat, event.away)
        elif isinstance(event, te.Rebuy):
            seating.declare_rebuy(event.seat, event.chips, own=isinstance(event, te.SeatRebuy))
        elif isinstance(event, te.CashOut):
            if self.hand is not None and event.seat in self.hand.plan.seats:
                raise IllegalAction(
                    "Nobody can leave with chips during a hand (PE-4); cash out after the hand.",
                    key="error.table.stakes",
                )
            seating.cash_out(event.seat, now=self.now)
            self.penalties.seat_vacated(event.seat)
        elif isinstance(event, te.TimeCharge):
            house.take_time_charge(self, event)
        elif isinstance(event, te.RakeZone):
            house.check_rake_zone(self, event)
        elif isinstance(event, te.Restore):
            restore_state(self, event.state)
        elif isinstance(event, te.SetButton):
            if event.seat not in seating.seats:
                raise IllegalAction(
                    f"The button must be placed on an occupied seat, not {event.seat}.",
                    key="error.button.empty_seat",
                    seat=event.seat,
                )
            seating.next_button = event.seat
            seating.last_small_blind = seating.last_big_blind = None
        elif isinstance(event, te.DrawButton):
            self.button_draw = button_draw(
                seating, event.seats, event.cards, self.hand_number, self.now
            )
        elif isinstance(event, te.BuyButton):
            seating.buy_button(event.seat)
        elif isinstance(event, te.Straddle):
            seating.straddle(event.seat)
        elif isinstance(event, te.ChipRace):
            table_rulings.race_chips(self, event)
        elif isinstance(event, te.Shuffle):
            self._start_hand()
        elif isinstance(event, te.Cut):
            raise IllegalAction(
                "Shuffle first: the cut follows the shuffle (PE-3).",
                key="error.deck.cut_before_shuffle",
            )
        elif isinstance(event, te.DeckStep):
            deck_step(self.deck, event)
        elif isinstance(event, te.DeckChange):
            deck_change(self.deck, event, self.config.options)
        elif isinstance(event, te.RepairCard | te.WithdrawCard):
            repair_card(self.deck, event)
        else:
            raise IllegalAction(
                f"The event {event.kind} needs a hand in progress; shuffle to start one.",
                key="error.table.no_hand",
            )

    # ------------------------------------------------------------ hands

    def _start_hand(self) -> None:
        check_deck_ready(self.deck)
        house.check_no_open_zone(self)
        if self.deal_limit == 0:
            raise IllegalAction(
                "The floor holds this table: wait for its order before the next hand.",
                key="error.table.floor_hold",
            )
        stakes = self.config.stakes
        if self.levels is not None:
            if self.levels.started_at is None:
                self.levels.start(self.now)
            stakes = self.levels.stakes_for_hand(self.now)
        if self.raced_unit > stakes.chip_unit:
            stakes = dataclasses.replace(stakes, chip_unit=self.raced_unit)
        self._next_button_before = self.seating.next_button
        # Taken before planning: planning itself marks missed blinds (CC-14, CC-15).
        # A seat holds plain values only: a shallow copy of each is a deep copy.
        self._seats_before = {n: copy.copy(s) for n, s in self.seating.seats.items()}
        plan = self.seating.plan_hand(stakes)
        killed = self.penalties.hand_dealt(plan.seats)
        plan = dataclasses.replace(
            plan, penalised=tuple(i for i, x in enumerate(plan.seats) if x in killed)
        )
        self.seating.begin_hand(plan)
        self.hand_number += 1
        if self.deal_limit is not None:
            self.deal_limit -= 1
        self.hand_started_at = self.now
        self.hand_charges = house.hand_started(self)
        self.hand_started_wall = self.wall_at(self.now)
        self.deck.cut = False
        self.hand = TableHand(
            plan,
            clock_seconds=self.config.options.clock_seconds,
            countdown=self.config.options.clock_countdown_seconds,
            action_timer_seconds=self.config.options.action_timer_seconds,
            time_bank_seconds=self.config.options.time_bank_seconds,
            now=self.now,
        )

    def _finish_hand(self) -> None:
        hand = self.hand
        assert hand is not None and hand.hand.result is not None
        voided = hand.hand.voided is not None
        if voided and self._seats_before is not None:
            # The seats in the hand go back exactly as they were before it (stacks,
            # rebuys, markers); changes made during the hand to other seats stay.
            for number in hand.plan.seats:
                before = self._seats_before.get(number)
                now_seat = self.seating.seats.get(number)
                if before is not None and now_seat is not None:
                    before.rebuy += now_seat.rebuy  # a rebuy declared during the hand
                    before.sitting_out, before.away = now_seat.sitting_out, now_seat.away
                    self.seating.seats[number] = before
            # Seats not in the hand keep their missed-blind markers as they were
            # before it: a hand that never happened made nobody miss a blind.
            for number, now_seat in self.seating.seats.items():
                before = self._seats_before.get(number)
                if number in hand.plan.seats or before is None:
                    continue
                if before.player == now_seat.player:
                    now_seat.missed_small = before.missed_small
                    now_seat.missed_big = before.missed_big
            self.seating.hand_active = False
            # The button does not move: the same plan is made again.
            self.seating.next_button = self._next_button_before
        else:
            self.seating.finish_hand(hand.plan, hand.hand.result.finishing_stacks)
        self.deck.needs_repair.extend(hand.s.marked)
        ready, self.record_ready = self.record_ready, None
        record = same_record(ready, self.hand_number, hand, self.hand_started_at, self.now)
        # Real times, UTC, from the journaled anchor: a replay gives the same (issue 23).
        walls = (self.hand_started_wall, self.wall_at(self.now))
        if (
            record is not None
            and (record.get("started_wall"), record.get("finished_wall")) != walls
        ):
            record = None
        if record is None:
            record = hand_record(self.hand_number, hand)
            record["started_at"] = self.hand_started_at
            record["finished_at"] = self.now
            record["started_wall"], record["finished_wall"] = walls
        if self.hand_charges:  # the time charges taken before it (HOUSE-TIME)
            record["time_charges"] = self.hand_charges
        self.records.append(record)
        del self.records[: -self.KEEP_RECORDS]
        self.jackpot.hand_finished(record, {n: s.card for n, s in self.seating.seats.items()})
        self.hand = None
        self.penalties.hand_over(voided=voided)
        for seat in list(self.seating.seats):
            if self.penalties.is_disqualified(seat):
                table_rulings.remove_disqualified(self, seat)
        # Listeners (history, retention snapshots) see the table as it now stands.
        for listener in self.hand_listeners:
            listener(record, hand)

    # ------------------------------------------------------------ views

    def prompt(self) -> str:
        """What the dealer should do next, in one line (English; screens translate)."""
        if self.hand is None:
            if not self.deck.ready:
                return "Run the new-deck checklist (PE-2)."
            return "Shuffle to start the next hand."
        if not self.deck.cut:
            return "Cut the deck (PE-3)."
        if self.hand.s.premature:
            return "Cards were drawn before the betting ended: confirm (HG-9 or HG-20)."
        role, where = self.hand.next_card_role()
        if role == "hole":
            return f"Deal a hole card to seat {where}."
        if role == "replacement":
            return f"Deal the replacement card to seat {where}."
        if role in ("burn", "board"):
            street = ("", "flop", "turn", "river")[where or 0]
            return f"Burn a card for the {street}." if role == "burn" else f"Deal the {street}."
        engine = self.hand.hand
        if engine.actor is not None:
            return f"Seat {self.hand.seat(engine.actor)} to act."
        return "Showdown: players show or muck."


def plan_summary(plan: HandPlan) -> str:
    """One line describing a hand plan, for logs."""
    return (
        f"button {plan.button}, small blind {plan.small_blind_seat}, big blind "
        f"{plan.big_blind_seat}, seats {list(plan.seats)}"
    )
