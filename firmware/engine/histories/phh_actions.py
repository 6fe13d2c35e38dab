"""Reading the ``actions`` of a PHH hand: action text to engine events.

Split from :mod:`firmware.engine.histories.phh`. :func:`fast_event` reads the plain spellings
that our writer and PokerKit produce with table look-ups (precomputed, so the
result never depends on what was read before); anything else, every error
included, goes through :func:`parse_action`, which words the error. Both
paths give equal events for the same text; events are immutable, so the
look-up tables hand out shared instances.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from firmware.engine.cards import format_card, parse_card
from firmware.engine.events import BetRaise, CheckCall, DealBoard, DealHole, Event, Fold, Muck, Show
from firmware.engine.histories.amounts import amount_text
from firmware.errors import CardError, HandHistoryError

MAX_PLAYERS: Final = 100
"""Player labels ``p1`` .. ``p100`` are read by the table look-ups."""

CARD_CODES: Final[dict[str, int]] = {format_card(c): c for c in range(52)}
"""Card text as PHH writes it (``Ac``) to card number; other spellings go through parse_card."""

PLAYER_LABELS: Final[dict[str, int]] = {f"p{i + 1}": i for i in range(MAX_PLAYERS)}
"""Player labels as PHH writes them (``p1``) to position index."""

_SIMPLE: Final[dict[str, tuple[int, Event]]] = {}
"""``pN cc``, ``pN f`` and ``pN sm`` to (player index, event)."""
for _label, _i in PLAYER_LABELS.items():
    _SIMPLE[f"{_label} cc"] = (_i, CheckCall(_i))
    _SIMPLE[f"{_label} f"] = (_i, Fold(_i))
    _SIMPLE[f"{_label} sm"] = (_i, Muck(_i))

PAIRS: Final[dict[str, tuple[int | None, ...]]] = {}
"""Two written cards (``AcKd``, ``????`` for unseen ones) to card numbers."""
for _a, _ca in [*CARD_CODES.items(), ("??", None)]:
    for _b, _cb in [*CARD_CODES.items(), ("??", None)]:
        PAIRS[_a + _b] = (_ca, _cb)
SHOWN_PAIRS: Final[dict[str, tuple[int, ...]]] = {
    a + b: (ca, cb) for a, ca in CARD_CODES.items() for b, cb in CARD_CODES.items()
}
"""Two written, known cards to card numbers (a show)."""


def action_error(source: str, index: int, text: str, why: str) -> HandHistoryError:
    """The error for action ``index`` (``text``) of the file ``source``."""
    shown = text if len(text) <= 60 else text[:60] + "..."
    return HandHistoryError(
        f"In {source}, action {index} ({shown!r}) {why}",
        key="error.phh.action",
        file=source,
        index=index,
        action=text,
    )


def fast_event(text: str, players: int) -> Event | None:
    """The event of a plainly written action, or ``None`` to take the full path.

    Only the exact spellings our writer and PokerKit produce are read here
    (one space between words, nothing after the last one), by slices of the
    text and table look-ups, without splitting it into words; any other text
    (other spacing, comments, and every error) goes through
    :func:`parse_action`, which reads the plain spellings the same way.
    """
    simple = _SIMPLE.get(text)
    if simple is not None:
        return simple[1] if simple[0] < players else None
    return fast_other(text, players)


def fast_other(text: str, players: int) -> Event | None:
    """:func:`fast_event` for a text known not to be ``pN cc``, ``pN f`` or ``pN sm``."""
    head = text[:5]
    if head == "d dh ":
        # "d dh pN XXYY": the label between the prefix and the last five characters.
        if text[-5:-4] != " ":
            return None
        who = PLAYER_LABELS.get(text[5:-5])
        hole = PAIRS.get(text[-4:])
        if who is None or who >= players or hole is None:
            return None
        return DealHole(who, hole)
    if head == "d db ":
        codes = CARD_CODES
        size = len(text)
        if size == 11:
            a = codes.get(text[5:7])
            b = codes.get(text[7:9])
            c = codes.get(text[9:])
            if a is None or b is None or c is None:
                return None
            return DealBoard((a, b, c))
        if size == 7:
            card = codes.get(text[5:])
            return None if card is None else DealBoard((card,))
        return None
    space = text.find(" ")
    if space < 0:
        return None
    player = PLAYER_LABELS.get(text[:space])
    if player is None or player >= players:
        return None
    verb = text[space + 1 : space + 5]
    if verb == "cbr ":
        arg = text[space + 5 :]
        if len(arg) <= 18 and arg.isascii() and arg.isdigit():
            return BetRaise(player, int(arg))
        return None
    if verb[:3] == "sm ":
        shown = SHOWN_PAIRS.get(text[space + 4 :])
        return None if shown is None else Show(player, shown)
    return None


UNKNOWN_SHOW: Final[tuple[int, ...]] = ()
"""The cards of ``pN sm ????``: a player showed, but nobody recorded the cards.

