"""Fuzzing both readers: any text gives results or one-line errors, never another exception.

Hypothesis mutates real inputs (the scenario scripts, the PHH test hands, a
``.phhs`` collection of them and the PokerStars-style test hands) by
inserting, deleting, duplicating and replacing pieces, and also feeds
arbitrary text. The budget is fixed (``max_examples``) and derandomized, so
the suite always runs the same cases in about the same time. A failure
prints the input that broke a reader.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.engine.histories.phhs import loads_phhs
from firmware.engine.histories.pokerstars_import import loads_pokerstars
from firmware.engine.histories.unknown import decide_phh
from firmware.engine.rules import GameKind
from firmware.errors import HandHistoryError
from firmware.table.script import ScriptError, run_script

HERE = Path(__file__).parent
SCRIPTS = [p.read_text(encoding="utf-8") for p in sorted((HERE / "scenarios").glob("*.txt"))[:8]]
HANDS = [p.read_text(encoding="utf-8") for p in sorted((HERE / "data" / "phh").glob("*.phh"))]
COLLECTION = "".join(f"[{i + 1}]\n{text}\n" for i, text in enumerate(HANDS))
STARS = [p.read_text(encoding="utf-8") for p in sorted((HERE / "data" / "pokerstars").glob("*"))]
PIECES = [
    "\x00", "\xff", '"', "'", "[", "]", "[2]", "=", "#", "\n", " ", "????", "sm", "cbr",
    "0.5", "-1", "1e9", "99999999999999999999", "nan", "inf", "/", "expect", "seat",
    "draw Ah", "1 raise 5", "stakes NL 2/1", "d dh p11 AcKd", "p1 sm ????", "é", "\t",
    "restore {}", 'restore {"seats": 5}', "levels start", "level 1/2 minutes 1", "tick 99",
    "floor award 1,2 x", "deck show ??Ah", "chiprace 1 5 Ah", "sit 3 Zoe 50 wait",
    "penalty 1 rounds",
    "Uncalled bet ($2) returned to", "*** FLOP *** [Ah]", "posts small & big blinds $9", "$",
]  # fmt: skip

FUZZ = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def mutated(draw: st.DrawFn, seeds: list[str]) -> str:
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "duplicate", "replace", "cut"]))
        if kind == "insert":
            piece = draw(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)))
            text = text[:at] + piece + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif kind == "duplicate":
            end = at + draw(st.integers(1, 200))
            text = text[:end] + text[at:end] + text[end:]
        elif kind == "replace":
            text = text[:at] + draw(st.sampled_from(PIECES)) + text[at + 1 :]
        else:
            text = text[:at]
    return text


def _replay_all(text: str) -> None:
    try:
        if text.lstrip("\ufeff").startswith("PokerStars "):
            entries = loads_pokerstars(text, name="fuzz.txt")
        else:
            entries = loads_phhs(text, name="fuzz.phhs")
    except HandHistoryError:
        return
    for entry in entries:
        if entry.hand is None:
            assert entry.error
            continue
        for game in GameKind:
            try:
                decide_phh(entry.hand, game, finish_showdown=True)
            except HandHistoryError as exc:
                assert "\n" not in str(exc)


@FUZZ
@given(st.one_of(mutated(SCRIPTS), st.text(max_size=300)))
def test_script_reader_never_raises_anything_but_script_error(text: str) -> None:
    try:
        run_script(text)
    except ScriptError as exc:
        assert str(exc) and "\n" not in str(exc)


@FUZZ
@given(st.one_of(mutated([*HANDS, COLLECTION, *STARS]), st.text(max_size=300)))
def test_history_readers_never_raise_anything_but_hand_history_error(text: str) -> None:
    _replay_all(text)
