"""Bad-beat jackpot, jackpot drop and high hand: decided from the cards (JACKPOT).

A house procedure (the seeds say nothing of jackpots); ``docs/rules.md``
describes it under **JACKPOT** with every option. This module is pure: the
rules come from the ``[jackpot]`` section through :func:`parse_jackpot`, the
hands from the cards the table read (a finished hand's record, see
:func:`Showdown.from_record`), and every answer is computed, never stored.

A qualifying hand is written as five rank codes, best group first, such as
``"AAATT"`` (aces full of tens) or ``"88882"`` (four eights); a trailing ``s``
makes the five cards one suit (``"98765s"`` is the nine-high straight flush).
A hand qualifies when it is at least as strong
as that five-card hand.

>>> rules = parse_jackpot({"qualifying_hand": "AAATT"})
>>> rules.describe("en")
'Full house, aces full of tens'
>>> from firmware.engine.cards import parse_cards
>>> hand = Showdown(
...     board=tuple(parse_cards("AsAcTcThJc")),  # the board pairs the loser's ten
...     hole={1: tuple(parse_cards("AhTd")), 2: tuple(parse_cards("KcQc"))},
...     dealt=(1, 2, 3, 4), pot=400)
>>> bad_beat(rules, hand).reason
'jackpot.verdict.counterfeit'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from firmware.engine.cards import RANKS, Card, check_distinct, make_card, parse_cards
from firmware.engine.evaluator import Category, HandValue, best_hand, category_of, evaluate
from firmware.engine.rules import JackpotDropPolicy
from firmware.errors import CardError, ConfigError

_K = TypeVar("_K")

RULE = "JACKPOT"
"""The house procedure's name in ``docs/rules.md``."""

MAX_CHIPS = 10**12
"""The largest amount an option may give (the table's 64-bit chips)."""

SHARES = ("loser_percent", "winner_percent", "table_percent", "reserve_percent")
"""The four shares of a bad-beat fund, in whole percents summing to 100."""


def _section_error(message: str, key: str, **params: Any) -> ConfigError:
    return ConfigError(message, key=key, **params)


def parse_hand_code(code: str) -> tuple[Card, ...]:
    """Five cards for a hand code such as ``"AAATT"`` (any suits, never a flush)
    or ``"AKQJTs"`` (all one suit).

    :raises ConfigError: unless the code is five ranks, at most four of a rank,
        and (with ``s``) five different ranks.
    """
    text = code.strip()
    suited = len(text) == 6 and text[5] in "sS"
    ranks_text = text[:5] if suited else text
    ranks = [RANKS.find(ch.upper()) for ch in ranks_text]
    bad = (
        len(ranks) != 5
        or min(ranks, default=-1) < 0
        or any(ranks.count(r) > 4 for r in ranks)
        or (suited and len(set(ranks)) != 5)
    )
    if bad:
        raise _section_error(
            f"The hand {code!r} of [jackpot] is not a hand code; write five ranks best group "
            "first, such as 'AAATT' (aces full of tens) or '88882' (four eights), "
            "and an 's' after five different ranks for one suit ('98765s').",
            key="config.jackpot.hand",
            value=repr(code)[:40],
        )
    if suited:
        return tuple(make_card(r, 3) for r in ranks)
    seen: dict[int, int] = {}
    cards = []
    for r in ranks:
        cards.append(make_card(r, seen.get(r, 0)))
        seen[r] = seen.get(r, 0) + 1
    if len(seen) == 5:  # five different ranks, all clubs: make it no flush
        cards[4] = make_card(ranks[4], 1)
    return tuple(cards)


