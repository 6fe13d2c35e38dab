"""Names and reasons with spaces, apostrophes, quotes or ``#`` survive the script export.

A hand is exported as a table script (``pokertable history show N --format script``)
so that a disputed hand can be replayed. The export wrote names and reasons as they
were: ``sit 3 Ana Pérez 200`` read back as a buy-in of "Pérez", and a reason such as
"player's cards touched the muck" stopped the replay at an unclosed quote.
"""

from __future__ import annotations

import pathlib

import pytest

from firmware.service.history import HandHistory
from firmware.table import events as te
from firmware.table.script import format_event, parse_event, run_script
from firmware.table.script_text import strip_comment
from firmware.table.table import Table

HEAD = """profile casino-cash
stakes NL 1/2
deck-ready
seat 1 "Ana Pérez" 200
seat 2 Bruno 200
seat 3 "D'Angelo" 200
button 1
"""
HAND = """shuffle
cut
draw Ah Kd 7c As Kh 2d
1 raise 6
dealer kill 3 "D'Angelo's cards touched the muck"   # TDA-28
2 call
draw 3c Qd Jd Td
2 check
1 bet 10
floor void "the shoe read \\"2d\\" twice #2 \\\\ see log"
"""


@pytest.mark.parametrize(
    "event",
    [
        te.SitDown(3, "Ana Pérez", 200),
        te.SitDown(4, "D'Angelo", 200, wait_for_big_blind=True),
        te.KillSeat(2, "player's cards touched the muck"),
        te.Misdeal('button "wrong" #2 \\ back'),
        te.VoidByFloor("two  spaces kept"),
        te.AdjustStack(1, 150, "chips found under the rail, per the floor's count"),
        te.AwardPot((1, 2), "it's a chop"),
        te.UndoLast("wrong seat's button"),
        te.GivePenalty(2, "rounds", "soft play (TDA-33) #1", 2, True),
        te.FloorAnswer(2, "Flor O'Neill"),
        te.DeckChange("floor", 0, "a card's corner is bent"),
        te.DeckChange("dealer", 0, ""),
        te.Misdeal("wrong button"),
    ],
)
def test_every_free_text_reads_back_exactly(event: te.TableEvent) -> None:
    """The parser reads back exactly what the export wrote, comment stripping included."""
    line = format_event(event)
    assert parse_event(strip_comment(line), 1, None) == [event]  # type: ignore[arg-type]


def test_plain_reasons_are_written_as_before() -> None:
    """Only text that needs it is quoted: ordinary exports do not change."""
    assert format_event(te.Misdeal("wrong button")) == "dealer misdeal wrong button"
    assert format_event(te.SitDown(3, "Bruno", 200)) == "sit 3 Bruno 200"


def test_a_hand_exported_from_the_history_replays_to_the_same_record(
    tmp_path: pathlib.Path,
) -> None:
    """Played, stored, exported as a script and replayed: the same hand record."""
    history = HandHistory(str(tmp_path / "history.sqlite"))
    try:

        def attach(table: Table) -> None:
            if not table.hand_listeners:
                table.hand_listeners.append(history.listener(lambda: 0.0))

        _, records = run_script(HEAD + HAND, after_event=attach)
        assert records[-1]["void"]
        exported = history.to_script(records[-1]["hand"])
        assert "\"D'Angelo's cards touched the muck\"" in exported
        _, again = run_script(HEAD + exported)
        assert again == records
    finally:
        history.close()
