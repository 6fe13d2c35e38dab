"""Small helpers to script hands in tests: ``start``, ``deal``, ``act``, ``board``."""

from __future__ import annotations

from collections.abc import Sequence

from firmware.engine.cards import parse_cards
from firmware.engine.events import (
    BetRaise,
    Burn,
    CheckCall,
    DealBoard,
    DealHole,
    Event,
    Fold,
    StartHand,
)
from firmware.engine.hand import Hand
from firmware.engine.rules import GameKind, HandConfig, OddChips, Structure


def start(
    stacks: Sequence[int],
    blinds: Sequence[int] | None = None,
    antes: Sequence[int] | int = 0,
    dead: Sequence[int] | None = None,
    structure: Structure = Structure.NO_LIMIT,
    game: GameKind = GameKind.TOURNAMENT,
    min_bet: int = 2,
    big_bet: int = 0,
    chip_unit: int = 1,
    odd_chips: OddChips = OddChips.FIRST_LEFT_OF_BUTTON,
    big_blind: int | None = None,
    raise_cap: int = 4,
) -> Hand:
    """Start a hand; default blinds are 1/2 (heads-up: index 1, the button, posts 1)."""
    n = len(stacks)
    if blinds is None:
        blinds = (2, 1) if n == 2 else (1, 2) + (0,) * (n - 2)
    ante_list = (antes,) * n if isinstance(antes, int) else tuple(antes)
    config = HandConfig(
        structure,
        game=game,
        min_bet=min_bet,
        big_bet=big_bet,
        chip_unit=chip_unit,
        odd_chips=odd_chips,
        raise_cap=raise_cap,
    )
    return Hand.start(
        StartHand(
            config=config,
            seats=tuple(range(1, n + 1)),
            names=tuple(f"P{i}" for i in range(n)),
            stacks=tuple(stacks),
            antes=ante_list,
            blinds=tuple(blinds),
            dead=tuple(dead) if dead is not None else (0,) * n,
            big_blind=big_blind,
        )
    )


def deal(hand: Hand, *holes: str) -> None:
    """Deal hole cards: one string of two cards per player, in position order."""
    for player, text in enumerate(holes):
        hand.apply(DealHole(player, tuple(parse_cards(text))))


def act(hand: Hand, *actions: str) -> None:
    """Apply actions of the players to act: ``f``, ``c`` (check/call), ``r200`` (to 200)."""
    for text in actions:
        player = hand.actor
        assert player is not None, f"nobody to act for {text!r}"
        event: Event
        if text == "f":
            event = Fold(player)
        elif text == "c":
            event = CheckCall(player)
        elif text.startswith("r"):
            event = BetRaise(player, int(text[1:]))
        else:
            raise ValueError(text)
        hand.apply(event)


def board(hand: Hand, cards: str, burn: str | None = None) -> None:
    """Burn (optionally) and deal board cards."""
    if burn is not None:
        hand.apply(Burn(parse_cards(burn)[0]))
    hand.apply(DealBoard(tuple(parse_cards(cards))))