@dataclass(frozen=True)
class JackpotRules:
    """The ``[jackpot]`` section: who qualifies, who shares, what each pot drops.

    :raises ConfigError: with one sentence for the first wrong value.
    """

    qualifying_hand: str = "AAATT"
    """The weakest losing hand that qualifies, as a hand code (module docstring)."""
    both_hole_cards: bool = True
    """Each of the loser's hole cards must play (see :func:`hole_cards_playing`)."""
    pocket_pair_for_quads: bool = True
    """Four of a kind qualifies only with a pocket pair of its rank."""
    min_players_dealt: int = 4
    """Players dealt in at least (2 to 10)."""
    min_pot: int = 0
    """The hand's pot at least, in chips."""
    loser_percent: int = 50
    """Share of the fund for the best losing hand (split between equal ones)."""
    winner_percent: int = 25
    """Share for the winning hand (split between equal ones)."""
    table_percent: int = 15
    """Share for the other players dealt in, equally; to the reserve if there is none."""
    reserve_percent: int = 10
    """Share kept to seed the next jackpot; it also receives every rounding remainder."""
    drop_percent: int = 0
    """Jackpot drop: percent of each qualifying pot taken into the fund (0: none)."""
    drop_cap: int = 0
    """Most chips one pot drops (0: no cap)."""
    drop_min_pot: int = 0
    """Smallest pot that drops; a pot drops only if the flop was dealt."""
    high_hand: str = ""
    """High hand of the hour: the weakest hand that counts, as a hand code ('': none)."""
    high_hand_both_hole_cards: bool = True
    """The high hand must use both hole cards."""
    high_hand_minutes: int = 60
    """Length of a high-hand window in minutes."""
    high_hand_prize: int = 0
    """Chips the house pays the high hand of a window (equal hands split it)."""
    fund: int = 0
    """The bad-beat fund when the table starts counting (its seed); the table adds
    every jackpot drop it takes and keeps the reserve of each award."""
    strength: int = field(init=False, repr=False, compare=False, default=0)
    high_strength: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "strength", evaluate(parse_hand_code(self.qualifying_hand)))
        if self.high_hand:
            object.__setattr__(self, "high_strength", evaluate(parse_hand_code(self.high_hand)))
        total = sum(getattr(self, name) for name in SHARES)
        if any(getattr(self, name) < 0 for name in SHARES) or total != 100:
            raise _section_error(
                "The shares of [jackpot] (loser_percent, winner_percent, table_percent, "
                f"reserve_percent) must be 0 or more and sum to 100, but they sum to {total}.",
                key="config.jackpot.shares",
                total=total,
            )
        ranges = {
            "min_players_dealt": (2, 10),
            "min_pot": (0, MAX_CHIPS),
            "drop_percent": (0, 100),
            "drop_cap": (0, MAX_CHIPS),
            "drop_min_pot": (0, MAX_CHIPS),
            "high_hand_minutes": (1, 24 * 60),
            "high_hand_prize": (0, MAX_CHIPS),
            "fund": (0, MAX_CHIPS),
        }
        for name, (least, most) in ranges.items():
            value = getattr(self, name)
            if not least <= value <= most:
                raise _section_error(
                    f"The option {name} of [jackpot] must be from {least} to {most}, not {value}.",
                    key="config.jackpot.range",
                    option=name,
                    least=least,
                    most=most,
                    value=value,
                )

    def to_section(self) -> dict[str, Any]:
        """The options as a ``[jackpot]`` section (what :func:`parse_jackpot` reads back)."""
        return {name: getattr(self, name) for name in _TYPES}

    def drop_policy(self) -> JackpotDropPolicy | None:
        """The engine's policy for the drop (taken with the rake), ``None`` without one."""
        if not self.drop_percent:
            return None
        return JackpotDropPolicy(self.drop_percent, self.drop_cap, self.drop_min_pot)

    def describe(self, lang: str = "en") -> str:
        """The qualifying hand in words, in ``en`` or ``es``."""
        return best_hand(parse_hand_code(self.qualifying_hand)).describe(lang)


_TYPES: dict[str, type] = {
    "qualifying_hand": str,
    "both_hole_cards": bool,
    "pocket_pair_for_quads": bool,
    "min_players_dealt": int,
    "min_pot": int,
    "loser_percent": int,
    "winner_percent": int,
    "table_percent": int,
    "reserve_percent": int,
    "drop_percent": int,
    "drop_cap": int,
    "drop_min_pot": int,
    "high_hand": str,
    "high_hand_both_hole_cards": bool,
    "high_hand_minutes": int,
    "high_hand_prize": int,
    "fund": int,
}


