"""Playing a PHH hand through our engine: :func:`play_phh` and :class:`PHHReplay`.

Split from :mod:`firmware.engine.histories.phh`, which documents the format and
the conventions accepted; import these names from there.

Two paths give the same result, error for error:

* the general one reads every action first (:func:`parse_actions`, so the
  file's first syntax error is reported before anything is played), then plays
  them; it also resolves ``pN sm ????`` and given hole cards;
* the plain one, for files without a ``?``, a chip unit or given hole cards (what
  our writer and PokerKit produce), reads each action and plays it at once,
  without a list of ``(index, text, event)`` items in between. When an action is
  refused, the actions after it are read before the refusal is reported, so that
  a later syntax error is still the one reported, as on the general path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from firmware.engine.events import (
    BetRaise,
    CheckCall,
    DealBoard,
    DealHole,
    Event,
    Fold,
    Muck,
    Show,
)
from firmware.engine.hand import Hand
from firmware.engine.histories.phh_actions import (
    CARD_CODES,
    PAIRS,
    PLAYER_LABELS,
    SHOWN_PAIRS,
    action_error,
    parse_action,
    parse_actions,
)
from firmware.engine.histories.phh_hand import PHHHand
from firmware.engine.rules import GameKind
from firmware.engine.showdown import auto_showdown_event
from firmware.engine.state import BOARD, COMPLETE, SHOWDOWN
from firmware.errors import HandHistoryError, IllegalAction

_Item = tuple[int, str, Event]
"""An action as played: its index in the file, its text and its event."""


@dataclass(frozen=True)
class PHHReplay:
    """A PHH hand played through our engine.

    :param phh: The hand as read.
    :param hand: Our engine's hand after the last action.
    :param auto_showdown: Number of show/muck events added by
        :func:`~firmware.engine.showdown.auto_showdown_event` because the file's
        actions stopped at the showdown.
    """

    phh: PHHHand
    hand: Hand
    auto_showdown: int

    def __init__(self, phh: PHHHand, hand: Hand, auto_showdown: int) -> None:
        # Spelled out so that the compiled build compiles it (see firmware.engine.events).
        object.__setattr__(self, "phh", phh)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "auto_showdown", auto_showdown)


def _simple_table(players: int) -> dict[str, Event]:
    """``pN cc``, ``pN f`` and ``pN sm`` of the ``players`` players of a hand, to their events."""
    table: dict[str, Event] = {}
    for label, i in PLAYER_LABELS.items():
        if i < players:
            table[f"{label} cc"] = CheckCall(i)
            table[f"{label} f"] = Fold(i)
            table[f"{label} sm"] = Muck(i)
    return table


_DEAL: Final = 0
_SHOW: Final = 1
_RAISE: Final = 2
_BOARD: Final = 3


def _heads_table(players: int) -> dict[str, tuple[int, int]]:
    """What comes before the last word of the other plain actions, to (kind, player):
    ``d dh pN `` (then two cards), ``pN sm `` (two cards), ``pN cbr `` (an amount) of
    the ``players`` players, and ``d db `` (one or three cards)."""
    table = {"d db ": (_BOARD, 0)}
    for label, i in PLAYER_LABELS.items():
        if i < players:
            table[f"d dh {label} "] = (_DEAL, i)
            table[f"{label} sm "] = (_SHOW, i)
            table[f"{label} cbr "] = (_RAISE, i)
    return table


_SIMPLE_FOR: Final[tuple[dict[str, Event], ...]] = tuple(_simple_table(n) for n in range(11))
""":func:`_simple_table` of hands of up to ten players (a PHH file has at most ten)."""
_HEADS_FOR: Final[tuple[dict[str, tuple[int, int]], ...]] = tuple(
    _heads_table(n) for n in range(11)
)
""":func:`_heads_table` of hands of up to ten players."""


def play_phh(
    phh: PHHHand,
    game: GameKind = GameKind.TOURNAMENT,
    *,
    finish_showdown: bool = False,
    holes: dict[int, tuple[int, ...]] | None = None,
) -> PHHReplay:
    """Apply every action of ``phh`` to a new hand of our engine.

    :param game: Cash game or tournament rules (the fixed-limit cap heads-up differs).
    :param finish_showdown: If the actions stop exactly at the showdown,
        finish it with :func:`~firmware.engine.showdown.auto_showdown_event`.
    :param holes: Hole cards to use for some players (position index to two
        cards) in place of the dealt ones and of their ``sm ????`` shows; a
        ``sm ????`` of any other player shows the cards dealt to him, which
        must be known (:func:`firmware.engine.histories.unknown.decide_phh`
        handles the other case).
    :raises HandHistoryError: naming the file, the action and the reason, if an
        action is not legal, the hand does not start, or it ends early.
    """
    try:
        hand = Hand.start(phh.start_event(game))
    except IllegalAction as exc:
        raise HandHistoryError(f"The hand in {phh.source} cannot start: {exc}") from exc
    last: tuple[int, str] | None
    if holes or phh.unit is not None or "?" in "".join(phh.actions):
        items = parse_actions(phh.source, phh.player_count, phh.actions, phh.unit)
        # Only "pN sm ????" (a "?" in the text) reads as a show of no cards.
        if holes or any(isinstance(i[2], Show) and not i[2].cards for i in items):
            items = _with_holes(phh, items, holes or {})
        last = _play_items(phh, hand, items)
    else:
        last = _play_plain(phh, hand)
    added = 0
    if hand.phase is SHOWDOWN and finish_showdown:
        while hand.phase is SHOWDOWN:
            try:
                hand.apply(auto_showdown_event(hand))
            except IllegalAction as exc:
                raise HandHistoryError(
                    f"In {phh.source}, the actions stop at the showdown and it cannot be "
                    f"finished for the file: {exc} Add the show or muck actions.",
                    key="error.phh.incomplete",
                    file=phh.source,
                ) from exc
            added += 1
    if hand.phase is not COMPLETE:
        _incomplete(phh, hand, last)
    return PHHReplay(phh=phh, hand=hand, auto_showdown=added)


def _incomplete(phh: PHHHand, hand: Hand, last: tuple[int, str] | None) -> None:
    """Refuse a hand whose actions end before it is complete, saying what it waits for."""
    waits, who = hand.expected()
    after = f"after action {last[0]} ({last[1]!r})" if last else "before any action"
    what = {
        "hole": f"hole cards for p{(who or 0) + 1}",
        "action": f"an action by p{(who or 0) + 1}",
        "board": f"{who} board card(s)",
        "show": f"p{(who or 0) + 1} to show or muck",
    }.get(waits, waits)
    hint = (
        "; replay with the showdown finished automatically, or add the show/muck actions"
        if waits == "show"
        else "; the file is incomplete or an action is missing"
    )
    raise HandHistoryError(
        f"In {phh.source}, the actions end {after} before the hand is complete: "
        f"the hand waits for {what}{hint}.",
        key="error.phh.incomplete",
        file=phh.source,
    )


def _play_items(phh: PHHHand, hand: Hand, items: list[_Item]) -> tuple[int, str] | None:
    """Play actions read beforehand; return the last one's index and text."""
    deferred: list[_Item] = []
    item: _Item | None = None
    for item in items:
        _play_item(phh, hand, item, deferred)
    _apply_deferred(phh, hand, deferred)
    return None if item is None else (item[0], item[1])


