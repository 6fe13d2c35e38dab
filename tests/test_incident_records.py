"""What each incident remedy records and tells the dealer, word for word.

The dealer console shows these texts (translated through their catalog
keys) and the hand's record keeps them: a remedy that names the wrong card
or the wrong case misleads the dealer even when the chips come out right.
Written against the survivors of mutation testing of
``firmware/table/incidents.py`` (docs/testing.md).
"""

from __future__ import annotations

import pytest

from firmware.engine.cards import parse_cards
from firmware.errors import IllegalAction
from firmware.table.script import ScriptError, parse_event, run_script
from firmware.table.table import Table

HEAD = """profile casino-cash
stakes NL 1/2
deck-ready
seat 1 Ana 200
seat 2 Bruno 200
seat 3 Carmen 200
button 1
shuffle
cut
"""
DEALT = "draw Ah Kd 7c As Kh 2d\n"  # seat 2 AhAs, seat 3 KdKh, seat 1 7c2d
TO_TURN = DEALT + "1 call\n2 call\n3 check\ndraw 3c Qd Jd Td\n2 check\n3 check\n1 check\n"
TO_RIVER = TO_TURN + "draw 4h 9s\n2 check\n3 check\n1 check\n"


def _table(body: str) -> Table:
    table, _ = run_script(HEAD + body)
    return table


def _incidents(body: str) -> list[tuple[str, str, str]]:
    table = _table(body)
    if table.hand is not None:
        return [(i.rule, i.what, i.instruction) for i in table.hand.incidents]
    return [(i["rule"], i["what"], i["instruction"]) for i in table.records[-1]["incidents"]]


def _refusal(body: str, line: str) -> IllegalAction:
    table = _table(body)
    with pytest.raises(IllegalAction) as caught:
        for event in parse_event(line, 1, table):
            table.apply(event)
    return caught.value


def test_tda_27_exposed_card_tells_the_dealer_the_remedy() -> None:
    """An exposed card after the first two: the deal goes on, the dealer is told to give
    that player the next card and to show the exposed card as the first burn."""
    assert _incidents("draw Ah Kd 7c As\ndealer exposed As\n") == [
        (
            "TDA-27",
            "As exposed while dealing",
            "Finish the deal, then give that player the next card; the exposed card is shown "
            "and becomes the first burn card.",
        )
    ]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("draw Ah Kd 7c\ndealer exposed Ah\n", "one of the first two cards"),
        ("draw Ah Kd 7c As Kh\ndealer exposed As\ndealer exposed Kh\n", "a second card"),
    ],
)
def test_tda_27_hg_10_misdeal_names_its_cause(body: str, why: str) -> None:
    """The misdeal's reason says which rule made it one: one of the first two cards
    exposed, or a second exposed card in the deal."""
    table = _table(body)
    reason = f"misdeal: {why} exposed during the deal (TDA-27, HG-10)"
    assert table.records[-1]["void"] == reason
    assert table.records[-1]["incidents"][-1] == {
        "rule": "TDA-27",
        "what": reason,
        "instruction": "Return every chip to its owner; the button does not move.",
    }


def test_hg_9_premature_remedy_says_which_card_stays_the_burn() -> None:
    """Two early cards: the first stays as the burn and the dealer is told which; one
    early card simply goes back."""
    after = "return the other card(s) to the stub and shuffle it; after the betting, deal "
    after += "the next card with no further burn."
    flop_bet = DEALT + "1 call\n2 call\n3 check\ndraw 3c Qd Jd Td\n2 bet 10\n"
    assert _incidents(flop_bet + "draw 4h 9s\ndealer premature\n") == [
        ("HG-9", "2 card(s) drawn before the betting round ended", "4h stays as the burn; " + after)
    ]
    assert _incidents(flop_bet + "draw 4h\ndealer premature\n") == [
        ("HG-9", "1 card(s) drawn before the betting round ended", after)
    ]


def test_hg_20_a_on_the_river_names_the_river_card() -> None:
    """A river turned without a burn: the card to show as the burn is that river card,
    not an earlier burn."""
    assert _incidents(TO_RIVER + "draw 8c\ndealer burn-error a\n") == [
        (
            "HG-20",
            "river dealt without a burn",
            "Show 8c, it is the burn card; deal the real river.",
        )
    ]


def test_hg_20_b_and_c_name_the_burn_and_the_held_river() -> None:
    """Case b names the next burn card; case c also names the card held as the river."""
    assert _incidents(TO_TURN + "draw 4h 6d 9s\ndealer burn-error b\n") == [
        ("HG-20", "burn error case b", "9s is the next burn card.")
    ]
    assert _incidents(TO_TURN + "draw 4h 6d 9s 8c\ndealer burn-error c\n") == [
        (
            "HG-20",
            "burn error case c",
            "9s is the next burn card; 8c is the river, shown after the betting.",
        )
    ]


def test_hg_8_face_up_card_remedy() -> None:
    """A card found face up in the deck is removed and shown; play continues."""
    assert _incidents("dealer face-up 9c\n") == [
        (
            "HG-8",
            "9c found face up in the deck",
            "Remove the card, show it to everyone and continue.",
        )
    ]


