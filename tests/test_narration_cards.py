"""The terminal's narration names cards as people read them (issue 23, item 10):
rank and suit symbol ("K♠ 10♥"), as the screens show them, never codes ("KsTh"),
in Spanish and in English (``make run``, :mod:`firmware.views.narrate`).
"""

from __future__ import annotations

import re

import pytest

from firmware.cli.main import main
from firmware.views.narrate import narrate
from hal_sim.sim_table import SimulatedTable

CODE = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][shdc])+(?![A-Za-z0-9])")
"""A card code or a run of them, as the firmware writes cards ("Js", "Js6h")."""
SUIT = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


def _read(codes: str) -> str:
    """The cards of ``codes`` as a person reads them, written out here on purpose
    (not through the function under test)."""
    pairs = [codes[i : i + 2] for i in range(0, len(codes), 2)]
    return " ".join(("10" if c[0] == "T" else c[0]) + SUIT[c[1]] for c in pairs)


VERBS = {
    "es": {"show": "muestra", "turned_up": "muestra"},
    "en": {"show": "shows", "turned_up": "turns up"},
}


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_simulated_table_tells_board_and_shown_hands_with_suit_symbols(lang: str) -> None:
    lines: list[str] = []
    sim = SimulatedTable(seed=1, lang=lang, say=lines.append)
    assert sim.run(3)
    told = [line for line in lines if line.strip()]
    assert not [line for line in told if CODE.search(line)], "a card told as its code"
    records = sim.table.records
    assert len(records) == 3
    boards = [r["cards"]["board"] for r in records if len(r["cards"]["board"]) >= 6]
    assert boards, "no hand of the three reached the flop"
    for board in boards:
        assert f"  Flop: {_read(board[:6])}" in told
        if len(board) == 10:
            assert f"  River: {_read(board)}" in told
    shown = [
        (r["players"][str(a["seat"])], VERBS[lang][a["action"]], a["cards"])
        for r in records
        for a in r["actions"]
        if a["action"] in ("show", "turned_up")
    ]
    assert shown, "no hand of the three was shown down"
    for name, verb, cards in shown:
        assert any(line.strip().startswith(f"{name} {verb} {_read(cards)}") for line in told)


def test_narrate_writes_every_card_param_readable_in_both_languages() -> None:
    """One record with a board, a shown hand, a hand turned up by rule and an incident
    naming a card: no code is left in either language."""
    record = {
        "hand": 4,
        "button": 1,
        "players": {"1": "Ana", "2": "Bruno"},
        "posts": {},
        "cards": {"board": "KsTh2dJc9h"},
        "actions": [
            {"street": 3, "seat": 1, "action": "show", "cards": "AhTs"},
            {"street": 3, "seat": 2, "action": "turned_up", "cards": "7d7c"},
        ],
        "incidents": [{"rule": "HG-8", "what": "Qh found face up in the deck"}],
        "void": "",
        "pots": [{"amount": 40, "shares": {"1": 40}}],
        "finishing_stacks": {"1": 220, "2": 180},
    }
    for lang, shows, up in (("es", "muestra", "muestra"), ("en", "shows", "turns up")):
        lines = narrate(record, lang)
        assert not [line for line in lines if CODE.search(line)], lines
        text = "\n".join(lines)
        assert "Flop: K♠ 10♥ 2♦" in text and "River: K♠ 10♥ 2♦ J♣ 9♥" in text
        assert f"Ana {shows} A♥ 10♠" in text and f"Bruno {up} 7♦ 7♣" in text
        assert "[HG-8] Q♥ found face up" in text


def test_pokertable_run_prints_no_card_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--hands", "2", "--seed", "1", "--lang", "es"]) == 0
    out = capsys.readouterr().out
    assert "Flop: " in out and any(suit in out for suit in "♠♥♦♣")
    assert not CODE.search(out)
