"""Every documented house option changes what the table does (no option accepted and ignored).

For each option of ``TableOptions`` (documented in docs/profiles.md and
docs/rules.md) a short table script is run twice: once as the profile has it
and once with ``option NAME VALUE`` flipped. What the table did (the hand
records, the open hand's plan and announcements, the markers, the stacks, the
prompt, whether the pot is told, or the refusal) must differ. A new option
without a case here fails ``test_every_option_is_flipped``.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Any

import pytest

from firmware.table.options import (
    OPTION_NAMES,
    Stakes,
    TableConfig,
    TableOptions,
    profile_options,
)
from firmware.table.script import ScriptError, run_script
from firmware.views.rules import pot_shown

SCENARIOS = pathlib.Path(__file__).parent / "scenarios"

THREE = "deck-ready\nseat 1 Ana 200\nseat 2 Bruno 200\nseat 3 Carmen 200\nbutton 1\n"
FOUR = THREE + "seat 4 Diego 200\n"
SIX_CARDS = "shuffle\ncut\ndraw 2c 3c 4c 5c 6c 7c\n"


def scenario(name: str) -> str:
    """A scenario file's text without its checks (``expect error`` lines are kept)."""
    lines = (SCENARIOS / name).read_text(encoding="utf-8").splitlines()
    kept = [
        x if not x.startswith("expect ") or x.startswith("expect error") else "#" for x in lines
    ]
    return "\n".join(kept) + "\n"


CASES: dict[str, tuple[Any, str]] = {
    # option: (flipped value, script)
    "game": (
        "tournament",
        "profile casino-cash\nstakes FL 1/2\ndeck-ready\nseat 1 A 200\nseat 2 B 200\nbutton 1\n"
        "shuffle\ncut\ndraw 2c 3c 4c 5c\n1 raise 4\n2 raise 6\n1 raise 8\n2 raise 10\n",
    ),
    "button": (
        "dead",
        "profile casino-cash\nstakes NL 1/2\n"
        + FOUR
        + "shuffle\ncut\ndraw 2c 3c 4c 5c 6c 7c 8c 9c\n"
        "4 fold\n1 fold\n2 fold\ncashout 2\nshuffle\n",
    ),
    "missed_blinds": (False, scenario("cc_14_hg_15_marked_player_back_in_big_blind.txt")),
    "dead_small_blind": (False, scenario("cc_14_hg_15_marked_player_back_in_big_blind.txt")),
    "missed_blinds_free_in_big_blind": (
        True,
        scenario("cc_14_hg_15_marked_player_back_in_big_blind.txt"),
    ),
    "absent_dealt_in": (True, "profile casino-cash\nstakes NL 1/2\n" + FOUR + "away 3\nshuffle\n"),
    "buy_button": (False, scenario("hg_16_buy_button.txt")),
    "straddle": (False, scenario("straddle_cash_house_option.txt")),
    "auto_all_in_below_small_blind": (
        True,
        "profile casino-cash\nstakes NL 10/20\noption min_buy_in_multiple 0\ndeck-ready\n"
        "seat 1 A 5\nseat 2 B 200\nseat 3 C 200\nbutton 1\nshuffle\n",
    ),
    "raise_cap": (
        5,
        "profile casino-cash\nstakes FL 1/2\n"
        + THREE
        + SIX_CARDS
        + "1 raise 4\n2 raise 6\n3 raise 8\n1 raise 10\n",
    ),
    "limit_all_in_percent": (100, scenario("tda_10_tda_47b_fixed_limit_all_in.txt")),
    "odd_chips": (
        "one-each",
        "profile casino-cash\nstakes NL 1/2\n"
        + FOUR
        + "shuffle\ncut\ndraw 2c 3c 4c 5c 6c 7c 8c 9c\n4 call\n1 call\n2 call\n3 check\n"
        "draw 2h As Ks Qs\n2 check\n3 check\n4 check\n1 check\ndraw 3h Js\n"
        "2 check\n3 check\n4 check\n1 check\ndraw 4h Ts\n2 check\n3 check\n4 check\n1 check\n"
        "muck 2\nshow 3 3c7c\nshow 4 4c8c\nshow 1 5c9c\n",
    ),
    "min_buy_in_multiple": (20, "profile casino-cash\nstakes NL 1/2\n" + THREE + "sit 4 D 30\n"),
    "max_buy_in_multiple": (50, "profile casino-cash\nstakes NL 1/2\n" + THREE + "sit 4 D 150\n"),
    "reentry_wait_minutes": (
        0,
        "profile casino-cash\nstakes NL 1/2\n" + THREE + "cashout 3\nsit 3 Carmen 200\n",
    ),
    "deck_change_on_request": (
        False,
        "profile casino-cash\nstakes NL 1/2\n" + THREE + "deck request 2\n",
    ),
    "pot_display": ("pot-limit-only", "profile casino-cash\nstakes NL 1/2\n" + THREE + SIX_CARDS),
    "chip_race_round_up": (
        False,
        "profile tda-tournament\nstakes NL 25/50\ndeck-ready\nseat 1 A 225\nseat 2 B 150\n"
        "seat 3 C 250\nchiprace 25 100 2c As 3c 4c 5c\n",  # 5 odd chips: 125
    ),
    "clock_seconds": (120, scenario("tda_5_clock_runs_out.txt")),
    "clock_countdown_seconds": (
        5,
        "profile casino-cash\nstakes NL 1/2\n" + THREE + SIX_CARDS + "tick 100\nclock\ntick 155\n",
    ),
    "action_timer_seconds": (0, scenario("tda_5_action_timer_house_option.txt")),
    "time_bank_seconds": (0, scenario("tda_5_action_timer_house_option.txt")),
    "max_seats": (2, "profile casino-cash\nstakes NL 1/2\n" + THREE),
}
"""Options whose effect a table script shows. ``void_on_recovery`` acts when the
table is restored from its journal and has its own test below."""


