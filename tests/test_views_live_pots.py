"""The pots a screen shows during a hand: an unmatched bet is not a side pot.

Review found a seat's view listing a side pot for the big blind's uncalled part
before anybody had acted; a real side pot (others matched it, then folded) must
still show as one.
"""

from __future__ import annotations

from firmware.table.script import run_script
from firmware.views.audience import seat_view

HEAD = (
    "profile casino-cash\nstakes NL 1/2\ndeck-ready\n"
    "seat 1 Ana 200\nseat 2 Bruno 50\nseat 3 Carmen 300\nbutton 1\nshuffle\ncut\n"
)
DEAL = "draw Ah Kd 7c As Kh 2d\n"


def pots(script: str) -> list[tuple[int, list[int]]]:
    table, _ = run_script(HEAD + script)
    view = seat_view(table, 1, "en")
    return [(p["amount"], sorted(p["seats"])) for p in view["table"]["pots"]]


def test_the_blinds_before_any_action_are_one_pot() -> None:
    assert pots(DEAL) == [(3, [1, 2, 3])]


def test_an_uncalled_raise_stays_in_its_pot() -> None:
    assert pots(DEAL + "1 raise 10\n") == [(13, [1, 2, 3])]


def test_a_real_side_pot_still_shows() -> None:
    # Bruno (seat 2, small blind) all in for 50, Carmen calls, Ana re-raises to
    # 150, Carmen calls and... folds later: the side pot between Ana and Carmen.
    shown = pots(DEAL + "1 raise 10\n2 allin\n3 call\n1 raise 150\n3 call\n")
    assert shown == [(150, [1, 2, 3]), (200, [1, 3])]
