"""One hand at a real table: cards in draw order, their roles, the dealer's incidents.

The card source (RFID shoe or virtual deck) reports each card as it is drawn.
:class:`TableHand` gives every card its role (hole card for a seat, burn,
flop, turn, river), tells the dealer what comes next, and applies the written
remedy for each incident the dealer reports:

* exposed card during the deal (TDA-27, HG-10): misdeal if it is one of the
  first two cards dealt or the second exposed card; otherwise the player gets
  the next card after the deal and the exposed card is the first burn;
* misdeal: the hand is void, every chip goes back, the button stays;
* a card found face up in the deck is removed and shown; a deck that cannot
  finish the hand makes it dead with exact refunds (HG-8);
* cards drawn before a betting round ended (HG-9): the first is kept as the
  burn, the others go back to the stub and the next card is dealt without a
  burn (a single early card simply goes back);
* turn and river burn errors (HG-20 a, b, c): the shoe's draw order says which
  physical card takes which role, so the cards that play are those that
  would have played without the error;
* a hand dealt to an empty seat is dead and never shown (HG-12);
* a marked card is recorded for repair after the hand (HG-11);
* absent players' and penalised players' hands are killed when the deal ends
  (TDA-8, HG-17, TDA-7); advance actions act like out-of-turn actions (TDA-30).

The table hand is itself event-sourced: a report that changes the meaning of
earlier draws (HG-12) rebuilds the state by replaying its own events. What it
does with the seat to act (actions, advance actions, the clock and the action
timer) it inherits from :class:`~firmware.table.dealing_turns.HandTurns`.
"""

from __future__ import annotations

from typing import Any

from firmware.engine.cards import format_card
from firmware.engine.events import (
    AwardPots,
    Burn,
    DealBoard,
    DealHole,
    Event,
    KillHand,
    Muck,
    Show,
    VoidHand,
)
from firmware.engine.hand import BOARD_SIZES, Hand, Phase
from firmware.errors import IllegalAction
from firmware.table import events as te
from firmware.table import incidents
from firmware.table.clock import ActionClock
from firmware.table.dealing_turns import HandTurns
from firmware.table.records import DealState, Draw, Incident
from firmware.table.seating import HandPlan

STREET_NAMES = ("preflop", "flop", "turn", "river")


