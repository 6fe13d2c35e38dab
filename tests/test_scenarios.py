"""Scenario scripts: one table script per incident rule, each checking its outcome.

Each file in tests/scenarios/ is a table script (docs/table-scripts.md) whose
``expect`` lines check the exact result: cards by role, stacks, incidents.
The file name carries the rule IDs it proves.
"""

import pathlib

import pytest

from firmware.table.script import ScriptError, run_script

SCENARIOS = sorted((pathlib.Path(__file__).parent / "scenarios").glob("*.txt"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: pathlib.Path) -> None:
    _table, records = run_script(path.read_text(encoding="utf-8"))
    for record in records:
        start = sum(record["starting_stacks"].values())
        finish = sum(record["finishing_stacks"].values())
        assert start == finish, f"chips not conserved in hand {record['hand']}"


def test_there_is_a_scenario_per_incident_rule() -> None:
    names = " ".join(p.stem for p in SCENARIOS)
    for rule in (
        "tda_27",
        "hg_10",
        "hg_8",
        "hg_9",
        "hg_20_a",
        "hg_20_b",
        "hg_20_c",
        "hg_12",
        "hg_11",
        "tda_28",
        "tda_29",
        "tda_8",
        "tda_5",
        "tda_30",
        "pe_2",
        "tda_16",
        "pe_1",
        "tda_1",
        "misdeal",
        "cc_4",
        "tda_35_cc_12_heads_up_button_casino_cash",
        "tda_35_cc_12_heads_up_button_home",
        "tda_7_voided",
        "cc_16",
        "cc_14_hg_15",
        "hg_20_a_refused",
        "tda_10_tda_47b",
        "tda_5_action_timer",
        "tda_9",
    ):
        assert rule in names, f"no scenario for {rule}"


def test_a_wrong_expectation_fails_the_script() -> None:
    text = (pathlib.Path(__file__).parent / "scenarios" / "plain_hand.txt").read_text()
    with pytest.raises(ScriptError, match="expected stacks"):
        run_script(text.replace("expect stacks 1=168", "expect stacks 1=169"))


def test_an_event_expected_to_fail_but_accepted_fails_the_script() -> None:
    text = (
        "profile casino-cash\ndeck-ready\nseat 1 A 200\nseat 2 B 200\nexpect error nope\nshuffle\n"
    )
    with pytest.raises(ScriptError, match="expected it to be refused"):
        run_script(text)


def test_refused_event_names_the_line() -> None:
    text = "profile casino-cash\ndeck-ready\nseat 1 A 200\nseat 2 B 200\ncut\n"
    with pytest.raises(ScriptError, match=r"Line 5 \(cut\)"):
        run_script(text)
