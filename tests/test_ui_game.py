"""Running the game from the console (issue 12): the game page's flows against the real server.

The console's game page seats a player, takes buy-ins and rebuys, sits a
player out and back, cashes out and sets the button; each flow's message goes
through a live :class:`~firmware.protocol.server.TableServer` and the test
checks the event the table logged. Fields are checked before the table sees
them; the table's own refusal (a buy-in below the minimum, CC-16) comes back
and is shown in the screen's language. A seat's "call the floor" becomes an
alert on the console in the console's language. ``pokertable serve`` loads
the blind structure named in ``[tournament]``.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pathlib
from collections.abc import Iterator
from typing import Any

import pygame
import pytest

from firmware.cli.serve import build, device_display_names, tournament_schedule
from firmware.errors import ConfigError
from firmware.i18n import tr
from firmware.service.recovery import restore
from firmware.table import events as te
from tests.test_ui_server_contract import (
    Rig,
    console,
    exchange,
    logged,
    seat,
    send_all,
    taps,
)

pytestmark = pytest.mark.xdist_group("ui_server_contract")


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


@pytest.fixture
def rig(tmp_path: pathlib.Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.close()


def test_cc_16_seat_a_player_by_name_with_a_buy_in_from_the_game_page(rig: Rig) -> None:
    """CC-16: the dealer seats a player in an empty seat with a buy-in the table accepts."""
    client, screen = console(rig, "dealer")
    out = taps(screen, "game", "game_sit", "seat_4", "letter_A", "letter_N", "letter_A")
    assert out == []
    screen.draw()
    out = taps(screen, "flow_next", "key_1", "key_0", "key_0", "flow_next")
    screen.draw()
    summary = screen._summary()
    assert "Ana" in summary and "Buy-in: 100" in summary
    assert tr("ui.consequence.sit", "en", seat="Seat 4") in summary
    out = taps(screen, "flow_confirm")
    assert out == [{"type": "report", "report": "sit", "seat": 4, "player": "Ana", "chips": 100}]
    assert not send_all(client, screen, out)
    assert te.SitDown(4, "Ana", 100) in logged(rig, te.SitDown)
    seats = {s["seat"]: s for s in screen.table["seats"]}
    assert seats[4]["name"] == "Ana" and seats[4]["stack"] == 100


def test_cc_16_a_buy_in_below_the_minimum_is_refused_in_the_screens_language(rig: Rig) -> None:
    """CC-16: the table refuses 5 chips (minimum 10 big blinds = 20) and says so in Spanish."""
    client, screen = console(rig, "dealer")
    screen.lang = "es"
    refusals, view = exchange(
        client, {"type": "report", "report": "sit", "seat": 5, "player": "Luis", "chips": 5}, "es"
    )
    assert [r["key"] for r in refusals] == ["error.table.buy_in_low"]
    assert screen.refusal_text(refusals[0]) == tr("error.table.buy_in_low", "es")
    assert view["console"]["buy_in"] == {"min": 20, "max": 0}
    assert not [e for e in logged(rig, te.SitDown) if e.seat == 5]


@pytest.mark.parametrize(
    "fields",
    [
        {"seat": 11, "player": "Luis", "chips": 100},
        {"seat": 0, "player": "Luis", "chips": 100},
        {"seat": "5", "player": "Luis", "chips": 100},
        {"seat": 5, "player": "", "chips": 100},
        {"seat": 5, "player": "x" * 41, "chips": 100},
        {"seat": 5, "player": "Luis", "chips": -100},
        {"seat": 5, "player": "Luis", "chips": True},
        {"seat": 5, "player": "Luis"},
        {"seat": 5, "player": "Luis", "chips": 100, "wait_for_big_blind": "yes"},
        {"seat": 5, "player": "Luis", "chips": 100, "staff": "Dani"},
    ],
)
def test_game_report_fields_are_checked_before_the_table(rig: Rig, fields: dict[str, Any]) -> None:
    """Every field of a game report is checked for type and range; nothing reaches the table."""
    client, _ = console(rig, "dealer")
    refusals, _ = exchange(client, {"type": "report", "report": "sit", **fields})
    assert [r["key"] for r in refusals] == ["protocol.fields"]
    assert not [e for e in logged(rig, te.SitDown) if e.seat == 5]


def test_game_reports_need_a_dealer_or_floor_login(rig: Rig) -> None:
    client, _ = console(rig, None)
    refusals, _ = exchange(client, {"type": "report", "report": "cash_out", "seat": 2})
    assert [r["key"][:20] for r in refusals] == ["protocol.permission."]
    assert not logged(rig, te.CashOut)


def test_rebuy_sit_out_come_back_set_button_and_cash_out_from_the_game_page(rig: Rig) -> None:
    client, screen = console(rig, "floor")
    flows = [
        (("game_rebuy", "seat_2", "key_5", "key_0", "flow_next"), te.Rebuy(2, 50)),
        (("game_sit_out", "seat_3"), te.SitOut(3, True)),
        (("game_come_back", "seat_3"), te.SitOut(3, False)),
        (("game_set_button", "seat_2"), te.SetButton(2)),
        (("game_cash_out", "seat_1"), te.CashOut(1)),
    ]
    for steps, event in flows:
        screen._set_page("game")
        screen.draw()
        out = taps(screen, *steps)
        assert out == []
        screen.draw()
        assert screen.flow is not None
        kind = screen.flow["kind"]
        said = tr(f"ui.consequence.{kind}", "en", seat=f"Seat {event.seat}", amount=0)
        assert said.split(" ")[0] in screen._summary()
        out = taps(screen, "flow_confirm")
        assert not send_all(client, screen, out), (steps, out)
        assert event in rig.table.log, (steps, out)
    assert 1 not in {s["seat"] for s in screen.table["seats"]}


def test_the_seat_calls_the_floor_and_the_console_shows_it_in_its_language(rig: Rig) -> None:
    seat_client, seat_screen = seat(rig, 2)
    seat_screen.draw()
    out = taps(seat_screen, "call_floor")
    assert out == [{"type": "call_floor"}]
    assert seat_screen.notice == tr("ui.call_floor.sent", seat_screen.lang)
    seat_client.send(out[0])
    console_client, _ = console(rig, "dealer")
    _, view = exchange(console_client, {"type": "language", "lang": "es"}, "es")
    texts = [a["text"] for a in view["console"]["alerts"]]
    assert tr("alert.call_floor", "es", seat=2) in texts
    refusals, _ = exchange(seat_client, {"type": "call_floor", "seat": 5})
    assert [r["key"] for r in refusals] == ["protocol.fields"]
    refusals, _ = exchange(console_client, {"type": "call_floor"})
    assert [r["key"][:20] for r in refusals] == ["protocol.permission."]


LEVELS = """
structure = "NL"
chip_unit = 25

