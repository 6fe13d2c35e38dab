"""Cards: parsing, formatting, the deck."""

import pytest

from firmware.engine.cards import (
    card_rank,
    card_suit,
    format_card,
    full_deck,
    parse_card,
    parse_cards,
)
from firmware.errors import CardError


def test_round_trip_every_card() -> None:
    assert [parse_card(format_card(c)) for c in full_deck()] == full_deck()


def test_deck_has_52_distinct_cards_and_no_joker() -> None:
    deck = full_deck()
    assert len(deck) == len(set(deck)) == 52
    assert {card_rank(c) for c in deck} == set(range(13))
    assert {card_suit(c) for c in deck} == set(range(4))


@pytest.mark.parametrize("text", ["", "A", "Ahh", "1h", "Ax", "Jk", "XX"])
def test_bad_card_text_is_a_clear_error(text: str) -> None:
    with pytest.raises(CardError, match="is not a card"):
        parse_card(text)


def test_duplicate_cards_are_refused() -> None:
    with pytest.raises(CardError, match="appears twice"):
        parse_cards("AhKdAh")


def test_lowercase_rank_accepted() -> None:
    assert parse_card("td") == parse_card("Td")
