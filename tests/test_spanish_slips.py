"""Spanish with no English left at the table (issue 23, item 10).

Cards are written as rank and suit symbol ("Q♥", never "Qh") and the symbols
are drawn (the bundled font has no suit glyphs); devices without a display
name are shown by their kind's name ("Sabot", not "shoe"); a driver's fault
inside an alert is said through the catalog; ``pokertable init`` comments its
file in the chosen language; one/many grammar ("1 mano").
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import re
import tomllib
from collections.abc import Iterator

import pygame
import pytest

from firmware.cli.init import render
from firmware.i18n import CATALOG, tr, tr_count
from firmware.service.controller import Controller
from firmware.service.controller_state import Alert
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.views.audience import console_view
from hal_sim.fakes import FakeButtons, FakeReaders, FakeShoe
from tests.test_ui_spanish import english_in, english_words_in
from ui import suits
from ui.console import ConsoleScreen
from ui.fonts import Fonts
from ui.widgets import Screen


@pytest.fixture(autouse=True, scope="module")
def _display() -> Iterator[None]:
    pygame.init()
    pygame.display.set_mode((800, 480))
    yield
    pygame.quit()


# --- cards ------------------------------------------------------------------------------


def test_card_codes_become_rank_and_suit_symbol() -> None:
    assert suits.with_suits("Carta: Qh") == "Carta: Q♥"
    assert suits.with_suits("Bruno se lleva el botón con 7s.") == "Bruno se lleva el botón con 7♠."
    assert suits.with_suits("Mesa: AhKdTc") == "Mesa: A♥ K♦ 10♣"
    assert (
        suits.with_suits("?? oculta; seat1.turn; 0x2c; Qhx") == "?? oculta; seat1.turn; 0x2c; Qhx"
    )


def test_the_screens_find_card_codes_as_the_views_write_them() -> None:
    from firmware.views.redact import CARD_RUN

    text = "As Kd, AhKd7c; Qhx xQh 10h Ts 1c"
    assert suits.CARD_RUN.findall(text) == CARD_RUN.findall(text) == ["As", "Kd", "AhKd7c", "Ts"]


def test_the_suit_symbols_are_drawn_not_missing_glyph_boxes() -> None:
    """The suit symbols are drawn as the cards' own shapes, in the screens' font's lines:
    each one's pixels differ from the others, right of the rank."""
    font = Fonts().get(28)
    images = [suits.render(font, f"Q{s}", (255, 255, 255)) for s in "♠♥♦♣"]
    shapes = {pygame.image.tobytes(img, "RGBA") for img in images}
    assert len(shapes) == 4
    plain = suits.render(font, "Q", (255, 255, 255))
    for img in images:
        assert img.get_width() == suits.width(font, "Q♥") > plain.get_width()
        lit = sum(
            1
            for x in range(plain.get_width() + 1, img.get_width())
            for y in range(img.get_height())
            if img.get_at((x, y)).a > 128
        )
        assert lit > 10  # the symbol's own pixels, right of the rank


def test_a_screen_draws_card_names_with_symbols() -> None:
    screen = Screen({"type": "view", "lang": "es"})
    screen.surface = pygame.Surface((800, 480))
    screen.text("Carta: Qh", pygame.Rect(0, 0, 300, 30), 0.05)
    screen.paragraph(
        "HG-8: As encontrada boca arriba en la baraja", pygame.Rect(0, 40, 120, 200), 0.05
    )
    assert screen.drawn[0] == "Carta: Q♥"
    assert all("As " not in t for t in screen.drawn) and any("A♠" in t for t in screen.drawn)


# --- devices and faults ----------------------------------------------------------------


def table_with(devices: dict[str, object]) -> tuple[Table, Controller]:
    config = TableConfig("casino-cash", profile_options("casino-cash"), Stakes(1, 2))
    table = Table(config, deck_ready=True)
    for seat, name in ((1, "Ana"), (2, "Bruno")):
        table.apply(te.SitDown(seat, name, 200))
    table.apply(te.SetButton(1))
    return table, Controller(table, devices, TagRegistry(":memory:"))  # type: ignore[arg-type]


def test_devices_without_a_display_name_show_their_kind_in_the_language() -> None:
    """Pills read "Sabot", "Botones", "Lectores de tarjetas", never "shoe", "reader",
    "seats"; a configured display name still wins."""
    devices = {
        "shoe": FakeShoe("shoe", {"seed": 1}),
        "seats": FakeButtons("seats", {"buttons": ["seat1.action"], "leds": ["seat1.turn"]}),
        "reader": FakeReaders("reader", {"readers": ["seat1", "console"]}),
    }
    table, controller = table_with(devices)
    es = {d["name"]: d["label"] for d in console_view(table, "es", controller)["devices"]}
    en = {d["name"]: d["label"] for d in console_view(table, "en", controller)["devices"]}
    assert es == {"reader": "Lectores de tarjetas", "seats": "Botones", "shoe": "Sabot"}
    assert en == {"reader": "Card readers", "seats": "Buttons", "shoe": "Card shoe"}
    controller.display_names = {"shoe": {"es": "Zapato", "en": "Shoe"}}
    es = {d["name"]: d["label"] for d in console_view(table, "es", controller)["devices"]}
    assert es["shoe"] == "Zapato"
    screen = ConsoleScreen(console_view(table, "es", controller))
    screen.draw()
    assert not english_words_in(screen.drawn), screen.drawn


