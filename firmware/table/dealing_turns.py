"""A player's turn in a hand at the table (split from :mod:`firmware.table.dealing`).

:class:`HandTurns` holds what a :class:`~firmware.table.dealing.TableHand`
does with the seat to act: the player's actions, advance actions (TDA-30) and
declared raises (TDA-11, TDA-32), the clock called on a player (TDA-5) and
the automatic action timer with its time bank (house options). They act on the
hand's state and the engine but never deal a card or take a dealer's report,
so they are kept apart from the card roles and the incidents, in a base class
:class:`TableHand` inherits: ``dealing.py`` stays under the project's module
size and every method keeps its name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.engine.events import BetRaise, CheckCall, Event, Fold, KillHand
from firmware.engine.hand import Phase
from firmware.errors import IllegalAction
from firmware.table import events as te
from firmware.table.clock import switch_turn

if TYPE_CHECKING:
    # For the type checker a HandTurns is a HandDesk (the hand's state, note,
    # position); at run time a plain class, so TableHand keeps the plain type
    # metaclass a Protocol base would change.
    from firmware.table.records import HandDesk as _Hand
else:
    _Hand = object


class HandTurns(_Hand):
    """The seat to act in a :class:`~firmware.table.dealing.TableHand`: actions,
    advance actions, declared raises, the called clock and the action timer."""

    clock_seconds: int
    """Time to act once the clock is called (TDA-5)."""
    countdown: int
    """The last seconds counted down aloud (TDA-5)."""
    action_timer_seconds: int
    time_bank_seconds: int

    if TYPE_CHECKING:
        # Given by TableHand, which deals the cards and applies engine events.

        def seat(self, position: int) -> int: ...

        def _engine(self, event: Event) -> None: ...

        def _after_change(self) -> None: ...

    # ------------------------------------------------------------ actions

    def _act(self, event: te.Act) -> None:
        s = self.s
        if s.premature:
            raise IllegalAction(
                "The hand is paused: a card was drawn before the betting round ended. The dealer "
                "must confirm it (premature card HG-9, or burn error HG-20) before play goes on.",
                key="error.incident.paused",
            )
        position = self.position(event.seat)
        engine_event: Event
        if event.action == "fold":
            engine_event = Fold(position)
        elif event.action in ("check", "call"):
            to_call = s.hand.current_bet - s.hand.bets[position]
            if event.action == "check" and to_call > 0 and s.hand.actor == position:
                raise IllegalAction(
                    f"Seat {event.seat} cannot check: there is a bet of {s.hand.current_bet} "
                    f"to call ({to_call} more). Call, raise or fold.",
                    key="error.action.cannot_check",
                )
            engine_event = CheckCall(position)
        elif event.action in ("bet", "raise"):
            engine_event = BetRaise(position, event.amount)
        elif event.action == "allin":
            hand = s.hand
            to = hand.stacks[position] + hand.bets[position]
            engine_event = BetRaise(position, to) if to > hand.current_bet else CheckCall(position)
        else:
            raise IllegalAction(
                f"'{event.action}' is not an action; use fold, check, call, bet, raise or allin.",
                key="error.action.unknown",
            )
        s.advance.pop(position, None)
        self._stop_clock(position)
        self._engine(engine_event)

    def _advance(self, event: te.Advance) -> None:
        s = self.s
        position = self.position(event.seat)
        if event.action == "cancel":
            s.advance.pop(position, None)
            return
        if event.action not in ("fold", "check_fold", "check", "call"):
            raise IllegalAction(
                f"'{event.action}' is not an advance action; use fold, check_fold, check, call "
                "or cancel.",
                key="error.action.unknown",
            )
        hand = s.hand
        if hand.phase is not Phase.BETTING or hand.folded[position]:
            raise IllegalAction(
                "Advance actions are taken during a betting round by a live hand.",
                key="error.advance.not_now",
            )
        call = max(0, hand.current_bet - hand.bets[position])
        s.advance[position] = (event.action, hand.current_bet, call)
        self._run_advance()

    def _declare_raise(self, event: te.DeclareRaise) -> None:
        hand = self.s.hand
        position = self.position(event.seat)
        if hand.phase is not Phase.BETTING or hand.folded[position] or hand.stacks[position] == 0:
            raise IllegalAction(
                "A raise is declared during a betting round by a player who can still bet.",
                key="error.action.declare",
            )
        self.s.declared.add(position)

    def declared_raise(self, seat: int) -> bool:
        """Whether ``seat`` declared a raise in this betting round (TDA-11, TDA-32)."""
        return self.position(seat) in self.s.declared

    def _run_advance(self) -> None:
        s = self.s
        hand = s.hand
        while hand.phase is Phase.BETTING and hand.actor in s.advance:
            actor = hand.actor
            action, level, _ = s.advance.pop(actor)
            legal = hand.legal_actions()
            if level != hand.current_bet and action != "fold":
                # The action changed since it was chosen: cancelled, ask again (TDA-30).
                self.note(
                    "TDA-30",
                    f"seat {self.seat(actor)}'s advance {action} cancelled: the bet changed",
                    "Ask the player to act again.",
                    message="incident.advance_cancelled",
                    seat=self.seat(actor),
                )
                return
            if action == "fold" or (action == "check_fold" and not legal.can_check):
                hand.apply(Fold(actor))
            elif action in ("check", "check_fold", "call"):
                hand.apply(CheckCall(actor))
            self._after_change()
            return

    # ------------------------------------------------------------ clock

    def _call_clock(self, now: float) -> None:
        s = self.s
        s.now = max(s.now, now)
        actor = s.hand.actor
        if s.hand.phase is not Phase.BETTING or actor is None:
            raise IllegalAction(
                "The clock can be called only on a player who is to act (TDA-5).",
                key="error.clock.no_actor",
            )
        s.clock.call(self.seat(actor), now, "dealer")
        self.note(
            "TDA-5",
            f"clock called on seat {self.seat(actor)}",
            f"The player has {self.clock_seconds} seconds; the last {self.countdown} are "
            "counted down.",
            message="incident.clock",
            seat=self.seat(actor),
            seconds=self.clock_seconds,
            countdown=self.countdown,
        )

    def _stop_clock(self, position: int) -> None:
        clock = self.s.clock
        if clock.running and clock.seat == self.seat(position):
            clock.stop(self.s.now)

    def clock_left(self, now: float) -> float | None:
        """Seconds left on a called clock, or ``None`` when no clock runs."""
        clock = self.s.clock
        return clock.seconds_left(now) if clock.running else None

    def _turn_timer(self) -> None:
        """Start the automatic action timer of the player whose turn begins (house
        option ``action_timer_seconds``, with ``time_bank_seconds`` of bank)."""
        s = self.s
        actor = s.hand.actor if s.hand.phase is Phase.BETTING else None
        if self.action_timer_seconds and actor != s.timer_actor:
            seconds, bank = self.action_timer_seconds, self.time_bank_seconds
            switch_turn(s.timers, s.timer_actor, actor, s.now, seconds, bank)
            s.timer_actor = actor

    def _tick(self, now: float) -> None:
        s = self.s
        s.now = max(s.now, now)
        actor = s.timer_actor
        if actor is not None and s.timers[actor].expired(now):
            seat = self.seat(actor)
            s.timers[actor].stop(now)
            s.timer_actor = None
            self._engine(KillHand(actor, "the action timer and time bank ran out (TDA-5)"))
            self.note("TDA-5", f"seat {seat}'s action timer ran out: hand dead", "")
            return
        if not s.clock.running or s.clock.seat is None:
            return
        status = s.clock.status(now)
        s.announced.extend(status.announcements)
        if status.expired:
            seat = s.clock.seat
            s.clock.stop(now)
            self._engine(KillHand(self.position(seat), "the clock ran out (TDA-5)"))
            what = f"seat {seat}'s clock ran out: hand dead"
            self.note("TDA-5", what, "", message="incident.clock_out", seat=seat)
