"""Screenshots of running the game from the screens, in Spanish and English (docs/screens/).

Rendered headless (SDL dummy driver) from views the firmware computes for a
real tournament table: two players seated from the console, their buy-ins, a
level with its clock, a hand played to the showdown, one player cashed out.
Each test checks what the page must show, then saves the PNG;
``UI_SCREENSHOTS=docs/screens`` writes the documentation's copies.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from firmware.i18n import tr
from firmware.service.controller import Alert, Controller
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.views.audience import console_view, seat_view
from tests.ui_tables import TournamentRun
from ui.console import ConsoleScreen
from ui.seat import SeatScreen
from ui.widgets import Screen


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


class Game(TournamentRun):
    """A tournament table at 100/200 after 7 minutes of level 2, run by the walkthrough."""

    def __init__(self) -> None:
        super().__init__(50, 100)

    def seat(self, number: int, lang: str) -> dict[str, Any]:
        return seat_view(self.table, number, lang, self.controller)

    def console(self, lang: str, role: str = "floor") -> dict[str, Any]:
        view = console_view(self.table, lang, self.controller)
        view["staff"] = {"name": "Flor", "role": role}
        return view

    def seat_two_and_start(self) -> None:
        self.table.apply(te.SitDown(1, "Ana", 5000))
        self.table.apply(te.SitDown(2, "Bruno", 3000))
        self.table.apply(te.SetButton(1))
        self.table.apply(te.LevelClock("start"))

    def deal(self) -> None:
        self.table.apply(te.Shuffle())
        self.table.apply(te.Cut())
        th = self.table.hand
        assert th is not None
        while th.next_card_role()[0] == "hole":
            self.draw()


@pytest.fixture
def game() -> Iterator[Game]:
    g = Game()
    yield g
    g.close()


def save(screen: Screen, name: str, tmp: Path) -> list[str]:
    """Draw ``screen``, save it as ``name``-``lang``.png and return the texts drawn."""
    out = Path(os.environ.get("UI_SCREENSHOTS") or tmp) / f"{name}-{screen.lang}.png"
    pygame.image.save(screen.draw(), str(out))
    return list(screen.drawn)


LANGS = pytest.mark.parametrize("lang", ["es", "en"])


@LANGS
def test_game_page_with_seat_map_and_level_clock(game: Game, lang: str, tmp_path: Path) -> None:
    game.seat_two_and_start()
    game.table.apply(te.Tick(2100.0))  # level 1, a 10-minute break, 5 minutes of level 2
    screen = ConsoleScreen(game.console(lang))
    screen.page = "game"
    texts = save(screen, "console-game", tmp_path)
    line = tr("ui.level.line", lang, n=2, sb=100, bb=200, time="15:00")
    assert line in texts
    assert any("Ana" in t for t in texts) and any(t.startswith("3 ·") for t in texts)


STEPS: dict[str, tuple[str, ...]] = {
    "console-seat-name": ("game", "game_sit", "seat_2", "letter_B", "letter_R", "letter_U"),
    "console-seat-buyin": ("game", "game_sit", "seat_2", "letter_B", "flow_next", "key_3"),
    "console-seat-confirm": (
        "game",
        "game_sit",
        "seat_2",
        *(f"letter_{c}" for c in "BRUNO"),
        "flow_next",
        "key_3",
        "key_0",
        "key_0",
        "key_0",
        "flow_next",
    ),
    "console-cash-out-confirm": ("game", "game_cash_out", "seat_2"),
}


@LANGS
@pytest.mark.parametrize("name", sorted(STEPS))
def test_game_flow_steps(game: Game, lang: str, name: str, tmp_path: Path) -> None:
    from tests.test_ui_seat import tap

    game.table.apply(te.SitDown(1, "Ana", 5000))
    if name == "console-cash-out-confirm":
        game.table.apply(te.SitDown(2, "Bruno", 3000))
    screen = ConsoleScreen(game.console(lang, "dealer"))
    for id in STEPS[name]:
        screen.draw()
        assert tap(screen, id) == []
    texts = save(screen, name, tmp_path)
    if name == "console-seat-name":
        assert "Bru" in texts
    if name.endswith("confirm"):
        kind = "sit" if "seat" in name else "cash_out"
        seat = tr("ui.console.seat_named", lang, seat=2, name="Bruno")
        if kind == "sit":  # Bruno is not seated yet
            seat = tr("ui.seat.number", lang, seat=2)
        said = tr(f"ui.consequence.{kind}", lang, seat=seat, amount=3000)  # a cash-out's chips
        assert any(said in t for t in texts)


@LANGS
def test_seat_with_the_level_clock_and_call_floor(game: Game, lang: str, tmp_path: Path) -> None:
    game.seat_two_and_start()
    game.table.apply(te.Tick(300.0))
    game.deal()
    th = game.table.hand
    assert th is not None
    actor = th.seat(th.hand.actor) if th.hand.actor is not None else 1
    screen = SeatScreen(game.seat(actor, lang))
    texts = save(screen, "seat-level-clock", tmp_path)
    assert tr("ui.seat.level", lang, n=1, sb=50, bb=100, time="15:00") in texts
    assert tr("ui.call_floor", lang) in texts
    from tests.test_ui_seat import tap

    assert tap(screen, "call_floor") == [{"type": "call_floor"}]
    save(screen, "seat-call-floor", tmp_path)


@LANGS
def test_console_dealing_with_a_floor_call(game: Game, lang: str, tmp_path: Path) -> None:
    game.seat_two_and_start()
    game.deal()
    game.table.apply(te.FloorCall(2))
    game.controller.alerts.append(
        Alert(0.0, "Seat 2 calls the floor.", "seat2", "alert.call_floor", {"seat": 2})
    )
    screen = ConsoleScreen(game.console(lang, "dealer"))
    texts = save(screen, "console-dealing-game", tmp_path)
    # Shown once: the open call's notice with its Answer button (not again as an alert).
    assert texts.count(tr("alert.call_floor", lang, seat=2)) == 1
    assert "answer_floor" in {b.id for b in screen.buttons()}


@LANGS
def test_seat_all_in_confirmation(game: Game, lang: str, tmp_path: Path) -> None:
    from tests.test_ui_seat import tap

    game.seat_two_and_start()
    game.deal()
    th = game.table.hand
    assert th is not None and th.hand.actor is not None
    screen = SeatScreen(game.seat(th.seat(th.hand.actor), lang))
    screen.draw()
    tap(screen, "preset_all_in")
    screen.draw()
    assert tap(screen, "raise") == []
    texts = save(screen, "seat-allin-confirm", tmp_path)
    assert tr("ui.allin.binding", lang) in texts


@LANGS
def test_seat_names_its_hand_and_the_winner(game: Game, lang: str, tmp_path: Path) -> None:
    game.seat_two_and_start()
    game.deal()
    game.play_out(stop_at_showdown=True)
    th = game.table.hand
    assert th is not None
    view = game.seat(1, lang)
    assert view["own_hand"]
    texts = save(SeatScreen(view), "seat-own-hand", tmp_path)
    assert tr("ui.own_hand", lang, hand=view["own_hand"]) in texts
    game.play_out()
    view = game.seat(1, lang)
    texts = save(SeatScreen(view), "seat-winner", tmp_path)
    winners = view["table"]["winners"]
    assert winners
    assert tr("ui.wins.you", lang, amount=winners[0]["amount"]) in texts


# ---------------------------------------------------------------- issue 12, second round


@LANGS
def test_console_seats_a_player_by_card(game: Game, lang: str, tmp_path: Path) -> None:
    """The player card on seat 3's reader: the notice on the game page, then the card step."""
    from tests.test_ui_seat import tap

    game.table.apply(te.SitDown(1, "Ana", 5000))
    game.controller.players = {"P-000123": "Carla Ruiz", "P-000124": "Dora Gil"}
    game.controller.state.readers["seat3"] = "player:P-000123"
    game.controller.state.readers["console"] = "player:P-000124"
    screen = ConsoleScreen(game.console(lang, "dealer"))
    screen.page = "game"
    texts = save(screen, "console-card-waiting", tmp_path)
    assert tr("ui.player_card.at_seat", lang, seat=3, name="Carla Ruiz") in texts
    screen.page = "main"
    for id in ("game", "game_sit_card"):
        screen.draw()
        assert tap(screen, id) == []
    texts = save(screen, "console-sit-card", tmp_path)
    assert tr("ui.step.player_card", lang) in texts
    assert any("Dora Gil (P-000124)" in t for t in texts)


