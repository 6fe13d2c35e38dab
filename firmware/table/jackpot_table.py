"""The jackpot at the table: its fund, the awards it decided, the staff's confirmations.

:class:`JackpotBook` is the table's part of house procedure JACKPOT (docs/rules.md):
the pure decisions are in :mod:`firmware.table.jackpot`; this keeps what the
journal's events made of them.

* The **fund** is known at the table from the configuration and the journal:
  ``[jackpot] fund`` (the seed), plus every jackpot drop this table's hands took
  (each record's ``jackpot_drop``), less what each confirmed bad beat paid (its
  reserve stays in the fund). A replay of the journal gives the same fund.
* At the end of each hand the table decides the **bad beat** from the cards it
  read (:func:`~firmware.table.jackpot.bad_beat` on the hand's record); a hand
  that qualifies makes a *pending* award with its shares of the fund. A
  **high hand** window is decided at the end of the first hand that finishes
  after it (windows start at whole multiples of ``high_hand_minutes`` of UTC
  time; a table without a wall clock has no high hand).
* A floor member confirms a pending award with a badge
  (:class:`~firmware.table.events.JackpotAward`); the table takes the award only
  when it is exactly one it decided. The award is paid by the cage, not from the
  chips at the table: no stack changes, and the chips at the table stay conserved.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from firmware.engine.cards import format_cards, parse_cards
from firmware.engine.evaluator import evaluate
from firmware.errors import IllegalAction
from firmware.table import events as te
from firmware.table.jackpot import JackpotRules, Showdown, bad_beat, high_hand

JACKPOTS = ("bad_beat", "high_hand")
"""The kinds of award a ``jackpot_award`` event names."""


class JackpotBook:
    """The table's jackpot: fund, pending awards and the awards just confirmed.

    :param rules: The ``[jackpot]`` section, or ``None`` (the table has no jackpot).
    :param unit: The chip unit the shares are rounded down to.
    """

    def __init__(self, rules: JackpotRules | None, unit: int = 1) -> None:
        self.rules = rules
        self.unit = unit
        self.fund = rules.fund if rules is not None else 0
        """The bad-beat fund now, in chips (pending awards not yet taken from it)."""
        self.pending: list[dict[str, Any]] = []
        """Awards the table decided, waiting for a floor badge."""
        self.shown: list[dict[str, Any]] = []
        """Awards confirmed since the last hand ended (the seats announce them)."""
        self.high: dict[str, Any] | None = None
        """The high hand of the open window: ``window`` (UTC start), ``value`` and
        ``holders`` ([hand, seat, player, five cards])."""

    # ------------------------------------------------------------ hands

    def hand_finished(self, record: Mapping[str, Any], players: Mapping[int, str]) -> None:
        """Take a finished hand's drop into the fund and decide its awards.

        :param players: Each seat's player card id ('' when seated by name).
        """
        self.shown = []
        rules = self.rules
        if rules is None:
            return
        self.fund += int(record.get("jackpot_drop", 0))
        if record.get("void"):
            return
        hand = Showdown.from_record(record)
        self._high_hand(rules, hand, record, players)
        promised = sum(
            s["amount"]
            for p in self.pending
            if p["jackpot"] == "bad_beat"
            for s in p["shares"]
            if s["share"] != "reserve"
        )
        verdict = bad_beat(rules, hand, max(0, self.fund - promised), self.unit)
        if not verdict.qualifies:
            return
        shares: list[dict[str, Any]] = []
        for seats, share in (
            (verdict.losers, "loser"),
            (verdict.winners, "winner"),
            (tuple(s for s in hand.dealt if s not in verdict.losers + verdict.winners), "table"),
        ):
            for seat in seats:
                amount = int(verdict.payouts.get(seat, 0))
                if amount:
                    shares.append(_share(seat, players, share, amount))
        shares.append({"seat": 0, "player": "", "share": "reserve", "amount": verdict.reserve})
        names = record.get("players", {})
        self.pending.append(
            {
                "jackpot": "bad_beat",
                "hand": hand.number,
                "shares": shares,
                "loser": _five(hand, verdict.losers[0]),
                "winner": _five(hand, verdict.winners[0]),
                # The seats even when their shares are 0 chips (an empty fund).
                "seats": [verdict.losers[0], verdict.winners[0]],
                # Each share's player by name in the hand (the seat may change hands
                # before the badge confirms it), in the order of the shares.
                "names": [str(names.get(str(s["seat"]), "")) for s in shares],
            }
        )

    def _high_hand(
        self,
        rules: JackpotRules,
        hand: Showdown,
        record: Mapping[str, Any],
        players: Mapping[int, str],
    ) -> None:
        """Keep the window's best hand; decide the window when a later one begins."""
        if not rules.high_hand or not record.get("finished_wall"):
            return
        length = rules.high_hand_minutes * 60
        window = hand.finished_wall // length * length
        high = self.high
        if high is not None and window > high["window"]:
            self._close_window(high)
            high = self.high = None
        found = high_hand(rules, [hand], window)
        if not found.holders:
            return
        value = evaluate([*hand.board, *hand.hole[found.holders[0][1]]])
        names = record.get("players", {})
        holders = [
            [number, seat, players.get(seat, ""), _five(hand, seat), str(names.get(str(seat), ""))]
            for number, seat in found.holders
        ]
        if high is None or value > high["value"]:
            self.high = {"window": window, "value": value, "holders": holders}
        elif value == high["value"]:
            high["holders"].extend(holders)

    def _close_window(self, high: dict[str, Any]) -> None:
        """The window's high hand becomes an award waiting for a badge."""
        assert self.rules is not None
        prize, holders = self.rules.high_hand_prize, high["holders"]
        each = prize // len(holders) // self.unit * self.unit
        self.pending.append(
            {
                "jackpot": "high_hand",
                "hand": holders[0][0],
                "shares": [
                    {"seat": seat, "player": player, "share": "high_hand", "amount": each}
                    for _number, seat, player, *_cards in holders
                ],
                "cards": holders[0][3],
                "window": high["window"],
                "names": [str(h[4]) if len(h) > 4 else "" for h in holders],
            }
        )

    # ------------------------------------------------------------ awards

    def award(self, event: te.JackpotAward) -> dict[str, Any]:
        """Take a floor member's confirmation of a pending award; return the award.

        :raises IllegalAction: unless it is exactly an award the table decided, with a badge.
        """
        if not isinstance(event.staff, str) or not event.staff.strip():
            raise IllegalAction(
                "A jackpot is confirmed with a floor badge; none was given.",
                key="error.jackpot.no_badge",
            )
        for index, pending in enumerate(self.pending):
            if not _same((pending["jackpot"], pending["hand"]), (event.jackpot, event.hand)):
                continue
            shares: Any = event.shares  # a damaged record may hold anything: not this award
            whole = isinstance(shares, list | tuple) and all(isinstance(s, Mapping) for s in shares)
            if not whole or not _same([dict(s) for s in shares], pending["shares"]):
                raise IllegalAction(
                    f"The award of hand {event.hand} is not the one the table decided; "
                    "confirm the award the console shows.",
                    key="error.jackpot.shares",
                    hand=event.hand,
                )
            del self.pending[index]
            if event.jackpot == "bad_beat":
                self.fund -= sum(s["amount"] for s in pending["shares"] if s["share"] != "reserve")
            done = {**pending, "staff": event.staff}
            self.shown.append(done)
            return done
        raise IllegalAction(
            f"No jackpot award of hand {event.hand} is waiting for confirmation.",
            key="error.jackpot.none",
            jackpot=event.jackpot,
            hand=event.hand,
        )

    # ------------------------------------------------------------ snapshots

    def state(self) -> dict[str, Any]:
        """The book as a plain record (carried by a snapshot)."""
        return copy.deepcopy(
            {"fund": self.fund, "pending": self.pending, "shown": self.shown, "high": self.high}
        )

    def restore(self, state: Mapping[str, Any] | None) -> None:
        """Put the book in the state of :meth:`state` (nothing: as configured)."""
        if not state:
            return
        state = copy.deepcopy(dict(state))
        self.fund = int(state["fund"])
        self.pending = list(state["pending"])
        self.shown = list(state["shown"])
        self.high = state["high"]


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (504.0 is not 504 chips, nor True 1)."""
    if type(a) is not type(b) and not (isinstance(a, list | tuple) and isinstance(b, list | tuple)):
        return False
    if isinstance(a, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _share(seat: int, players: Mapping[int, str], share: str, amount: int) -> dict[str, Any]:
    return {"seat": seat, "player": players.get(seat, ""), "share": share, "amount": amount}


def _five(hand: Showdown, seat: int) -> str:
    """The seat's seven cards at the showdown, hole cards first (the views name its hand)."""
    return format_cards([*hand.hole[seat], *hand.board])


def best_of(cards: str) -> Any:
    """The best five-card hand of :func:`_five`'s cards (``describe(lang)`` names it)."""
    from firmware.engine.evaluator import best_hand

    return best_hand(parse_cards(cards))
