"""Views computed with a :class:`~firmware.views.share.ViewShare` equal views computed alone.

The server computes every client's view after each change with one share (the
parts everyone may see computed once); a share must never let one audience's
cards or the console's pot reach another view.
"""

from __future__ import annotations

import pytest

from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.views.audience import console_view, seat_view
from firmware.views.share import ViewShare
from hal_sim.table_soak import Soak


class SharedViewSoak(Soak):
    """The soak, comparing shared and unshared views of every audience after every event."""

    def __init__(self, profile: str, seed: int) -> None:
        self.controller: Controller | None = None
        super().__init__(profile, seed, incident_rate=0.3)
        self.controller = Controller(self.table, {}, TagRegistry(":memory:"))
        self.compared = 0
        self.hidden_pots = 0

    def _apply(self, event: te.TableEvent) -> bool:
        applied = super()._apply(event)
        if self.controller is not None:
            self._compare()
        return applied

    def _compare(self) -> None:
        share = ViewShare()
        seats = range(1, self.table.config.options.max_seats + 1)
        for lang in ("en", "es"):
            # Twice through the share: the second view of a seat must not see the first's.
            for seat in [*seats, *seats]:
                alone = seat_view(self.table, seat, lang, self.controller)
                shared = seat_view(self.table, seat, lang, self.controller, share)
                assert shared == alone, (seat, lang)
                self.hidden_pots += alone["table"]["pot_total"] is None
            alone = console_view(self.table, lang, self.controller)
            assert console_view(self.table, lang, self.controller, share) == alone, lang
        self.compared += 1


@pytest.mark.parametrize("profile", ["casino-cash", "tda-tournament"])
def test_shared_views_equal_views_computed_alone_after_every_event(profile: str) -> None:
    soak = SharedViewSoak(profile, seed=21)
    for _ in range(12):
        soak.play_hand()
    assert soak.compared > 200
    if profile == "tda-tournament":  # the pot is hidden from seats there (TDA-34)
        assert soak.hidden_pots > 0
