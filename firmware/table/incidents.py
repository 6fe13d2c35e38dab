"""The dealer's incident reports during a hand, each resolved by its rule.

Functions here act on a :class:`~firmware.table.dealing.TableHand`:

* :func:`exposed` - a card exposed while dealing (TDA-27, HG-10);
* :func:`face_up` - a card found face up in the deck (HG-8);
* :func:`premature` - cards drawn before a betting round ended (HG-9);
* :func:`burn_error` - turn and river burn errors (HG-20 a, b, c).
"""

from __future__ import annotations

from firmware.engine.cards import format_card
from firmware.engine.events import BetRaise, CheckCall, Fold
from firmware.engine.hand import Phase
from firmware.errors import IllegalAction
from firmware.table.records import Draw, HandDesk

STREETS = ("preflop", "flop", "turn", "river")
HOLE_ROLES = ("hole", "dead", "replacement")
"""Roles of the cards dealt to the seats (and to an empty seat's dead hand, HG-12)."""


def exposed(th: HandDesk, card: int) -> None:
    s = th.s
    if s.dealt:  # TableHand.apply replays a report made after the deal (see below)
        raise IllegalAction(
            "Betting has begun; an exposed-card ruling applies only to the deal, before the "
            "first action (TDA-27). Report a card exposed by a player to the floor.",
            key="error.incident.after_deal",
        )
    hole_draws = [d for d in s.draws if d.role in HOLE_ROLES]
    index = next((i for i, d in enumerate(hole_draws) if d.card == card), None)
    if index is None:
        raise IllegalAction(
            f"The card {format_card(card)} has not been dealt in this hand; "
            "report the exposed card after it leaves the shoe.",
            key="error.incident.unknown_card",
        )
    s.exposed.append(card)
    if index < 2 or len(s.exposed) >= 2:
        why = "one of the first two cards" if index < 2 else "a second card"
        th.void(
            f"misdeal: {why} exposed during the deal (TDA-27, HG-10)",
            "TDA-27",
            "incident.misdeal_first" if index < 2 else "incident.misdeal_second",
        )
        return
    draw = hole_draws[index]
    draw.public = True
    if draw.seat is not None:
        position = th.position(draw.seat)
        s.buffer[position].remove(card)
        s.owed.append(position)
    draw.role = "exposed"
    s.burn_ready = card
    th.note(
        "TDA-27",
        f"{format_card(card)} exposed while dealing",
        "Finish the deal, then give that player the next card; the exposed card is shown "
        "and becomes the first burn card.",
        (card,),
        "incident.exposed",
        card=format_card(card),
    )


def check_exposed_after_deal(th: HandDesk, card: int) -> None:
    """Refuse an exposed-card report made after the deal unless nobody has acted yet and
    ``card`` was dealt as a hole card (TDA-27: the remedy belongs to the deal)."""
    s = th.s
    if any(isinstance(e, Fold | CheckCall | BetRaise) for e in s.hand.events):
        raise IllegalAction(
            "Betting has begun; an exposed-card ruling applies only to the deal, before the "
            "first action (TDA-27). Report a card exposed by a player to the floor.",
            key="error.incident.after_deal",
        )
    if not any(d.card == card and d.role in HOLE_ROLES for d in s.draws):
        raise IllegalAction(
            f"The card {format_card(card)} was not dealt to a seat in this hand; "
            "only a hole card exposed while dealing is ruled by TDA-27.",
            key="error.incident.not_hole_card",
            card=format_card(card),
        )


def check_misdeal(th: HandDesk) -> None:
    """Refuse a dealer's misdeal once betting has begun: a misdeal belongs to the
    deal (TDA-27, HG-10); after the first action only the floor may void the hand
    (TDA-1, ``override void``), since money has gone in on the cards dealt."""
    if any(isinstance(e, Fold | CheckCall | BetRaise) for e in th.s.hand.events):
        raise IllegalAction(
            "Betting has begun, so the dealer can no longer call a misdeal; call the floor, "
            "who may void the hand (TDA-1).",
            key="error.incident.misdeal_late",
        )


def face_up(th: HandDesk, card: int) -> None:
    s = th.s
    th.check_card(card)
    s.seen.add(card)
    s.draws.append(Draw(card, "removed", public=True))
    th.note(
        "HG-8",
        f"{format_card(card)} found face up in the deck",
        "Remove the card, show it to everyone and continue.",
        (card,),
        "incident.face_up",
        card=format_card(card),
    )


