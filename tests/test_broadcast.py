"""The broadcast feed (house procedure BROADCAST, issue 15): what it may carry, its
rules from ``[broadcast]``, and its delay through the real table server."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import pytest

from firmware.cli.config_check import broadcast_problems
from firmware.errors import ConfigError
from firmware.protocol.broadcast import DelayLine
from firmware.table import events as te
from firmware.views.audience import console_view
from firmware.views.broadcast import MIN_DELAY_WITH_HOLE_CARDS, BroadcastRules, broadcast_view
from firmware.views.redact import UNSEEN
from tests.test_protocol import Rig, is_view, start_hand
from tests.test_views import table_with_hand as dealt_table


def test_hole_cards_need_a_delay_of_fifteen_minutes() -> None:
    with pytest.raises(ConfigError) as caught:
        BroadcastRules(delay_seconds=60, hole_cards=True)
    assert caught.value.key == "config.broadcast.hole_cards_delay"
    assert BroadcastRules(delay_seconds=MIN_DELAY_WITH_HOLE_CARDS, hole_cards=True).hole_cards
    assert BroadcastRules(delay_seconds=0).delay_seconds == 0  # no hole cards: any delay
    with pytest.raises(ConfigError):
        BroadcastRules(delay_seconds=-1)


def test_the_section_is_checked_option_by_option() -> None:
    assert broadcast_problems(None) == []
    assert broadcast_problems({"delay_seconds": 1200, "hole_cards": True, "equity": True}) == []
    keys = [p.key for p in broadcast_problems({"delay": 5, "equity": "yes"})]
    assert keys == ["config.broadcast.unknown", "config.broadcast.type"]
    keys = [p.key for p in broadcast_problems({"delay_seconds": 10, "hole_cards": True})]
    assert keys == ["config.broadcast.hole_cards_delay"]
    assert [p.key for p in broadcast_problems("on")] == ["config.broadcast.not_table"]
    with pytest.raises(ConfigError):
        BroadcastRules.from_section({"delay_seconds": True})  # true is no number of seconds


def test_without_hole_cards_the_feed_shows_what_the_console_shows() -> None:
    table = dealt_table()
    view = broadcast_view(table, "en", BroadcastRules(delay_seconds=30))
    console = console_view(table, "en")
    assert view["audience"] == "broadcast" and view["hole_cards"] is False
    assert view["table"]["seats"] == console["table"]["seats"]
    assert all(c == UNSEEN for row in view["table"]["seats"] for c in row["cards"])
    assert view["equity"] is None  # equity off
    for private in ("console", "devices", "staff", "legal"):
        assert private not in view


def test_with_hole_cards_every_live_hand_is_shown() -> None:
    table = dealt_table()
    rules = BroadcastRules(delay_seconds=MIN_DELAY_WITH_HOLE_CARDS, hole_cards=True)
    view = broadcast_view(table, "es", rules)
    rows = {row["seat"]: row["cards"] for row in view["table"]["seats"]}
    assert all(len(cards) == 2 and UNSEEN not in cards for cards in rows.values())
    assert len({c for cards in rows.values() for c in cards}) == 6


def test_the_line_gives_each_view_after_its_delay_and_drops_the_oldest_when_full() -> None:
    now = [100.0]
    line = DelayLine(30.0, clock=lambda: now[0], max_bytes=10)
    line.put("es", b"a" * 4)
    now[0] = 110.0
    line.put("es", b"b" * 4)
    line.put("en", b"c" * 4)  # 12 bytes waiting: the oldest is dropped
    line.put("en", b"c" * 4)  # the same view again (a change nobody sees): not queued
    assert line.dropped == 1 and len(line) == 2
    assert line.due() == {} and line.latest("es") is None
    now[0] = 140.0
    assert line.due() == {"es": b"b" * 4, "en": b"c" * 4}
    assert line.latest("es") == b"b" * 4 and len(line) == 0


@pytest.fixture
def broadcast_rig(tmp_path: pathlib.Path, pki: pathlib.Path) -> Iterator[tuple[Rig, list[float]]]:
    now = [1000.0]
    rig = Rig(
        tmp_path, pki, broadcast=BroadcastRules(delay_seconds=30), broadcast_clock=lambda: now[0]
    )
    yield rig, now
    rig.close()


def test_the_broadcast_terminal_gets_the_table_only_after_the_delay(
    broadcast_rig: tuple[Rig, list[float]],
) -> None:
    rig, now = broadcast_rig
    watcher = rig.connect("broadcast")
    assert watcher.wait_for(lambda m: m["type"] == "welcome")["terminal"] == "broadcast"
    start_hand(rig)
    line = rig.server._line
    assert line is not None and len(line) > 0  # the hand's views wait in the line
    assert line.latest("es") is None  # nothing given yet: the delay has not passed
    now[0] += 31.0
    view = watcher.wait_for(lambda m: is_view(m) and m["table"]["hand"] is not None)
    assert view["audience"] == "broadcast" and view["delay_seconds"] == 30
    assert all(c == UNSEEN for row in view["table"]["seats"] for c in row["cards"])


def test_the_broadcast_terminal_acts_for_nobody(broadcast_rig: tuple[Rig, list[float]]) -> None:
    rig, _ = broadcast_rig
    watcher = rig.connect("broadcast")
    watcher.wait_for(lambda m: m["type"] == "welcome")
    start_hand(rig)
    requests: list[dict[str, Any]] = [
        {"type": "act", "action": "fold"},
        {"type": "report", "report": "misdeal"},
        {"type": "login", "pin": "1111"},
    ]
    for request in requests:
        watcher.send(request)
        refused = watcher.wait_for(lambda m: m["type"] == "refused")
        assert refused["key"].startswith("protocol."), refused
    watcher.send({"type": "language", "lang": "en"})
    assert watcher.wait_for(lambda m: m["type"] == "ok")["request"] == "language"
    assert rig.table.hand is not None and not any(rig.table.hand.hand.folded)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    from tests.test_protocol import make_ca, make_cert

    d = tmp_path_factory.mktemp("broadcast-pki")
    make_ca(d, "ca")
    make_cert(d, "controller", "ca", server=True)
    return d


def test_equity_with_hole_cards_from_two_hands_and_a_note_before_a_three_way_flop() -> None:
    table = dealt_table()
    rules = BroadcastRules(delay_seconds=MIN_DELAY_WITH_HOLE_CARDS, hole_cards=True, equity=True)
    view = broadcast_view(table, "en", rules)
    assert view["equity"] is None and view["equity_note"] == "ui.console.equity_from_flop"
    th = table.hand
    assert th is not None and th.hand.actor is not None
    folder = th.seat(th.hand.actor)
    table.apply(te.Act(folder, "fold", 0))  # two hands left: the heads-up table answers
    view = broadcast_view(table, "en", rules)
    rows = view["equity"]
    assert rows is not None and view["equity_note"] == ""
    assert sorted(r["seat"] for r in rows) == sorted({1, 2, 3} - {folder})
    assert abs(sum(r["equity"] for r in rows) - 100.0) < 0.2
    assert all(0 <= r["win"] <= r["equity"] <= r["win"] + r["tie"] for r in rows)
    # Without hole cards the feed has no equity until the hands are tabled (TDA-9).
    public = BroadcastRules(delay_seconds=0, equity=True)
    assert broadcast_view(table, "en", public)["equity"] is None


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_broadcast_screen_draws_the_hands_and_their_equity(
    lang: str, tmp_path: pathlib.Path
) -> None:
    """The preview in each language (``UI_SCREENSHOTS=docs/screens`` keeps a copy)."""
    import os

    import pygame

    from firmware.i18n import tr
    from ui.app import make_screen
    from ui.broadcast import BroadcastScreen

    table = dealt_table()
    th = table.hand
    assert th is not None and th.hand.actor is not None
    table.apply(te.Act(th.seat(th.hand.actor), "fold", 0))  # two hands: equity from the table
    rules = BroadcastRules(delay_seconds=1800, hole_cards=True, equity=True)
    view = broadcast_view(table, lang, rules)
    pygame.init()
    screen = make_screen(view, pygame.Surface((800, 480)))
    assert isinstance(screen, BroadcastScreen)
    out = pathlib.Path(os.environ.get("UI_SCREENSHOTS") or tmp_path) / f"broadcast-{lang}.png"
    pygame.image.save(screen.draw(), str(out))
    texts = list(screen.drawn)
    assert tr("ui.broadcast.delay_minutes", lang, minutes=30) in texts
    for row in view["equity"]:
        assert tr("ui.broadcast.equity", lang, equity=row["equity"]) in texts
    other = "en" if lang == "es" else "es"
    assert tr("ui.broadcast.title", other) not in " ".join(texts)
    assert screen.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(400, 240), button=1)) == []


def test_without_hole_cards_a_three_way_all_in_before_the_flop_says_odds_from_the_flop() -> None:
    """As on the console: the hands are tabled (TDA-9) but three hands before the flop are
    not computed, so the feed carries the console's sentence instead of nothing."""
    table = dealt_table()
    for action in ("allin", "call", "call"):
        th = table.hand
        assert th is not None and th.hand.actor is not None
        table.apply(te.Act(th.seat(th.hand.actor), action, 0))
    th = table.hand
    assert th is not None and th.hand.cards_up and not th.hand.board
    console = console_view(table, "en")
    assert console["console"]["equity"] == "ui.console.equity_from_flop"
    view = broadcast_view(table, "en", BroadcastRules(delay_seconds=0, equity=True))
    assert view["equity"] is None
    assert view["equity_note"] == console["console"]["equity"]


