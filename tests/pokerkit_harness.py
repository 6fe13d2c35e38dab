"""Test-only helper that drives PokerKit 0.7.7 alongside our engine.

``firmware/`` never imports PokerKit; only the tests and the benchmark do.

The harness builds a PokerKit state from one of our :class:`StartHand`
events, deals the same cards, and plays random hands through both engines,
choosing every action among those that *both* engines allow with the same
amounts (see :func:`play_random_hand`). Legal-action sets are compared at
every decision; a difference is either a documented rule difference (see
:func:`classify_difference`) or a finding.

Documented rule differences (our rules, docs/rules.md, vs PokerKit 0.7.7):

* ``cap-preflop``: fixed-limit cap of 4 bets with the big blind as the first
  bet; PokerKit counts 4 raises after the big blind (one more preflop).
* ``cap-heads-up-cash``: in a cash game with two players in the hand our
  engine has no fixed-limit cap; PokerKit always caps.
* ``cap-short-all-in``: PokerKit counts every short all-in bet or raise toward
  the fixed-limit cap; we count full bets and all-ins of half a bet or more
  (TDA 47B), not smaller ones.
* ``fl-completion``: after a fixed-limit all-in of less than half a bet (or a
  short blind), our engine completes to the next full bet level (TDA 47B);
  PokerKit raises a full bet above the all-in.
* ``fl-half-all-in-reopens``: TDA 47B: a fixed-limit all-in of half a bet or
  more counts as a full raise and reopens the betting to players who already
  acted; PokerKit 0.7.7 reopens only after a full bet. (The next raise, a full
  bet above the all-in, and the count toward the cap agree: compared.)
* ``fold-free``: we allow folding when checking is free; PokerKit does not
  (tournament mode).
* ``straddle-min-raise``: after a straddle our minimum raise is the
  straddle's size (a raise to twice the straddle); PokerKit uses the
  straddle's increment over the big blind.
* ``no-reopen``: TDA-10: an all-in raise short of a full raise does not
  reopen raising to players who already faced a bet or raise; PokerKit
  0.7.7 lets them raise again. (A player who only checked may raise over a
  short all-in opening bet in both engines.)
* ``pokerkit-extra-check``: when the only other live player is all-in for
  less, PokerKit still asks the big blind to check; our engine skips that
  empty decision.
* ``showdown-end``: our engine awards the pots as soon as one contender is
  left; PokerKit still asks the remaining player to show.
"""

from __future__ import annotations

import random
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pokerkit import (
    Automation,
    FixedLimitTexasHoldem,
    Mode,
    NoLimitTexasHoldem,
    State,
)
from pokerkit.games import PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem
from pokerkit.state import BettingStructure

from firmware.engine.cards import format_card, format_cards
from firmware.engine.events import (
    BetRaise,
    CheckCall,
    DealBoard,
    DealHole,
    Fold,
    Muck,
    Show,
    StartHand,
)
from firmware.engine.hand import Hand, Phase
from firmware.engine.rules import GameKind, HandConfig, Structure

# PokerKit warns when a dealt card is not the next card of its own deck (it burns
# from its own deck); we deal the same cards to both engines on purpose.
warnings.filterwarnings("ignore", message="A card being dealt", category=UserWarning)

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


class PotLimitTexasHoldem(PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem):
    """Pot-limit Texas hold'em built from PokerKit's parts (PokerKit has no such class)."""

    betting_structure: ClassVar[BettingStructure] = BettingStructure.POT_LIMIT


def slots(values: tuple[int, ...]) -> tuple[int, ...]:
    """Per-player amounts in PokerKit's blind-slot order (reversed heads-up)."""
    return tuple(reversed(values)) if len(values) == 2 else values


def pokerkit_state(start: StartHand) -> State:
    """Return a PokerKit state equivalent to ``start`` (antes and dead not both)."""
    config = start.config
    if any(start.antes) and any(start.dead):
        raise ValueError("PokerKit cannot mix matched antes and dead money in one hand.")
    trimming = any(start.antes)
    antes = slots(start.antes if trimming else start.dead)
    blinds = slots(start.blinds)
    game: Any
    if config.structure is Structure.FIXED_LIMIT:
        game = FixedLimitTexasHoldem(
            AUTOMATIONS,
            trimming,
            antes,
            blinds,
            config.min_bet,
            config.street_bet(3),
            mode=Mode.TOURNAMENT,
        )
    elif config.structure is Structure.POT_LIMIT:
        game = PotLimitTexasHoldem(
            AUTOMATIONS, trimming, antes, blinds, config.min_bet, mode=Mode.TOURNAMENT
        )
    else:
        game = NoLimitTexasHoldem(
            AUTOMATIONS, trimming, antes, blinds, config.min_bet, mode=Mode.TOURNAMENT
        )
    state: State = game(start.stacks, len(start.stacks))
    return state


