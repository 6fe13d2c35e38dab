"""Table events: what the card source, the dealer, the players, the floor and
the timers report. Each is a plain frozen record (msgpack-serializable via
:func:`firmware.table.event_records.to_record`), journaled before it takes effect.

Seats are seat numbers (1-10), not engine positions; the table maps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from firmware.errors import IllegalAction


@dataclass(frozen=True)
class TableEvent:
    """Base class of table events."""

    kind: ClassVar[str] = ""


# --- between hands -----------------------------------------------------------


@dataclass(frozen=True)
class SitDown(TableEvent):
    """A player takes a seat with a buy-in (CC-16)."""

    kind: ClassVar[str] = "sit"
    seat: int
    player: str
    chips: int
    wait_for_big_blind: bool = False
    owes_big_blind: bool = False
    """Moved from a broken table where the big blind was due: it is posted
    here at the first hand, so moving does not dodge it (TDA-22, HG-15)."""
    card: str = ""
    """The player card's id when the player was identified by it at a reader ('' by name)."""


@dataclass(frozen=True)
class SitOut(TableEvent):
    """A player sits out (``out=False``: comes back)."""

    kind: ClassVar[str] = "sit_out"
    seat: int
    out: bool = True


@dataclass(frozen=True)
class Away(TableEvent):
    """A player leaves his seat for a moment (``away=False``: back). TDA-8."""

    kind: ClassVar[str] = "away"
    seat: int
    away: bool = True


@dataclass(frozen=True)
class Rebuy(TableEvent):
    """A binding rebuy or add-on declared for the next hand (TDA-18, HG-13)."""

    kind: ClassVar[str] = "rebuy"
    seat: int
    chips: int


@dataclass(frozen=True)
class SeatRebuy(Rebuy):
    """A rebuy the player asked for on his own seat screen (HG-13).

    The dealer's rebuy (:class:`Rebuy`) is made with the money in the dealer's
    hand; a seat's own request is not, so the table takes it only where no money
    can be in doubt: a cash table, a player out of chips, an amount within the
    table's buy-in limits (where the table sets no maximum, at most the minimum
    buy-in or the biggest stack at the table). Anything else goes through the dealer.
    """

    kind: ClassVar[str] = "seat_rebuy"


@dataclass(frozen=True)
class CashOut(TableEvent):
    """A player leaves with his whole stack (HG-6)."""

    kind: ClassVar[str] = "cash_out"
    seat: int


@dataclass(frozen=True)
class TimeCharge(TableEvent):
    """The house's time charge (HOUSE-TIME): ``amount`` chips taken between hands from
    ``seat``'s stack for a period of ``minutes``; ``player`` is the player card's id
    ('' for a player seated by name). The chips leave the table to the house."""

    kind: ClassVar[str] = "time_charge"
    seat: int
    player: str
    amount: int
    minutes: int


@dataclass(frozen=True)
class RakeZone(TableEvent):
    """The chip trays' rake zone compared with hand ``hand``'s rake (HOUSE-RAKE-ZONE):
    ``read`` chips read there, ``computed`` the rake the table took. With
    ``resolved_by`` (a staff badge) the dealer confirms an open difference."""

    kind: ClassVar[str] = "rake_zone"
    hand: int
    read: int
    computed: int
    resolved_by: str = ""


@dataclass(frozen=True)
class Shuffle(TableEvent):
    """The dealer shuffles: the hand starts here (TDA-17, PE-3)."""

    kind: ClassVar[str] = "shuffle"


@dataclass(frozen=True)
class Cut(TableEvent):
    """The deck is cut (PE-2, PE-3)."""

    kind: ClassVar[str] = "cut"


@dataclass(frozen=True)
class Tick(TableEvent):
    """A timer event: the table's clock now reads ``now`` seconds."""

    kind: ClassVar[str] = "tick"
    now: float


