"""A player's name is one printable line wherever it comes from (PE-4, CC-16 seating).

The protocol checks the names typed on the console, but a name can also come from
the configuration's player directory (a player seated by card), which is not a
protocol field. The table itself refuses a name that would break a screen, a
record or an export line.
"""

from __future__ import annotations

import pytest

from firmware.errors import IllegalAction
from firmware.table import events as te
from firmware.table.script import run_script

EMPTY = "profile casino-cash\nstakes NL 1/2\ndeck-ready\nexpect hands 0\n"


@pytest.mark.parametrize(
    "name",
    ["Ana\nSeat 9: Evil (1000 in chips)", "Ana\u202eX", "Zero\u200bwidth", "Tab\there", " ", ""],
    ids=["line-break", "right-to-left", "zero-width", "tab", "blank", "empty"],
)
def test_a_name_that_is_not_one_printable_line_is_refused(name: str) -> None:
    table, _ = run_script(EMPTY)
    with pytest.raises(IllegalAction) as caught:
        table.apply(te.SitDown(1, name, 200, card="P-000123"))
    assert caught.value.key == "error.table.player_name"
    assert table.seating.seats == {}


def test_names_with_spaces_accents_and_apostrophes_are_seated() -> None:
    table, _ = run_script(EMPTY)
    for seat, name in enumerate(["Ana Pérez", "D'Angelo", "Núñez-Gil"], start=1):
        table.apply(te.SitDown(seat, name, 200))
    assert [s.player for s in table.seating.seats.values()] == [
        "Ana Pérez",
        "D'Angelo",
        "Núñez-Gil",
    ]
