"""Two spellings of one name are one player (PE-4 one seat, HG-6 re-entry wait).

Review found "ANA" seated beside "Ana", and "ana" back in the game at once after
"Ana" cashed out, getting around both rules by the case of a letter.
"""

import pytest

from firmware.errors import IllegalAction
from firmware.table.script import run_script
from firmware.table.seating import same_player

HEAD = 'stakes NL 1/2\ndeck-ready\nseat 1 "Ana Pérez" 200\nseat 2 Bruno 200\n'


def test_same_player_ignores_case_and_runs_of_spaces() -> None:
    assert same_player("ANA  pérez ") == same_player("Ana Pérez")
    assert same_player("Ana") != same_player("Anna")


@pytest.mark.parametrize("name", ["ANA PÉREZ", "ana  pérez"])
def test_pe_4_one_player_one_seat_whatever_the_case(name: str) -> None:
    with pytest.raises(Exception) as refused:
        run_script(f'profile casino-cash\n{HEAD}seat 3 "{name}" 200\n')
    assert "plays one position only" in str(refused.value)


def test_hg_6_the_reentry_wait_applies_to_another_spelling() -> None:
    table, _ = run_script(
        "profile casino-cash\noption reentry_wait_minutes 30\n" + HEAD + "cashout 1\n"
    )
    with pytest.raises(IllegalAction) as refused:
        table.seating.sit(1, "ANA PÉREZ", 200, now=table.now + 60)
    assert refused.value.key == "error.table.reentry_wait"
    assert table.seating.sit(1, "ANA PÉREZ", 200, now=table.now + 31 * 60).stack == 200
