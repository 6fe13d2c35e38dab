"""The message catalog: every message in both languages with the same placeholders."""

import string

import pytest

from firmware.i18n import CATALOG, LANGUAGES, tr


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("key", sorted(CATALOG))
def test_tda_14_every_message_exists_in_spanish_and_english(key: str) -> None:
    """TDA-14: every message shown to people exists in Spanish and English with the same
    placeholders.
    """
    entry = CATALOG[key]
    for lang in LANGUAGES:
        assert entry.get(lang), f"{key} has no {lang} text"
    assert _fields(entry["en"]) == _fields(entry["es"]), key


def test_error_keys_used_in_code_exist_in_catalog() -> None:
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parent.parent / "firmware"
    used = set()
    for path in root.rglob("*.py"):
        used.update(re.findall(r'key="([a-z_.]+)"', path.read_text()))
    missing = sorted(k for k in used if k not in CATALOG)
    assert not missing, f"keys used in firmware/ but missing from the catalog: {missing}"


def test_translation_fills_placeholders() -> None:
    assert tr("action.raise", "es", name="Ana", amount=40) == "Ana sube a 40"
    assert tr("action.raise", "en", name="Ana", amount=40) == "Ana raises to 40"
    assert tr("action.raise", "fr", name="Ana", amount=40) == "Ana raises to 40"