:func:`parse_action` returns ``Show(player, UNKNOWN_SHOW)`` for it; the engine
never sees that event (see :mod:`firmware.engine.histories.unknown`)."""


def parse_action(
    source: str, players: int, index: int, text: str, unit: Decimal | None = None
) -> Event | None:
    """The event action ``index`` (``text``) means, or ``None`` for a comment-only entry.

    :param unit: Value of one chip unit in the file's money (amounts are
        converted to chip units), or ``None`` for whole-chip amounts.
    :raises HandHistoryError: if the syntax is not PHH hold'em syntax.
    """
    event = fast_event(text, players) if unit is None else None
    if event is not None:
        return event
    body = text.split("#", 1)[0]
    words = body.split()
    if not words:
        return None

    def player(label: str) -> int:
        if label[:1] != "p" or not label[1:].isdigit():
            raise action_error(
                source, index, text, f"names {label!r}, which is not a player label like p1."
            )
        number = int(label[1:])
        if not 1 <= number <= players:
            raise action_error(
                source,
                index,
                text,
                f"names player {label}, but the hand has players p1 to p{players}.",
            )
        return number - 1

    def cards(chunk: str, unknown_ok: bool) -> tuple[int | None, ...]:
        if len(chunk) % 2:
            raise action_error(
                source, index, text, f"has cards {chunk!r} that do not split into pairs."
            )
        out: list[int | None] = []
        for k in range(0, len(chunk), 2):
            pair = chunk[k : k + 2]
            if pair == "??":
                if not unknown_ok:
                    raise action_error(
                        source,
                        index,
                        text,
                        "has an unknown card '??' where the engine needs the card; write the card.",
                    )
                out.append(None)
                continue
            card = CARD_CODES.get(pair)
            if card is None:
                try:
                    card = parse_card(pair)
                except CardError as exc:
                    raise action_error(
                        source, index, text, f"has a card that is not valid: {exc}"
                    ) from exc
            out.append(card)
        return tuple(out)

    match words:
        case ["d", "dh", label, chunk]:
            return DealHole(player(label), cards(chunk, unknown_ok=True))
        case ["d", "db", chunk]:
            return DealBoard(tuple(c for c in cards(chunk, unknown_ok=False) if c is not None))
        case [label, "f"]:
            return Fold(player(label))
        case [label, "cc"]:
            return CheckCall(player(label))
        case [label, "cbr", amount]:
            try:
                chips = amount_text(amount, unit, "the amount", source)
            except HandHistoryError as exc:
                why = str(exc).split(", ", 1)[-1]
                raise action_error(source, index, text, f"is not valid: {why}") from exc
            return BetRaise(player(label), chips)
        case [label, "sm"]:
            return Muck(player(label))
        case [label, "sm", "-"]:
            raise action_error(
                source,
                index,
                text,
                "shows cards without naming them; write the shown cards, for example 'p1 sm AcKd'.",
            )
        case [label, "sm", chunk]:
            if "?" in chunk and len(chunk) == 4:
                cards(chunk, unknown_ok=True)  # check the known card, if any
                return Show(player(label), UNKNOWN_SHOW)
            shown = cards(chunk, unknown_ok=False)
            return Show(player(label), tuple(c for c in shown if c is not None))
        case _:
            raise action_error(
                source,
                index,
                text,
                "is not Texas hold'em PHH syntax; the actions are 'd dh pN CARDS', 'd db CARDS', "
                "'pN f', 'pN cc', 'pN cbr AMOUNT', 'pN sm CARDS' and 'pN sm'.",
            )


def parse_actions(
    source: str, players: int, actions: tuple[str, ...], unit: Decimal | None = None
) -> list[tuple[int, str, Event]]:
    """``(index, text, event)`` of every action that is not a comment, in order.

    :param unit: As for :func:`parse_action`.
    :raises HandHistoryError: at the first action whose syntax is not PHH hold'em syntax.
    """
    out: list[tuple[int, str, Event]] = []
    simple_table = _SIMPLE
    for index, text in enumerate(actions):
        event: Event | None = None
        if unit is None:
            # "pN cc", "pN f" and "pN sm" (about half the actions) without a call.
            simple = simple_table.get(text)
            if simple is not None and simple[0] < players:
                event = simple[1]
            else:
                event = fast_other(text, players)
        if event is None:
            event = parse_action(source, players, index, text, unit)
            if event is None:
                continue
        out.append((index, text, event))
    return out
