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
from firmware.errors import HandHistoryError
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


def _outcome(phh: PHHHand) -> object:
    """What playing ``phh`` gives: the hand's state, or the refusal's words."""
    try:
        return play_phh(phh).hand.snapshot()
    except HandHistoryError as exc:
        return f"refused: {exc}"


def _broken(actions: list[str], seed: int) -> list[list[str]]:
    """Wrong versions of a hand's actions: missing, swapped, repeated or misspelled ones,
    comments, and two faults at once (a refusal first, a syntax error after it)."""
    n = len(actions)
    i = seed % n
    j = (seed * 7 + 3) % n
    lo, hi = min(i, j), max(i, j)
    return [
        actions[:i] + actions[i + 1 :],
        actions[:i] + actions[i + 1 : i + 2] + actions[i : i + 1] + actions[i + 2 :],
        actions + actions[-1:],
        [*actions[:i], "# a note", f"{actions[i]} # said aloud", *actions[i + 1 :]],
        [*actions[:i], "p1 xyz", *actions[i:]],
        actions[:lo] + actions[lo + 1 : hi] + ["d db ZzZz"] + actions[hi:],
        actions[:lo] + actions[lo + 1 :] + ["p99 f"],
        [a.replace(" cc", " cbr 999999999") for a in actions],
        [*actions[:i], "p1 sm", "p2 sm AcAd", *actions[i:]],
        actions[:-1],
    ]


def test_fast_and_reference_paths_refuse_broken_hands_alike(
    corpus: list[tuple[str, Outcome]],
) -> None:
    """The fast path reads and plays each action in turn; the reference path reads every
    action first. On wrong files both must give the same refusal (a syntax error
    anywhere before a refusal to play) or the same hand."""
    compared = refused = 0
    for seed, (text, _) in enumerate(corpus[:120]):
        fast = loads_phh(text)
        reference = _reference_read(text)
        for actions in _broken(list(fast.actions), seed):
            mine = dataclasses.replace(fast, actions=tuple(actions))
            theirs = dataclasses.replace(reference, actions=tuple(actions))
            got, want = _outcome(mine), _outcome(theirs)
            assert got == want, (seed, actions)
            compared += 1
            refused += isinstance(want, str)
    assert compared == 1200 and refused > 900  # mostly refusals, of every kind above