def test_a_drivers_led_fault_reads_in_spanish_on_the_console() -> None:
    """An LED the closed buttons device cannot set: the alert is said through the catalog
    (the driver's error has its key), with the device's name in Spanish; no English."""
    buttons = FakeButtons("buttons", {"buttons": ["seat1.action"], "leds": ["seat1.button"]})
    table, controller = table_with({"buttons": buttons})  # never opened
    controller._outputs()  # light the button's LED: the device refuses
    (alert,) = controller.alerts
    assert alert.key == "alert.device.led_failed" and "is not open" in alert.text
    texts = [a["text"] for a in console_view(table, "es", controller)["console"]["alerts"]]
    expected = tr(
        "alert.device.led_failed",
        "es",
        device="Botones",
        led="seat1.button",
        error=tr("hw.not_open", "es", device="Botones"),
    )
    assert texts == [expected]
    assert not english_words_in(texts) and not english_in(texts)
    english = [a["text"] for a in console_view(table, "en", controller)["console"]["alerts"]]
    assert "the device 'Buttons' is not open" in english[0]


def test_an_error_without_a_key_is_not_shown_in_english_on_a_spanish_console() -> None:
    table, controller = table_with({})
    error = {"key": None, "params": {}, "text": "The widget exploded."}
    controller.alerts.append(
        Alert(0.0, "x", "panel", "alert.device.close_failed", {"device": "panel", "error": error})
    )
    (text,) = [a["text"] for a in console_view(table, "es", controller)["console"]["alerts"]]
    assert "exploded" not in text and tr("alert.detail_in_log", "es") in text
    (text,) = [a["text"] for a in console_view(table, "en", controller)["console"]["alerts"]]
    assert "The widget exploded." in text


def test_the_staff_role_and_floor_page_read_in_spanish() -> None:
    for key in ("ui.staff_role.floor", "ui.console.floor", "ui.showdown.your_turn"):
        assert not english_words_in([tr(key, "es")]), key


# --- pokertable init -------------------------------------------------------------------


COMMENT = re.compile(r"#\s*(.*)$")


@pytest.mark.parametrize(
    ("profile", "devices", "expander"),
    [
        ("tda-tournament", "hardware", False),
        ("casino-cash", "hardware", True),
        ("home", "sim", False),
        ("casino-cash", "electronic", False),
    ],
)
def test_init_writes_its_comments_in_the_chosen_language(
    profile: str, devices: str, expander: bool
) -> None:
    """The same settings in both languages; every English comment line has its Spanish one,
    and no Spanish comment has English in it (commented-out settings aside)."""
    args = (profile, 9, devices, "/run/t.sock", "poker", "/etc/pt", "lgpio", None, expander)
    es, en = render(*args, lang="es"), render(*args, lang="en")
    assert tomllib.loads(es) == tomllib.loads(en)

    def comments(text: str) -> list[str]:
        found = [m.group(1) for line in text.splitlines() if (m := COMMENT.search(line))]
        return [c for c in found if "=" not in c and not c.startswith("[")]  # not settings

    spanish, english = comments(es), comments(en)
    assert len(spanish) == len(english) > 10
    changed = [(e, s) for e, s in zip(english, spanish, strict=True) if e != s]
    assert len(changed) >= len(english) - 1, set(english) & set(spanish)
    # Commands, paths, options and setting names are the same in every language.
    technical = re.compile(r"pokertable [a-z ]+|/\S+|--\w+|\w+_\w+")
    assert not english_words_in([technical.sub(" ", c) for c in spanish]), spanish
    assert "Configuración de la mesa escrita por `pokertable init`" in es


# --- one and many ----------------------------------------------------------------------


def test_one_and_many() -> None:
    assert tr("cli.config.problems", "es", file="t", count=1) == "t: 1 problema:"
    assert tr("cli.config.problems", "es", file="t", count=3) == "t: 3 problemas:"
    assert tr("incident.premature.what", "es", count=1).startswith("1 carta sacada ")
    assert tr_count("cli.status.table", 1, "es", profile="home", state="x", hands=1).endswith(
        "1 mano desde que empezó el diario."
    )
    for key in CATALOG:
        many = key[: -len(".one")]
        if key.endswith(".one") and many in CATALOG:  # a singular: its plural's placeholders
            for lang in ("en", "es"):
                fields = set(re.findall(r"\{(\w+)", CATALOG[key][lang]))
                assert fields == set(re.findall(r"\{(\w+)", CATALOG[many][lang])), key