def premature(th: HandDesk) -> None:
    s = th.s
    if not s.premature:
        raise IllegalAction(
            "No card was drawn before the betting round ended; nothing to correct.",
            key="error.incident.no_premature",
        )
    cards = s.premature
    s.premature = []
    keep_burn = len(cards) >= 2 and s.burn_ready is None  # an exposed card may be due already
    if keep_burn:
        s.burn_ready = cards[0]
        returned = cards[1:]
        for d in s.draws:
            if d.card == cards[0] and d.role == "premature":
                d.role = "burn"
    else:
        returned = cards
    for card in returned:
        s.seen.discard(card)
        for d in s.draws:
            if d.card == card and d.role == "premature":
                d.role = "returned"
    kept = f"{format_card(cards[0])} stays as the burn; " if keep_burn else ""
    th.note(
        "HG-9",
        f"{len(cards)} card(s) drawn before the betting round ended",
        kept + "return the other card(s) to the stub and shuffle it; after the betting, "
        "deal the next card with no further burn.",
        (),
        "incident.premature_burn" if keep_burn else "incident.premature",
        count=len(cards),
        card=format_card(cards[0]),
    )


def burn_error(th: HandDesk, case: str) -> None:
    s = th.s
    if case == "a":
        burn = _just_burned(th)
        burn.public = True
        street = STREETS[s.hand.street + 1]
        th.note(
            "HG-20",
            f"{street} dealt without a burn",
            f"Show {format_card(burn.card)}, it is the burn card; deal the real {street}.",
            (burn.card,),
            "incident.burn_a" if street == "turn" else "incident.burn_a_river",
            card=format_card(burn.card),
        )
        return
    if case not in ("b", "c") or not s.premature:
        raise IllegalAction(
            "A burn error is case a, b or c (HG-20), and cases b and c need the extra "
            "cards drawn first.",
            key="error.incident.burn_case",
        )
    cards = s.premature
    s.premature = []
    s.burn_ready = cards[0]
    for d in s.draws:
        if d.card in cards:
            d.role, d.public = "burn", True
    instruction = f"{format_card(cards[0])} is the next burn card"
    key, params = "incident.burn_b", {"card": format_card(cards[0]), "case": case}
    if case == "c" and len(cards) >= 2:
        key, params["river"] = "incident.burn_c", format_card(cards[1])
        s.held_board.extend(cards[1:2])
        for d in s.draws:
            if d.card == cards[1]:
                d.role = "held"
        instruction += f"; {format_card(cards[1])} is the river, shown after the betting"
    th.note("HG-20", f"burn error case {case}", instruction + ".", tuple(cards), key, **params)


def _just_burned(th: HandDesk) -> Draw:
    """The turn or river burn the shoe has just read, if HG-20 (a) can apply now.

    Case (a) is the card just turned face up being the one the shoe read as the
    street's burn: the last card drawn is that burn and its board card is next.

    :raises IllegalAction: otherwise, saying what the firmware sees.
    """
    s = th.s
    hand = s.hand
    last = s.draws[-1] if s.draws else None
    street = hand.street + 1
    if (
        s.dealt
        and hand.phase is Phase.BOARD
        and not s.premature
        and not s.board_buffer
        and street in (2, 3)
        and last is not None
        and last.role == "burn"
        and not last.public
    ):
        return last
    if not s.dealt:
        seen = "the deal is not finished"
    elif s.premature:
        seen = "cards were drawn before the betting ended; report HG-9 or HG-20 (b) or (c)"
    elif hand.phase is Phase.BETTING and hand.actor is not None:
        seen = f"the {STREETS[hand.street]} betting is open (seat {hand.seats[hand.actor]} to act)"
        if hand.street and last is not None and last.role == STREETS[hand.street]:
            seen = (
                f"the last card, {format_card(last.card)}, was read as the {last.role} after "
                f"its burn (they came in the right order) and {seen}"
            )
    elif hand.phase is Phase.BOARD and street not in s.burned and s.burn_ready is None:
        seen = f"no card has been drawn for the {STREETS[street]} yet"
    elif last is not None and last.role == "burn" and last.public:
        seen = f"{format_card(last.card)} was already ruled the burn card"
    elif last is not None and last.role == "burn":
        seen = f"the last card, {format_card(last.card)}, was read as the flop burn"
    else:
        seen = f"the hand is in the {hand.phase.value} phase"
    raise IllegalAction(
        f"HG-20 (a) does not apply: {seen}. It applies only when the card just turned face "
        "up is the one the shoe read as the turn or river burn; report what happened, or "
        "call the floor.",
        key="error.incident.burn_a_not_now",
        seen=seen,
    )