@pytest.mark.parametrize(
    ("body", "line", "message", "key"),
    [
        (
            DEALT + "1 call\n",
            "dealer exposed As",
            "Betting has begun; an exposed-card ruling applies only to the deal, before the "
            "first action (TDA-27). Report a card exposed by a player to the floor.",
            "error.incident.after_deal",
        ),
        (
            DEALT,
            "dealer exposed Qs",
            "The card Qs was not dealt to a seat in this hand; only a hole card exposed while "
            "dealing is ruled by TDA-27.",
            "error.incident.not_hole_card",
        ),
        (
            "draw Ah Kd 7c\n",
            "dealer exposed Qs",
            "The card Qs has not been dealt in this hand; report the exposed card after it "
            "leaves the shoe.",
            "error.incident.unknown_card",
        ),
        (
            DEALT,
            "dealer premature",
            "No card was drawn before the betting round ended; nothing to correct.",
            "error.incident.no_premature",
        ),
        (
            DEALT,
            "dealer burn-error d",
            "A burn error is case a, b or c (HG-20), and cases b and c need the extra cards "
            "drawn first.",
            "error.incident.burn_case",
        ),
        (
            TO_TURN + "draw 4h 6d\n",
            "dealer burn-error b",
            "A burn error is case a, b or c (HG-20), and cases b and c need the extra cards "
            "drawn first.",
            "error.incident.burn_case",
        ),
        (
            DEALT,
            "dealer burn-error a",
            "HG-20 (a) does not apply: the preflop betting is open (seat 1 to act). It applies "
            "only when the card just turned face up is the one the shoe read as the turn or "
            "river burn; report what happened, or call the floor.",
            "error.incident.burn_a_not_now",
        ),
    ],
)
def test_incident_refusals_say_what_to_do(
    body: str, line: str, message: str, key: str | None
) -> None:
    """A report that does not fit the hand is refused with its sentence and catalog key,
    and changes nothing."""
    refusal = _refusal(body, line)
    assert str(refusal) == message
    assert refusal.key == key


@pytest.mark.parametrize(
    ("body", "key", "street_es"),
    [
        (TO_TURN + "draw 8c\ndealer burn-error a\n", "incident.burn_a", "turn"),
        (TO_RIVER + "draw 8c\ndealer burn-error a\n", "incident.burn_a_river", "river"),
    ],
)
def test_hg_20_a_keeps_its_catalog_key_so_a_spanish_console_reads_spanish(
    body: str, key: str, street_es: str
) -> None:
    """HG-20 (a) records the card shown as the burn, its catalog key and the card named
    in it: the dealer console in Spanish then reads the remedy in Spanish, not the
    English sentence kept for the record."""
    from firmware.i18n import tr
    from firmware.views.audience import console_view

    table = _table(body)
    assert table.hand is not None
    (incident,) = table.hand.incidents
    assert (incident.rule, incident.key, incident.params) == ("HG-20", key, {"card": "8c"})
    assert incident.cards == tuple(parse_cards("8c"))
    (shown,) = console_view(table, "es")["console"]["incidents"]
    assert shown["instruction"] == tr(f"{key}.do", "es", card="8c")
    assert shown["what"] == tr(f"{key}.what", "es")
    assert "Show" not in shown["instruction"] and street_es in shown["instruction"]


@pytest.mark.parametrize(
    ("body", "key", "params"),
    [
        ("draw Ah Kd 7c As\ndealer exposed As\n", "incident.exposed", {"card": "As"}),
        (
            TO_TURN + "draw 4h 6d 9s 8c\ndealer burn-error c\n",
            "incident.burn_c",
            {"card": "9s", "case": "c", "river": "8c"},
        ),
        (
            TO_TURN + "draw 4h 6d 9s\ndealer burn-error b\n",
            "incident.burn_b",
            {"card": "9s", "case": "b"},
        ),
    ],
)
def test_each_remedy_keeps_its_catalog_key_and_figures(
    body: str, key: str, params: dict[str, str]
) -> None:
    """The console shows a remedy through its key and the cards it names: a lost key or
    figure shows another sentence, or English on a Spanish console."""
    from firmware.i18n import tr

    table = _table(body)
    assert table.hand is not None
    (incident,) = table.hand.incidents
    assert (incident.key, incident.params) == (key, params)
    for lang in ("en", "es"):
        assert "{" not in tr(f"{key}.do", lang, **params)


def test_an_exposed_card_after_the_first_action_is_for_the_floor_word_for_word() -> None:
    with pytest.raises(ScriptError) as caught:
        _table(DEALT + "1 call\ndealer exposed As\n")
    cause = caught.value.__cause__
    assert isinstance(cause, IllegalAction) and cause.key == "error.incident.after_deal"
    assert str(cause) == (
        "Betting has begun; an exposed-card ruling applies only to the deal, before the "
        "first action (TDA-27). Report a card exposed by a player to the floor."
    )
