"""Scenario scripts: one table script per incident rule, each checking its outcome.

Each file in tests/scenarios/ is a table script (docs/table-scripts.md) whose
``expect`` lines check the exact result: cards by role, stacks, incidents.
The file name carries the rule IDs it proves. Each must also pass
``pokertable script``: the runner applies the CLI's own ending rule
(:func:`firmware.table.script.check_script_end`), so a scenario that stops in
the middle of a hand fails here too.
"""

import pathlib
import re

import pytest

from firmware.table.script import ScriptError, check_script_end, iter_script_records, run_script
from firmware.views.expect import check_audiences, check_view_expectation

SCENARIOS = sorted((pathlib.Path(__file__).parent / "scenarios").glob("*.txt"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: pathlib.Path) -> None:
    text = path.read_text(encoding="utf-8")
    table, records = run_script(text, check_view_expectation, check_audiences)
    check_script_end(text, table, records)
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


def test_a_scenario_cut_in_the_middle_of_a_hand_fails_as_in_the_cli(
    tmp_path: pathlib.Path,
) -> None:
    """The runner and ``pokertable script`` share the ending rule: the same cut
    script fails both, with the same sentence."""
    whole = (pathlib.Path(__file__).parent / "scenarios" / "plain_hand.txt").read_text()
    cut = whole[: whole.index("draw 3c Qd Jd Td")]
    table, records = run_script(cut, check_view_expectation, check_audiences)
    with pytest.raises(ScriptError, match="ends in the middle of hand 1") as in_runner:
        check_script_end(cut, table, records)
    path = tmp_path / "cut.txt"
    path.write_text(cut, encoding="utf-8")
    with pytest.raises(ScriptError) as in_cli:
        list(iter_script_records(str(path)))
    assert str(in_cli.value) == str(in_runner.value)
    check_script_end(cut + "expect unfinished\n", table, records)  # stopped on purpose


def test_every_scenario_passes_pokertable_script() -> None:
    """The CLI itself, in one process over every file, as a user would run it."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "firmware.cli.main", "script", *map(str, SCENARIOS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


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


def _run_checked(text: str) -> None:
    run_script(text, check_view_expectation, check_audiences)


HG_20_B = pathlib.Path(__file__).parent / "scenarios" / "hg_20_b_two_burns_third_turned.txt"


@pytest.mark.parametrize(
    ("line", "wrong", "message"),
    [
        ("expect role burn 3c4h9s", "expect role burn 3c9s4h", "expected the burn cards 3c9s4h"),
        ("expect role turn 6d", "expect role turn 9s", "expected the turn cards 9s, found 6d"),
        ("expect role premature\n", "expect role premature 9s\n", "found none"),
        ("expect public QdJdTd6d9s ", "expect public QdJdTd6d ", "expected the public cards"),
        ("expect view 1 KdKhQdJdTd6d9s", "expect view 1 KdKhQdJdTd6d", "seat 1's screen to show"),
        ("expect view 1 seat 2 ????", "expect view 1 seat 2 AhAs", "at seat 2, found ????"),
    ],
)
def test_a_wrong_visibility_expectation_fails_the_script(
    line: str, wrong: str, message: str
) -> None:
    """Each new ``expect`` form can fail: a wrong role, public set or screen stops the script."""
    text = HG_20_B.read_text(encoding="utf-8")
    assert line in text
    with pytest.raises(ScriptError, match=re.escape(message)):
        _run_checked(text.replace(line, wrong, 1))


def test_a_role_that_does_not_exist_is_refused() -> None:
    """A misspelt role is an error naming the roles, not a silent pass."""
    text = HG_20_B.read_text(encoding="utf-8") + "expect role hole AhAs\n"
    with pytest.raises(ScriptError, match="'hole' is no draw role here; use one of burn"):
        _run_checked(text)


def test_view_expectations_need_the_views() -> None:
    """Without the views a script with ``expect view`` stops on that line."""
    with pytest.raises(
        ScriptError, match=r"Line \d+: unknown expectation 'view 2 seat 1 \?\?\?\?'"
    ):
        run_script(HG_20_B.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "name",
    [
        "hg_20_b_two_burns_third_turned.txt",
        "hg_20_c_two_burns_two_turned.txt",
        "hg_9_premature_turn.txt",
        "tda_27_hg_10_exposed_card_replacement.txt",
    ],
)
def test_the_leak_check_catches_screens_that_show_hole_cards(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A view that treats every hole card as public (the mutant of issue 17) is caught by
    the audience leak check run after every event of an incident scenario."""
    import firmware.views.audience as audience

    honest = audience.public_cards

    def leaky(th):  # type: ignore[no-untyped-def]
        everything = set(honest(th))
        for hole in th.hand.hole:
            everything.update(audience.format_card(c) for c in hole if c is not None)
        return everything

    text = (pathlib.Path(__file__).parent / "scenarios" / name).read_text(encoding="utf-8")
    _run_checked(text)  # the honest views pass
    monkeypatch.setattr(audience, "public_cards", leaky)
    text = re.sub(r"(?m)^expect (view|public) .*$", "", text)  # only the leak check judges
    with pytest.raises(ScriptError, match="which it may not see"):
        run_script(text, None, check_audiences)


def test_the_leak_check_catches_a_held_river_shown_early(monkeypatch: pytest.MonkeyPatch) -> None:
    """HG-20 (c): the card held back as the river is not public before the turn betting
    ends; a view that shows it early fails the leak check."""
    import firmware.views.audience as audience

    monkeypatch.setattr(audience, "PUBLIC_DRAW_ROLES", ("exposed", "removed", "burn", "held"))
    text = (
        pathlib.Path(__file__).parent / "scenarios" / "hg_20_c_two_burns_two_turned.txt"
    ).read_text(encoding="utf-8")
    text = re.sub(r"(?m)^expect (view|public) .*$", "", text)
    with pytest.raises(ScriptError, match="8c, which it may not see"):
        run_script(text, None, check_audiences)


def test_the_script_command_checks_view_expectations(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    """``pokertable script`` passes the views, so a scenario's ``expect view`` lines run
    and a wrong one makes the command fail naming the line."""
    from firmware.cli.main import main

    assert main(["script", str(HG_20_B)]) == 0
    assert '"hand": 1' in capsys.readouterr().out
    wrong = tmp_path / "wrong.txt"
    text = HG_20_B.read_text(encoding="utf-8")
    wrong.write_text(text.replace("expect view 2 seat 1 ????", "expect view 2 seat 1 KdKh", 1))
    assert main(["script", str(wrong)]) == 1
    assert "expected seat 2's screen to show KdKh at seat 1" in capsys.readouterr().err
