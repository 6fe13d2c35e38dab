"""Forced bets told as paid (issue 23, item 11): a stack shorter than its blind posts
what it has, all-in, and the record and the narration give those chips.

``pokertable run --seed 1 --lang es`` told "Elena pone 2" in hand 3 when Elena had
1 chip: the record kept the blind due, not the chips put in.
"""

from __future__ import annotations

import pathlib
import shlex

from firmware.cli.main import main
from firmware.table.script import build_table, parse_event, parse_script
from firmware.views.narrate import narrate

SCENARIO = pathlib.Path(__file__).parent / "scenarios" / "short_blind_posts_what_it_has.txt"


def _record() -> dict:  # type: ignore[type-arg]
    script = parse_script(SCENARIO.read_text(encoding="utf-8"))
    table = build_table(script)
    for number, line in script.lines:
        if shlex.split(line)[0] == "expect":
            continue
        for event in parse_event(line, number, table):
            table.apply(event)
    (record,) = table.records
    return record


def test_a_short_big_blind_posts_its_one_chip_all_in() -> None:
    record = _record()
    assert record["posts"]["3"] == {"blind": 1, "ante": 0, "dead": 0, "all_in": True}
    assert record["posts"]["2"] == {"blind": 1, "ante": 0, "dead": 0, "all_in": False}
    spanish, english = narrate(record, "es"), narrate(record, "en")
    assert "  Carmen pone 1 (all-in)" in spanish and "  Bruno pone 1" in spanish
    assert "  Carmen posts 1 (all-in)" in english
    assert not any("pone 2" in line for line in spanish)


def test_run_seed_1_tells_elenas_one_chip_in_hand_3(capsys: object) -> None:
    """The simulator's own evening: hand 3 of seed 1, where Elena has 1 chip left."""
    assert main(["run", "--seed", "1", "--lang", "es", "--hands", "3"]) in (0, None)
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    hand3 = out[out.index("Mano n.º 3") :]
    assert "  Elena pone 1 (all-in)\n" in hand3
    assert "Elena pone 2" not in hand3