def parse_jackpot(table: object) -> JackpotRules:
    """The rules of a ``[jackpot]`` section, every value checked.

    :raises ConfigError: one sentence naming the first unknown option or wrong value.
    """
    if not isinstance(table, Mapping):
        raise _section_error(
            "[jackpot] must be a section (a table of keys).", key="config.jackpot.not_table"
        )
    for name, value in table.items():
        expected = _TYPES.get(name)
        if expected is None:
            raise _section_error(
                f"[jackpot] has no option {name!r}; its options are {', '.join(_TYPES)}.",
                key="config.jackpot.unknown",
                option=repr(name)[:40],
                known=", ".join(_TYPES),
            )
        if type(value) is not expected or (type(value) is int and abs(value) > MAX_CHIPS):
            raise _section_error(
                f"The option {name} of [jackpot] must be {_TYPE_WORDS[expected]}, not {value!r}.",
                key="config.jackpot.type",
                option=name,
                expected={
                    "key": f"config.type.{expected.__name__}",
                    "params": {},
                    "text": _TYPE_WORDS[expected],
                },
                value=repr(value)[:40],
            )
    return JackpotRules(**table)


_TYPE_WORDS = {int: "a whole number", str: "a text", bool: "true or false"}


# --------------------------------------------------------------------------
# The hands
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Showdown:
    """What a finished hand's cards say: the inputs of every decision here.

    :ivar board: the five board cards (fewer: the hand did not reach showdown).
    :ivar hole: each seat's two hole cards tabled at the showdown.
    :ivar dealt: the seats dealt in.
    :ivar pot: the hand's whole pot in chips.
    :ivar flop: whether the flop was dealt (for the drop).
    :ivar number: the hand's number; ``finished_wall``: when it ended (UTC epoch s).
    """

    board: tuple[Card, ...]
    hole: Mapping[int, tuple[Card, ...]]
    dealt: tuple[int, ...]
    pot: int
    number: int = 0
    finished_wall: float = 0.0

    def __post_init__(self) -> None:
        cards = list(self.board)
        for seat, pair in self.hole.items():
            if len(pair) != 2 or seat not in self.dealt:
                raise CardError(
                    f"Seat {seat} needs two hole cards and to be dealt in to be at the showdown.",
                    key="error.jackpot.hole",
                    seat=seat,
                )
            cards.extend(pair)
        if len(self.board) > 5 or self.pot < 0:
            raise CardError(
                "A hand has at most five board cards and a pot of 0 or more.",
                key="error.jackpot.board",
            )
        check_distinct(cards)

    @property
    def reached_showdown(self) -> bool:
        """Five board cards and at least two hands tabled."""
        return len(self.board) == 5 and len(self.hole) >= 2

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Showdown:
        """The showdown of a finished hand's record (:func:`firmware.table.report.hand_record`):
        hands tabled by a ``show`` action or turned up by rule (TDA-9), the seats dealt two
        hole cards, the sum of the pots, ``finished_wall`` when the record has it.
        A voided hand has no showdown; a hand mucked or shown by one card is not tabled.
        """
        cards = record["cards"]
        hole_all = {int(s): tuple(parse_cards("".join(c))) for s, c in cards["hole"].items()}
        # Hands tabled in full: turned up by rule (TDA-9) or shown with both cards.
        tabled = {int(s) for s in cards.get("tabled_by_rule", {})}
        tabled |= {
            int(a["seat"])
            for a in record.get("actions", [])
            if a["action"] == "show" and len(a.get("cards", "")) == 4  # both cards shown
        }
        board = tuple(parse_cards(cards["board"])) if not record.get("void") else ()
        return cls(
            board=board,
            hole={s: hole_all[s] for s in sorted(tabled) if len(hole_all.get(s, ())) == 2},
            dealt=tuple(sorted(s for s, c in hole_all.items() if len(c) == 2)),
            pot=sum(int(p["amount"]) for p in record.get("pots", [])),
            number=int(record.get("hand", 0)),
            finished_wall=float(record.get("finished_wall") or 0.0),
        )


