"""The record of a finished hand: cards by role, actions, incidents, pots, stacks."""

from __future__ import annotations

from typing import Any

from firmware.engine.cards import format_card, format_cards
from firmware.engine.events import BetRaise, CheckCall, Fold, KillHand, Muck, Show, StartHand
from firmware.engine.hand import Hand
from firmware.table.dealing import TableHand


def hand_record(number: int, th: TableHand) -> dict[str, Any]:
    """A plain record of a finished hand: cards by role, actions, incidents, pots, stacks.

    Each pot's ``rake`` is what the house took from it before the split
    (HOUSE-RAKE), ``rake`` the hand's total; each pot's ``jackpot_drop`` what it
    dropped into the jackpot fund with the rake (JACKPOT), ``jackpot_drop`` the
    hand's total (0 when none); its ``shares`` are what was left.

    When betting ends with a player all-in, every live hand is turned up by
    rule (TDA-9): the record lists them in ``cards.tabled_by_rule`` and as
    ``turned_up`` actions at that point; an uncalled bet given back is a
    ``returned`` action with its amount.
    Cards killed unseen (an empty seat's hand) and cards returned to the stub
    are counted, never named (TDA-21, HG-12).
    """
    hand = th.hand
    assert hand.result is not None
    seats = th.plan.seats
    hole: dict[str, list[str]] = {}
    for position, cards in enumerate(hand.hole):
        hole[str(seats[position])] = [format_card(c) for c in cards if c is not None]
    roles: dict[str, list[str]] = {}
    for draw in th.draws:
        if draw.role in ("burn", "exposed", "removed", "flop", "turn", "river", "held"):
            roles.setdefault(draw.role, []).append(format_card(draw.card))
    actions = []
    start = hand.events[0]
    assert isinstance(start, StartHand)
    replay = Hand.start(start)
    tabled_by_rule: dict[str, list[str]] = {}
    for event in hand.events[1:]:
        player = getattr(event, "player", None)
        before = replay.stacks[player] if player is not None else 0
        street = replay.street
        facing = replay.current_bet
        returned = len(replay.returned)
        cards_up = replay.cards_up
        replay.apply(event)
        after: list[dict[str, Any]] = []
        for back, chips in replay.returned[returned:]:
            # An uncalled bet given back (HG-1) or a killed hand's uncalled raise (TDA-28).
            after.append(
                {"seat": seats[back], "action": "returned", "street": street, "amount": chips}
            )
        if replay.cards_up and not cards_up and replay.voided is None:
            # Betting is over with a player all-in: every live hand is turned up (TDA-9).
            for position in replay.live:
                up = [format_card(c) for c in hand.hole[position] if c is not None]
                if len(up) == 2:
                    tabled_by_rule[str(seats[position])] = up
                    after.append(
                        {
                            "seat": seats[position],
                            "action": "turned_up",
                            "street": street,
                            "cards": "".join(up),
                            "rule": "TDA-9",
                        }
                    )
        if isinstance(event, Fold | CheckCall | BetRaise | KillHand | Show | Muck):
            entry: dict[str, Any] = {
                "seat": seats[event.player],
                "action": event.kind,
                "street": street,
            }
            if isinstance(event, CheckCall | BetRaise):
                entry["amount"] = before - replay.stacks[event.player]
                entry["all_in"] = replay.stacks[event.player] == 0
            if isinstance(event, BetRaise):
                entry["to"] = event.to
                entry["facing"] = facing  # 0: an opening bet, else a raise
            if isinstance(event, Show):
                entry["cards"] = format_cards(event.cards)
            if isinstance(event, KillHand):
                entry["reason"] = event.reason
            actions.append(entry)
        actions.extend(after)
    # The forced bets as paid: a stack shorter than its blind or ante puts in what it has
    # (the engine's own posting), and is all-in (issue 23: "Elena pone 2" when she had 1).
    posted = Hand.start(start)
    posts = {
        str(x): {
            "blind": posted.bets[i],
            "ante": posted.matched[i] - posted.bets[i],
            "dead": posted.dead_posted[i],
            "all_in": posted.stacks[i] == 0,
        }
        for i, x in enumerate(seats)
        if start.blinds[i] or start.antes[i] or start.dead[i]
    }
    return {
        "hand": number,
        "button": th.plan.button,
        "seats": list(seats),
        "players": {str(x): name for x, name in zip(seats, hand.names, strict=True)},
        "cards": {
            "hole": hole,
            "burns": [format_card(c) for c in hand.burns if c is not None],
            "board": format_cards(hand.board),
            "by_role": roles,
            "dead_unseen": sum(1 for d in th.draws if d.role == "dead"),
            "returned_to_stub": sum(1 for d in th.draws if d.role == "returned"),
            "tabled_by_rule": tabled_by_rule,
        },
        "posts": posts,
        "actions": actions,
        "incidents": [
            {"rule": i.rule, "what": i.what, "instruction": i.instruction} for i in th.incidents
        ],
        "void": hand.voided,
        "pots": [
            {
                "amount": pot.amount,
                "winners": [seats[w] for w in pot.winners],
                "shares": {str(seats[p]): a for p, a in pot.shares},
                "rake": pot.rake,
                "jackpot_drop": pot.drop,
            }
            for pot in hand.result.pots
        ],
        "rake": hand.result.rake,
        "jackpot_drop": hand.result.jackpot_drop,
        "starting_stacks": {str(x): c for x, c in zip(seats, hand.starting_stacks, strict=True)},
        "finishing_stacks": {
            str(x): c for x, c in zip(seats, hand.result.finishing_stacks, strict=True)
        },
    }


def same_record(
    ready: dict[str, Any] | None, number: int, th: TableHand, started_at: float, now: float
) -> dict[str, Any] | None:
    """``ready`` if it is the record of the hand ``th`` finishing now, else ``None``.

    The controller tries each event on a twin of the table first; when that trial
    finished a hand, its record (read only, as every record) is the one the table
    would build from the same events, so the table takes it instead of replaying the
    hand a second time (issue 15). Checked: number, start and end times, seats and
    finishing stacks.
    """
    result = th.hand.result
    if ready is None or result is None:
        return None
    if (
        ready["hand"] != number
        or ready["started_at"] != started_at
        or ready["finished_at"] != now
        or ready["seats"] != list(th.plan.seats)
        or list(ready["finishing_stacks"].values()) != list(result.finishing_stacks)
    ):
        return None
    return ready