@dataclass(frozen=True)
class WallClock(TableEvent):
    """The wall clock read ``wall`` (seconds since the Unix epoch, UTC) at the table's
    time now: the anchor hand records take their real start and end from
    (``started_wall``, ``finished_wall``). The controller journals one before its first
    event after each start, so a replay rebuilds the same times and never reads the
    clock (issue 23)."""

    kind: ClassVar[str] = "wall_clock"
    wall: float

    def __post_init__(self) -> None:
        if (
            isinstance(self.wall, bool)
            or not isinstance(self.wall, int | float)
            or not 0 < self.wall < 1e11
        ):
            raise IllegalAction(
                f"The wall clock must be seconds since 1970 (UTC), not {self.wall!r}.",
                key="error.table.wall_clock",
                value=repr(self.wall),
            )


# --- during a hand: cards ----------------------------------------------------


@dataclass(frozen=True)
class CardDrawn(TableEvent):
    """A card left the shoe (or the virtual deck), in draw order."""

    kind: ClassVar[str] = "draw"
    card: int


@dataclass(frozen=True)
class DeckEmpty(TableEvent):
    """The card source has no more cards (HG-8: the hand may be dead)."""

    kind: ClassVar[str] = "deck_empty"


# --- during a hand: dealer's reports -----------------------------------------


@dataclass(frozen=True)
class ExposedCard(TableEvent):
    """The dealer exposed ``card`` while dealing (TDA-27, HG-10)."""

    kind: ClassVar[str] = "exposed"
    card: int


@dataclass(frozen=True)
class Misdeal(TableEvent):
    """The dealer declares a misdeal: every chip back, the button stays."""

    kind: ClassVar[str] = "misdeal"
    reason: str


@dataclass(frozen=True)
class FaceUpInDeck(TableEvent):
    """A card found face up in the deck; removed and shown (HG-8)."""

    kind: ClassVar[str] = "face_up"
    card: int


@dataclass(frozen=True)
class PrematureCard(TableEvent):
    """The dealer confirms cards drawn before the betting round ended (HG-9)."""

    kind: ClassVar[str] = "premature"


@dataclass(frozen=True)
class BurnError(TableEvent):
    """A turn/river burn error of kind ``a``, ``b`` or ``c`` (HG-20)."""

    kind: ClassVar[str] = "burn_error"
    case: str


@dataclass(frozen=True)
class EmptySeatDealt(TableEvent):
    """The dealer dealt a hand to the empty ``seat`` (HG-12)."""

    kind: ClassVar[str] = "empty_seat_dealt"
    seat: int


@dataclass(frozen=True)
class MarkedCard(TableEvent):
    """A marked card was found during the hand (HG-11)."""

    kind: ClassVar[str] = "marked"
    card: int


# --- during a hand: players and rulings --------------------------------------


@dataclass(frozen=True)
class Act(TableEvent):
    """A player's action: ``fold``, ``check``, ``call``, ``bet`` or ``raise`` to ``amount``,
    or ``allin``."""

    kind: ClassVar[str] = "act"
    seat: int
    action: str
    amount: int = 0


@dataclass(frozen=True)
class Advance(TableEvent):
    """An advance action chosen before the turn: ``fold``, ``check_fold``, ``check``, ``call``.

    ``action="cancel"`` withdraws it. TDA-30.
    """

    kind: ClassVar[str] = "advance"
    seat: int
    action: str


@dataclass(frozen=True)
class DeclareRaise(TableEvent):
    """The seat declares "raise" before its chips touch the felt (TDA-11, TDA-32):
    a single oversized chip then raises its value, and a second motion counts."""

    kind: ClassVar[str] = "declare_raise"
    seat: int


@dataclass(frozen=True)
class ShowCards(TableEvent):
    """At showdown the player tables ``cards`` (both to win a share, TDA-40)."""

    kind: ClassVar[str] = "show"
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class MuckCards(TableEvent):
    """At showdown the player mucks."""

    kind: ClassVar[str] = "muck"
    seat: int


