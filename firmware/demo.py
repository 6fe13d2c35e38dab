"""A headless table of bots playing hands through the engine.

This is what ``make run`` shows until the controller and simulated devices
arrive: six seats, a virtual deck shuffled with the cryptographic random
source, a button that moves each hand, bots that act through the same legal
actions a seat screen offers, and every hand narrated in Spanish or English.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware.bots import RandomBot
from firmware.cards import format_cards
from firmware.deck import VirtualDeck
from firmware.evaluator import best_hand
from firmware.events import (
    BetRaise,
    Burn,
    CheckCall,
    DealBoard,
    DealHole,
    Fold,
    Muck,
    Show,
    StartHand,
)
from firmware.hand import Hand, Phase
from firmware.i18n import tr
from firmware.rules import HandConfig, Structure
from firmware.showdown import auto_showdown_event

DEFAULT_NAMES = ("Ana", "Bruno", "Carmen", "Diego", "Elena", "Fabio")


@dataclass
class DemoTable:
    """Seats, stacks and the button between hands of the demo.

    :param names: One player per seat, seats numbered from 1.
    :param buy_in: Chips each player starts (and rebuys) with.
    :param small_blind: Small blind; the big blind is twice it.
    """

    names: tuple[str, ...] = DEFAULT_NAMES
    buy_in: int = 200
    small_blind: int = 1
    structure: Structure = Structure.NO_LIMIT
    stacks: list[int] = field(default_factory=list)
    button: int = 0
    hands_played: int = 0

    def __post_init__(self) -> None:
        if not self.stacks:
            self.stacks = [self.buy_in] * len(self.names)

    def start_event(self) -> tuple[StartHand, list[int]]:
        """Build the next hand's StartHand; return it with the seat index of each player."""
        n = len(self.names)
        order = [(self.button + 1 + k) % n for k in range(n)]
        big = 2 * self.small_blind
        blinds = [0] * n
        if n == 2:
            blinds = [big, self.small_blind]
        else:
            blinds[0], blinds[1] = self.small_blind, big
        config = HandConfig(self.structure, min_bet=big)
        start = StartHand(
            config=config,
            seats=tuple(i + 1 for i in order),
            names=tuple(self.names[i] for i in order),
            stacks=tuple(self.stacks[i] for i in order),
            antes=(0,) * n,
            blinds=tuple(blinds),
            dead=(0,) * n,
        )
        return start, order


def play_hand(table: DemoTable, rng: random.Random, say: Callable[[str], None], lang: str) -> Hand:
    """Play one hand at ``table``, narrating it through ``say``."""
    start, order = table.start_event()
    hand = Hand.start(start)
    deck = VirtualDeck(rng)
    bots = [RandomBot(rng) for _ in order]
    names = start.names
    say(tr("hand.header", lang, number=table.hands_played + 1, button=table.button + 1))
    for i in range(hand.player_count):
        if start.blinds[i]:
            say("  " + tr("hand.posts", lang, name=names[i], amount=start.blinds[i]))
    while hand.phase is not Phase.COMPLETE:
        what, who = hand.expected()
        if what == "hole" and who is not None:
            hand.apply(DealHole(who, (deck.draw(),)))
            if hand.phase is not Phase.DEALING:
                say("  " + tr("hand.dealt", lang))
        elif what == "board" and who is not None:
            if hand.cards_up and hand.street == 0:
                say("  " + tr("hand.cards_up", lang))
            hand.apply(Burn(deck.draw()))
            cards = tuple(deck.draw() for _ in range(who))
            hand.apply(DealBoard(cards))
            key = ("street.flop", "street.turn", "street.river")[hand.street - 1]
            say("  " + tr(key, lang, cards=format_cards(hand.board)))
        elif what == "action" and who is not None:
            legal = hand.legal_actions()
            event = bots[who].decide(legal)
            say("    " + _describe_action(hand, event, names, lang))
            hand.apply(event)
        elif what == "show":
            event = auto_showdown_event(hand)
            if isinstance(event, Show):
                value = best_hand([*event.cards, *hand.board])
                say(
                    "  "
                    + tr(
                        "showdown.shows",
                        lang,
                        name=names[event.player],
                        cards=format_cards(event.cards),
                        hand=value.describe(lang),
                    )
                )
            elif isinstance(event, Muck):
                say("  " + tr("showdown.mucks", lang, name=names[event.player]))
            hand.apply(event)
    assert hand.result is not None
    for number, pot in enumerate(hand.result.pots):
        label = tr("pot.main", lang) if number == 0 else tr("pot.side", lang, number=number)
        winners = ", ".join(
            tr("pot.share", lang, name=names[p], amount=amount) for p, amount in pot.shares
        )
        say("  " + tr("pot.won", lang, pot=label, amount=pot.amount, winners=winners))
    for position, seat_index in enumerate(order):
        table.stacks[seat_index] = hand.result.finishing_stacks[position]
    stacks = ", ".join(f"{table.names[i]} {table.stacks[i]}" for i in range(len(table.names)))
    say("  " + tr("hand.stacks", lang, stacks=stacks))
    for i, stack in enumerate(table.stacks):
        if stack == 0:
            table.stacks[i] = table.buy_in
            say("  " + tr("table.rebuy", lang, name=table.names[i], amount=table.buy_in))
    table.button = (table.button + 1) % len(table.names)
    table.hands_played += 1
    return hand


def _describe_action(hand: Hand, event: object, names: tuple[str, ...], lang: str) -> str:
    if isinstance(event, Fold):
        return tr("action.fold", lang, name=names[event.player])
    if isinstance(event, CheckCall):
        legal = hand.legal_actions()
        if legal.can_check:
            return tr("action.check", lang, name=names[event.player])
        text = tr("action.call", lang, name=names[event.player], amount=legal.call_amount)
        if legal.call_amount == hand.stacks[event.player]:
            text += tr("action.all_in", lang)
        return text
    assert isinstance(event, BetRaise)
    key = "action.bet" if hand.current_bet == 0 else "action.raise"
    text = tr(key, lang, name=names[event.player], amount=event.to)
    if event.to == hand.stacks[event.player] + hand.bets[event.player]:
        text += tr("action.all_in", lang)
    return text


def run_demo(hands: int, lang: str = "es", seed: int | None = None) -> int:
    """Play ``hands`` hands and print them; return 0 if chips were conserved."""
    rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()
    table = DemoTable()
    rebuys = 0
    for _ in range(hands):
        before = sum(table.stacks)
        play_hand(table, rng, print, lang)
        rebuys += sum(table.stacks) - before
        print()
    chips = sum(table.stacks)
    ok = chips == table.buy_in * len(table.names) + rebuys
    print(tr("table.summary", lang, hands=hands, chips=chips, ok=ok))
    sys.stdout.flush()
    return 0 if ok else 1
