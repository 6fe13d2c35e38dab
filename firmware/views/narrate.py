"""A finished hand told in words, in Spanish or English, from its record.

Used by the simulated table that ``make run`` prints and by logs. Only what
was public at the table is told: actions, the board, the hands shown, the
pots; hole cards that were never shown stay unnamed. Cards are written as rank
and suit symbol ("K♠ 10♥"), as the screens show them, never as codes ("KsTh").
"""

from __future__ import annotations

from typing import Any

from firmware.engine.cards import parse_cards
from firmware.engine.evaluator import best_hand
from firmware.i18n import tr
from firmware.i18n.cards import readable
from firmware.views.jackpot import pot_said

STREET_KEYS = ("", "street.flop", "street.turn", "street.river")


def narrate(record: dict[str, Any], lang: str = "es") -> list[str]:
    """Lines telling the hand of ``record`` (see firmware.table.records.hand_record)."""
    names = {int(k): v for k, v in record["players"].items()}
    board = record["cards"]["board"]
    lines = [tr("hand.header", lang, number=record["hand"], button=record["button"])]
    for seat, post in record.get("posts", {}).items():
        # The chips each forced bet took (a short stack posts what it has, all-in).
        name = names[int(seat)]
        blind = post["blind"] + post["dead"]
        all_in = tr("action.all_in", lang) if post.get("all_in") else ""
        if post["ante"]:
            line = tr("hand.posts_ante", lang, name=name, amount=post["ante"])
            lines.append("  " + line + (all_in if not blind else ""))
        if blind:
            lines.append("  " + tr("hand.posts", lang, name=name, amount=blind) + all_in)
    street = 0
    for action in record["actions"]:
        while action["street"] > street:
            street += 1
            shown = board[: (0, 6, 8, 10)[street]]
            lines.append("  " + tr(STREET_KEYS[street], lang, cards=readable(shown)))
        lines.append("    " + _action(action, names[action["seat"]], board, lang))
    while len(board) > (0, 6, 8, 10)[street]:
        street += 1
        shown = board[: (0, 6, 8, 10)[street]]
        lines.append("  " + tr(STREET_KEYS[street], lang, cards=readable(shown)))
    for incident in record["incidents"]:
        lines.append(f"  [{incident['rule']}] {readable(incident['what'])}")
    if record["void"]:
        lines.append("  " + tr("hand.void", lang, reason=record["void"]))
    for number, pot in enumerate(record["pots"]):
        label = tr("pot.main", lang) if number == 0 else tr("pot.side", lang, number=number)
        shares = ", ".join(
            tr("pot.share", lang, name=names[int(seat)], amount=amount)
            for seat, amount in pot["shares"].items()
        )
        said = pot_said(pot, label, lang)  # HOUSE-RAKE, JACKPOT: what the house took
        if said:
            lines.append("  " + tr("pot.won_raked", lang, pot=said, winners=shares))
        else:
            lines.append(
                "  " + tr("pot.won", lang, pot=label, amount=pot["amount"], winners=shares)
            )
    stacks = ", ".join(f"{names[int(s)]} {c}" for s, c in record["finishing_stacks"].items())
    lines.append("  " + tr("hand.stacks", lang, stacks=stacks))
    return lines


def _action(action: dict[str, Any], name: str, board: str, lang: str) -> str:
    kind = action["action"]
    all_in = tr("action.all_in", lang) if action.get("all_in") else ""
    if kind == "fold":
        return tr("action.fold", lang, name=name)
    if kind == "check_call":
        if not action.get("amount"):
            return tr("action.check", lang, name=name)
        return tr("action.call", lang, name=name, amount=action["amount"]) + all_in
    if kind == "bet_raise":
        key = "action.raise" if action.get("facing") else "action.bet"
        return tr(key, lang, name=name, amount=action["to"]) + all_in
    if kind == "show":
        cards = parse_cards(action["cards"])
        described = ""
        if len(cards) == 2 and len(board) == 10:
            described = best_hand([*cards, *parse_cards(board)]).describe(lang)
        return tr(
            "showdown.shows", lang, name=name, cards=readable(action["cards"]), hand=described
        )
    if kind == "muck":
        return tr("showdown.mucks", lang, name=name)
    if kind == "turned_up":
        return tr("showdown.turned_up", lang, name=name, cards=readable(action["cards"]))
    if kind == "returned":
        return tr("action.returned", lang, name=name, amount=action["amount"])
    return tr("action.killed", lang, name=name, reason=action.get("reason", ""))