@dataclass(frozen=True)
class KillSeat(TableEvent):
    """The dealer kills a seat's hand (TDA-28 unprotected hand, TDA-7 penalty...)."""

    kind: ClassVar[str] = "kill"
    seat: int
    reason: str


@dataclass(frozen=True)
class CallClock(TableEvent):
    """The clock is called on the player to act (TDA-5) at time ``now``."""

    kind: ClassVar[str] = "clock"
    now: float


# --- deck procedures ------------------------------------------------------------


@dataclass(frozen=True)
class DeckStep(TableEvent):
    """A step of the new-deck checklist, in order (PE-2): ``show`` (with the
    scan of every card read; ``None`` for a tag that is no registered card),
    ``face_down``, ``scramble``, ``shuffle``, ``cut``."""

    kind: ClassVar[str] = "deck_step"
    step: str
    scan: tuple[int | None, ...] = ()


@dataclass(frozen=True)
class DeckChange(TableEvent):
    """A deck change asked by ``by`` (``dealer``, ``floor``, ``schedule`` or ``seat``)."""

    kind: ClassVar[str] = "deck_change"
    by: str
    seat: int = 0
    reason: str = ""


@dataclass(frozen=True)
class RepairCard(TableEvent):
    """After a marked card (HG-11): the card was replaced by the same card (new tag)."""

    kind: ClassVar[str] = "repair_card"
    card: int


@dataclass(frozen=True)
class WithdrawCard(TableEvent):
    """After a marked card (HG-11): the card is withdrawn; the deck runs with 51."""

    kind: ClassVar[str] = "withdraw_card"
    card: int


@dataclass(frozen=True)
class SetButton(TableEvent):
    """Place the button before the first hand (after a draw for the button)."""

    kind: ClassVar[str] = "set_button"
    seat: int


@dataclass(frozen=True)
class DrawButton(TableEvent):
    """The draw for the button (TDA-13): ``cards[i]`` was dealt to ``seats[i]``, clockwise
    from the lowest occupied seat; the highest card takes the button, suits breaking a
    tie in rank (spades, hearts, diamonds, clubs)."""

    kind: ClassVar[str] = "draw_button"
    seats: tuple[int, ...]
    cards: tuple[int, ...]


@dataclass(frozen=True)
class FloorCall(TableEvent):
    """A seat calls the floor (its screen's button); open until a staff member answers."""

    kind: ClassVar[str] = "floor_call"
    seat: int


@dataclass(frozen=True)
class FloorAnswer(TableEvent):
    """A staff member answered ``seat``'s call for the floor (acknowledged on the console)."""

    kind: ClassVar[str] = "floor_answer"
    seat: int
    staff: str = "floor"


# --- the table's bank (house procedure TABLE-BANK): two different staff badges each ---


@dataclass(frozen=True)
class BankOpen(TableEvent):
    """The table's bank opens with an opening float of ``amount`` chips from the cage;
    ``staff`` are the badges of the two different staff members who confirmed it."""

    kind: ClassVar[str] = "bank_open"
    amount: int
    staff: tuple[str, ...] = ()


@dataclass(frozen=True)
class BankFill(BankOpen):
    """A fill: ``amount`` chips brought from the cage to the table's tray."""

    kind: ClassVar[str] = "bank_fill"


@dataclass(frozen=True)
class BankCredit(BankOpen):
    """A credit: ``amount`` chips taken from the table's tray to the cage."""

    kind: ClassVar[str] = "bank_credit"


@dataclass(frozen=True)
class ShiftCount(TableEvent):
    """The end of a shift: ``counted`` chips found on the table (tray and stacks)
    against ``expected``, what the journal says must be there; the difference is
    ``counted - expected``. Between hands only."""

    kind: ClassVar[str] = "shift_count"
    counted: int
    expected: int
    staff: tuple[str, ...] = ()


