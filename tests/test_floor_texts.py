"""The floor pages' language: every sentence the director logs, said in Spanish from the
catalog; plurals; the page's language from the address, the browser and the floor."""

from __future__ import annotations

import re

import pytest

from firmware.floor.web.texts import page_lang, plural, stored_text

DIRECTOR = [
    "TDA-17: the level clock starts on 3 tables at once.",
    "TDA-17: the level clock pauses on 3 tables at once.",
    "TDA-17: the level clock resumes on 1 tables at once.",
    "FLOOR-LATE late registration: Ana drew seat 4 at table T2; 21 entries, prize pool 2100.",
    "FLOOR-LATE re-entry: Ana #2 drew seat 4 at table T2; 22 entries, prize pool 2200.",
    "Player 07 finishes in place 12.",
    "Nora wins the tournament.",
    "FLOOR-HFH: hand-for-hand play begins.",
    "FLOOR-HFH: round 3, one hand at every table.",
    "FLOOR-HFH: the money is reached; play resumes everywhere.",
    "FLOOR-HFH: the final table plays on its own.",
    "TDA-24: table T3 broke.",
    "HG-5: final table at T1, every seat drawn again.",
    "TDA-25: table T2 is 3 players short; play stops there until the players moved to it arrive.",
    "TDA-25: table T2 is balanced; play resumes there.",
    "The floor paused the tournament.",
    "The floor resumed the tournament.",
    "The floor restarted and resumed the tournament from the store.",
    "Nora moves to table T1, seat 5 (HG-5 final table draw).",
    "Bo moves to table T2, seat 1 (TDA-24: table T3 breaks; Bo drew seat 1 at table T2.).",
    "Bo moves to table T2, seat 3 (TDA-25: Bo is big blind next at table T1; seat 3 is the "
    "empty seat closest to the big blind at table T2.).",
    "Bo moves to table T2, seat 3 (HG-4: Bo sits 2 seat(s) after the button at table T1, "
    "nearest to empty seat 3, 2 after the button at table T2.).",
]
ENGLISH = re.compile(
    r"\b(the|and|of|is|to|in|at|on|with|from|by|for|table|seat|moves|wins|finishes|place|"
    r"round|hand|play|draw|drew|broke|breaks|floor|clock|entries|prize|pool|short)\b"
)


@pytest.mark.parametrize("sentence", DIRECTOR)
def test_every_director_sentence_is_said_in_spanish(sentence: str) -> None:
    said = stored_text(sentence, "es")
    assert said != sentence and not ENGLISH.findall(said), said
    assert stored_text(sentence, "en") == sentence  # English: the sentence itself


def test_a_sentence_no_key_says_names_only_its_rule_in_spanish() -> None:
    said = stored_text("Seat 2 exposed a card during the deal.", "es", rule="TDA-3")
    assert "TDA-3" in said and not ENGLISH.findall(said)
    assert stored_text("A stored key wins.", "es", "floor.decision.paused") == (
        "La sala ha pausado el torneo."
    )


def test_plurals_and_the_pages_language() -> None:
    assert [plural("floor.web.free_seats", n, "es") for n in (0, 1, 2)] == [
        "0 asientos libres", "1 asiento libre", "2 asientos libres",
    ]  # fmt: skip
    assert plural("floor.web.hands_count", 1, "en") == "1 hand"
    assert page_lang(None, "es-ES,es;q=0.9", "en") == "es"
    assert page_lang(None, "en-US,en;q=0.9,es;q=0.8", "es") == "en"
    assert page_lang(None, "fr-FR", "es") == "es"
    assert page_lang("en", "es", "es") == "en"
    assert page_lang("xx", "", "en") == "en"
