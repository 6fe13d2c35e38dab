"""``config check`` names every problem of a configuration, not the first one per
section (docs/configuration.md promises it), and refuses names that would not
show as what is stored: a line break or a right-to-left mark in a player's or
staff member's name, a space in a card id."""

from __future__ import annotations

import tomllib

from firmware.cli.config_check import check_problems

BASE = """
[table]
profile = "casino-cash"
small_blind = 1
big_blind = 2

[server]
socket = "/run/pokertable/table.sock"
"""


def keys(text: str) -> list[str]:
    full = BASE + text
    return [str(p.key) for p in check_problems(tomllib.loads(full), full, "t.toml")]


def test_every_bad_option_is_named() -> None:
    found = keys('[options]\nmax_buy_in_multiple = "x"\nmin_buy_in_multiple = -3\n')
    assert found.count("config.option.type") == 1 and "config.option.not_negative" in found


def test_options_that_cannot_work_together_are_still_named() -> None:
    found = keys("[options]\nmax_buy_in_multiple = 5\nmin_buy_in_multiple = 10\n")
    assert found == ["config.option.buy_in"]


def test_a_bad_stake_beside_another_is_named_too() -> None:
    text = BASE.replace("small_blind = 1", "small_blind = -1").replace(
        "big_blind = 2", 'big_blind = "two"'
    )
    found = [str(p.key) for p in check_problems(tomllib.loads(text), text, "t.toml")]
    assert {"config.table.type", "config.stakes.minimum"} <= set(found)


def test_player_names_and_cards_are_one_printable_line() -> None:
    found = keys(
        '[[players]]\ncard = "04A1"\nname = "Ana\\nEvil"\n'
        '[[players]]\ncard = "04A2"\nname = "Bob\\u202e"\n'
        '[[players]]\ncard = "04 A3"\nname = "Carla"\n'
        '[[players]]\ncard = "04A4"\nname = "Dora"\n'
    )
    assert found == ["config.players.printable"] * 3


def test_one_player_under_two_spellings_is_listed_twice() -> None:
    found = keys(
        '[[players]]\ncard = "04A1"\nname = "Ana"\n[[players]]\ncard = "04A2"\nname = " ANA"\n'
    )
    assert found == ["config.players.twice"]


HASH = (
    "scrypt$16384$8$1$2fba5173fd4391b5477e0a3b3f4430e4$"
    "5cc6e4a5d572c3edaaafefe2c25c6550da05cb051f5a9f6dd8441ab1504d4b8d"
)


def test_a_staff_name_with_a_line_break_is_refused() -> None:
    found = keys(
        f'[[staff]]\nbadge = "B1"\nname = "Eve\\nAdmin"\nrole = "dealer"\npin_hash = "{HASH}"\n'
    )
    assert "config.staff.printable" in found
