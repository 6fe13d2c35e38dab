"""The all-in's live equity in the views and on the console, from a real tournament table.

Only public information: the console gets each hand's equity only once the live
hands are turned up (TDA-9: no more betting is possible), and those hands are
then public cards for every audience, so the odds reveal no hole card the
console may not see. A seat's view never carries them. The console's screen
draws them (SDL dummy driver) in Spanish and English; with
``UI_SCREENSHOTS=docs/screens`` the documentation's screenshots are written.
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

from firmware.engine.cards import format_card, parse_card, parse_cards
from firmware.i18n import tr
from firmware.odds.equity import equity
from firmware.table import events as te
from firmware.views import live_equity as le
from firmware.views.audience import console_view, public_cards, seat_view
from firmware.views.redact import UNSEEN
from firmware.views.share import ViewShare
from tests.ui_tables import TournamentRun
from ui.console import ConsoleScreen

LANGS = pytest.mark.parametrize("lang", ["es", "en"])


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


class AllIn(TournamentRun):
    """A tournament table whose shoe gives chosen cards: each seat's hole cards, then the
    burns and board cards in order."""

    def __init__(self, stacks: dict[int, int], holes: dict[int, str], rest: str) -> None:
        super().__init__(50, 100)
        for seat, chips in stacks.items():
            self.table.apply(te.SitDown(seat, f"P{seat}", chips))
        self.table.apply(te.SetButton(min(stacks)))
        self.holes = {seat: parse_cards(cards) for seat, cards in holes.items()}
        self.rest = parse_cards(rest)
        self.table.apply(te.Shuffle())
        self.table.apply(te.Cut())
        th = self.table.hand
        assert th is not None
        while True:
            role, seat = th.next_card_role()
            if role != "hole":
                break
            assert seat is not None
            self.table.apply(te.CardDrawn(self.holes[seat].pop(0)))

    @property
    def th(self) -> Any:
        assert self.table.hand is not None
        return self.table.hand

    def act(self, action: str) -> None:
        self.table.apply(te.Act(self.th.seat(self.th.hand.actor), action))

    def street(self) -> None:
        """The burn and the cards of the next street."""
        street = self.th.hand.street
        while self.th.hand.street == street:
            self.table.apply(te.CardDrawn(self.rest.pop(0)))

    def tabled(self) -> dict[int, list[int]]:
        hand = self.th.hand
        return {
            self.th.seat(p): list(hole) for p, hole in enumerate(hand.hole) if not hand.folded[p]
        }

    def console(self, lang: str = "en") -> dict[str, Any]:
        view = console_view(self.table, lang, self.controller, ViewShare())
        view["staff"] = {"name": "Flor", "role": "dealer"}
        return view


def rows(shares: dict[int, Any]) -> list[dict[str, float]]:
    """The console's rows for exact shares: percent rounded to 0.1."""
    return [
        {"seat": seat, **{k: round(100 * v, 1) for k, v in share.items()}}
        for seat, share in sorted(shares.items())
    ]


def odds_rows(
    tabled: dict[int, list[int]], board: list[int], dead: list[int]
) -> list[dict[str, float]]:
    """The same rows from the numpy odds extra."""
    seats = sorted(tabled)
    shares = equity([tabled[s] for s in seats], board, dead)
    return rows(
        {
            s: {"win": x.win, "tie": x.ties / x.boards, "equity": x.equity}
            for s, x in zip(seats, shares, strict=True)
        }
    )