def _play_plain(phh: PHHHand, hand: Hand) -> tuple[int, str] | None:
    """Read and play each action in turn (see the module's note); return the last one's
    index and text."""
    source = phh.source
    actions = phh.actions
    players = phh.player_count
    if players < len(_SIMPLE_FOR):
        simple = _SIMPLE_FOR[players]
        heads = _HEADS_FOR[players]
    else:
        simple = _simple_table(players)
        heads = _heads_table(players)
    pairs = PAIRS
    shown_pairs = SHOWN_PAIRS
    codes = CARD_CODES
    apply = hand.apply
    deferred: list[_Item] = []
    last = -1
    index = -1
    error: HandHistoryError | None = None
    for text in actions:
        index += 1
        # The spellings fast_event reads, read the same way here without a call: the
        # whole text, else what comes before its last word, in tables of this hand's
        # players.
        event = simple.get(text)
        if event is None:
            space = text.rfind(" ")
            head = heads.get(text[: space + 1])
            if head is not None:
                what, who = head
                tail = text[space + 1 :]
                if what == _DEAL:
                    hole = pairs.get(tail)
                    if hole is not None:
                        event = DealHole(who, hole)
                elif what == _RAISE:
                    if len(tail) <= 18 and tail.isascii() and tail.isdigit():
                        event = BetRaise(who, int(tail))
                elif what == _SHOW:
                    shown = shown_pairs.get(tail)
                    if shown is not None:
                        event = Show(who, shown)
                elif len(tail) == 6:
                    a = codes.get(tail[:2])
                    b = codes.get(tail[2:4])
                    c = codes.get(tail[4:])
                    if a is not None and b is not None and c is not None:
                        event = DealBoard((a, b, c))
                elif len(tail) == 2:
                    card = codes.get(tail)
                    if card is not None:
                        event = DealBoard((card,))
            if event is None:
                # Anything else: the full reader (a syntax error here is the file's first).
                event = parse_action(source, players, index, text)
                if event is None:
                    continue  # a comment only
        last = index
        kind = type(event)
        if deferred or kind is Show or kind is Muck or hand.phase is COMPLETE:
            try:
                _play_item(phh, hand, (index, text, event), deferred)
            except HandHistoryError as exc:
                error = exc
                break
        else:
            try:
                apply(event)
            except IllegalAction as exc:
                error = _illegal(phh, (index, text, event), exc)
                error.__cause__ = exc
                error.__suppress_context__ = True
                break
    if error is not None:
        # Read every later action first: the general path reports a syntax error anywhere
        # in the file before any refusal.
        for later in range(index + 1, len(actions)):
            parse_action(source, players, later, actions[later])
        raise error
    _apply_deferred(phh, hand, deferred)
    return None if last < 0 else (last, actions[last])


