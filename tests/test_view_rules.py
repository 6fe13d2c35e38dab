"""What views may tell: the pot's size (TDA-34), chips by denomination (TDA-19), who shows."""

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import pygame

from firmware.engine.cards import parse_cards
from firmware.engine.rules import Structure
from firmware.hal import ChipsChanged
from firmware.service.controller import Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.views.audience import console_view, seat_view
from ui.seat import SeatScreen


def table(profile: str, structure: Structure = Structure.NO_LIMIT) -> Table:
    config = TableConfig(profile, profile_options(profile), Stakes(structure=structure))
    t = Table(config, deck_ready=True)
    for seat in (1, 2, 3):
        t.apply(te.SitDown(seat, f"P{seat}", 200))
    t.apply(te.SetButton(1))
    t.apply(te.Shuffle())
    t.apply(te.Cut())
    for card in parse_cards("AhKd7cAsKh2d"):
        t.apply(te.CardDrawn(card))
    return t


def test_tda_34_pot_told_only_in_pot_limit_under_the_tournament_profile() -> None:
    """TDA-34: in no-limit the seats are not told the pot; in pot-limit they are."""
    nl = seat_view(table("tda-tournament"), 1, "en")
    assert nl["table"]["pot_shown"] is False and nl["table"]["pot_total"] is None
    assert all(p["amount"] is None for p in nl["table"]["pots"])
    assert "pot" not in nl["legal"]["presets"] and "half_pot" not in nl["legal"]["presets"]
    pl = seat_view(table("tda-tournament", Structure.POT_LIMIT), 1, "en")
    assert pl["table"]["pot_shown"] is True and pl["table"]["pot_total"] == 3
    assert "pot" in pl["legal"]["presets"]
    cash = seat_view(table("casino-cash"), 1, "en")
    assert cash["table"]["pot_total"] == 3  # the casino profile always shows the pot
    assert console_view(table("tda-tournament"), "en")["table"]["pot_total"] == 3  # the dealer's
    pygame.init()
    screen = SeatScreen(nl, surface=pygame.display.set_mode((800, 480)), lang="en")
    screen.draw()  # renders "Pot" with no amount instead of failing
    pygame.quit()


def test_tda_19_stacks_by_denomination_from_the_chip_trays(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """TDA-19: each stack's chips by denomination, as the trays read them."""
    registry = TagRegistry(str(tmp_path / "tags.sqlite"))
    registry.add_chip_range("1000", "10FF", 25)
    registry.add_chip_range("5000", "50FF", 100)
    t = table("casino-cash")
    controller = Controller(t, {}, registry)
    controller.post(ChipsChanged("trays", 0.0, "seat2.stack", frozenset({"1001", "1002", "5001"})))
    controller.run_pending()
    seats = seat_view(t, 1, "en", controller)["table"]["seats"]
    assert next(s for s in seats if s["seat"] == 2)["chips"] == {"100": 1, "25": 2}
    assert next(s for s in seats if s["seat"] == 3)["chips"] == {}


def test_the_view_names_whose_turn_it_is_to_show() -> None:
    """TDA-37: at the showdown the view says which seat shows (or mucks) next."""
    t = table("casino-cash")
    for seat, action in ((1, "call"), (2, "call"), (3, "check")):
        t.apply(te.Act(seat, action))
    for burn, cards in (("3c", "QdJdTd"), ("4h", "9s"), ("5h", "8c")):
        for card in parse_cards(burn + cards):
            t.apply(te.CardDrawn(card))
        for seat in (2, 3, 1):
            t.apply(te.Act(seat, "check"))
    view = seat_view(t, 2, "en")
    assert view["table"]["phase"] == "showdown" and view["table"]["to_show"] == 2