def hole_cards_playing(board: Sequence[Card], hole: Sequence[Card]) -> tuple[bool, bool]:
    """Whether each hole card plays, on a five-card board.

    A hole card plays when the hand without it (the other hole card and the board)
    is worse: a hole card that a board card of the same rank could replace in an
    equally good five does *not* play (the board counterfeits it).

    >>> from firmware.engine.cards import parse_cards as p
    >>> hole_cards_playing(p("AdAhTdTh3c"), p("AsTc"))
    (True, False)
    """
    best = evaluate([*board, *hole])
    return (
        evaluate([*board, hole[1]]) < best,
        evaluate([*board, hole[0]]) < best,
    )


def qualifies(
    board: Sequence[Card], hole: Sequence[Card], least: int, both: bool, pocket_pair: bool
) -> str:
    """Why a hand does not qualify (a catalog key), or ``""`` if it does.

    The hand must be at least ``least`` strong and better than the board alone
    (playing the board never qualifies); with ``both`` each hole card must play;
    four of a kind never qualifies with all four on the board, and with
    ``pocket_pair`` only with a pocket pair of its rank.
    """
    strength = evaluate([*board, *hole])
    if strength < least:
        return "jackpot.verdict.too_weak"
    plays = hole_cards_playing(board, hole)
    # The hand plays the board when the board alone is as strong; a pocket pair whose
    # cards stand in for each other (TT on A-A-A-T-3) plays though neither is needed alone.
    if evaluate(board) >= strength if len(board) == 5 else not any(plays):
        return "jackpot.verdict.board_plays"
    if category_of(strength) == Category.FOUR_OF_A_KIND:
        quads = best_hand([*board, *hole]).cards[0] >> 2
        in_hole = sum(1 for c in hole if c >> 2 == quads)
        if in_hole == 0:
            return "jackpot.verdict.board_quads"
        if pocket_pair and in_hole < 2:
            return "jackpot.verdict.pocket_pair"
    if both and not all(plays):
        return "jackpot.verdict.counterfeit"
    return ""


# --------------------------------------------------------------------------
# Bad beat
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class BadBeat:
    """A bad-beat verdict: whether it qualifies, why (a catalog key), and who gets what.

    ``losers`` and ``winners`` are seats (several on equal hands); ``payouts`` maps
    seats to chips and ``reserve`` is what stays in the fund: together exactly the fund.
    """

    qualifies: bool
    reason: str
    losers: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    loser_hand: HandValue | None = None
    """The loser's five cards and value (``describe(lang)`` says it in each language)."""
    payouts: Mapping[int, int] = field(default_factory=dict)
    reserve: int = 0


def _split(amount: int, seats: Sequence[_K], unit: int) -> dict[_K, int]:
    """``amount`` split equally between ``seats``, each share rounded down to ``unit``."""
    if not seats:
        return {}
    each = amount // len(seats) // unit * unit
    return dict.fromkeys(seats, each)


