"""Writing our engine's hands as PHH (split from :mod:`firmware.engine.histories.phh`).

:func:`hand_to_phh` turns a :class:`~firmware.engine.hand.Hand` (its event list)
into PHH text, with the player order, blind slots, antes and actions of the
format as described in :mod:`firmware.engine.histories.phh`; all-in hands tabled by our engine
are written as explicit ``sm`` actions before the next board cards, as
PokerKit expects. A pot-limit hand has no PHH variant code and cannot be
written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomli_w

from firmware.engine.cards import format_card
from firmware.engine.events import (
    BetRaise,
    Burn,
    CheckCall,
    DealBoard,
    DealHole,
    Event,
    Fold,
    Muck,
    Show,
    StartHand,
)
from firmware.engine.hand import Hand
from firmware.engine.rules import JackpotDropPolicy, RakePolicy, Structure
from firmware.errors import ConfigError, HandHistoryError


def slots_to_players(values: Sequence[int]) -> tuple[int, ...]:
    """Map per-slot amounts to position order (reversed heads-up); also the inverse."""
    return tuple(reversed(values)) if len(values) == 2 else tuple(values)


def _cards_text(cards: Sequence[int | None]) -> str:
    return "".join("??" if c is None else format_card(c) for c in cards)


def hand_to_phh_data(hand: Hand) -> dict[str, Any]:
    """Return the PHH fields of our ``hand`` as a dict (see :func:`hand_to_phh`).

    :raises HandHistoryError: for a pot-limit hand (no PHH variant code).
    """
    start = hand.events[0]
    assert isinstance(start, StartHand)
    config = start.config
    if config.structure is Structure.POT_LIMIT:
        raise HandHistoryError(
            "A pot-limit hand cannot be written as PHH: PokerKit 0.7.7 defines no pot-limit "
            "Texas hold'em variant; keep it in the event journal instead."
        )
    has_antes = any(start.antes)
    data: dict[str, Any] = {"variant": "NT" if config.structure is Structure.NO_LIMIT else "FT"}
    if has_antes:
        data["ante_trimming_status"] = True
        data["antes"] = list(slots_to_players(start.antes))
        if any(start.dead):
            data["_dead"] = list(start.dead)
    else:
        data["ante_trimming_status"] = False
        data["antes"] = list(slots_to_players(start.dead))
    data["blinds_or_straddles"] = list(slots_to_players(start.blinds))
    if config.structure is Structure.FIXED_LIMIT:
        data["small_bet"] = config.min_bet
        data["big_bet"] = config.street_bet(3)
    else:
        data["min_bet"] = config.min_bet
    data["starting_stacks"] = list(start.stacks)
    data["actions"] = _actions_text(hand)
    data["seats"] = list(start.seats)
    data["players"] = list(start.names)
    if hand.result is not None:
        data["finishing_stacks"] = list(hand.result.finishing_stacks)
    if config.rake is not None:
        # The house's rake (HOUSE-RAKE): what was taken, and the policy that took it
        # (user-defined fields, so that ``pokertable replay`` rakes the same).
        if hand.result is not None:
            data["rake"] = hand.result.rake
        data.update(rake_fields(config.rake))
    if config.jackpot_drop is not None:
        # The jackpot drop (JACKPOT), as the rake: what was taken and the policy.
        if hand.result is not None:
            data["_jackpot_drop"] = hand.result.jackpot_drop
        data.update({f"_jackpot_drop_{k}": v for k, v in config.jackpot_drop.to_record().items()})
    return data


def drop_policy_of(fields: dict[str, Any]) -> JackpotDropPolicy | None:
    """The jackpot drop policy written by :func:`hand_to_phh_data` among ``fields``, if any.

    :raises HandHistoryError: if the fields are there but not a valid policy.
    """
    if "_jackpot_drop_percent" not in fields:
        return None
    try:
        return JackpotDropPolicy.from_record(
            {key: fields.get(f"_jackpot_drop_{key}") for key in ("percent", "cap", "min_pot")}
        )
    except ConfigError as exc:
        raise HandHistoryError(
            f"The hand's jackpot drop fields are not a valid drop: {exc}"
        ) from exc


def rake_fields(policy: RakePolicy) -> dict[str, Any]:
    """The PHH user-defined fields of a rake policy (read back by :func:`rake_policy_of`)."""
    return {f"_rake_{key}": value for key, value in policy.to_record().items()}


def rake_policy_of(fields: dict[str, Any]) -> RakePolicy | None:
    """The rake policy written by :func:`rake_fields` among a file's ``fields``, if any.

    :raises HandHistoryError: if the fields are there but not a valid policy.
    """
    if "_rake_basis_points" not in fields:
        return None
    try:
        return RakePolicy.from_record(
            {key: fields.get(f"_rake_{key}") for key in RakePolicy(0).to_record()}
        )
    except ConfigError as exc:
        raise HandHistoryError(f"The hand's rake fields are not a valid rake: {exc}") from exc


def _actions_text(hand: Hand) -> list[str]:
    """PHH action strings of ``hand``'s events, with all-in shows made explicit.

    When nobody can bet any more our engine tables the live hands by itself;
    PHH (PokerKit) expects those hands to be shown before the next board
    cards, so ``sm`` actions are written there, in showdown order.
    """
    replayed = Hand.start(_start_of(hand))
    out: list[str] = []
    shows_written = False
    for event in hand.events[1:]:
        if isinstance(event, DealBoard) and replayed.cards_up and not shows_written:
            out.extend(_allin_shows(replayed))
            shows_written = True
        replayed.apply(event)
        text = _event_text(event)
        if text is not None:
            out.append(text)
    return out


def _start_of(hand: Hand) -> StartHand:
    start = hand.events[0]
    assert isinstance(start, StartHand)
    return start


def _allin_shows(hand: Hand) -> list[str]:
    live = hand.in_hand()
    start = hand.aggressor if hand.aggressor is not None and hand.aggressor in live else 0
    n = hand.player_count
    order = [i for i in ((start + k) % n for k in range(n)) if i in live]
    shows = []
    for i in order:
        cards = hand.hole[i]
        if len(cards) == 2 and None not in cards:
            shows.append(f"p{i + 1} sm {_cards_text(cards)}")
    return shows


def _event_text(event: Event) -> str | None:
    if isinstance(event, DealHole):
        return f"d dh p{event.player + 1} {_cards_text(event.cards)}"
    if isinstance(event, DealBoard):
        return f"d db {_cards_text(event.cards)}"
    if isinstance(event, Burn):
        return None
    if isinstance(event, Fold):
        return f"p{event.player + 1} f"
    if isinstance(event, CheckCall):
        return f"p{event.player + 1} cc"
    if isinstance(event, BetRaise):
        return f"p{event.player + 1} cbr {event.to}"
    if isinstance(event, Show):
        return f"p{event.player + 1} sm {_cards_text(event.cards)}"
    if isinstance(event, Muck):
        return f"p{event.player + 1} sm"
    raise HandHistoryError(f"The event {event!r} has no PHH form.")


def hand_to_phh(hand: Hand) -> str:
    """Return our ``hand`` (from its event list) as PHH text.

    ``finishing_stacks`` is written when the hand is complete. Burned cards
    are not part of PHH and are left out.
    """
    return tomli_w.dumps(hand_to_phh_data(hand))


def dump_phh(hand: Hand, path: str | Path) -> None:
    """Write our ``hand`` as a PHH file at ``path`` (UTF-8)."""
    Path(path).write_text(hand_to_phh(hand), encoding="utf-8")


__all__ = ["dump_phh", "hand_to_phh", "hand_to_phh_data", "slots_to_players"]