@dataclass(frozen=True)
class JackpotAward(TableEvent):
    """A floor member confirmed a pending jackpot with a badge (JACKPOT).

    ``jackpot`` is ``bad_beat`` or ``high_hand``; ``hand`` the hand that won it;
    ``shares`` one record per payout (``seat``, ``player``: the player card's id
    or '', ``share``: ``loser``, ``winner``, ``table``, ``reserve`` or
    ``high_hand``, ``amount`` in chips); ``staff`` the badge that confirmed.
    The table takes it only when it is exactly the award it decided itself.
    """

    kind: ClassVar[str] = "jackpot_award"
    jackpot: str
    hand: int
    shares: tuple[dict[str, Any], ...]
    staff: str


# --- floor overrides (TDA-1): every one needs a reason and lands in the audit log --


@dataclass(frozen=True)
class AdjustStack(TableEvent):
    """Between hands, set a seat's stack to ``chips``."""

    kind: ClassVar[str] = "adjust_stack"
    seat: int
    chips: int
    reason: str
    staff: str = "floor"


@dataclass(frozen=True)
class AwardPot(TableEvent):
    """Award everything in the middle to ``seats`` and end the hand."""

    kind: ClassVar[str] = "award_pot"
    seats: tuple[int, ...]
    reason: str
    staff: str = "floor"


@dataclass(frozen=True)
class VoidByFloor(TableEvent):
    """Void the hand in progress with exact refunds."""

    kind: ClassVar[str] = "void"
    reason: str
    staff: str = "floor"


@dataclass(frozen=True)
class UndoLast(TableEvent):
    """Undo the last player action of the hand in progress."""

    kind: ClassVar[str] = "undo"
    reason: str
    staff: str = "floor"


@dataclass(frozen=True)
class BuyButton(TableEvent):
    """A new player buys the button: he pays both blinds and plays at once (HG-16)."""

    kind: ClassVar[str] = "buy_button"
    seat: int


@dataclass(frozen=True)
class Straddle(TableEvent):
    """The player left of the big blind straddles next hand: a live bet of two
    big blinds (cash-game house option)."""

    kind: ClassVar[str] = "straddle"
    seat: int


@dataclass(frozen=True)
class Restore(TableEvent):
    """The table's state between hands, starting a rotated journal (see table/snapshot.py)."""

    kind: ClassVar[str] = "restore"
    state: dict[str, Any]


# --- tournament ------------------------------------------------------------------


@dataclass(frozen=True)
class ChipRace(TableEvent):
    """Colour up ``old`` chips into ``new`` chips, racing the odd ones with
    ``cards`` dealt face up in order (TDA-2, HG-19)."""

    kind: ClassVar[str] = "chip_race"
    old: int
    new: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class LevelClock(TableEvent):
    """Start, pause or resume the tournament's level clock at the table's time (TDA-17).

    ``at`` is the table time the floor's common moment falls on (the floor's
    wall-clock instant converted by the table's link), so that every table of
    a room starts, pauses and resumes its clock at the same instant; without
    it, the table's current time.
    """

    kind: ClassVar[str] = "levels"
    action: str
    at: float | None = None


@dataclass(frozen=True)
class DealOrder(TableEvent):
    """The floor's order to the dealer: deal ``hands`` more hands, then wait
    (0: deal none now; -1: any number). Hand-for-hand play (FLOOR-HFH) deals
    one hand per ``round``; a table short three or more players waits
    (TDA-25). Journaled so that a restarted table keeps waiting."""

    kind: ClassVar[str] = "deal_order"
    hands: int
    round: int = 0


@dataclass(frozen=True)
class GivePenalty(TableEvent):
    """A penalty: ``warning``, ``rounds`` (1-4) or ``disqualification`` (TDA-7).

    With ``next_hand`` it starts with the next hand and the current hand stays
    live (TDA-31).
    """

    kind: ClassVar[str] = "penalty"
    seat: int
    penalty: str
    reason: str
    rounds: int = 0
    next_hand: bool = False
    staff: str = "floor"
