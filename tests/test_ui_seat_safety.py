"""Issue 23 on the seat: no accidental chips, the hand's end stays readable, the pot's line.

* Every action that puts the whole stack in (a call, a bet or raise, the slider at
  its maximum, an advance "call" that would take every chip) asks again first.
* A control that has just appeared ignores presses for the guard time, measured
  on the screen's clock (:meth:`Screen.tick`), so an advance-action tap never
  lands on the slider that replaced it.
* The end of a hand (board, tabled hands, each pot's winners, the winning hand's
  name) is in every view until the next hand's first card, and a seat keeps it
  at least ``END_HOLD`` seconds.
* A pot the house does not tell (TDA-34) says why in a readable line.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

from collections.abc import Iterator
from typing import Any

import pygame
import pytest

from firmware.i18n import tr
from firmware.table import events as te
from firmware.views.audience import console_view, seat_view
from tests import ui_views as V
from tests.test_ui_seat import tap
from tests.ui_tables import TournamentRun
from ui.fonts import MIN_TEXT_HEIGHT
from ui.seat import SeatScreen
from ui.seat_panels import END_HOLD
from ui.widgets import GUARD_SECONDS


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


def press(screen: SeatScreen, pos: tuple[int, int]) -> list[dict[str, Any]]:
    """A finger down and up at ``pos`` now, without waiting for anything."""
    out = screen.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))
    out += screen.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))
    return out


def facing_a_call_of_everything() -> dict[str, Any]:
    """Seat 3 to act, facing a bet as large as its whole stack: it can only call or fold."""
    view = V.seat_to_act()
    for s in view["table"]["seats"]:
        if s["seat"] == 6:
            s["bet"] = 400
        if s["seat"] == 3:
            s["stack"] = 180
    view["legal"] = {"fold": True, "check": False, "call": 180, "min_raise": None,
                     "max_raise": None, "presets": {}}  # fmt: skip
    return view


# ---------------------------------------------------------------- 2. no accidental chips


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_call_of_the_whole_stack_is_asked_again(lang: str) -> None:
    view = facing_a_call_of_everything()
    view["lang"] = lang
    s = SeatScreen(view)
    s.draw()
    assert tr("ui.act.call_all_in", lang, amount=180) in s.drawn
    assert tap(s, "call") == []  # nothing sent on one tap
    assert s.allin_pending == {"type": "act", "action": "call", "amount": 180}
    s.draw()
    assert tr("ui.allin.confirm", lang, amount=180) in s.drawn
    assert tap(s, "allin_cancel") == [] and s.allin_pending is None
    tap(s, "call")
    assert tap(s, "allin_confirm") == [{"type": "act", "action": "call", "amount": 180}]


def test_a_call_that_leaves_chips_goes_on_one_tap() -> None:
    s = SeatScreen(V.seat_to_act())  # calls 20 of 180
    assert tap(s, "call") == [{"type": "act", "action": "call", "amount": 20}]


def test_the_slider_at_its_maximum_asks_again() -> None:
    s = SeatScreen(V.seat_to_act())
    slider = s.find_slider("slider")
    assert slider is not None
    s.tick(GUARD_SECONDS)
    x = slider.rect.right + 5  # dragged past the end: the maximum, every chip
    s.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, slider.rect.centery), button=1))
    s.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(x, slider.rect.centery), button=1))
    assert s.amount == 180
    assert tap(s, "raise") == []
    assert s.allin_pending == {"type": "act", "action": "allin", "amount": 180}
    assert tap(s, "allin_confirm") == [{"type": "act", "action": "allin", "amount": 180}]


def test_a_bet_of_the_whole_stack_is_asked_again() -> None:
    view = V.seat_to_act()
    for s in view["table"]["seats"]:
        s["bet"] = 0
    view["legal"].update(check=True, call=0, min_raise=20, max_raise=180)
    screen = SeatScreen(view)
    tap(screen, "preset_all_in")
    assert tap(screen, "raise") == []
    assert tap(screen, "allin_confirm") == [{"type": "act", "action": "allin", "amount": 180}]


def test_an_advance_call_of_every_chip_is_asked_again() -> None:
    view = facing_a_call_of_everything()
    del view["legal"]
    view["table"]["actor"] = 6
    s = SeatScreen(view)
    assert tap(s, "advance_call") == []
    assert s.advance is None and s.allin_pending == {"type": "advance", "action": "call"}
    assert tap(s, "allin_confirm") == [{"type": "advance", "action": "call"}]
    assert s.advance == "call"
    # An advance check is nothing of the sort: sent at once.
    assert tap(s, "advance_check") == [{"type": "advance", "action": "check"}]


def test_a_tap_meant_for_an_advance_action_never_lands_on_the_slider() -> None:
    """The finger goes down where "Check" was; the turn came first and the slider is there."""
    waiting = V.seat_waiting_turn()
    s = SeatScreen(waiting)
    s.tick(5.0)
    check = s.button_rect("advance_check")
    assert check is not None
    s.set_view(V.seat_to_act())  # the turn comes: the controls under the finger change
    slider = s.find_slider("slider")
    assert slider is not None and slider.rect.inflate(28, 16).collidepoint(check.center)
    s.tick(GUARD_SECONDS / 3)  # a finger already on its way
    assert press(s, check.center) == []
    assert s.amount == 40, "the slider moved: the advance tap became a bet size"
    s.tick(GUARD_SECONDS)  # the player looks, then chooses
    assert tap(s, "raise", wait=False) == [{"type": "act", "action": "raise", "amount": 40}]


def test_the_guard_is_measured_on_the_screens_clock() -> None:
    s = SeatScreen(V.seat_waiting_turn())
    s.draw()
    s.set_view(V.seat_to_act())
    fold = s.button_rect("fold")
    assert fold is not None
    assert press(s, fold.center) == []  # appeared this instant
    s.tick(GUARD_SECONDS * 0.9)
    assert press(s, fold.center) == []  # still inside the guard
    s.tick(GUARD_SECONDS * 0.2)
    assert press(s, fold.center) == [{"type": "act", "action": "fold"}]


def test_a_dialog_button_under_the_finger_waits_the_guard() -> None:
    """Two quick taps on the all-in button never confirm the dialog it opens."""
    s = SeatScreen(V.seat_to_act())
    tap(s, "preset_all_in")
    raise_rect = s.button_rect("raise")
    assert raise_rect is not None
    assert press(s, raise_rect.center) == []
    confirm = s.button_rect("allin_confirm")
    assert confirm is not None
    assert press(s, confirm.center) == []  # the second tap of a double tap
    assert s.allin_pending is not None


# ---------------------------------------------------------------- 3. the end of a hand


class Run(TournamentRun):
    def __init__(self) -> None:
        super().__init__(50, 100)
        self.table.apply(te.SitDown(1, "Ana", 5000))
        self.table.apply(te.SitDown(2, "Bruno", 3000))
        self.table.apply(te.SetButton(1))

    def deal_hand(self) -> None:
        self.table.apply(te.Shuffle())
        self.table.apply(te.Cut())


@pytest.fixture
def run() -> Iterator[Run]:
    r = Run()
    yield r
    r.close()


def _check_the_end(part: dict[str, Any], board: list[str], lang: str) -> None:
    ended = part["ended"]
    assert ended is not None and ended["board"] == board and len(board) == 5
    assert set(ended["shown"]) == {"1", "2"}  # both hands tabled at the showdown
    assert ended["winners"] and all(w["hand"] for w in ended["winners"])
    assert ended["pots"] and ended["pots"][0]["pot"] == tr("pot.main", lang)
    assert sum(ended["pots"][0]["shares"].values()) == ended["pots"][0]["amount"]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_view_keeps_the_end_until_the_next_hands_first_card(run: Run, lang: str) -> None:
    run.deal_hand()
    th = run.table.hand
    assert th is not None
    while th.next_card_role()[0] == "hole":
        run.draw()
    run.play_out()
    record = run.table.records[-1]
    board = [record["cards"]["board"][i : i + 2] for i in range(0, 10, 2)]
    for view in (seat_view(run.table, 1, lang, run.controller),
                 seat_view(run.table, 2, lang, run.controller),
                 console_view(run.table, lang, run.controller)):  # fmt: skip
        part = view["table"]
        _check_the_end(part, board, lang)
        assert part["board"] == board  # every screen draws the river between hands
        shown = {str(s["seat"]): s["cards"] for s in part["seats"]}
        assert shown == part["ended"]["shown"]
    # The next hand starts (shuffled and cut): still no card, the end stays.
    run.deal_hand()
    for view in (seat_view(run.table, 2, lang, run.controller),
                 console_view(run.table, lang, run.controller)):  # fmt: skip
        _check_the_end(view["table"], board, lang)
    run.draw()  # the first card of the next hand
    assert seat_view(run.table, 2, lang, run.controller)["table"]["ended"] is None
    assert console_view(run.table, lang, run.controller)["table"]["ended"] is None


def test_the_seat_shows_the_river_the_hands_and_the_winner(run: Run) -> None:
    run.deal_hand()
    th = run.table.hand
    assert th is not None
    while th.next_card_role()[0] == "hole":
        run.draw()
    run.play_out()
    view = seat_view(run.table, 2, "es", run.controller)
    ended = view["table"]["ended"]
    s = SeatScreen(view)
    s.draw()
    winner = ended["winners"][0]
    assert winner["hand"] in s.drawn
    loser_or_winner = "ui.wins.you" if winner["seat"] == 2 else "ui.wins"
    name = "Ana" if winner["seat"] == 1 else "Bruno"
    assert tr(loser_or_winner, "es", name=name, amount=winner["amount"]) in s.drawn
    drawn_cards = _cards_drawn(s)
    assert set(ended["board"]) <= drawn_cards
    for cards in ended["shown"].values():
        assert set(cards) <= drawn_cards
    # The next hand's first card comes at once: the seat keeps the end END_HOLD seconds.
    run.deal_hand()
    run.draw()
    s.set_view(seat_view(run.table, 2, "es", run.controller))
    s.tick(END_HOLD - 0.5)
    s.draw()
    assert winner["hand"] in s.drawn and set(ended["board"]) <= _cards_drawn(s)
    assert s.tick(1.0)  # the hold is over: redrawn without it
    s.draw()
    assert winner["hand"] not in s.drawn


def test_a_busted_seat_sees_the_end_then_its_rebuy_prompt(run: Run) -> None:
    run.deal_hand()
    th = run.table.hand
    assert th is not None
    while th.next_card_role()[0] == "hole":
        run.draw()
    run.play_out()
    view = seat_view(run.table, 2, "es", run.controller)
    me = next(s for s in view["table"]["seats"] if s["seat"] == 2)
    me["stack"] = 0  # as if Bruno had lost every chip
    s = SeatScreen(view, rebuy_chips=(3000,))
    s.draw()
    assert "rebuy_3000" not in {b.id for b in s.buttons()}  # first the hand's end
    s.tick(END_HOLD)
    s.draw()
    assert "rebuy_3000" in {b.id for b in s.buttons()}
    assert set(view["table"]["ended"]["board"]) <= _cards_drawn(s)  # the river stays


def _cards_drawn(screen: SeatScreen) -> set[str]:
    """The card codes ``draw_card`` was asked to draw face up in the last draw."""
    import ui.seat

    seen: set[str] = set()
    original = ui.seat.draw_card

    def spy(surface: Any, rect: Any, code: Any, *args: Any, **kwargs: Any) -> None:
        if code and code != "??":
            seen.add(str(code))
        original(surface, rect, code, *args, **kwargs)

    ui.seat.draw_card = spy  # type: ignore[assignment]
    try:
        screen.draw()
    finally:
        ui.seat.draw_card = original  # type: ignore[assignment]
    return seen


def test_you_win_is_said_right() -> None:
    view = V.seat_waiting()
    view["lang"] = "en"
    view["table"]["winners"] = [{"seat": 3, "amount": 100, "hand": ""}]
    s = SeatScreen(view)
    s.draw()
    assert "You win 100" in s.drawn and not any("You wins" in t for t in s.drawn)


# ---------------------------------------------------------------- 4. the pot


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_pot_the_house_does_not_tell_says_why_readably(lang: str) -> None:
    view = V.seat_to_act()
    view["lang"] = lang
    view["table"]["pot_total"] = None  # hide_pot (TDA-34, pot_display = pot-limit-only)
    for p in view["table"]["pots"]:
        p["amount"] = None
    s = SeatScreen(view)
    s.draw()
    why = tr("ui.pot.hidden_why", lang)
    assert why in s.drawn and why not in s.cut
    words = " ".join(t for t, _ in s.rendered)
    assert all(w in words for w in why.split())  # every word drawn, none cut off
    pot = s.button_rect("explain_pot")
    assert pot is not None
    heights = [h for t, h in s.rendered if t in why]
    assert heights and min(heights) >= MIN_TEXT_HEIGHT
    assert tap(s, "explain_pot") == []
    assert why in s.notice


def test_the_pot_is_shown_with_its_amount() -> None:
    s = SeatScreen(V.seat_to_act())
    s.draw()
    assert tr("ui.pot", "en", amount=150) in s.drawn


def test_the_tournament_profile_hides_the_pot_and_the_seat_says_why(run: Run) -> None:
    """The real tda-tournament table: no-limit, pot_display pot-limit-only."""
    run.deal_hand()
    th = run.table.hand
    assert th is not None
    while th.next_card_role()[0] == "hole":
        run.draw()
    view = seat_view(run.table, 1, "es", run.controller)
    assert view["table"]["pot_total"] is None
    s = SeatScreen(view)
    s.draw()
    assert tr("ui.pot.hidden_why", "es") in s.drawn