@LANGS
def test_console_and_seats_show_the_draw_for_the_button(
    game: Game, lang: str, tmp_path: Path
) -> None:
    game.table.apply(te.SitDown(1, "Ana", 5000))
    game.table.apply(te.SitDown(2, "Bruno", 3000))
    game.table.apply(te.SitDown(4, "Carla", 4000))
    king_hearts, king_spades, four_clubs = 11 * 4 + 2, 11 * 4 + 3, 2 * 4
    game.table.apply(te.DrawButton((1, 2, 4), (king_hearts, king_spades, four_clubs)))
    screen = ConsoleScreen(game.console(lang, "dealer"))
    screen.page = "game"
    texts = save(screen, "console-draw-button", tmp_path)
    bruno = tr("ui.console.seat_named", lang, seat=2, name="Bruno")
    # Cards drawn as rank and suit symbol (issue 23).
    said = tr("ui.draw_button.console", lang, cards="1: K♥, 2: K♠, 4: 4♣", seat=bruno)
    assert said in texts
    texts = save(SeatScreen(game.seat(4, lang)), "seat-button-draw", tmp_path)
    assert tr("ui.draw_button.result", lang, seat="Bruno", card="K♠") in texts


@LANGS
def test_console_shows_an_open_call_for_the_floor(game: Game, lang: str, tmp_path: Path) -> None:
    from tests.test_ui_seat import tap

    game.seat_two_and_start()
    game.table.apply(te.Tick(10.0))
    game.table.apply(te.FloorCall(2))
    game.table.apply(te.Tick(75.0))
    game.deal()
    screen = ConsoleScreen(game.console(lang, "dealer"))
    texts = save(screen, "console-floor-call", tmp_path)
    assert tr("alert.call_floor", lang, seat=2) in texts
    assert "Bruno · " + tr("ui.floor_call.waiting", lang, time="1:05") in texts
    assert tap(screen, "answer_floor") == [{"type": "report", "report": "answer_floor", "seat": 2}]