@dataclass(frozen=True)
class Options:
    """PokerKit's legal actions for the actor, in our terms."""

    can_fold: bool
    call: int
    min_to: int | None
    max_to: int | None


def pokerkit_options(state: State) -> Options:
    """Return what PokerKit lets the actor do."""
    can_raise = state.can_complete_bet_or_raise_to()
    return Options(
        can_fold=state.can_fold(),
        call=state.checking_or_calling_amount or 0,
        min_to=state.min_completion_betting_or_raising_to_amount if can_raise else None,
        max_to=state.max_completion_betting_or_raising_to_amount if can_raise else None,
    )


@dataclass
class Finding:
    """A disagreement between the engines that no documented rule explains."""

    seed: int
    what: str
    events: list[Any]

    def __str__(self) -> str:
        lines = "\n".join(f"    {e!r}," for e in self.events)
        return f"seed {self.seed}: {self.what}\n  events = [\n{lines}\n  ]"


@dataclass
class Outcome:
    """One random hand played through both engines."""

    seed: int
    start: StartHand
    hand: Hand
    state: State
    findings: list[Finding] = field(default_factory=list)
    rule_differences: dict[str, int] = field(default_factory=dict)
    pokerkit_pots: list[tuple[int, tuple[int, ...]]] | None = None
    limit_all_ins: dict[str, int] = field(default_factory=dict)
    """Fixed-limit all-ins short of a full bet, by kind: ``half-or-more`` (a full
    raise by TDA 47B) and ``under-half`` (called or completed)."""
    pokerkit_error: str | None = None


