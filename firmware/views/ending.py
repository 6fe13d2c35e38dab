"""The end of the last hand, kept on every screen until the next hand's first card.

When a hand ends the table forgets it (``table.hand`` becomes ``None``) and only
its record remains. Players still need to read it: the river, the hands tabled,
who won each pot and with what. :func:`hand_end` builds that part, the view's
``table.ended``, from the last record, from the hand's end until the first card
of the next hand is drawn (a new hand started but not dealt yet keeps it), so
every screen (seats, console, broadcast) can keep it on show.

Only public cards are in it: the board and the hands tabled at the showdown
(or turned up when no more betting was possible); a hand mucked is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.engine.cards import parse_cards
from firmware.engine.evaluator import best_hand
from firmware.i18n import tr
from firmware.views.recall import _record_shown, _split

if TYPE_CHECKING:
    from firmware.table.table import Table

_ENDED: dict[tuple[int, str], tuple[dict[str, Any], dict[str, Any]]] = {}
"""Parts already built, by record identity and language (records never change)."""


def hand_end(table: Table, lang: str) -> dict[str, Any] | None:
    """The last hand's end while no card of the next hand is out, else ``None``.

    ``{"hand", "board", "shown": {seat: cards}, "hands": {seat: name},
    "pots": [{"pot", "amount", "shares": {seat: amount}}],
    "winners": [{"seat", "amount", "hand"}]}``; ``None`` for a void hand, before
    the first hand and once the next hand's first card is drawn. Read only: the
    part is shared by the views of a change and between changes.
    """
    th = table.hand
    if th is not None and th.draws:
        return None
    if not table.records:
        return None
    record = table.records[-1]
    if record.get("void"):
        return None
    key = (id(record), lang)
    hit = _ENDED.get(key)
    if hit is not None and hit[0] is record:
        return hit[1]
    part = _build(record, lang)
    if len(_ENDED) > 256:
        _ENDED.clear()
    _ENDED[key] = (record, part)
    return part


def _build(record: dict[str, Any], lang: str) -> dict[str, Any]:
    """The ``ended`` part of ``record`` in ``lang``."""
    shown = _record_shown(record)
    board_text = record["cards"]["board"]
    board = _split(board_text) if board_text else []
    board_cards = parse_cards(board_text) if board_text else []
    hands: dict[str, str] = {}
    for seat, cards in shown.items():
        if len(cards) + len(board_cards) >= 5:
            hands[seat] = best_hand(parse_cards("".join(cards)) + board_cards).describe(lang)
    pots = []
    won: dict[int, int] = {}
    for index, pot in enumerate(record["pots"]):
        name = tr("pot.main", lang) if index == 0 else tr("pot.side", lang, number=index)
        shares = {str(k): int(v) for k, v in pot["shares"].items()}
        pots.append({"pot": name, "amount": int(pot["amount"]), "shares": shares})
        for seat, amount in shares.items():
            won[int(seat)] = won.get(int(seat), 0) + amount
    winners = [
        {"seat": seat, "amount": won[seat], "hand": hands.get(str(seat), "")}
        for seat in sorted(won)
    ]
    return {
        "hand": record["hand"],
        "board": board,
        "shown": shown,
        "hands": hands,
        "pots": pots,
        "winners": winners,
    }
