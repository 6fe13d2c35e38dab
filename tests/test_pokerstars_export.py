"""PokerStars-style export, read back by an independent parser over soak hands.

The ``poker`` package (PyPI) has a PokerStars hand-history parser written by
other people (``poker.room.pokerstars.PokerStarsHandHistory``). Every hand a
soak table plays, in a cash game and in a tournament, is exported and parsed
by it, and what it reads back is checked against our engine: players, seats
and stacks, the button, the hero's cards, the board, the flop's actions with
their amounts, the number of actions on every street, the total pot and the
winners (the parser skips the first seat line of the summary when the hand
has no board, as PokerStars writes no ``Board`` line then; that seat's win is
not seen by it). That parser reads only whole-chip amounts (it calls ``int()`` on
stacks and pots), so these exports are in chips; exports in money are checked
by the round trip through our own reader in ``tests/test_pokerstars_import.py``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from poker.card import Card
from poker.constants import Action
from poker.hand import Combo
from poker.room.pokerstars import PokerStarsHandHistory

from firmware.engine.cards import format_card
from firmware.engine.events import BetRaise, CheckCall, DealBoard, Fold, KillHand, StartHand
from firmware.engine.hand import Hand
from firmware.engine.histories.pokerstars import PokerStarsStyle, hand_to_pokerstars
from firmware.errors import HandHistoryError
from hal_sim.table_soak import Soak

HANDS = 400
WHEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def _soak_hands(profile: str, seed: int) -> list[tuple[dict[str, Any], Hand]]:
    soak = Soak(profile, seed=seed)
    played: list[tuple[dict[str, Any], Hand]] = []
    soak.table.hand_listeners.append(lambda record, th: played.append((record, th.hand)))
    for _ in range(HANDS):
        soak.play_hand()
    return played


def _flop_actions(hand: Hand) -> tuple[list[tuple[str, Action, Decimal | None]], list[int]]:
    """Our flop actions as the parser words them, and the action count per street."""
    start = hand.events[0]
    assert isinstance(start, StartHand)
    replay = Hand.start(start)
    flop: list[tuple[str, Action, Decimal | None]] = []
    per_street = [0, 0, 0, 0]
    for event in hand.events[1:]:
        street = {0: 0, 3: 1, 4: 2, 5: 3}.get(len(replay.board), 0)
        if isinstance(event, Fold | KillHand | CheckCall | BetRaise):
            per_street[street] += 1
        if street == 1 and isinstance(event, Fold | KillHand):
            flop.append((replay.names[event.player], Action.FOLD, None))
        elif street == 1 and isinstance(event, CheckCall):
            owed = min(replay.current_bet - replay.bets[event.player], replay.stacks[event.player])
            action = (Action.CALL, Decimal(owed)) if owed > 0 else (Action.CHECK, None)
            flop.append((replay.names[event.player], *action))
        elif street == 1 and isinstance(event, BetRaise):
            if replay.current_bet == 0:
                flop.append((replay.names[event.player], Action.BET, Decimal(event.to)))
            else:
                raised = Decimal(event.to - replay.current_bet)
                flop.append((replay.names[event.player], Action.RAISE, raised))
        replay.apply(event)
    return flop, per_street


@pytest.mark.parametrize(("profile", "tournament"), [("casino-cash", None), ("tda-tournament", 7)])
def test_every_soak_hand_exported_is_read_back_by_the_poker_package(
    profile: str, tournament: int | None
) -> None:
    checked = 0
    for record, hand in _soak_hands(profile, seed=31):
        style = PokerStarsStyle(
            record["hand"],
            "Mesa 1",
            WHEN,
            WHEN - timedelta(hours=5),
            button=record["button"],
            tournament=tournament,
        )
        if hand.voided is not None:
            with pytest.raises(HandHistoryError, match="void hand"):
                hand_to_pokerstars(hand, style)
            continue
        text = hand_to_pokerstars(hand, style)
        parsed = PokerStarsHandHistory(text)
        parsed.parse()
        start = hand.events[0]
        assert isinstance(start, StartHand) and hand.result is not None
        assert int(parsed.ident) == record["hand"]
        players = {p.seat: (p.name, p.stack) for p in parsed.players if p.stack}
        assert players == {
            seat: (name, stack)
            for seat, name, stack in zip(start.seats, start.names, start.stacks, strict=True)
        }
        assert parsed.button.seat == record["button"]
        hero = hand.hole[0]
        assert parsed.hero.name == start.names[0]
        assert parsed.hero.combo == Combo("".join(format_card(c) for c in hero if c is not None))
        board = [format_card(c) for c in hand.board]
        if len(board) >= 3:
            assert parsed.flop.cards == tuple(Card(c) for c in board[:3])
        assert parsed.turn == (Card(board[3]) if len(board) >= 4 else None)
        assert parsed.river == (Card(board[4]) if len(board) == 5 else None)
        assert parsed.total_pot == sum(pot.amount for pot in hand.result.pots)
        winners = {re.sub(r" \(.*", "", name) for name in parsed.winners}
        expected = {start.names[w] for pot in hand.result.pots for w in pot.winners}
        if not board:
            # The parser expects a Board line and skips the first seat line without one.
            expected.discard(start.names[start.seats.index(min(start.seats))])
        assert winners == expected
        flop, per_street = _flop_actions(hand)
        assert len(parsed.preflop_actions) >= per_street[0]
        if parsed.flop is not None:
            read = [
                (a.name, a.action, a.amount)
                for a in parsed.flop.actions or ()
                if a.action not in (Action.RETURN, Action.WIN)
            ]
            assert read == flop
        for street, lines in ((2, parsed.turn_actions), (3, parsed.river_actions)):
            actions = [line for line in lines or () if ": " in line]
            assert len(actions) == per_street[street]
        checked += 1
    assert checked > HANDS * 0.8


def test_money_layout_has_currency_stakes_and_rake() -> None:
    record, hand = next(
        (r, h) for r, h in _soak_hands("casino-cash", seed=8) if len(h.board) == 5 and h.result
    )
    style = PokerStarsStyle(
        record["hand"],
        "Mesa 1",
        WHEN,
        WHEN - timedelta(hours=5),
        unit=Decimal("0.01"),
        currency="EUR",
        button=record["button"],
        rake=3,
    )
    text = hand_to_pokerstars(hand, style)
    first, table = text.splitlines()[:2]
    assert first == (
        f"PokerStars Hand #{record['hand']}:  Hold'em No Limit (€0.01/€0.02 EUR) - "
        "2026/12/01 15:00:00 UTC [2026/12/01 10:00:00 ET]"
    )
    assert table == f"Table 'Mesa 1' 10-max Seat #{record['button']} is the button"
    total = sum(pot.amount for pot in hand.result.pots)  # type: ignore[union-attr]
    assert f"Total pot €{Decimal(total) / 100:.2f}" in text and "| Rake €0.03" in text
    collected = [
        Decimal(m) for m in re.findall(r"collected €([0-9.]+) from", text, flags=re.MULTILINE)
    ]
    assert sum(collected) * 100 == total - 3
    assert "*** HOLE CARDS ***" in text and "*** SUMMARY ***" in text
    assert any(isinstance(e, DealBoard) for e in hand.events) and "*** RIVER ***" in text