[[levels]]
small_blind = 25
big_blind = 50
minutes = 20

[[levels]]
break_minutes = 10

[[levels]]
small_blind = 50
big_blind = 100
minutes = 20
"""


def test_tda_17_serve_loads_the_blind_structure_named_in_the_configuration(
    tmp_path: pathlib.Path,
) -> None:
    """TDA-17: ``[tournament] levels`` names the structure; the table plays its levels, and a
    restart restores the same structure from the journal."""
    (tmp_path / "levels.toml").write_text(LEVELS)
    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\nprofile = "tda-tournament"\nsmall_blind = 25\nbig_blind = 50\n'
        '[tournament]\nlevels = "levels.toml"\n'
    )
    controller, journals, restored = build(str(config), str(tmp_path / "data"))
    assert not restored
    table = controller.table
    assert table.levels is not None
    assert [lv.big_blind for lv in table.levels.schedule.levels] == [50, 100]
    table.apply(te.LevelClock("start"))
    journals["journal"].append(te.LevelClock("start"))
    again = restore(journals["journal"])
    assert again.levels is not None and again.levels.schedule == table.levels.schedule
    assert again.levels.started_at == 0.0
    controller.shutdown()
    journals["journal"].close()


def test_a_bad_tournament_section_stops_startup_with_a_sentence(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ConfigError, match="levels"):
        tournament_schedule({"file": "x.toml"}, str(tmp_path / "table.toml"))
    with pytest.raises(ConfigError, match="cannot be read"):
        tournament_schedule({"levels": "missing.toml"}, str(tmp_path / "table.toml"))
    (tmp_path / "bad.toml").write_text("[[levels]]\nsmall_blind = 50\nbig_blind = 25\nminutes=5\n")
    with pytest.raises(ConfigError):
        tournament_schedule({"levels": "bad.toml"}, str(tmp_path / "table.toml"))


def test_the_seat_shows_the_level_blinds_and_time_to_the_next_level() -> None:
    from ui.seat import SeatScreen

    view: dict[str, Any] = {
        "type": "view",
        "audience": "seat",
        "seat": 2,
        "lang": "es",
        "table": {"hand": None, "phase": "idle", "seats": []},
        "level": {
            "number": 3,
            "small_blind": 50,
            "big_blind": 100,
            "ante": 0,
            "seconds_left": 125.0,
            "on_break": False,
        },
    }
    screen = SeatScreen(view)
    assert screen.level_text() == tr("ui.seat.level", "es", n=3, sb=50, bb=100, time="02:05")
    screen.tick(6.0)
    assert screen.level_text().endswith("01:59")


def test_devices_show_their_configured_display_name_in_each_language(
    tmp_path: pathlib.Path,
) -> None:
    from firmware.views.audience import console_view

    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\nprofile = "home"\nsmall_blind = 1\nbig_blind = 2\n'
        '[devices.deck]\nkind = "shoe"\nbackend = "virtual"\n'
        'display_name = { es = "Baraja virtual", en = "Virtual deck" }\n'
    )
    controller, journals, _ = build(str(config), str(tmp_path / "data"))
    try:
        for lang, label in (("es", "Baraja virtual"), ("en", "Virtual deck")):
            (device,) = console_view(controller.table, lang, controller)["devices"]
            assert (device["name"], device["label"]) == ("deck", label)
    finally:
        controller.shutdown()
        journals["journal"].close()
    with pytest.raises(ConfigError, match="display_name"):
        device_display_names({"deck": {"kind": "shoe", "display_name": {"fr": "Sabot"}}})