def _play_item(phh: PHHHand, hand: Hand, item: _Item, deferred: list[_Item]) -> None:
    """Play one action, holding back shows made before an all-in runout (see ``phh``)."""
    event = item[2]
    kind = type(event)
    if kind is Show or kind is Muck:
        if kind is Show and _already_tabled(hand, event):  # type: ignore[arg-type]
            return
        if hand.cards_up and hand.phase is BOARD:
            # PokerKit shows all-in hands before the runout; ours are tabled then.
            if kind is Muck:
                raise _fail(
                    phh,
                    item[0],
                    item[1],
                    "mucks a hand that is all-in before the board is run out; such hands "
                    "are tabled (TDA-9) and cannot be mucked.",
                )
            deferred.append(item)
            return
    if hand.phase is COMPLETE:
        raise _fail(
            phh,
            item[0],
            item[1],
            "comes after the hand is already over; remove it or check the actions before it.",
        )
    try:
        hand.apply(event)
    except IllegalAction as exc:
        raise _illegal(phh, item, exc) from exc
    if deferred and (hand.phase is COMPLETE or hand.phase is SHOWDOWN):
        _apply_deferred(phh, hand, deferred)
        deferred.clear()


def _with_holes(phh: PHHHand, items: list[_Item], holes: dict[int, tuple[int, ...]]) -> list[_Item]:
    """``items`` with the given hole cards dealt and shown, and ``sm ????`` resolved."""
    dealt: dict[int, tuple[int | None, ...]] = {}
    out: list[_Item] = []
    for index, text, event in items:
        if isinstance(event, DealHole):
            if event.player in holes:
                event = DealHole(event.player, holes[event.player])
            dealt[event.player] = dealt.get(event.player, ()) + event.cards
        elif isinstance(event, Show) and not event.cards:
            cards = holes.get(event.player) or dealt.get(event.player, ())
            if len(cards) != 2 or None in cards:
                raise HandHistoryError(
                    f"In {phh.source}, action {index} ({text!r}) shows cards nobody recorded "
                    f"for p{event.player + 1}, whose hole cards are not known either; the "
                    "result may depend on them.",
                    key="error.phh.unknown_show",
                    file=phh.source,
                )
            event = Show(event.player, tuple(c for c in cards if c is not None))
        out.append((index, text, event))
    return out


def _apply_deferred(phh: PHHHand, hand: Hand, deferred: list[_Item]) -> None:
    """Apply shows made before an all-in runout, now that the showdown has begun."""
    for item in deferred:
        event = item[2]
        if isinstance(event, Show) and _already_tabled(hand, event):
            continue
        if hand.phase is COMPLETE:
            raise _fail(
                phh,
                item[0],
                item[1],
                "shows cards that do not match the hand this player tabled at the showdown.",
            )
        try:
            hand.apply(event)
        except IllegalAction as exc:
            raise _illegal(phh, item, exc) from exc


def _already_tabled(hand: Hand, event: Show) -> bool:
    if not 0 <= event.player < hand.player_count:
        return False
    shown = hand.shown[event.player]
    return shown is not None and len(shown) == 2 and set(shown) == set(event.cards)


def _fail(phh: PHHHand, index: int, text: str, why: str) -> HandHistoryError:
    return action_error(phh.source, index, text, why)


def _illegal(phh: PHHHand, item: _Item, exc: IllegalAction) -> HandHistoryError:
    note = (
        " (the engine numbers players from 0: its player 0 is p1)" if "player" in str(exc) else ""
    )
    return _fail(phh, item[0], item[1], f"is not legal here: {exc}{note}")
