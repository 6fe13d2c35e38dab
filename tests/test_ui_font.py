"""The screens' font (issue 23, item 10: "SIGUIEN TE CARTA DEL SABOT", "Baraj a").

The text wrapper never split those words: pygame's bundled default font
(freesansbold) drew them with gaps inside at the screens' sizes. Every screen now
draws with the package's own DejaVu Sans Bold (``ui/fonts.py``); these tests hold
it to what a reader needs: no gap inside a word, every letter of the catalog
drawn, the file shipped in the package, and a clear sentence when it is missing.
"""

from __future__ import annotations

import os
import pathlib
import re
import tomllib
from fnmatch import fnmatch

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame
import pytest

from ui import fonts
from ui.fonts import FONT_FILE, MIN_TEXT_HEIGHT, FontMissing, Fonts
from ui.link import main_screen

ROOT = pathlib.Path(__file__).resolve().parents[1]
CATALOG = tomllib.loads((ROOT / "firmware" / "i18n" / "messages.toml").read_text("utf-8"))
LARGEST = 60
"""The largest nominal size the screens draw (the seat's hole cards' ranks)."""


def _screen_words() -> list[str]:
    """Every word of four letters or more in the screens' texts (``ui.*``), both languages."""
    words: set[str] = set()
    for key, texts in CATALOG.items():
        if key.startswith("ui."):
            for lang in ("es", "en"):
                words.update(re.findall(r"[^\W\d_]{4,}", texts.get(lang, "")))
    return sorted(words)


def _wider_than_halves(font: pygame.font.Font, words: list[str]) -> list[str]:
    """Words drawn wider whole than their two halves side by side (a gap inside)."""
    found = []
    for word in words:
        whole = font.size(word)[0]
        for cut in range(1, len(word)):
            halves = font.size(word[:cut])[0] + font.size(word[cut:])[0]
            if whole > halves:
                found.append(f"{word[:cut]}|{word[cut:]} ({whole} > {halves} px)")
    return found


def test_no_word_is_drawn_wider_than_its_two_halves() -> None:
    """A gap inside a word makes it wider than its halves drawn one after the other
    (kerning can only bring letters closer). The old font failed this for thousands of
    words and sizes ("SIGUIEN|TE", "Baraj|a")."""
    pygame.font.init()
    table = Fonts()
    words = _screen_words()
    assert {"SIGUIENTE", "Baraja", "asiento"} <= set(words)
    gaps = {
        size: found
        for size in range(table.min_size, LARGEST + 1)
        if (found := _wider_than_halves(table.get(size), words))
    }
    assert not gaps, {size: found[:5] for size, found in gaps.items()}


def test_the_gap_test_catches_pygames_default_font() -> None:
    """The check above can fail: pygame's default font, which drew "SIGUIEN TE" on the
    console, fails it at the sizes the screens used."""
    pygame.font.init()
    found = [
        w
        for size in range(20, 30)  # its line is 14 px (the readable minimum) from size 21
        for w in _wider_than_halves(pygame.font.Font(None, size), ["SIGUIENTE", "Baraja"])
    ]
    assert found


def test_every_letter_of_the_catalog_is_a_glyph_of_the_font() -> None:
    """Spanish in full (á é í ó ú ü ñ ¿ ¡ º «»…): no letter drawn as the font's
    "missing" box (the drawing of a non-character)."""
    pygame.font.init()
    font = Fonts().get(40)

    def image(text: str) -> bytes:
        return pygame.image.tobytes(font.render(text, True, (255, 255, 255), (0, 0, 0)), "RGB")

    box = image("\uffff")
    assert box == image("\ufffe")  # every missing letter is drawn the same
    letters = {c for texts in CATALOG.values() for t in texts.values() for c in t} - {" ", "\n"}
    letters |= set("ÁÉÍÓÚÜÑáéíóúüñ¿¡€")
    missing = sorted(c for c in letters if image(c) == box)
    assert not missing
    assert image("A") != box  # the comparison can tell a glyph from the box


def test_every_screen_text_goes_through_the_package_font() -> None:
    """One place opens fonts: no screen module opens pygame's default or a system font."""
    opened = re.compile(r"font\.Font\(|SysFont|match_font|get_default_font")
    elsewhere = [
        f"{path.name}:{number}"
        for path in sorted((ROOT / "ui").glob("*.py"))
        if path.name != "fonts.py"
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if opened.search(line)
    ]
    assert not elsewhere
    assert FONT_FILE.parent == ROOT / "ui" / "data" and FONT_FILE.is_file()
    assert Fonts().get(20).get_height() >= MIN_TEXT_HEIGHT


def test_the_font_and_its_licence_are_package_data() -> None:
    """A pip-installed table has the font: pyproject's package data for ``ui`` takes the
    TTF and its licence, which says the licence's terms."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    patterns = project["tool"]["setuptools"]["package-data"]["ui"]
    data = ROOT / "ui" / "data"
    for path in (FONT_FILE, data / "LICENSE-DejaVu.txt"):
        assert any(fnmatch(str(path.relative_to(ROOT / "ui")), p) for p in patterns), path
    licence = (data / "LICENSE-DejaVu.txt").read_text("utf-8")
    assert "Bitstream Vera Fonts Copyright" in licence and "Arev Fonts Copyright" in licence


def test_a_missing_font_is_one_sentence_never_another_font(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = tmp_path / "DejaVuSans-Bold.ttf"
    monkeypatch.setattr(fonts, "FONT_FILE", gone)
    with pytest.raises(FontMissing) as raised:
        Fonts()
    assert str(gone) in str(raised.value) and "\n" not in str(raised.value)
    assert main_screen(["--seat", "1", "--lang", "es", "--socket", "/nonexistent"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(gone) in err
    assert err.startswith("pokertable screen: no se puede abrir la fuente de las pantallas")