def test_a_full_line_keeps_giving_views_when_the_delay_outlasts_what_it_holds() -> None:
    """The line holds 5 seconds of views (a view a second in each language) but the delay
    is 100 s: were the oldest dropped when full, every view would leave before its delay
    passed and the feed would freeze for good. Thinned, it keeps running in both
    languages, each view given no earlier than its delay, and ends on the newest."""
    now = [0.0]
    line = DelayLine(100.0, clock=lambda: now[0], max_bytes=100)
    shown: dict[str, list[float]] = {"es": [], "en": []}
    for second in range(400):
        now[0] = float(second)
        for lang in ("es", "en"):
            line.put(lang, f"{lang}{second:08d}".encode())  # 10 bytes: that second's view
        for lang, data in line.due().items():
            made = float(data[2:].decode())
            assert data[:2].decode() == lang and now[0] - made >= 100.0  # never early
            shown[lang].append(made)
    for lang in ("es", "en"):
        assert shown[lang] == sorted(shown[lang]) and shown[lang][-1] >= 290.0, shown[lang]
    assert line.dropped > 0 and line._bytes <= 100
    now[0] = 500.0  # the table stopped changing: the feed reaches its last view
    assert line.due() == {"es": b"es00000399", "en": b"en00000399"}


def test_no_equity_while_the_hole_cards_are_still_being_dealt() -> None:
    """Mid-deal two seats may hold both cards while a third holds one: their heads-up
    odds would be shown as if the third were not in the hand. Equity waits for the deal."""
    from firmware.table.options import Stakes, TableConfig, profile_options
    from firmware.table.table import Table

    config = TableConfig("casino-cash", profile_options("casino-cash"), Stakes(1, 2))
    table = Table(config, deck_ready=True)
    for seat, name in ((1, "Ana"), (2, "Bruno"), (3, "Carmen")):
        table.apply(te.SitDown(seat, name, 200))
    table.apply(te.Shuffle())
    table.apply(te.Cut())
    for card in range(5):  # one card short of the deal: two hands of two, one of one
        table.apply(te.CardDrawn(card))
    th = table.hand
    assert th is not None and not th.s.dealt
    rules = BroadcastRules(delay_seconds=MIN_DELAY_WITH_HOLE_CARDS, hole_cards=True, equity=True)
    view = broadcast_view(table, "en", rules)
    held = sorted(len([c for c in row["cards"] if c != UNSEEN]) for row in view["table"]["seats"])
    assert held == [1, 2, 2]  # the cards dealt so far are shown
    assert view["equity"] is None
    table.apply(te.CardDrawn(5))  # the deal is done: three hands before the flop
    assert broadcast_view(table, "en", rules)["equity_note"] == "ui.console.equity_from_flop"


def test_a_broadcast_terminal_without_its_section_is_noted() -> None:
    from firmware.cli.config_check import config_notes

    data: dict[str, Any] = {"server": {"socket": "/run/t.sock"}, "terminals": {"broadcast": "x"}}
    assert "config.note.broadcast_off" in config_notes(data)
    data["broadcast"] = {"delay_seconds": 60}
    assert "config.note.broadcast_off" not in config_notes(data)


def test_a_failing_broadcast_view_skips_the_feed_not_the_table(
    broadcast_rig: tuple[Rig, list[float]], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig, _ = broadcast_rig
    seat = rig.connect("seat1")
    seat.wait_for(is_view)

    def broken(*args: object, **kwargs: object) -> dict[str, Any]:
        raise RuntimeError("a fault in the broadcast view")

    monkeypatch.setattr("firmware.protocol.viewfeed.broadcast_view", broken)
    start_hand(rig)
    view = seat.wait_for(lambda m: is_view(m) and m["table"]["hand"] is not None)
    assert view["table"]["seats"][0]["cards"] != []  # seat 1 got its hand
    assert not rig.controller.paused and not rig.controller.state.stops