def has_key(value: Any, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(has_key(v, key) for v in value)
    return False


def heads_up() -> AllIn:
    game = AllIn({1: 5000, 2: 3000}, {1: "AsKs", 2: "QdQc"}, "2c Ts7h2s 3c 9d 4c 5d")
    return game


def test_heads_up_equity_only_once_the_hands_are_tabled_tda_9() -> None:
    """Once no more betting is possible every live hand is turned up for everyone; only
    then, and only from those public hands, does the console get each hand's odds."""
    game = heads_up()
    try:
        view = game.console()
        assert view["console"]["equity"] is None  # cards dealt, nobody all in yet
        assert all(c == UNSEEN for s in view["table"]["seats"] for c in s["cards"])
        game.act("allin")
        view = game.console()
        assert not view["table"]["cards_up"] and view["console"]["equity"] is None  # not called
        game.act("call")
        view = game.console()
        tabled = game.tabled()
        assert view["table"]["cards_up"]
        assert view["console"]["equity"] == odds_rows(tabled, [], [])  # the stored table
        # What the equity names is public: every tabled card is on the console's screen.
        public = public_cards(game.th)
        for row in view["console"]["equity"]:
            seat = next(s for s in view["table"]["seats"] if s["seat"] == row["seat"])
            assert seat["cards"] == [format_card(c) for c in tabled[row["seat"]]]
            assert set(seat["cards"]) <= public
        for seat in (1, 2):
            assert not has_key(seat_view(game.table, seat, "en", game.controller), "equity")
        game.street()  # burn 2c, flop Ts 7h 2s: the burn nobody saw stays in the deck
        view = game.console()
        board = list(game.th.hand.board)
        assert len(board) == 3 and parse_card("2c") not in le._public_dead(game.th)
        assert view["console"]["equity"] == odds_rows(tabled, board, [])
        game.street()
        view = game.console()
        assert view["console"]["equity"] == odds_rows(tabled, list(game.th.hand.board), [])
        for seat in (1, 2):
            assert not has_key(seat_view(game.table, seat, "es", game.controller), "equity")
    finally:
        game.close()


def test_three_hands_are_shown_from_the_flop_and_a_card_seen_face_up_is_dead() -> None:
    game = AllIn(
        {1: 3000, 2: 3000, 3: 3000}, {1: "AsKs", 2: "QdQc", 3: "9h8h"}, "2c Ts7h2s 3c 9d 4c 5d"
    )
    try:
        game.act("allin")
        game.act("call")
        assert game.console()["console"]["equity"] is None  # one still to act: not tabled
        game.act("call")
        view = game.console("es")
        assert view["console"]["equity"] == le.FROM_FLOP
        assert le.live_equity(game.th) is None
        game.table.apply(te.FaceUpInDeck(parse_card("Jh")))  # HG-8: shown to everyone, dead
        assert le._public_dead(game.th) == {parse_card("Jh")}
        game.street()
        tabled, board = game.tabled(), list(game.th.hand.board)
        view = game.console("es")
        assert view["console"]["equity"] == odds_rows(tabled, board, parse_cards("Jh"))
        assert view["console"]["equity"] != odds_rows(tabled, board, [])
        exact = le.live_equity(game.th)
        assert exact is not None and rows(exact) == view["console"]["equity"]
    finally:
        game.close()


def test_a_fold_before_the_all_in_leaves_that_hand_out() -> None:
    game = AllIn(
        {1: 3000, 2: 3000, 3: 3000}, {1: "AsKs", 2: "QdQc", 3: "9h8h"}, "2c Ts7h2s 3c 9d 4c 5d"
    )
    try:
        game.act("allin")
        folder = game.th.seat(game.th.hand.actor)
        game.act("fold")
        game.act("call")
        assert game.th.hand.cards_up
        equity_rows = game.console()["console"]["equity"]
        assert [r["seat"] for r in equity_rows] == sorted(set((1, 2, 3)) - {folder})
        assert equity_rows == odds_rows(game.tabled(), [], [])
    finally:
        game.close()


def test_the_views_of_one_change_compute_the_equity_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import firmware.views.audience as audience

    calls: list[int] = []
    compute = audience.console_equity

    def counted(th: Any) -> Any:
        calls.append(1)
        return compute(th)

    monkeypatch.setattr(audience, "console_equity", counted)
    game = heads_up()
    try:
        game.act("allin")
        game.act("call")
        share = ViewShare()
        views = [console_view(game.table, lang, game.controller, share) for lang in ("es", "en")]
        assert len(calls) == 1
        assert views[0]["console"]["equity"] == views[1]["console"]["equity"] is not None
    finally:
        game.close()


def save(screen: ConsoleScreen, name: str, tmp: Path) -> list[str]:
    out = Path(os.environ.get("UI_SCREENSHOTS") or tmp) / f"{name}-{screen.lang}.png"
    pygame.image.save(screen.draw(), str(out))
    return list(screen.drawn)


def percent(value: float, lang: str) -> str:
    return tr(
        "ui.console.percent", lang, value=f"{value:.1f}".replace(".", tr("ui.decimal_mark", lang))
    )


@LANGS
def test_console_screen_draws_the_all_in_equity(lang: str, tmp_path: Path) -> None:
    game = AllIn(
        {1: 3000, 2: 3000, 3: 3000}, {1: "AsKs", 2: "QdQc", 3: "9h8h"}, "2c Ts7h2s 3c 9d 4c 5d"
    )
    try:
        game.act("allin")
        game.act("call")
        game.act("call")
        screen = ConsoleScreen(game.console(lang))
        texts = save(screen, "console-allin-preflop", tmp_path)
        assert tr("ui.console.equity", lang) in texts
        assert tr(le.FROM_FLOP, lang) in " ".join(texts)
        game.street()
        view = game.console(lang)
        screen = ConsoleScreen(view)
        texts = save(screen, "console-allin-equity", tmp_path)
        assert tr("ui.console.equity", lang) in texts
        for row in view["console"]["equity"]:
            assert percent(row["equity"], lang) in texts
            assert screen.seat_label(row["seat"]) in texts
            if row["tie"]:
                assert tr("ui.console.equity_tie", lang, tie=percent(row["tie"], lang)) in texts
        assert any("," in t and t.endswith(" %") for t in texts) == (lang == "es")
        # Before the all-in the panel is not drawn: the seat map is.
        before = AllIn({1: 3000, 2: 3000}, {1: "AsKs", 2: "QdQc"}, "")
        try:
            screen = ConsoleScreen(before.console(lang))
            screen.draw()
            assert tr("ui.console.equity", lang) not in screen.drawn
        finally:
            before.close()
    finally:
        game.close()