def observe(text: str) -> dict[str, Any]:
    """What the table did with the script ``text``, or the refusal that stopped it."""
    try:
        table, records = run_script(text)
    except ScriptError as exc:
        return {"refused": str(exc)}
    seen: dict[str, Any] = {
        "records": json.dumps(records, sort_keys=True, default=str),
        "prompt": table.prompt(),
        "pot_shown": pot_shown(table),
        "markers": {n: s.markers for n, s in table.seating.seats.items()},
        "stacks": {n: s.stack for n, s in table.seating.seats.items()},
    }
    if table.hand is not None:
        plan = table.hand.plan
        seen["plan"] = (plan.button, plan.seats, plan.start.blinds, plan.start.dead)
        seen["announced"] = list(table.hand.s.announced)
    return seen


def flipped(text: str, name: str, value: Any, *, comment: bool = False) -> str:
    """The script with ``option NAME VALUE`` after its last set-up option line (or
    its profile line), so it overrides them; with ``comment`` a comment there
    instead, so that line numbers in refusals are the same in both runs."""
    word = str(value).lower() if isinstance(value, bool) else str(value)
    lines = text.splitlines()
    at = max(i for i, x in enumerate(lines) if x.startswith(("profile ", "option ")))
    line = "# the profile's value" if comment else f"option {name} {word}"
    return "\n".join([*lines[: at + 1], line, *lines[at + 1 :]]) + "\n"


def test_every_option_is_flipped() -> None:
    """Every option of TableOptions has a case here (void_on_recovery: its own test)."""
    assert set(CASES) | {"void_on_recovery"} == set(OPTION_NAMES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_flipping_an_option_changes_what_the_table_does(name: str) -> None:
    value, text = CASES[name]
    base = observe(flipped(text, name, value, comment=True))
    changed = observe(flipped(text, name, value))
    assert base != changed, f"option {name} = {value!r} changed nothing"


def test_flipping_void_on_recovery_changes_the_restored_table(tmp_path: pathlib.Path) -> None:
    from firmware.service.journal import Journal
    from firmware.service.recovery import restore, store_table_setup
    from firmware.table import events as te

    results = []
    for void in (False, True):
        journal = Journal(str(tmp_path / f"v{void}.sqlite"))
        options = dataclasses.replace(profile_options("home"), void_on_recovery=void)
        assert isinstance(options, TableOptions)
        store_table_setup(journal, TableConfig("home", options, Stakes()), deck_ready=True)
        for event in [
            te.SitDown(1, "A", 200),
            te.SitDown(2, "B", 200),
            te.SetButton(1),
            te.Shuffle(),
            te.Cut(),
            *(te.CardDrawn(c) for c in range(4)),
            te.Act(1, "raise", 10),
        ]:
            journal.append(event)
        table = restore(journal)
        results.append((table.hand is None, len(table.records)))
    assert results == [(False, 0), (True, 1)]