def timed_game() -> Game:
    """The walkthrough's table with the automatic action timer: 30 s, then 60 s of bank."""
    g = Game()
    options = profile_options("tda-tournament", action_timer_seconds=30, time_bank_seconds=60)
    g.table = Table(
        TableConfig("tda-tournament", options, Stakes(small_blind=50, big_blind=100)),
        deck_ready=True,
        schedule=g.table.levels.schedule if g.table.levels else None,
    )
    g.controller = Controller(g.table, {}, g.registry, tick_seconds=3600)
    return g


@LANGS
def test_seat_shows_its_action_timer_then_its_time_bank(lang: str, tmp_path: Path) -> None:
    game = timed_game()
    try:
        game.seat_two_and_start()
        game.deal()
        th = game.table.hand
        assert th is not None and th.hand.actor is not None
        actor = th.seat(th.hand.actor)
        game.table.apply(te.Tick(game.table.now + 12))
        texts = save(SeatScreen(game.seat(actor, lang)), "seat-action-timer", tmp_path)
        assert "18" in texts and tr("ui.timer.bank_left", lang, seconds=60) in texts
        game.table.apply(te.Tick(game.table.now + 33))  # 45 s into the turn: 45 s of bank
        texts = save(SeatScreen(game.seat(actor, lang)), "seat-time-bank", tmp_path)
        assert tr("ui.timer.bank_you", lang) in texts and "45" in texts
        other = 2 if actor == 1 else 1
        screen = SeatScreen(game.seat(other, lang))
        screen.draw()
        assert tr("ui.timer.bank", lang, seat=actor) in screen.drawn
    finally:
        game.close()


@LANGS
def test_seat_explains_its_badges_and_the_pot(game: Game, lang: str, tmp_path: Path) -> None:
    from tests.test_ui_seat import tap

    game.table.apply(te.SitDown(1, "Ana", 5000))
    game.table.apply(te.SitDown(2, "Bruno", 3000))
    game.table.apply(te.SitDown(3, "Carla", 3000))
    game.table.apply(te.SetButton(1))
    game.table.seating.seats[3].missed_big = True  # Carla missed her big blind (ML)
    screen = SeatScreen(game.seat(1, lang))
    texts = save(screen, "seat-legend", tmp_path)
    assert tr("ui.legend.markers", lang, marks="ML") in texts
    assert tap(screen, "seat_3") == []  # the whole tile explains its badges
    texts = save(screen, "seat-explain-ml", tmp_path)
    assert tr("ui.explain.ML", lang) in texts
    assert tap(screen, "explain_pot") == []
    screen.draw()
    assert tr("ui.explain.pot", lang) in screen.drawn


@LANGS
def test_seat_hold_to_peek(game: Game, lang: str, tmp_path: Path) -> None:
    game.seat_two_and_start()
    game.deal()
    view = game.seat(1, lang)
    own = [c for s in view["table"]["seats"] if s["seat"] == 1 for c in s["cards"]]
    assert len(own) == 2 and "??" not in own
    screen = SeatScreen(view, hold_to_peek=True)
    texts = save(screen, "seat-hold-to-peek", tmp_path)
    assert tr("ui.peek.hold", lang) in texts
    # Neither under the board nor on the seat's tile: pixel for pixel what the backs of
    # two unknown cards look like.
    backs = {**view, "table": {**view["table"], "seats": [
        {**s, "cards": ["??", "??"]} if s["seat"] == 1 else s for s in view["table"]["seats"]
    ]}}  # fmt: skip
    plain = SeatScreen(backs).draw().copy()
    hidden = screen.draw().copy()
    for area in (screen.rect(0.01, 0.105, 0.192, 0.148), screen.rect(0.02, 0.635, 0.28, 0.22)):
        shot = pygame.image.tobytes(hidden.subsurface(area), "RGB")
        assert shot == pygame.image.tobytes(plain.subsurface(area), "RGB")
    card_rect = screen._cards_rect
    assert card_rect is not None
    down = pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=card_rect.center)
    assert screen.handle(down) == [] and screen.peeking
    texts = save(screen, "seat-peeking", tmp_path)
    assert tr("ui.peek.hold", lang) not in texts
    up = pygame.event.Event(pygame.MOUSEBUTTONUP, button=1, pos=card_rect.center)
    assert screen.handle(up) == [] and not screen.peeking
