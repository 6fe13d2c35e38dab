"""The broadcast view: the table for a stream or a television feed, delayed (issue 15).

A card room that films a table gives its broadcaster's graphics a feed of the
table: the public table as the console shows it, and, when the house allows
it, every player's hole cards and each hand's exact equity. What the feed may
carry is the house procedure BROADCAST (``docs/rules.md``):

* The feed is **delayed**: the server gives a broadcast terminal each view
  :attr:`BroadcastRules.delay_seconds` after the change it shows
  (:class:`firmware.protocol.broadcast.DelayLine`), never the table as it is now.
* **Hole cards** only with ``hole_cards = true`` and a delay of at least
  :data:`MIN_DELAY_WITH_HOLE_CARDS` (15 minutes, the common practice of filmed
  games), so that nobody at the table or near it can learn a hand in play from
  the feed; without them the feed shows only what the console shows.
* **Equity** (``equity = true``): with hole cards, every live hand's exact
  share of the pot on each street; without them, only during an all-in once
  the hands are tabled (TDA-9), as on the console. Computed exactly, in pure
  Python, within one frame (:mod:`firmware.views.live_equity`); before the
  flop with three or more hands, or with a card exposed, it is shown from the
  flop on (``equity_note`` says so).

The view never carries the staff logged in, the devices, alerts or the
dealer's prompts: it is for the public.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from firmware.engine.cards import parse_cards
from firmware.errors import ConfigError
from firmware.table.options import MAX_AMOUNT, type_said
from firmware.views.audience import _holding, _level, _names, _table
from firmware.views.live_equity import FROM_FLOP, all_in_tabled, exact_equity, live_equity
from firmware.views.recall import recall
from firmware.views.share import ViewShare

if TYPE_CHECKING:
    from firmware.service.controller import Controller
    from firmware.table.table import Table

MIN_DELAY_WITH_HOLE_CARDS = 900
"""The shortest delay, in seconds, of a feed that shows hole cards (BROADCAST)."""

RULE = "BROADCAST"
"""The house procedure's name in ``docs/rules.md``."""


@dataclass(frozen=True)
class BroadcastRules:
    """What the broadcast feed carries and how late (the ``[broadcast]`` section).

    :raises ConfigError: for a negative or too long delay, or hole cards with a
        delay under :data:`MIN_DELAY_WITH_HOLE_CARDS`.
    """

    delay_seconds: int = 1800
    """Seconds between a change at the table and the feed showing it."""
    hole_cards: bool = False
    """Show every player's hole cards (needs a delay of 15 minutes or more)."""
    equity: bool = False
    """Show each hand's exact equity (all hands with hole cards; else tabled all-ins)."""

    def __post_init__(self) -> None:
        if not 0 <= self.delay_seconds <= 24 * 3600:
            raise ConfigError(
                "The option delay_seconds of [broadcast] must be from 0 to 86400 seconds, not "
                f"{self.delay_seconds}.",
                key="config.broadcast.delay",
                value=self.delay_seconds,
            )
        if self.hole_cards and self.delay_seconds < MIN_DELAY_WITH_HOLE_CARDS:
            raise ConfigError(
                "A broadcast that shows hole cards must be delayed at least "
                f"{MIN_DELAY_WITH_HOLE_CARDS} seconds (15 minutes); give delay_seconds = "
                f"{MIN_DELAY_WITH_HOLE_CARDS} or more, or hole_cards = false (BROADCAST).",
                key="config.broadcast.hole_cards_delay",
                least=MIN_DELAY_WITH_HOLE_CARDS,
                value=self.delay_seconds,
            )

    @classmethod
    def from_section(cls, section: Mapping[str, Any]) -> BroadcastRules:
        """The rules of a ``[broadcast]`` section, every value checked.

        :raises ConfigError: naming the first unknown option or wrong value.
        """
        types = {"delay_seconds": int, "hole_cards": bool, "equity": bool}
        for name, value in section.items():
            expected = types.get(name)
            if expected is None:
                raise ConfigError(
                    f"[broadcast] has no option {name!r}; its options are {', '.join(types)}.",
                    key="config.broadcast.unknown",
                    option=name,
                    known=", ".join(types),
                )
            too_big = type(value) is int and abs(value) > MAX_AMOUNT
            if type(value) is not expected or too_big:
                raise ConfigError(
                    f"The option {name} of [broadcast] must be "
                    f"{type_said(expected)['text']}, not {value!r}.",
                    key="config.broadcast.type",
                    option=name,
                    expected=type_said(expected),
                    value=repr(value)[:40],
                )
        return cls(**section)


def broadcast_view(
    table: Table,
    lang: str,
    rules: BroadcastRules,
    controller: Controller | None = None,
    share: ViewShare | None = None,
) -> dict[str, Any]:
    """The broadcast feed's view of the table now (the server delays it).

    :param share: What this change's views have in common (:class:`ViewShare`).
    """
    base, _ = _table(table, lang, None, controller, share)
    part = dict(base)
    th = table.hand
    equity: dict[int, dict[str, float]] | None = None
    note = ""
    if th is not None:
        hands: dict[int, tuple[int, int]] = {}
        rows = []
        for row in base["seats"]:
            number = row["seat"]
            if rules.hole_cards and number in th.plan.seats:
                position = th.plan.seats.index(number)
                held = _holding(th, position)
                if not th.hand.folded[position]:
                    row = {**row, "cards": _names(held)}
                    cards = [c for c in held if c is not None]
                    if len(cards) == 2:
                        hands[number] = (cards[0], cards[1])
            rows.append(row)
        part["seats"] = rows
        if rules.equity:
            board = tuple(th.hand.board)
            if rules.hole_cards and th.s.dealt and len(hands) >= 2:  # not mid-deal
                dead = set(parse_cards("".join(base["exposed"]))) if base["exposed"] else set()
                equity = exact_equity(hands, board, dead)
                if equity is None:
                    note = FROM_FLOP
            elif not rules.hole_cards:
                equity = live_equity(th)
                if equity is None and all_in_tabled(th):
                    note = FROM_FLOP  # tabled but not computed: the console's sentence
    view: dict[str, Any] = {
        "type": "view",
        "audience": "broadcast",
        "lang": lang,
        "table": part,
        "recall": recall(table, None),
        "level": _level(table, controller),
        "delay_seconds": rules.delay_seconds,
        "hole_cards": rules.hole_cards,
        "equity": _equity_rows(equity),
        "equity_note": note,
    }
    return view


def _equity_rows(equity: Mapping[int, Mapping[str, float]] | None) -> list[dict[str, Any]] | None:
    """Each seat's equity as percentages to a tenth (``None``: none shown)."""
    if equity is None:
        return None
    return [
        {
            "seat": seat,
            "win": round(shares["win"] * 100, 1),
            "tie": round(shares["tie"] * 100, 1),
            "equity": round(shares["equity"] * 100, 1),
        }
        for seat, shares in sorted(equity.items())
    ]


__all__ = ["MIN_DELAY_WITH_HOLE_CARDS", "BroadcastRules", "broadcast_view"]