class TableHand(HandTurns):
    """A hand at the table, driven by :mod:`firmware.table.events`.

    :param plan: The seating plan of the hand (players, blinds, absentees).
    :param clock_seconds: Time to act once the clock is called (TDA-5).
    :param countdown: The last seconds counted down aloud (TDA-5).
    """

    def __init__(
        self,
        plan: HandPlan,
        clock_seconds: int = 60,
        countdown: int = 10,
        *,
        action_timer_seconds: int = 0,
        time_bank_seconds: int = 0,
        now: float = 0.0,
    ) -> None:
        self.plan = plan
        self.clock_seconds = clock_seconds
        self.countdown = countdown
        self.action_timer_seconds = action_timer_seconds
        self.time_bank_seconds = time_bank_seconds
        self.started_at = now
        self.log: list[te.TableEvent] = []
        self.empty_seats: list[int] = []
        self.late_exposed: list[int] = []
        """Hole cards reported exposed after the deal ended (TDA-27): applied on replay
        at the moment each was dealt."""
        self.s = self._fresh()

    # ------------------------------------------------------------ state

    def _fresh(self) -> DealState:
        order = list(self.plan.seats)
        if self.empty_seats:
            order = self._with_empty_seats(order)
        slots: list[int | None] = [
            self.plan.seats.index(x) if x in self.plan.seats else None for x in order
        ]
        state = DealState(hand=Hand.start(self.plan.start), slots=slots * 2)
        state.buffer = {i: [] for i in range(len(self.plan.seats))}
        state.absent = set(self.plan.absent)
        state.clock = ActionClock(seconds=self.clock_seconds, countdown=self.countdown)
        state.now = self.started_at
        return state

    def rebuilt(self, log: list[te.TableEvent]) -> TableHand:
        """A new table hand with this one's plan and settings, replaying ``log``."""
        hand = TableHand(
            self.plan,
            clock_seconds=self.clock_seconds,
            countdown=self.countdown,
            action_timer_seconds=self.action_timer_seconds,
            time_bank_seconds=self.time_bank_seconds,
            now=self.started_at,
        )
        for past in log:
            hand.apply(past)
        return hand

    def _with_empty_seats(self, order: list[int]) -> list[int]:
        """Insert the empty seats that were dealt to, at their clockwise place."""
        button = self.plan.button
        # Clockwise from the button's left (heads-up position order is the same).
        return sorted(set(order) | set(self.empty_seats), key=lambda x: (x - button - 1) % 10)

    @property
    def hand(self) -> Hand:
        """The engine hand."""
        return self.s.hand

    @property
    def draws(self) -> list[Draw]:
        """Every card drawn, in order, with its role."""
        return self.s.draws

    def draws_returned(self) -> list[int]:
        """Cards that went back to the stub (HG-9) and may be drawn again."""
        drawn_again = {d.card for d in self.s.draws if d.role != "returned"}
        return [d.card for d in self.s.draws if d.role == "returned" and d.card not in drawn_again]

    @property
    def incidents(self) -> list[Incident]:
        """Incidents reported and how they were resolved."""
        return self.s.incidents

    @property
    def complete(self) -> bool:
        """Whether the hand is over (pots awarded or hand void)."""
        return self.s.hand.phase is Phase.COMPLETE

    def position(self, seat: int) -> int:
        """Engine position of ``seat``."""
        try:
            return self.plan.seats.index(seat)
        except ValueError:
            raise IllegalAction(
                f"Seat {seat} is not in this hand.", key="error.table.not_in_hand"
            ) from None

    def seat(self, position: int) -> int:
        """Seat number of engine ``position``."""
        return self.plan.seats[position]

    # ------------------------------------------------------------ expectations

    def next_card_role(self) -> tuple[str, int | None]:
        """The role of the next card to draw: ``(role, seat or street)``.

        ``("hole", seat)``, ``("dead", None)`` (an empty seat being dealt),
        ``("replacement", seat)``, ``("burn", street)``, ``("board", street)``,
        or ``("none", None)`` when no card should be drawn now.
        """
        s = self.s
        if s.hand.phase is Phase.COMPLETE:
            return ("none", None)
        if not s.dealt:
            if s.slot_index < len(s.slots):
                slot = s.slots[s.slot_index]
                return ("dead", None) if slot is None else ("hole", self.seat(slot))
            if s.owed:
                return ("replacement", self.seat(s.owed[0]))
            return ("none", None)
        if s.hand.phase is Phase.BOARD and not s.premature:
            street = s.hand.street + 1
            if street not in s.burned and s.burn_ready is None:
                return ("burn", street)
            return ("board", street)
        return ("none", None)

    def cards_needed(self) -> int:
        """At least how many more cards the hand needs from the source now."""
        role, _ = self.next_card_role()
        if role == "none":
            return 0
        s = self.s
        if not s.dealt:
            return len(s.slots) - s.slot_index + len(s.owed)
        need = BOARD_SIZES[s.hand.street + 1] - BOARD_SIZES[s.hand.street] - len(s.board_buffer)
        return need + (1 if role == "burn" else 0)

    # ------------------------------------------------------------ apply

    def apply(self, event: te.TableEvent) -> None:
        """Check and apply a table event; the hand is unchanged if it is refused."""
        if self.complete:
            raise IllegalAction(
                "The hand is over; shuffle for the next hand.", key="error.hand.over"
            )
        if isinstance(event, te.EmptySeatDealt):
            self._empty_seat(event)
            return
        if isinstance(event, te.ExposedCard) and self.s.dealt:
            self._exposed_after_deal(event)
            return
        snapshot = self._replay_guard()
        try:
            self._apply(event)
        except IllegalAction:
            self.s = snapshot()
            raise
        self.log.append(event)

    def _replay_guard(self) -> Any:
        """Return a function that rebuilds the current state (for rolling back)."""
        log = list(self.log)

        def rebuild() -> DealState:
            self.s = self._fresh()
            for past in log:
                self._apply(past)
            return self.s

        return rebuild

    def _apply(self, event: te.TableEvent) -> None:
        s = self.s
        if isinstance(event, te.CardDrawn):
            self._draw(event.card)
        elif isinstance(event, te.Act):
            self._act(event)
        elif isinstance(event, te.Advance):
            self._advance(event)
        elif isinstance(event, te.DeclareRaise):
            self._declare_raise(event)
        elif isinstance(event, te.ShowCards):
            self._engine(Show(self.position(event.seat), event.cards))
        elif isinstance(event, te.MuckCards):
            self._engine(Muck(self.position(event.seat)))
        elif isinstance(event, te.KillSeat):
            self._require_reason(event.reason)
            self._engine(KillHand(self.position(event.seat), event.reason))
            what = f"seat {event.seat}'s hand killed: {event.reason}"
            self.note(
                "TDA-28", what, "", message="incident.killed", seat=event.seat, reason=event.reason
            )
        elif isinstance(event, te.ExposedCard):
            if event.card not in self.late_exposed:  # a late report acts when its card is drawn
                incidents.exposed(self, event.card)
        elif isinstance(event, te.Misdeal):
            self._require_reason(event.reason)
            incidents.check_misdeal(self)
            self.void("misdeal: " + event.reason, "misdeal", "incident.misdeal", why=event.reason)
        elif isinstance(event, te.FaceUpInDeck):
            incidents.face_up(self, event.card)
        elif isinstance(event, te.DeckEmpty):
            s.deck_empty = True
            self._check_deck()
        elif isinstance(event, te.PrematureCard):
            incidents.premature(self)
        elif isinstance(event, te.BurnError):
            incidents.burn_error(self, event.case)
        elif isinstance(event, te.MarkedCard):
            s.marked.append(event.card)
            self.note(
                "HG-11",
                f"marked card {format_card(event.card)}",
                "Finish the hand; then replace the card or change the deck.",
                message="incident.marked",
                card=format_card(event.card),
            )
        elif isinstance(event, te.VoidByFloor):
            self._require_reason(event.reason)
            what = f"voided by {event.staff}: {event.reason}"
            self.void(what, "TDA-1", "incident.voided", staff=event.staff, why=event.reason)
        elif isinstance(event, te.AwardPot):
            self._require_reason(event.reason)
            positions = tuple(self.position(x) for x in event.seats)
            self.s.hand.apply(AwardPots(positions, event.reason))
            what = f"pot awarded by {event.staff}: {event.reason}"
            self.note(
                "TDA-1",
                what,
                "",
                message="incident.awarded",
                staff=event.staff,
                reason=event.reason,
            )
        elif isinstance(event, te.Away):
            position = self.position(event.seat)
            if not s.dealt:
                (s.absent.add if event.away else s.absent.discard)(position)
        elif isinstance(event, te.CallClock):
            self._call_clock(event.now)
        elif isinstance(event, te.Tick):
            self._tick(event.now)
        else:
            raise IllegalAction(
                f"The event {event!r} cannot be applied during a hand.",
                key="error.table.during_hand",
                kind=getattr(event, "kind", type(event).__name__),
            )

    # ------------------------------------------------------------ cards

    def check_card(self, card: int) -> None:
        if not isinstance(card, int) or not 0 <= card < 52:
            raise IllegalAction(f"{card!r} is not a card number (0 to 51).")
        if card in self.s.seen:
            raise IllegalAction(
                f"The card {format_card(card)} was read twice in this hand; check the shoe "
                "and the deck, then report what happened.",
                key="error.card.seen_twice",
                card=format_card(card),
            )

    def _draw(self, card: int) -> None:
        s = self.s
        self.check_card(card)
        role, _ = self.next_card_role()
        if role == "none":
            if s.hand.phase is Phase.BETTING and s.dealt:
                s.seen.add(card)
                s.premature.append(card)
                s.draws.append(Draw(card, "premature"))
                return
            raise IllegalAction(
                f"No card should be drawn now (the hand is in the {s.hand.phase.value} phase).",
                key="error.deal.not_now",
            )
        s.seen.add(card)
        if role in ("hole", "dead"):
            slot = s.slots[s.slot_index]
            s.slot_index += 1
            if slot is None:
                s.draws.append(Draw(card, "dead"))
            else:
                s.buffer[slot].append(card)
                s.draws.append(Draw(card, "hole", self.seat(slot)))
            self._dealt_to_seat(card)
        elif role == "replacement":
            position = s.owed.pop(0)
            s.buffer[position].append(card)
            s.draws.append(Draw(card, "replacement", self.seat(position)))
            self._dealt_to_seat(card)
        elif role == "burn":
            s.draws.append(Draw(card, "burn"))
            self._engine(Burn(card))
            s.burned.add(s.hand.street + 1)
        else:
            s.draws.append(Draw(card, STREET_NAMES[s.hand.street + 1], public=True))
            s.board_buffer.append(card)
            self._maybe_deal_board()

    def _dealt_to_seat(self, card: int) -> None:
        """After a hole or replacement card: its late exposure (TDA-27), then the deal's end."""
        if card in self.late_exposed:
            incidents.exposed(self, card)
            if self.s.hand.phase is Phase.COMPLETE:
                return  # a misdeal
        self._maybe_finish_deal()

    def _maybe_finish_deal(self) -> None:
        s = self.s
        if s.slot_index < len(s.slots) or s.owed:
            return
        s.dealt = True
        for position in range(len(self.plan.seats)):
            self._engine(DealHole(position, tuple(s.buffer[position])))
        dead = [(p, "not in his seat when the deal ended (TDA-8)") for p in sorted(s.absent)]
        dead += [(p, "serving a penalty (TDA-7)") for p in self.plan.penalised]
        for position, reason in dead:
            if s.hand.phase is Phase.COMPLETE:
                break  # the last live hand has won: nothing left to kill
            if not s.hand.folded[position]:
                self._engine(KillHand(position, reason))
                if "TDA-8" in reason:
                    seat = self.seat(position)
                    what = f"seat {seat} absent: hand killed"
                    self.note("TDA-8", what, "", message="incident.absent", seat=seat)

    def _maybe_deal_board(self) -> None:
        s = self.s
        need = BOARD_SIZES[s.hand.street + 1] - BOARD_SIZES[s.hand.street]
        if len(s.board_buffer) == need:
            cards = tuple(s.board_buffer)
            s.board_buffer = []
            self._engine(DealBoard(cards))

    def _engine(self, event: Event) -> None:
        """Apply an engine event, then what the table does automatically after it."""
        self.s.hand.apply(event)
        self._after_change()

    def _after_change(self) -> None:
        s = self.s
        while s.hand.phase is Phase.BOARD:
            street = s.hand.street + 1
            if street not in s.burned and s.burn_ready is not None:
                card, s.burn_ready = s.burn_ready, None
                s.hand.apply(Burn(card))
                s.burned.add(street)
                continue
            need = BOARD_SIZES[street] - BOARD_SIZES[street - 1]
            if street in s.burned and len(s.held_board) >= need:
                cards = tuple(s.held_board[:need])
                del s.held_board[:need]
                for card in cards:
                    s.draws.append(Draw(card, STREET_NAMES[street], public=True))
                s.hand.apply(DealBoard(cards))
                continue
            break
        if s.deck_empty and s.hand.phase is not Phase.COMPLETE:
            self._check_deck()
        self._turn_timer()
        if s.hand.phase is Phase.BETTING:
            if s.advance_street != s.hand.street:
                s.advance.clear()
                s.declared.clear()
                s.advance_street = s.hand.street
            self._run_advance()

    # ------------------------------------------------------------ incidents

    def _check_deck(self) -> None:
        """With the card source empty, a hand that needs another card is dead (HG-8)."""
        s = self.s
        if s.deck_empty and self.cards_needed() and s.hand.phase is not Phase.COMPLETE:
            self.void("the deck ran out of cards (HG-8)", "HG-8", "incident.deck_empty")

    def note(
        self,
        rule: str,
        what: str,
        instruction: str,
        cards: tuple[int, ...] = (),
        message: str = "",
        **params: Any,
    ) -> None:
        self.s.incidents.append(Incident(rule, what, instruction, cards, message, params))

    @staticmethod
    def _require_reason(reason: str) -> None:
        if not reason.strip():
            raise IllegalAction(
                "Give a reason for this ruling; it is recorded.", key="error.ruling.reason"
            )

    def void(self, reason: str, rule: str, key: str = "incident.void", **params: Any) -> None:
        self.s.hand.apply(VoidHand(reason))
        params.setdefault("why", reason)
        return_chips = "Return every chip to its owner; the button does not move."
        self.note(rule, reason, return_chips, (), key, **params)

    def _exposed_after_deal(self, event: te.ExposedCard) -> None:
        """A hole card reported exposed once the deal has ended, before anybody acted.

        The last card of the deal ends it, so its exposure can only be reported now
        (TDA-27: the button may then get two cards in a row). The hand is replayed as if
        the report had come when that card was dealt: misdeal, or a replacement owed and
        the exposed card as the first burn.
        """
        incidents.check_exposed_after_deal(self, event.card)
        self.late_exposed.append(event.card)
        try:
            self.s = self._fresh()
            for past in self.log:
                if self.s.hand.phase is Phase.COMPLETE:
                    break  # a misdeal at that card: the rest of the deal never happened
                self._apply(past)
        except IllegalAction:
            self.late_exposed.pop()
            self.s = self._replay_guard()()
            raise
        self.log.append(event)

    def _empty_seat(self, event: te.EmptySeatDealt) -> None:
        if event.seat in self.plan.seats or not 1 <= event.seat <= 10:
            raise IllegalAction(
                f"Seat {event.seat} is not an empty seat at this table.",
                key="error.incident.not_empty",
            )
        if any(isinstance(e, te.Act) for e in self.log):
            raise IllegalAction(
                "Report a hand dealt to an empty seat before the first action (HG-12).",
                key="error.incident.too_late",
            )
        previous = list(self.empty_seats)
        self.empty_seats.append(event.seat)
        try:
            self.s = self._fresh()
            for past in self.log:
                self._apply(past)
        except IllegalAction:
            self.empty_seats = previous
            self.s = self._replay_guard()()
            raise
        self.log.append(event)
        self.note(
            "HG-12",
            f"a hand was dealt to empty seat {event.seat}",
            "Kill that hand unseen; play continues.",
            message="incident.empty_seat",
            seat=event.seat,
        )
