"""What the player to act may do: legal actions and the reasons for refusals.

The rules here are the ones that open-source engines most often get wrong:

* The minimum raise is the largest full bet or raise of the round (TDA-10,
  TDA-26); a short all-in does not change it.
* An all-in short of a full raise does not reopen raising to players who
  already faced a bet or raise: such a player may raise again only if, since
  he last acted, the bet grew by at least a full raise (several short
  all-ins can add up). A player who checked faced no wager, so he may raise
  over a short all-in opening bet (house ruling on TDA-10).
* Fixed-limit all-ins (TDA 2022 rule 47B): an all-in of at least half a bet
  (``limit_all_in_percent``) counts as a full bet or raise: the next raise is
  a full bet above it and it reopens the betting; a smaller one may be called
  or completed to the full bet and reopens nothing.
* Fixed-limit: bets and raises of the street's size, at most ``raise_cap``
  full bets in a round with the big blind as the first one preflop; no cap
  when exactly two players are in the hand in a cash game; the cap stays in
  tournaments (CC-7, CC-8).
* Pot-limit: a raise is at most the pot after calling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from firmware.engine.rules import GameKind, Structure
from firmware.engine.state import HandState
from firmware.errors import IllegalAction

if TYPE_CHECKING:
    from firmware.engine.events import Event

# Constants, so that the compiled build reads them without a look-up by name.
_FIXED_LIMIT: Final = Structure.FIXED_LIMIT
_POT_LIMIT: Final = Structure.POT_LIMIT
_CASH: Final = GameKind.CASH


@dataclass(frozen=True)
class LegalActions:
    """The choices of the player to act.

    :param player: Position index of the player to act.
    :param can_check: He may check (nothing to call).
    :param call_amount: Chips a call adds (0 when checking; less than the
        bet when the call puts him all-in).
    :param min_raise_to: Smallest bet/raise total, or ``None`` if he may not raise.
    :param max_raise_to: Largest bet/raise total, or ``None`` if he may not raise.
    :param raise_refusal: Why he may not raise, as a full sentence, when he may not.
    """

    player: int
    can_check: bool
    call_amount: int
    min_raise_to: int | None
    max_raise_to: int | None
    raise_refusal: str | None = None

    @property
    def can_fold(self) -> bool:
        """A player may always fold in turn (folding when he could check is allowed)."""
        return True

    @property
    def can_raise(self) -> bool:
        """Whether a bet or raise is allowed."""
        return self.min_raise_to is not None


def full_bets(hand: HandState) -> int:
    """Full bets made in the round, counting a fixed-limit straddle as one.

    The engine counts the big blind as the round's first bet; a live straddle
    of two big blinds is the second (the first raise), so a raise over it is
    to three bets and it counts towards the cap (CC-8).
    """
    if hand.street == 0 and hand.config.structure is _FIXED_LIMIT:
        return max(hand.full_bets, hand.current_bet // hand.street_bets[0])
    return hand.full_bets


def raise_refusal(hand: HandState, player: int) -> str | None:
    """Return why ``player`` may not bet or raise now, or ``None`` if he may."""
    stacks = hand.stacks
    bets = hand.bets
    current = hand.current_bet
    if stacks[player] <= current - bets[player]:
        return "You cannot raise: calling already takes all your chips."
    for j in hand.live:  # the players who have not folded
        if j != player and stacks[j] + bets[j] > current:
            break  # someone can still respond to a raise
    else:
        return "You cannot raise: every other player is all-in or already covered; call or fold."
    acted = hand.acted_level[player]
    config = hand.config
    fixed = hand.fixed_limit
    # A player who checked (acted at bet level 0) faced no wager: a short
    # all-in opening bet is the first wager he faces, so he may raise it.
    # Fixed-limit: raising reopens only with a full (or counted-as-full, TDA
    # 47B) bet since he acted.
    if acted and (
        hand.full_level <= acted if fixed else hand.current_bet - acted < hand.last_raise
    ):
        if fixed:
            return (
                "You cannot raise: since you acted the bet was increased only by an all-in of "
                "less than half a bet, so betting is not reopened to you (TDA 47B, TDA-10); "
                "call or fold."
            )
        return (
            "You cannot raise: the bet was increased only by an all-in smaller than a full raise "
            "since you acted, so betting is not reopened to you (TDA-10); call or fold."
        )
    capped = fixed and full_bets(hand) >= config.raise_cap
    if capped and not (config.game is _CASH and len(hand.live) == 2):
        return (
            f"You cannot raise: the round is capped at one bet and {config.raise_cap - 1} "
            "raises (CC-8); call or fold."
        )
    return None


def raise_bounds(hand: HandState, player: int) -> tuple[int, int]:
    """Return (min, max) bet/raise totals for ``player``, assuming he may raise."""
    config = hand.config
    all_in_to = hand.stacks[player] + hand.bets[player]
    if config.structure is _FIXED_LIMIT:
        size = hand.street_bets[hand.street]
        target = (full_bets(hand) + 1) * size + hand.limit_offset
        target = max(target, hand.current_bet + 1)
        fixed = min(target, all_in_to)
        return fixed, fixed
    low = hand.current_bet + hand.last_raise
    if config.structure is _POT_LIMIT:
        to_call = hand.current_bet - hand.bets[player]
        high = hand.current_bet + hand.pot_total + to_call
    else:
        high = all_in_to
    high = min(high, all_in_to)
    low = min(low, all_in_to)
    return low, max(low, high)


def legal_actions(hand: HandState, player: int) -> LegalActions:
    """Return what ``player`` (who must be the player to act) may do."""
    to_call = max(0, hand.current_bet - hand.bets[player])
    refusal = raise_refusal(hand, player)
    low: int | None = None
    high: int | None = None
    if refusal is None:
        low, high = raise_bounds(hand, player)
    return LegalActions(
        player=player,
        can_check=to_call == 0,
        call_amount=min(to_call, hand.stacks[player]),
        min_raise_to=low,
        max_raise_to=high,
        raise_refusal=refusal,
    )


def check_raise_amount(hand: HandState, player: int, to: int) -> None:
    """Raise :class:`~firmware.errors.IllegalAction` unless ``to`` is a legal total."""
    refusal = raise_refusal(hand, player)
    if refusal is not None:
        raise IllegalAction(refusal, key="error.action.no_raise", seat=hand.seats[player])
    low, high = raise_bounds(hand, player)
    all_in_to = hand.stacks[player] + hand.bets[player]
    if to <= hand.current_bet:
        raise IllegalAction(
            f"A bet or raise to {to} does not exceed the current bet of {hand.current_bet}; "
            "check or call instead.",
            key="error.action.raise_not_above",
            to=to,
            current=hand.current_bet,
        )
    if to < low:
        raise IllegalAction(
            f"The smallest bet or raise allowed is to {low} (the last full raise was "
            f"{hand.last_raise}); raise to at least {low}, or go all-in for {all_in_to}.",
            key="error.action.raise_too_small",
            to=to,
            low=low,
        )
    if to > high:
        if to > all_in_to:
            reason = f"you have only {all_in_to} including your bet"
        elif hand.config.structure is _POT_LIMIT:
            reason = "that is more than the pot after calling"
        else:
            reason = "that is more than the fixed bet size"
        raise IllegalAction(
            f"A bet or raise to {to} is not allowed: {reason}; the most allowed is {high}.",
            key="error.action.raise_too_large",
            to=to,
            high=high,
        )


def interpret_chip_bet(hand: HandState, player: int, total: int) -> tuple[Event, int]:
    """Read a physical bet: ``total`` chips now in ``player``'s betting zone (TDA-10).

    Returns the action the chips amount to and the chips to hand back:

    * chips that cover the player's whole stack are an all-in;
    * at or below the current bet, a check or call;
    * above it by at least a full raise, a raise to that total;
    * above it by 50% or more of a full raise, a raise forced up to the
      minimum (the player must add the rest);
    * above it by less than 50% of a full raise, a call with the excess
      returned; likewise when raising is not allowed.

    :raises IllegalAction: if the chips do not cover the call and are not
        all the player's chips.
    """
    from firmware.engine.events import BetRaise, CheckCall

    all_in_to = hand.stacks[player] + hand.bets[player]
    total = min(total, all_in_to)
    current = hand.current_bet
    if total < current and total < all_in_to:
        raise IllegalAction(
            f"The {total} chips in the betting zone do not cover the call of {current}; "
            f"add {current - total} more or fold.",
            key="error.action.under_call",
        )
    if total <= current:
        return CheckCall(player), 0
    if raise_refusal(hand, player) is not None:
        return CheckCall(player), total - max(current, hand.bets[player])
    low, high = raise_bounds(hand, player)
    if total >= low:
        return BetRaise(player, min(total, high)), max(0, total - high)
    if total == all_in_to:
        return BetRaise(player, total), 0
    if 2 * (total - current) >= hand.last_raise or current == 0:
        return BetRaise(player, low), 0
    return CheckCall(player), total - current


def interpret_single_chip(
    hand: HandState, player: int, chip: int, declared_raise: bool
) -> tuple[Event, int]:
    """Read one chip put in the betting zone (TDA-11, HG-14).

    * An oversized chip (worth more than the call) with no declaration is a call;
      the change is returned.
    * With "raise" declared before the chip touched the felt and no amount, it
      is the largest raise the chip allows: the player's bet becomes what he
      had in plus the chip.
    * After the flop, a single chip opening the betting without a declaration is
      a bet of the chip's full value.

    Returns the action and the chips to hand back.
    """
    from firmware.engine.events import BetRaise, CheckCall

    bet = hand.bets[player]
    all_in_to = hand.stacks[player] + bet
    total = min(bet + chip, all_in_to)
    if hand.current_bet == 0 and hand.street > 0 and not declared_raise:
        return interpret_chip_bet(hand, player, total)
    if not declared_raise or raise_refusal(hand, player) is not None:
        if total < hand.current_bet and total < all_in_to:
            return interpret_chip_bet(hand, player, total)  # does not cover: refused there
        return CheckCall(player), max(0, total - max(hand.current_bet, bet))
    low, high = raise_bounds(hand, player)
    to = min(max(low, total), high)
    return BetRaise(player, to), max(0, total - to)


def interpret_motions(
    hand: HandState, player: int, motions: list[int], declared_raise: bool
) -> tuple[Event, int, bool]:
    """Read chips put in over several motions (TDA-32, TDA-39).

    Without a raise declaration only the first motion counts (a string raise):
    the rest goes back and the dealer is told. With "raise" declared, the
    first motion and one more complete it.

    Returns the action, the chips to hand back and whether a string raise was
    ruled (for the dealer's console).
    """
    if not motions:
        raise ValueError("A bet needs at least one motion of chips.")
    counted = motions[: 2 if declared_raise else 1]
    string_raise = len(motions) > len(counted)
    total = hand.bets[player] + sum(counted)
    event, back = interpret_chip_bet(hand, player, total)
    return event, back + sum(motions[len(counted) :]), string_raise
