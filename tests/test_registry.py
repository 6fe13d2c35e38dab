"""Tag registries in a real SQLite file: cards learned from a deck scan, chips by tag/range."""

import pytest

from firmware.engine.cards import parse_card
from firmware.errors import ConfigError, IllegalAction
from firmware.hal.deck import new_deck_order
from firmware.service.registry import TagRegistry


def tags(prefix: str = "C0DE") -> list[str]:
    return [f"{prefix}{i:02X}" for i in range(52)]


def test_new_deck_order_is_a_permutation_starting_with_ace_of_spades() -> None:
    order = new_deck_order()
    assert sorted(order) == list(range(52))
    assert order[0] == parse_card("As") and order[12] == parse_card("Ks")
    assert order[-1] == parse_card("Ad")


def test_pe_2_learned_deck_survives_a_restart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """PE-2: a deck whose tags were learned during the new-deck procedure stays known after a
    restart.
    """
    path = str(tmp_path / "tags.sqlite")
    reg = TagRegistry(path)
    reg.learn_deck(tags())
    assert reg.card_for("C0DE00") == parse_card("As")
    reg.close()
    again = TagRegistry(path)
    assert again.known_cards() == 52
    assert again.card_for("c0:de:00") == parse_card("As")
    assert again.card_for("FFFF") is None  # unknown tag: reported by the caller, never guessed


def test_pe_1_scan_with_joker_or_missing_card_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """PE-1: a deck scan with a joker, a foreign tag or a missing card is refused; the deck must be
    complete.
    """
    reg = TagRegistry(str(tmp_path / "t.sqlite"))
    with pytest.raises(IllegalAction, match="52 distinct tags"):
        reg.learn_deck(tags()[:51])
    with pytest.raises(IllegalAction, match="52 distinct tags"):
        reg.learn_deck([*tags()[:51], "C0DE00"])
    assert reg.known_cards() == 0


def test_hg_11_marked_card_gets_a_new_tag(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """HG-11: a marked card is repaired by registering a new tag for the same card."""
    reg = TagRegistry(str(tmp_path / "t.sqlite"))
    reg.learn_deck(tags())
    kh = reg.card_for("C0DE0C")
    assert kh is not None
    reg.replace_card_tag(kh, "BEEF01")
    assert reg.card_for("BEEF01") == kh
    assert reg.card_for("C0DE0C") is None
    with pytest.raises(IllegalAction, match="already belongs"):
        reg.replace_card_tag(parse_card("2c"), "BEEF01")


def test_chip_values_by_tag_and_range(tmp_path) -> None:  # type: ignore[no-untyped-def]
    reg = TagRegistry(str(tmp_path / "t.sqlite"))
    reg.add_chip_tag("A1", 500)
    reg.add_chip_range("1000", "10FF", 25)
    assert reg.chip_value("a1") == 500
    assert reg.chip_value("1050") == 25
    assert reg.chip_value("1100") is None
    assert reg.chips_value(["A1", "1000", "1001", "9999"]) == (550, ["9999"])
    with pytest.raises(ConfigError, match="hexadecimal"):
        reg.add_chip_tag("not-hex", 5)
