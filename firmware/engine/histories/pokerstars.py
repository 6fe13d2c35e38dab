"""Writing our engine's hands as PokerStars-style hand-history text.

Players' tracking tools (and hand-history parsers such as the ``poker``
package's ``PokerStarsHandHistory``) read the layout PokerStars writes:
a header with the stakes, currency and date, the table line with the
button's seat, seat lines with stacks, the posts, ``*** HOLE CARDS ***`` and
``Dealt to`` lines, one section per street with its board, the actions in the
site's wording (``bets``, ``calls``, ``raises X to Y``, ``checks``, ``folds``,
``and is all-in``), ``Uncalled bet (X) returned to``, ``*** SHOW DOWN ***``,
``collected X from pot`` and a ``*** SUMMARY ***`` with the total pot, the
rake, the board and one line per seat.

:func:`hand_to_pokerstars` replays the hand's events on a fresh
:class:`~firmware.engine.hand.Hand` to word each action from the state it
was taken in (a call's amount, a raise's increment, an all-in, a returned
bet). Amounts are chip units written with :class:`PokerStarsStyle`'s unit
and currency: ``unit=None`` writes whole chips without a currency, as
tournament and play-money hands are written. All-in hands are shown in the
``SHOW DOWN`` section, as PokerStars did before showing them at the all-in.
The engine does no I/O: dates come in as :class:`~datetime.datetime` objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from firmware.engine.cards import format_card
from firmware.engine.evaluator import best_hand
from firmware.engine.events import (
    BetRaise,
    CheckCall,
    DealBoard,
    Event,
    Fold,
    KillHand,
    Muck,
    Show,
    StartHand,
    VoidHand,
)
from firmware.engine.hand import Hand, Phase
from firmware.engine.histories.amounts import chips_text
from firmware.engine.histories.rake import net_shares, pot_rakes
from firmware.engine.rules import Structure
from firmware.engine.state import HandResult, PotResult
from firmware.errors import HandHistoryError

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}
"""Currencies PokerStars writes with a symbol before the amount."""

LIMITS = {
    Structure.NO_LIMIT: "No Limit",
    Structure.POT_LIMIT: "Pot Limit",
    Structure.FIXED_LIMIT: "Limit",
}
"""The betting structure as PokerStars names it in the header."""

STREETS = {3: "FLOP", 4: "TURN", 5: "RIVER"}
"""Street headers by the number of board cards they complete."""

_ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"]


@dataclass(frozen=True)
class PokerStarsStyle:
    """How a hand is labelled and its amounts written.

    :param hand_id: The hand number (``PokerStars Hand #...``).
    :param table: The table's name.
    :param started: When the hand started (local time of the card room).
    :param eastern: The same instant in US Eastern time (PokerStars writes both).
    :param zone: Abbreviation of the card room's time zone (``UTC``).
    :param unit: Money value of one chip unit (``0.01``), or ``None`` for chips.
    :param currency: ISO code of the money (``USD``), unused for chips.
    :param max_seats: Seats at the table (``6-max``).
    :param button: The button's seat (defaults to the last player in position order).
    :param tournament: Tournament number; ``None`` for a cash game.
    :param buy_in: Tournament buy-in as written (``$10+$1 USD``); ``None`` writes ``Freeroll``.
    :param level: Tournament level number (1 is ``Level I``).
    :param hero: Seat written first in ``Dealt to`` (trackers take it as the hero).
    :param rake: Chips the house took from the pot (0 for none).
    """

    hand_id: int
    table: str
    started: datetime
    eastern: datetime
    zone: str = "UTC"
    unit: Decimal | None = None
    currency: str = "USD"
    max_seats: int = 10
    button: int | None = None
    tournament: int | None = None
    buy_in: str | None = None
    level: int = 1
    hero: int | None = None
    rake: int = 0

    def money(self, chips: int) -> str:
        """An amount as PokerStars writes it (``$0.25``, ``0.25 PEN`` or ``25`` chips)."""
        if self.unit is None:
            return str(chips)
        text = chips_text(chips, self.unit)
        symbol = SYMBOLS.get(self.currency)
        return f"{symbol}{text}" if symbol else text


def _cards(cards: tuple[int, ...] | list[int]) -> str:
    return " ".join(format_card(c) for c in cards)


def _header(hand: Hand, start: StartHand, style: PokerStarsStyle) -> list[str]:
    config = start.config
    game = f"Hold'em {LIMITS[config.structure]}"
    if config.structure is Structure.FIXED_LIMIT:
        small, big = config.min_bet, config.street_bet(3)
    else:
        blinds = sorted({b for b in start.blinds if b})
        big = config.min_bet
        small = blinds[0] if blinds and blinds[0] < big else big // 2
    when = style.started.strftime("%Y/%m/%d %H:%M:%S")
    eastern = style.eastern.strftime("%Y/%m/%d %H:%M:%S")
    date = f"{when} {style.zone} [{eastern} ET]"
    if style.tournament is not None:
        level = _ROMAN[style.level - 1] if 1 <= style.level <= len(_ROMAN) else str(style.level)
        buy_in = style.buy_in or "Freeroll"
        head = (
            f"PokerStars Hand #{style.hand_id}: Tournament #{style.tournament}, {buy_in} "
            f"{game} - Level {level} ({small}/{big}) - {date}"
        )
        table = f"{style.tournament} 1" if style.table == "" else style.table
    else:
        if style.unit is None:
            stakes = f"{small}/{big}"
        else:
            stakes = f"{style.money(small)}/{style.money(big)} {style.currency}"
        head = f"PokerStars Hand #{style.hand_id}:  {game} ({stakes}) - {date}"
        table = style.table
    button = style.button if style.button is not None else start.seats[-1]
    return [head, f"Table '{table}' {style.max_seats}-max Seat #{button} is the button"]


def _positions(start: StartHand, style: PokerStarsStyle) -> dict[int, str]:
    """`` (button)``, `` (small blind)``, `` (big blind)`` by position index."""
    n = len(start.seats)
    button = style.button if style.button is not None else start.seats[-1]
    labels = {i: "" for i in range(n)}
    for i, seat in enumerate(start.seats):
        if seat == button:
            labels[i] += " (button)"
    small, big = (1, 0) if n == 2 else (0, 1)
    if start.blinds[small]:
        labels[small] += " (small blind)"
    if start.blinds[big]:
        labels[big] += " (big blind)"
    return labels


def _posts(start: StartHand, style: PokerStarsStyle) -> list[str]:
    n = len(start.seats)
    stacks = list(start.stacks)
    lines: list[str] = []

    def post(i: int, what: str, amount: int) -> None:
        paid = min(amount, stacks[i])
        stacks[i] -= paid
        allin = " and is all-in" if stacks[i] == 0 else ""
        lines.append(f"{start.names[i]}: posts {what}{style.money(paid)}{allin}")

    for i in range(n):
        if start.dead[i]:
            post(i, "the ante ", start.dead[i])
    for i in range(n):
        if start.antes[i]:
            post(i, "the ante ", start.antes[i])
    order = [1, 0] if n == 2 else list(range(n))
    big = start.config.min_bet
    for i in order:
        blind = start.blinds[i]
        if blind:
            what = "small blind " if blind < big else "big blind " if blind == big else "straddle "
            post(i, what, blind)
    return lines


def _action(hand: Hand, event: Event, style: PokerStarsStyle) -> str | None:
    """The action line for ``event``, worded from ``hand`` before it is applied."""
    if isinstance(event, Fold):
        return f"{hand.names[event.player]}: folds"
    if isinstance(event, KillHand):
        return f"{hand.names[event.player]}: folds"
    if isinstance(event, CheckCall):
        p = event.player
        owed = min(hand.current_bet - hand.bets[p], hand.stacks[p])
        if owed <= 0:
            return f"{hand.names[p]}: checks"
        allin = " and is all-in" if owed == hand.stacks[p] else ""
        return f"{hand.names[p]}: calls {style.money(owed)}{allin}"
    if isinstance(event, BetRaise):
        p = event.player
        allin = " and is all-in" if event.to - hand.bets[p] == hand.stacks[p] else ""
        if hand.current_bet == 0:
            return f"{hand.names[p]}: bets {style.money(event.to)}{allin}"
        raised = event.to - hand.current_bet
        return f"{hand.names[p]}: raises {style.money(raised)} to {style.money(event.to)}{allin}"
    return None


def hand_to_pokerstars(hand: Hand, style: PokerStarsStyle) -> str:
    """Our complete ``hand`` as PokerStars-style text.

    :raises HandHistoryError: if the hand is not complete or was voided (a
        void hand has no PokerStars form; keep it in the journal).
    """
    start = hand.events[0]
    assert isinstance(start, StartHand)
    if hand.voided is not None or any(isinstance(e, VoidHand) for e in hand.events):
        raise HandHistoryError(
            "A void hand has no PokerStars form: nobody won it. Export it as JSON or PHH instead."
        )
    result = hand.result
    if result is None:
        raise HandHistoryError("Only a finished hand can be written as PokerStars text.")
    names = start.names
    lines = _header(hand, start, style)
    for i in sorted(range(len(start.seats)), key=lambda k: start.seats[k]):
        stack = style.money(start.stacks[i])
        lines.append(f"Seat {start.seats[i]}: {names[i]} ({stack} in chips)")
    lines.extend(_posts(start, style))
    lines.append("*** HOLE CARDS ***")
    lines.extend(_dealt(hand, start, style))
    body, folded_on = _streets(hand, start, style)
    lines.extend(body)
    lines.extend(_summary(hand, start, style, folded_on))
    return "\n".join(lines) + "\n"


def _dealt(hand: Hand, start: StartHand, style: PokerStarsStyle) -> list[str]:
    order = list(range(len(start.seats)))
    if style.hero is not None and style.hero in start.seats:
        hero = start.seats.index(style.hero)
        order.remove(hero)
        order.insert(0, hero)
    known = [i for i in order if len(hand.hole[i]) == 2 and None not in hand.hole[i]]
    unknown = [i for i in order if i not in known]
    lines = []
    for i in known:
        cards = _cards([c for c in hand.hole[i] if c is not None])
        lines.append(f"Dealt to {start.names[i]} [{cards}]")
    lines.extend(f"Dealt to {start.names[i]}" for i in unknown)
    return lines


def _streets(
    hand: Hand, start: StartHand, style: PokerStarsStyle
) -> tuple[list[str], dict[int, int]]:
    """Action lines by street, and the board size when each player folded."""
    replay = Hand.start(start)
    lines: list[str] = []
    shows: list[str] = []
    folded_on: dict[int, int] = {}
    awarded = {i: 0 for i in range(replay.player_count)}
    result = hand.result
    assert result is not None
    for pot in result.pots:
        for player, chips in pot.shares:
            awarded[player] += chips
    shown_by_event = {e.player for e in hand.events if isinstance(e, Show)}
    for i, cards in enumerate(hand.shown):
        if cards is not None and len(cards) == 2 and i not in shown_by_event:
            shows.append(_show_line(hand, start.names[i], cards))  # tabled all-in (TDA-9)
    n = replay.player_count
    waiting: dict[int, int] = {}  # killed out of turn: player -> first position not yet passed
    for event in hand.events[1:]:
        if isinstance(event, Show):
            shows.append(_show_line(hand, start.names[event.player], event.cards))
        elif isinstance(event, Muck):
            shows.append(f"{start.names[event.player]}: mucks hand")
        elif isinstance(event, Fold | KillHand):
            folded_on[event.player] = len(replay.board)
        actor = replay.actor
        if isinstance(event, Fold | CheckCall | BetRaise) and actor is not None:
            # A hand killed out of turn folds, in PokerStars' wording, when its turn comes.
            due: list[tuple[int, int]] = []
            for p, cursor in list(waiting.items()):
                cursor = actor if cursor < 0 else cursor  # killed before the betting began
                if (p - cursor) % n < (actor - cursor) % n:
                    due.append(((p - cursor) % n, p))
                    del waiting[p]
                else:
                    waiting[p] = (actor + 1) % n
            lines.extend(f"{start.names[p]}: folds" for _d, p in sorted(due))
        text = _action(replay, event, style)
        if isinstance(event, KillHand) and actor != event.player:
            waiting[event.player] = -1 if actor is None else actor
            text = None
        before = list(replay.stacks)
        board = len(replay.board)
        replay.apply(event)
        if text is not None:
            lines.append(text)
        if (
            waiting
            and replay.phase is not Phase.DEALING
            and (replay.phase is not Phase.BETTING or len(replay.board) != board)
        ):
            base = next(iter(waiting.values()))
            order = sorted(waiting, key=lambda p: (p - max(base, 0)) % n)
            lines.extend(f"{start.names[p]}: folds" for p in order)
            waiting.clear()
        if isinstance(event, DealBoard):
            for size in range(board + 1, len(replay.board) + 1):
                if size in STREETS:
                    shown = replay.board[:size]
                    prior = f"[{_cards(shown[: size - 1])}] " if size > 3 else ""
                    now = f"[{_cards(shown[size - 1 :])}]" if size > 3 else f"[{_cards(shown)}]"
                    lines.append(f"*** {STREETS[size]} *** {prior}{now}")
        done = replay.phase is Phase.COMPLETE
        for i, (old, new) in enumerate(zip(before, replay.stacks, strict=True)):
            back = new - old - (awarded[i] if done else 0)
            if back > 0:
                lines.append(f"Uncalled bet ({style.money(back)}) returned to {start.names[i]}")
    if shows:
        lines.append("*** SHOW DOWN ***")
        lines.extend(shows)
    lines.extend(_collected(hand, start, style))
    return lines, folded_on


def _show_line(hand: Hand, name: str, cards: tuple[int, ...]) -> str:
    return f"{name}: shows [{_cards(list(cards))}]{_describe(hand, cards)}"


def _describe(hand: Hand, cards: tuple[int, ...]) -> str:
    if len(hand.board) < 3 or len(cards) != 2:
        return ""
    return f" ({best_hand([*cards, *hand.board]).describe('en').lower()})"


def _pot_names(count: int) -> list[str]:
    if count == 1:
        return ["pot"]
    if count == 2:
        return ["main pot", "side pot"]
    return ["main pot", *(f"side pot-{k}" for k in range(1, count))]


def _paid(result: HandResult, style: PokerStarsStyle) -> list[tuple[PotResult, list[int]]]:
    """Each pot (with chips) and what its winners collected after the rake.

    A hand the table raked (HOUSE-RAKE) already pays its winners net: its
    shares are written as they are. Otherwise ``style.rake`` is taken from the
    pots in proportion to their size (a rake the table did not take itself).
    A jackpot drop (JACKPOT) is taken like the rake.
    """
    pots = [pot for pot in result.pots if pot.amount]
    if result.rake or result.jackpot_drop:
        return [(pot, [chips for _player, chips in pot.shares]) for pot in pots]
    rakes = pot_rakes([pot.amount for pot in pots], style.rake)
    return [(pot, net_shares(pot.shares, rake)) for pot, rake in zip(pots, rakes, strict=True)]


def _collected(hand: Hand, start: StartHand, style: PokerStarsStyle) -> list[str]:
    result = hand.result
    assert result is not None
    pots = [pot for pot in result.pots if pot.amount]
    lines = []
    for name, (pot, paid) in zip(_pot_names(len(pots)), _paid(result, style), strict=True):
        for (player, _chips), chips in zip(pot.shares, paid, strict=True):
            lines.append(f"{start.names[player]} collected {style.money(chips)} from {name}")
    return lines


def _summary(
    hand: Hand, start: StartHand, style: PokerStarsStyle, folded_on: dict[int, int]
) -> list[str]:
    result = hand.result
    assert result is not None
    pots = [pot for pot in result.pots if pot.amount]
    total = sum(pot.amount for pot in pots)
    lines = ["*** SUMMARY ***"]
    split = ""
    if len(pots) > 1:
        names = [n.capitalize() for n in _pot_names(len(pots))]
        split = " " + " ".join(
            f"{n} {style.money(p.amount)}." for n, p in zip(names, pots, strict=True)
        )
    # The format has one field for what the house took: the rake and the jackpot drop.
    raked = (result.rake + result.jackpot_drop) or style.rake
    lines.append(f"Total pot {style.money(total)}{split} | Rake {style.money(raked)}")
    if hand.board:
        lines.append(f"Board [{_cards(hand.board)}]")
    labels = _positions(start, style)
    won = {i: 0 for i in range(len(start.seats))}
    for pot, paid in _paid(result, style):
        for (player, _c), chips in zip(pot.shares, paid, strict=True):
            won[player] += chips
    showdown = any(cards is not None and len(cards) == 2 for cards in hand.shown)
    for i in sorted(range(len(start.seats)), key=lambda k: start.seats[k]):
        who = f"Seat {start.seats[i]}: {start.names[i]}{labels[i]}"
        shown = hand.shown[i]
        if i in folded_on:
            street = folded_on[i]
            where = "before Flop" if street < 3 else f"on the {STREETS[street].capitalize()}"
            quiet = " (didn't bet)" if street < 3 and _put_in(hand, start, i) == 0 else ""
            lines.append(f"{who} folded {where}{quiet}")
        elif shown is not None and len(shown) == 2 and showdown:
            desc = _describe(hand, shown).strip(" ()")
            result_text = f"won ({style.money(won[i])})" if won[i] else "lost"
            with_text = f" with {desc}" if desc else ""
            lines.append(f"{who} showed [{_cards(list(shown))}] and {result_text}{with_text}")
        elif hand.mucked[i]:
            lines.append(f"{who} mucked")
        elif won[i]:
            lines.append(f"{who} collected ({style.money(won[i])})")
        else:
            lines.append(f"{who} lost")
    return lines


def _put_in(hand: Hand, start: StartHand, player: int) -> int:
    """Chips the player put in voluntarily (blinds and antes aside)."""
    result = hand.result
    assert result is not None
    forced = start.blinds[player] + start.antes[player] + start.dead[player]
    spent = start.stacks[player] - result.finishing_stacks[player]
    return max(0, spent - forced)


__all__ = ["PokerStarsStyle", "hand_to_pokerstars"]
