"""TDA-2 / TDA-3: after a colour-up the higher chip is the unit split pots are divided in.

The scenario ``tests/scenarios/tda_2_tda_3_odd_chips_after_colour_up.txt`` plays
the split; here the unit of the next hands, and that it survives a snapshot (the
journal's rotation, a restart).
"""

from __future__ import annotations

from firmware.table import events as te
from firmware.table.script import run_script
from firmware.table.snapshot import restore_state, table_state
from firmware.table.table import Table

SETUP = """profile tda-tournament
stakes NL 100/200 unit 25
deck-ready
seat 1 Ana 1000
seat 2 Bruno 1000
seat 3 Carmen 1025
button 1
chiprace 25 100 As
expect hands 0
"""


def _unit_of_next_hand(table: Table) -> int:
    table.apply(te.Shuffle())
    assert table.hand is not None
    return table.hand.plan.start.config.chip_unit


def test_tda_3_the_raced_chip_is_the_unit_of_the_next_hands() -> None:
    """Before the race the unit is the configured 25; after it, 100."""
    table, _ = run_script(SETUP.replace("chiprace 25 100 As\n", ""))
    assert _unit_of_next_hand(table) == 25
    table, _ = run_script(SETUP)
    assert _unit_of_next_hand(table) == 100


def test_tda_3_the_unit_survives_a_snapshot() -> None:
    """A table restored from a snapshot taken after the race keeps the 100 unit."""
    table, _ = run_script(SETUP)
    blank, _ = run_script(
        "profile tda-tournament\nstakes NL 100/200 unit 25\ndeck-ready\nexpect hands 0\n"
    )
    assert blank.raced_unit == 0
    restore_state(blank, table_state(table))
    assert blank.raced_unit == 100
    assert _unit_of_next_hand(blank) == 100