def random_start(rng: random.Random) -> StartHand:
    """A random hand set-up: 2-10 players, many short stacks, antes, BB antes, structures.

    Some players are all-in from their antes alone, a big-blind ante included
    (then they matched nothing and can win only the dead money).
    """
    n = rng.randint(2, 10)
    structure = rng.choice([Structure.NO_LIMIT, Structure.FIXED_LIMIT, Structure.POT_LIMIT])
    game = rng.choice([GameKind.CASH, GameKind.TOURNAMENT])
    bb = rng.choice([2, 4, 10, 20, 100])
    sb = bb // 2 if rng.random() < 0.8 else rng.randint(1, bb)
    ante_kind = rng.choice(["none", "none", "uniform", "bb-ante"])
    ante = rng.choice([1, bb // 4 or 1, bb // 2, bb]) if ante_kind != "none" else 0
    stacks = []
    for _ in range(n):
        r = rng.random()
        if r < 0.1 and ante:
            stacks.append(rng.randint(1, ante))  # below the ante
        elif r < 0.25:
            stacks.append(rng.randint(1, bb))  # below the big blind
        elif r < 0.55:
            stacks.append(rng.randint(bb, 10 * bb))
        else:
            stacks.append(rng.randint(10 * bb, 200 * bb))
    if structure is Structure.FIXED_LIMIT and bb > 1 and rng.random() < 0.5:
        # A stack that ends in a fraction of a bet, so that fixed-limit all-ins of
        # less than half a bet and of half a bet or more (TDA 47B) are common.
        i = rng.randrange(n)
        stacks[i] = bb * rng.randint(1, 4) + rng.randint(1, bb - 1)
    blinds = [0] * n
    if n == 2:
        blinds[0], blinds[1] = bb, sb  # position 0 is the big blind heads-up
    else:
        blinds[0], blinds[1] = sb, bb
        if n >= 4 and rng.random() < 0.1 and structure is Structure.NO_LIMIT:
            blinds[2] = 2 * bb  # a straddle
    antes = [0] * n
    dead = [0] * n
    if ante_kind == "uniform":
        antes = [ante] * n
    elif ante_kind == "bb-ante":
        dead[0 if n == 2 else 1] = ante
    config = HandConfig(structure, game, min_bet=bb)
    return StartHand(
        config,
        tuple(range(1, n + 1)),
        tuple(f"p{i + 1}" for i in range(n)),
        tuple(stacks),
        tuple(antes),
        tuple(blinds),
        tuple(dead),
    )


def classify_difference(
    hand: Hand, ours: Any, theirs: Options, under_half: bool = False
) -> str | None:
    """Name the documented rule behind a raise disagreement, or ``None``.

    ``under_half``: a fixed-limit all-in of less than half a bet was made in this
    betting round (PokerKit counts it toward the cap, we do not).
    """
    config = hand.config
    if (
        hand.street == 0
        and sum(1 for b in hand.blinds if b) >= 3
        and ours.min_raise_to is not None
        and theirs.min_to is not None
        and ours.max_raise_to == theirs.max_to
        and ours.min_raise_to > theirs.min_to
        and hand.last_raise == max(config.min_bet, max(hand.blinds))
    ):
        return "straddle-min-raise"
    if (
        ours.min_raise_to is None
        and theirs.min_to is not None
        and ours.raise_refusal is not None
        and "not reopened" in ours.raise_refusal
    ):
        return "no-reopen"
    if config.structure is not Structure.FIXED_LIMIT:
        return None
    in_hand = sum(1 for f in hand.folded if not f)
    size = config.street_bet(hand.street)
    # A short blind or an all-in of less than half a bet (TDA 47B) raised the bet
    # off the round's full level: our next raise completes to that level.
    short_all_in_seen = under_half or hand.current_bet != hand.full_bets * size + hand.limit_offset
    # An all-in of half a bet or more counted as a full raise: the next raise is a
    # full bet above it in both engines, and it counts toward the cap in both.
    half_all_in_seen = hand.limit_offset != 0
    if ours.min_raise_to is None and theirs.min_to is not None:
        if hand.full_bets >= config.raise_cap and hand.street == 0:
            return "cap-preflop"
        if short_all_in_seen:
            return "cap-short-all-in"
    if ours.min_raise_to is not None and theirs.min_to is None:
        if config.game is GameKind.CASH and in_hand == 2 and hand.full_bets >= config.raise_cap:
            return "cap-heads-up-cash"
        if half_all_in_seen and hand.acted_level[ours.player]:
            return "fl-half-all-in-reopens"
        if short_all_in_seen:
            return "cap-short-all-in"
    if ours.min_raise_to is not None and theirs.min_to is not None and short_all_in_seen:
        return "fl-completion"
    return None


def _pk_pots(state: State) -> list[tuple[int, tuple[int, ...]]]:
    merged: list[tuple[int, tuple[int, ...]]] = []
    for pot in state.pots:
        players = tuple(pot.player_indices)
        if merged and merged[-1][1] == players:
            merged[-1] = (merged[-1][0] + pot.amount, players)
        else:
            merged.append((pot.amount, players))
    return merged


def play_random_hand(seed: int, *, start: StartHand | None = None) -> Outcome:
    """Play one random hand through both engines with the same cards and actions."""
    rng = random.Random(seed)
    start = start or random_start(rng)
    hand = Hand.start(start)
    state = pokerkit_state(start)
    outcome = Outcome(seed, start, hand, state)
    deck = list(range(52))
    rng.shuffle(deck)

    def finding(what: str) -> None:
        outcome.findings.append(Finding(seed, what, list(hand.events)))

    def differ(name: str) -> None:
        outcome.rule_differences[name] = outcome.rule_differences.get(name, 0) + 1

    for player in range(hand.player_count):
        cards = (deck.pop(), deck.pop())
        hand.apply(DealHole(player, cards))
        state.deal_hole(format_cards(cards), player)
    steps = 0
    under_half_street = -1  # the street of this round's last all-in under half a bet
    while hand.phase is not Phase.COMPLETE:
        steps += 1
        if steps > 500:
            finding("the hand did not finish in 500 steps")
            return outcome
        if hand.phase is Phase.BETTING:
            ours = hand.legal_actions()
            if state.actor_index != ours.player:
                finding(f"actor differs: ours {ours.player}, PokerKit {state.actor_index}")
                return outcome
            theirs = pokerkit_options(state)
            if theirs.call != ours.call_amount:
                finding(f"call amount differs: ours {ours.call_amount}, PokerKit {theirs.call}")
                return outcome
            if theirs.can_fold != (ours.call_amount > 0 or not ours.can_check):
                differ("fold-free")
            same_raise = (ours.min_raise_to, ours.max_raise_to) == (theirs.min_to, theirs.max_to)
            if not same_raise:
                reason = classify_difference(hand, ours, theirs, under_half_street == hand.street)
                if reason is None:
                    finding(
                        f"raise range differs for player {ours.player}: ours "
                        f"{ours.min_raise_to}..{ours.max_raise_to}, PokerKit "
                        f"{theirs.min_to}..{theirs.max_to}"
                    )
                    return outcome
                differ(reason)
            choices = ["call"]
            if theirs.can_fold and not ours.can_check:
                choices.append("fold")
            low = high = None
            if ours.min_raise_to is not None and theirs.min_to is not None:
                assert ours.max_raise_to is not None and theirs.max_to is not None
                low = max(ours.min_raise_to, theirs.min_to)
                high = min(ours.max_raise_to, theirs.max_to)
                if low <= high:
                    choices.append("raise")
            weights = {"call": 5.0, "fold": 2.0 if hand.street == 0 else 1.5, "raise": 2.5}
            choice = rng.choices(choices, [weights[c] for c in choices])[0]
            if choice == "fold":
                hand.apply(Fold(ours.player))
                state.fold()
            elif choice == "call":
                hand.apply(CheckCall(ours.player))
                state.check_or_call()
            else:
                assert low is not None and high is not None
                pick = rng.random()
                if pick < 0.4:
                    to = low
                elif pick < 0.6:
                    to = high
                else:
                    to = rng.randint(low, high)
                size = hand.config.street_bet(hand.street)
                level = hand.full_bets * size + hand.limit_offset
                all_in = to == hand.stacks[ours.player] + hand.bets[ours.player]
                hand.apply(BetRaise(ours.player, to))
                state.complete_bet_or_raise_to(to)
                if hand.fixed_limit and all_in and level < to < level + size:
                    kind = "half-or-more" if 2 * (to - level) >= size else "under-half"
                    if kind == "under-half":
                        under_half_street = hand.street if hand.phase is Phase.BETTING else -1
                    outcome.limit_all_ins[kind] = outcome.limit_all_ins.get(kind, 0) + 1
        elif hand.phase is Phase.BOARD:
            while state.actor_index is not None and not state.checking_or_calling_amount:
                differ("pokerkit-extra-check")
                state.check_or_call()
            if hand.cards_up:
                # PokerKit shows all-in hands before the runout; ours are tabled by rule.
                while state.can_show_or_muck_hole_cards():
                    state.show_or_muck_hole_cards(True)
                if outcome.pokerkit_pots is None:
                    outcome.pokerkit_pots = _pk_pots(state)
            need = 3 if hand.street == 0 else 1
            cards = tuple(deck.pop() for _ in range(need))
            if not state.can_deal_board():
                finding(f"PokerKit cannot deal the board where ours needs {need} card(s)")
                return outcome
            hand.apply(DealBoard(cards))
            state.deal_board(format_cards(cards))
        elif hand.phase is Phase.SHOWDOWN:
            if outcome.pokerkit_pots is None:
                outcome.pokerkit_pots = _pk_pots(state)
            player = hand.expected()[1]
            assert player is not None
            cards_known = tuple(c for c in hand.hole[player] if c is not None)
            if rng.random() < 0.3:
                try:
                    hand.apply(Muck(player))
                except Exception:  # muck refused by our rules: show instead
                    pass
                else:
                    state.show_or_muck_hole_cards(False, player)
                    continue
            hand.apply(Show(player, cards_known))
            state.show_or_muck_hole_cards("".join(map(format_card, cards_known)), player)
    if state.status and state.can_show_or_muck_hole_cards():
        differ("showdown-end")
        while state.can_show_or_muck_hole_cards():
            state.show_or_muck_hole_cards(True)
    if state.status:
        finding("our hand is complete but PokerKit's is not")
    return outcome


def odd_chip_levels_only(outcome: Outcome) -> bool:
    """Whether stacks differ only by odd chips of split pots (rule ``odd-chip-levels``).

    PokerKit splits every contribution level (folded players' levels too) as
    its own pot, each with its own odd chip; we split the merged pot once
    (TDA-3/TDA-4), so the first winner left of the button may get one chip
    more or less per split pot. Pots and winners must otherwise agree.
    """
    result = outcome.hand.result
    assert result is not None
    ours = [(p.amount, p.eligible) for p in result.pots]
    if outcome.pokerkit_pots is None or ours != [(a, tuple(e)) for a, e in outcome.pokerkit_pots]:
        return False
    split = [p for p in result.pots if len(p.winners) > 1]
    winners = {w for p in split for w in p.winners}
    diffs = [f - int(k) for f, k in zip(result.finishing_stacks, outcome.state.stacks, strict=True)]
    return bool(split) and all(
        d == 0 or (i in winners and abs(d) <= len(split)) for i, d in enumerate(diffs)
    )


BENCH_SEED = 10_000
"""First seed of the replay benchmark's hands (``bench/bench_engine.py --seed``)."""


def benchmark_corpus(count: int, seed: int = BENCH_SEED) -> list[tuple[str, Outcome]]:
    """The replay benchmark's hands: ``count`` random hands as PHH text, with how they went.

    No-limit and fixed-limit hands both engines agree on, from ``seed`` on:
    pot-limit hands (no PHH variant), hands with both matched and dead antes
    (two PHH readings) and hands whose finishing stacks differ by the odd-chip
    rule are left out, so each kept hand has one right answer.
    """
    from firmware.engine.histories.phh import hand_to_phh

    corpus: list[tuple[str, Outcome]] = []
    s = seed
    while len(corpus) < count:
        outcome = play_random_hand(s)
        s += 1
        start = outcome.start
        if outcome.findings or start.config.structure is Structure.POT_LIMIT:
            continue
        if any(start.antes) and any(start.dead):
            continue
        assert outcome.hand.result is not None
        if list(outcome.hand.result.finishing_stacks) != [int(x) for x in outcome.state.stacks]:
            continue  # odd-chip rule difference: keep only hands with one right answer
        corpus.append((hand_to_phh(outcome.hand), outcome))
    return corpus
