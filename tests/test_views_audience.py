"""Every audience's view, after every table event of many random hands, shows only what
that audience may see.

The soak of :mod:`hal_sim.table_soak` plays random hands with incidents; a
subclass here computes, after EVERY table event, the view of every seat (and
of an empty seat), of the dealer console and of a technician, and checks them
against what the test knows independently from the events it applied:

* a seat sees its own hole cards, the board, cards exposed during the deal or
  found face up, burns shown after a burn error, hands tabled at the
  showdown and live hands turned up when no more betting is possible (TDA-9);
* the console sees the same public cards and no hole card;
* a technician sees no card at all (the whole message is scanned);
* no view shows a card not yet drawn in the hand (TDA-21);
* a recall entry shows only what that audience could see in that hand.

Default a few hundred hands; set POKERTABLE_VIEW_HANDS for more.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections import Counter
from typing import Any

import pytest

from firmware.engine.cards import format_card
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.dealing import TableHand
from firmware.views.audience import console_view, seat_view, technician_view
from hal_sim.table_soak import Soak

HANDS = int(os.environ.get("POKERTABLE_VIEW_HANDS", "150"))

CARD_RUN = re.compile(r"(?<![A-Za-z0-9])((?:[2-9TJQKA][cdhs])+)(?![A-Za-z0-9])")


def card_strings(message: Any) -> set[str]:
    """Every card named anywhere in ``message`` (values and keys, recursively)."""
    text = json.dumps(message, ensure_ascii=False, default=str)
    found: set[str] = set()
    for run in CARD_RUN.findall(text):
        found.update(run[i : i + 2] for i in range(0, len(run), 2))
    return found


def _names(cards: Any) -> set[str]:
    return {format_card(c) for c in cards if c is not None}


class AudienceSoak(Soak):
    """The soak, checking every audience's view after every table event."""

    def __init__(self, profile: str, seed: int, registry: TagRegistry) -> None:
        self.ready = False  # the soak seats its players while it is built
        super().__init__(profile, seed, incident_rate=0.3)
        self.ready = True
        self.controller = Controller(self.table, {}, registry)
        self.drawn: set[str] = set()
        self.public_events: set[str] = set()
        self.number = 0
        self.allowed_recall: dict[int, dict[int | None, set[str]]] = {}
        self.checked = Counter[str]()
        self.recall_seen: dict[tuple[int, int | None], dict[str, Any]] = {}

    # -------------------------------------------------------------- truth

    def _truth(self, th: TableHand) -> dict[int | None, set[str]]:
        """What each audience may see of ``th`` now, from the events and the hand."""
        hand = th.hand
        public = _names(hand.board) | self.public_events
        for position in range(hand.player_count):
            if hand.shown[position] is not None:
                public |= _names(hand.shown[position] or ())
            if hand.cards_up and not hand.folded[position]:
                public |= _names(hand.hole[position])
        allowed: dict[int | None, set[str]] = {None: set(public)}
        for position, seat in enumerate(th.plan.seats):
            own = hand.hole[position] if th.s.dealt else th.s.buffer.get(position, [])
            allowed[seat] = public | _names(own)
        return allowed

    def last_public(self) -> set[str]:
        """What everyone could see at the end of the last finished hand (its ``ended``)."""
        if not self.table.records:
            return set()
        return set(self.allowed_recall.get(self.table.records[-1]["hand"], {}).get(None, set()))

    # -------------------------------------------------------------- the hook

    def _apply(self, event: te.TableEvent) -> bool:
        if not self.ready:
            return super()._apply(event)
        before = self.table.hand
        if isinstance(event, te.Shuffle):
            self.drawn = set()
            self.public_events = set()
        ok = super()._apply(event)
        if ok:
            if isinstance(event, te.CardDrawn):
                self.drawn.add(format_card(event.card))
            elif isinstance(event, te.FaceUpInDeck | te.ExposedCard):
                self.drawn.add(format_card(event.card))
                self.public_events.add(format_card(event.card))
            elif isinstance(event, te.BurnError) and event.case == "a" and self.table.hand:
                burns = [d for d in self.table.hand.draws if d.role == "burn"]
                self.public_events.add(format_card(burns[-1].card))
            if isinstance(event, te.Shuffle):
                self.number = self.table.hand_number
            if before is not None and self.table.hand is None:
                # The hand just finished: what each audience could see of it, for recall.
                self.allowed_recall[self.number] = self._truth(before)
        self.check_views()
        return ok

    def check_views(self) -> None:
        table = self.table
        th = table.hand
        truth = self._truth(th) if th is not None else {}
        seats = sorted(table.seating.seats)
        empty = next((x for x in range(1, 11) if x not in seats), None)
        audiences: list[int | None] = [*seats, None]
        if empty is not None:
            audiences.append(empty)
        for viewer in audiences:
            if viewer is None:
                view = console_view(table, "es", self.controller)
            else:
                view = seat_view(table, viewer, "en", self.controller)
            recall = view.pop("recall")
            ended = view["table"].pop("ended", None)
            # The last hand's end stays on show until the next hand's first card: its
            # public cards (board, tabled hands), and between hands the board and seats.
            last = self.last_public()
            assert not card_strings(ended) - last, f"the hand's end shows {ended}"
            shown = card_strings(view)
            allowed = truth.get(viewer, truth.get(None, set())) if th is not None else last
            if ended:
                self.checked["ended"] += 1
            leaked = shown - allowed
            assert not leaked, (
                f"{'console' if viewer is None else f'seat {viewer}'} sees {sorted(leaked)} in "
                f"hand {table.hand_number} after {table.log[-1] if table.log else None}"
            )
            undealt = shown - self.drawn if th is not None else shown - last
            assert not undealt, f"undealt cards {sorted(undealt)} in a view (TDA-21)"
            for entry in recall:
                key = (entry["hand"], viewer)
                if self.recall_seen.get(key) == entry:
                    continue  # the same entry as checked before: the record has not changed
                self.recall_seen[key] = copy.deepcopy(entry)
                may = self.allowed_recall[entry["hand"]]
                own = may.get(viewer, may[None]) if viewer is not None else may[None]
                leaked = card_strings(entry) - own
                assert not leaked, (
                    f"the recall of hand {entry['hand']} shows {sorted(leaked)} to "
                    f"{'the console' if viewer is None else f'seat {viewer}'}"
                )
                self.checked["recall"] += 1
            self.checked["seat" if viewer is not None else "console"] += 1
            if viewer is not None and view["legal"] is not None:
                self.checked["legal"] += 1
                self._check_legal(view["legal"])
        tech = technician_view(self.controller)
        assert "table" not in tech
        assert not card_strings(tech), "a technician view names a card"
        self.checked["technician"] += 1

    @staticmethod
    def _check_legal(legal: dict[str, Any]) -> None:
        low, high = legal["min_raise"], legal["max_raise"]
        for name, value in legal["presets"].items():
            assert low <= value <= high, f"preset {name}={value} outside {low}..{high}"


@pytest.mark.parametrize("profile", ["casino-cash", "tda-tournament"])
def test_every_view_after_every_event_shows_only_what_its_audience_may_see(
    profile: str, tmp_path: Any
) -> None:
    registry = TagRegistry(str(tmp_path / "tags.db"))
    soak = AudienceSoak(profile, seed=5, registry=registry)
    while soak.result.hands < HANDS:
        soak.play_hand()
    registry.close()
    # The checks really ran over the situations that matter.
    assert soak.checked["seat"] > HANDS * 10
    assert soak.checked["legal"] > HANDS
    assert soak.checked["recall"] > 0
    assert soak.checked["ended"] > HANDS  # the hands' ends were checked too
    assert soak.result.incidents["TDA-27"] > 0  # exposed cards were seen by everyone
    assert any(r["void"] for r in soak.table.records)


def test_the_scanner_finds_cards_in_text_and_runs() -> None:
    found = card_strings({"a": ["Ah", "Seat 3 to act."], "b": "AhKd7c flop", "Tc": 1})
    assert found == {"Ah", "Kd", "7c", "Tc"}
    assert card_strings({"text": "Full house, kings full of nines", "x": "??"}) == set()