def bad_beat(rules: JackpotRules, hand: Showdown, fund: int = 0, unit: int = 1) -> BadBeat:
    """Decide a finished hand's bad beat from its cards, and share ``fund`` if it qualifies.

    The winners are the best hand(s) tabled; the losers the best hand(s) that lost to
    them and qualify (:func:`qualifies`). Each share is rounded down to ``unit``; every
    remainder, and the table share when nobody else was dealt in, goes to the reserve.
    """
    if fund < 0 or unit < 1:
        raise CardError(
            "A jackpot fund is 0 or more chips and the chip unit 1 or more.",
            key="error.jackpot.fund",
        )
    if not hand.reached_showdown:
        return BadBeat(False, "jackpot.verdict.no_showdown", reserve=fund)
    if len(hand.dealt) < rules.min_players_dealt:
        return BadBeat(False, "jackpot.verdict.few_players", reserve=fund)
    if hand.pot < rules.min_pot:
        return BadBeat(False, "jackpot.verdict.small_pot", reserve=fund)
    strengths = {seat: evaluate([*hand.board, *pair]) for seat, pair in hand.hole.items()}
    top = max(strengths.values())
    winners = tuple(sorted(s for s, v in strengths.items() if v == top))
    reason, reason_value = "jackpot.verdict.no_loser", 0
    candidates: dict[int, int] = {}
    for seat, value in sorted(strengths.items()):
        if value == top:
            continue
        why = qualifies(
            hand.board,
            hand.hole[seat],
            rules.strength,
            rules.both_hole_cards,
            rules.pocket_pair_for_quads,
        )
        if not why:
            candidates[seat] = value
        elif value > reason_value:  # the best losing hand's reason is the one said
            reason, reason_value = why, value
    if not candidates:
        return BadBeat(False, reason, winners=winners, reserve=fund)
    best_loss = max(candidates.values())
    losers = tuple(sorted(s for s, v in candidates.items() if v == best_loss))
    others = [s for s in hand.dealt if s not in losers and s not in winners]
    payouts: dict[int, int] = {}
    for seats, percent in (
        (losers, rules.loser_percent),
        (winners, rules.winner_percent),
        (others, rules.table_percent),
    ):
        for seat, chips in _split(fund * percent // 100, seats, unit).items():
            payouts[seat] = payouts.get(seat, 0) + chips
    loser_hand = best_hand([*hand.board, *hand.hole[losers[0]]])
    return BadBeat(
        True,
        "jackpot.verdict.qualifies",
        losers=losers,
        winners=winners,
        loser_hand=loser_hand,
        payouts=payouts,
        reserve=fund - sum(payouts.values()),
    )


def jackpot_drop(rules: JackpotRules, pot: int, flop: bool, unit: int = 1) -> int:
    """The chips one pot drops into the jackpot fund: ``drop_percent`` of it rounded
    down to ``unit``, at most ``drop_cap``; nothing without a flop or below
    ``drop_min_pot``. Never more than the pot. The engine takes it with the rake
    (:class:`~firmware.engine.rules.JackpotDropPolicy`); this is the same computation.
    """
    policy = rules.drop_policy()
    if policy is None:
        return 0
    return policy.pot_drops([pot], [0], 5 if flop else 0, unit)[0]


# --------------------------------------------------------------------------
# High hand of the hour
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class HighHand:
    """The high hand of a window: the hands that hold it (hand number, seat), their
    shares of the prize, and what stays (rounding) with the house."""

    holders: tuple[tuple[int, int], ...]
    hand: HandValue | None
    shares: Mapping[tuple[int, int], int]
    left: int


def high_hand(
    rules: JackpotRules,
    hands: Iterable[Showdown],
    start: float,
    prize: int = 0,
    unit: int = 1,
) -> HighHand:
    """The best qualifying hand tabled at a showdown that ended in
    ``[start, start + high_hand_minutes)``; equal hands split ``prize`` (rounded down
    to ``unit``, the remainder left). No promotion or no hand: no holders.
    """
    end = start + rules.high_hand_minutes * 60
    best = 0
    holders: list[tuple[int, int]] = []
    shown: HandValue | None = None
    for hand in hands:
        if not rules.high_hand or not (start <= hand.finished_wall < end):
            continue
        if not hand.reached_showdown:
            continue
        for seat, pair in sorted(hand.hole.items()):
            if qualifies(
                hand.board, pair, rules.high_strength, rules.high_hand_both_hole_cards, False
            ):
                continue
            value = evaluate([*hand.board, *pair])
            if value > best:
                best, holders = value, []
                shown = best_hand([*hand.board, *pair])
            if value == best:
                holders.append((hand.number, seat))
    shares = _split(prize, holders, unit) if holders else {}
    return HighHand(tuple(holders), shown, shares, prize - sum(shares.values()))
