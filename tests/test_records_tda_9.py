"""TDA-9 in every record: all-in hands turned up by rule, and an uncalled bet returned.

The scenario ``tests/scenarios/tda_9_all_in_hands_tabled.txt`` is played on a
table whose finished hands go to a real SQLite hand history; the hand record,
the narration in both languages, the history and each of its exports must
show both live hands as turned up by the rule, and the 100 chips nobody could
call as returned to seat 1.
"""

from __future__ import annotations

import pathlib
import shlex

from firmware.service.history import HandHistory as History
from firmware.table.script import build_table, parse_event, parse_script
from firmware.views.narrate import narrate

SCENARIO = pathlib.Path(__file__).parent / "scenarios" / "tda_9_all_in_hands_tabled.txt"


def _play(history: History) -> dict:  # type: ignore[type-arg]
    script = parse_script(SCENARIO.read_text(encoding="utf-8"))
    table = build_table(script)
    table.hand_listeners.append(history.listener(lambda: 0.0))
    for number, line in script.lines:
        if shlex.split(line)[0] == "expect":
            continue
        for event in parse_event(line, number, table):
            table.apply(event)
    assert len(table.records) == 1
    return table.records[0]


def test_all_in_hands_are_turned_up_in_every_record_tda_9(tmp_path: pathlib.Path) -> None:
    """TDA-9: when betting is over with a player all-in, every live hand is tabled,
    and each record says it was turned up by the rule; HG-1's returned bet is shown."""
    history = History(str(tmp_path / "history.sqlite"))
    record = _play(history)
    assert record["cards"]["tabled_by_rule"] == {"2": ["Ah", "Kd"], "1": ["7d", "7h"]}
    kinds = [(a["seat"], a["action"]) for a in record["actions"]]
    assert kinds == [
        (1, "bet_raise"),
        (2, "check_call"),
        (3, "fold"),
        (1, "returned"),
        (2, "turned_up"),
        (1, "turned_up"),
    ]
    assert record["actions"][3]["amount"] == 100
    assert {a["rule"] for a in record["actions"] if a["action"] == "turned_up"} == {"TDA-9"}

    english = "\n".join(narrate(record, "en"))
    assert "Bruno turns up A♥ K♦ (all-in: cards up by rule, TDA-9)" in english
    assert "Ana turns up 7♦ 7♥ (all-in: cards up by rule, TDA-9)" in english
    assert "Uncalled bet of 100 returned to Ana" in english
    spanish = "\n".join(narrate(record, "es"))
    assert "Bruno muestra A♥ K♦ (all-in: cartas descubiertas por regla, TDA-9)" in spanish
    assert "Apuesta no igualada de 100 devuelta a Ana" in spanish

    stored = history.get(1)
    assert (
        stored is not None
        and stored["cards"]["tabled_by_rule"] == record["cards"]["tabled_by_rule"]
    )
    # The PokerStars layout has no place for a reason: the tabled hands are shown
    # in its SHOW DOWN section, as PokerStars writes an all-in.
    stars = history.to_pokerstars(1)
    assert "Bruno: shows [Ah Kd]" in stars and "Ana: shows [7d 7h]" in stars
    assert "Uncalled bet ($1.00) returned to Ana" in stars
    phh = history.to_phh(1)
    assert "sm AhKd" in phh and "sm 7d7h" in phh
    history.close()
