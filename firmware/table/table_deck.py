"""The deck procedures between hands (split from :mod:`firmware.table.table`).

The new-deck checklist (PE-2), the scan that proves a deck complete and clean
(PE-1), a deck change asked for (TDA-16) and the repair or withdrawal of a
marked card (HG-11) only read and change the :class:`DeckState` and the house
options, never the seats or the hand, so they live here as functions the
:class:`~firmware.table.table.Table` calls; this keeps ``table.py`` about the
hand's lifecycle and under the project's module size.
"""

from __future__ import annotations

from firmware.engine.cards import format_card, format_cards
from firmware.errors import IllegalAction
from firmware.table import events as te
from firmware.table.options import TableOptions
from firmware.table.snapshot import DeckState

CHECKLIST = ("show", "face_down", "scramble", "shuffle", "cut")
"""The new-deck procedure, in order (PE-2)."""


def check_deck_ready(deck: DeckState) -> None:
    """Refuse to start a hand without a verified deck (PE-2) or with a marked card
    still waiting for repair (HG-11)."""
    if not deck.ready:
        raise IllegalAction(
            "No verified deck is in play; run the new-deck checklist first (PE-2).",
            key="error.deck.not_ready",
        )
    if deck.needs_repair:
        cards = format_cards(deck.needs_repair)
        raise IllegalAction(
            f"The marked card(s) {cards} must be replaced or withdrawn before the next hand "
            "(HG-11).",
            key="error.deck.repair",
        )


def deck_step(deck: DeckState, event: te.DeckStep) -> None:
    """Take the next step of the new-deck checklist; the last one puts the deck in play."""
    done = deck.checklist
    expected = CHECKLIST[len(done)] if len(done) < len(CHECKLIST) else None
    if event.step != expected:
        raise IllegalAction(
            f"The next step of the new-deck checklist is '{expected}', not '{event.step}' "
            f"(PE-2: {', '.join(CHECKLIST)}).",
            key="error.deck.step",
        )
    if event.step == "show":
        verify_deck_scan(event.scan, withdrawn=())
        deck.withdrawn = []
    done.append(event.step)
    if len(done) == len(CHECKLIST):
        deck.ready = True
        deck.checklist = []
        deck.change_requested = False


def deck_change(deck: DeckState, event: te.DeckChange, options: TableOptions) -> None:
    """Take the deck out of play until a new one passes the checklist (TDA-16)."""
    if event.by == "seat" and not options.deck_change_on_request:
        raise IllegalAction(
            "Players cannot ask for a deck change at this table (TDA-16); the dealer or the "
            "floor decides.",
            key="error.deck.no_request",
        )
    if event.by not in ("seat", "dealer", "floor", "schedule"):
        raise IllegalAction(
            "A deck change is asked by a seat, the dealer, the floor or the schedule, "
            f"not {event.by!r}.",
            key="error.deck.change_by",
            by=event.by,
        )
    deck.ready = False
    deck.change_requested = True
    deck.checklist = []


def repair_card(deck: DeckState, event: te.RepairCard | te.WithdrawCard) -> None:
    """A marked card replaced, or withdrawn from this deck (HG-11)."""
    if event.card not in deck.needs_repair:
        raise IllegalAction(
            f"The card {format_card(event.card)} is not waiting for repair.",
            key="error.deck.not_marked",
        )
    deck.needs_repair.remove(event.card)
    if isinstance(event, te.WithdrawCard):
        deck.withdrawn.append(event.card)


def deck_scan_problems(
    scan: tuple[int | None, ...], withdrawn: tuple[int, ...] = (), tags: tuple[str, ...] = ()
) -> list[str]:
    """What is wrong with a deck scan (PE-1): unknown tags, missing or doubled cards.

    :param scan: The card of each tag read, ``None`` for a tag that is no card.
    :param withdrawn: Cards withdrawn from this deck (HG-11), not expected.
    :param tags: The tags read, to name the unknown ones.
    """
    cards = [c for c in scan if c is not None]
    unknown = [t for t, c in zip(tags, scan, strict=False) if c is None]
    count = sum(1 for c in scan if c is None)
    missing = sorted(set(range(52)) - set(cards) - set(withdrawn))
    doubled = sorted({c for c in cards if cards.count(c) > 1})
    problems = []
    if count:
        named = f" ({', '.join(unknown[:5])})" if unknown else ""
        problems.append(
            f"{count} tag(s) that are no registered card, a joker or a foreign card{named}"
        )
    if missing:
        problems.append(f"missing {format_cards(missing)}")
    if doubled:
        problems.append(f"read twice {format_cards(doubled)}")
    return problems


def verify_deck_scan(scan: tuple[int | None, ...], withdrawn: tuple[int, ...]) -> None:
    """Check a deck scan: 52 distinct registered cards, no joker or foreign tag (PE-1)."""
    problems = deck_scan_problems(scan, withdrawn)
    if problems:
        raise IllegalAction(
            "The deck is not complete and clean (PE-1): "
            + "; ".join(problems)
            + ". Remove foreign cards, find the missing ones or use another deck, then scan again.",
            key="error.deck.bad_scan",
        )
