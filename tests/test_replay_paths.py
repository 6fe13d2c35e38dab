"""The fast replay path and the reference path agree on every hand of the replay benchmark.

``bench/bench_engine.py`` times the fast path: :func:`loads_phh` (the first TOML
reader, ``scan_toml``, and the field checks it allows) and :func:`play_phh`
(actions read by table look-ups in ``fast_event``, then the engine). The
reference path takes none of those shortcuts: the text is read by
:mod:`tomllib`, every field through the general checks, and every action by the
word-by-word reader (a chip unit of 1 sends each action there, with the same
amounts). Both must give the same hand, event for event, and the same
finishing stacks as the hand the differential harness played directly through
``Hand.apply`` and as PokerKit; chips are conserved.

The corpus is the benchmark's (``benchmark_corpus``: 500 hands from seed
10,000, the figures in ``docs/benchmarks.md``); ``POKERTABLE_BENCH_HANDS``
changes how many. Run on the compiled build, it checks the compiled fast path.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from decimal import Decimal

import pytest

from firmware.engine.histories.phh import _from_mapping, loads_phh, play_phh
from firmware.engine.histories.phh_actions import fast_event, parse_action
from firmware.engine.histories.phh_hand import PHHHand
from tests.pokerkit_harness import Outcome, benchmark_corpus

pytestmark = pytest.mark.filterwarnings("ignore:A card being dealt:UserWarning")

HANDS = int(os.environ.get("POKERTABLE_BENCH_HANDS", "500"))
ONE: Decimal = Decimal(1)


@pytest.fixture(scope="module")
def corpus() -> list[tuple[str, Outcome]]:
    return benchmark_corpus(HANDS)


def _reference_read(text: str) -> PHHHand:
    """The hand read without the fast readers: tomllib, general checks, a chip unit of 1."""
    return _from_mapping(tomllib.loads(text, parse_float=Decimal), "<text>", ONE)


def _differences(text: str, outcome: Outcome) -> list[str]:
    found: list[str] = []
    fast = loads_phh(text)
    reference = _reference_read(text)
    if fast != dataclasses.replace(reference, unit=None) or fast.ignored != reference.ignored:
        found.append("the fast and reference readers read different fields")
    n = fast.player_count
    for index, action in enumerate(fast.actions):
        quick = fast_event(action, n)
        full = parse_action("<text>", n, index, action, ONE)
        if quick is not None and quick != full:
            found.append(f"action {index} {action!r}: fast {quick!r}, full {full!r}")
    played = play_phh(fast).hand
    checked = play_phh(reference).hand
    if played.snapshot() != checked.snapshot():
        found.append("the fast and reference paths end in different hand states")
    assert played.result is not None and outcome.hand.result is not None
    stacks = list(played.result.finishing_stacks)
    if sum(stacks) != sum(outcome.start.stacks):
        found.append(f"chips not conserved: {sum(outcome.start.stacks)} in, {sum(stacks)} out")
    if stacks != list(outcome.hand.result.finishing_stacks):
        found.append(f"stacks {stacks} differ from the engine played directly")
    if stacks != [int(s) for s in outcome.state.stacks]:
        found.append(f"stacks {stacks} differ from PokerKit's")
    if played.result.pots != outcome.hand.result.pots:
        found.append("the pots differ from the engine played directly")
    return found


def test_corpus_is_the_benchmarks(corpus: list[tuple[str, Outcome]]) -> None:
    assert len(corpus) == HANDS
    assert len({text for text, _ in corpus}) == HANDS  # distinct hands
    variants = {loads_phh(text).variant for text, _ in corpus}
    assert variants == {"NT", "FT"}  # no-limit and fixed-limit both replayed


def test_fast_and_reference_paths_agree_on_every_hand(
    corpus: list[tuple[str, Outcome]],
) -> None:
    failures = {
        outcome.seed: found for text, outcome in corpus if (found := _differences(text, outcome))
    }
    assert not failures, f"{len(failures)} of {len(corpus)} hands differ, by seed: {failures}"


def test_a_changed_stack_is_caught(corpus: list[tuple[str, Outcome]]) -> None:
    """The comparison can fail: a hand whose file starts one player with a chip more."""
    text, outcome = corpus[0]
    stacks = loads_phh(text).starting_stacks
    changed = text.replace(f"    {stacks[0]},\n", f"    {stacks[0] + 1},\n", 1)
    assert changed != text
    assert any("conserved" in d or "differ" in d for d in _differences(changed, outcome))
