"""The compiled engine (``make compiled``, mypyc) behaves exactly like the pure one.

Skipped unless the engine's modules are compiled. The same script runs in two
subprocesses, one importing the compiled extensions and one importing every
``firmware`` module from its ``.py`` source; both play the differential-test
hands (our engine beside PokerKit), write each hand as PHH, replay it, and
replay corrupted copies (an action dropped or changed) to compare the error
messages too. Their outputs must be identical.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
COMPILED = str(importlib.util.find_spec("firmware.engine.hand").origin).endswith(".so")  # type: ignore[union-attr]
HANDS = int(os.environ.get("POKERTABLE_COMPILED_HANDS", "300"))

pytestmark = pytest.mark.skipif(not COMPILED, reason="engine not compiled (make compiled)")

SCRIPT = r"""
import importlib.abc, importlib.machinery, random, sys
ROOT = sys.argv[1]
sys.path.insert(0, ROOT)

class PureFirmware(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "firmware" and not name.startswith("firmware."):
            return None
        finder = importlib.machinery.FileFinder(
            ROOT if path is None else path[0],
            (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES),
        )
        return finder.find_spec(name, target)

if sys.argv[2] == "pure":
    sys.meta_path.insert(0, PureFirmware())

import warnings
warnings.filterwarnings("ignore")
import firmware.engine.hand
from firmware.engine.events import to_record
from firmware.engine.histories.phh import hand_to_phh, loads_phh, play_phh
from tests.pokerkit_harness import play_random_hand

print("hand module:", "compiled" if firmware.engine.hand.__file__.endswith(".so") else "pure")

def replay(text):
    try:
        hand = play_phh(loads_phh(text)).hand
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return repr((hand.result, hand.phase, [to_record(e) for e in hand.events]))

from datetime import datetime, timezone
from decimal import Decimal
from firmware.engine.histories.phhs import loads_phhs
from firmware.engine.histories.pokerstars import PokerStarsStyle, hand_to_pokerstars
from firmware.engine.histories.pokerstars_import import loads_pokerstars
from firmware.engine.histories.rake import rake_from_percent, take_rake
from firmware.engine.histories.unknown import decide_phh
WHEN = datetime(2026, 12, 1, tzinfo=timezone.utc)
def histories(hand, text):
    # The histories modules added for issue 14: .phhs, money amounts, rake,
    # unrecorded shows, PokerStars out and in.
    out = []
    try:
        money = text.replace("min_bet = ", "min_bet = 0.0")
        for entry in loads_phhs("[1]\n" + text + "\n[2]\n" + money):
            out.append(entry.error or repr(entry.hand.unit))
        unknown = text.replace('sm ', 'sm ????  # ', 1)
        decision = decide_phh(loads_phh(unknown))
        out.append(repr((decision.reason, decision.tried)))
        if hand.result is not None and hand.voided is None:
            policy = rake_from_percent(Decimal(5), 7)
            out.append(repr(take_rake(hand.result, len(hand.board), policy)))
            ps = hand_to_pokerstars(hand, PokerStarsStyle(1, "T", WHEN, WHEN, unit=Decimal("0.05")))
            out.append(ps)
            entry = loads_pokerstars(ps)[0]
            out.append(entry.error or repr(entry.hand))
    except Exception as exc:
        out.append(f"{type(exc).__name__}: {exc}")
    return "\n".join(out)
rng = random.Random(7)
for seed in range(int(sys.argv[3])):
    try:
        outcome = play_random_hand(10_000 + seed)
    except Exception as exc:
        print(seed, f"{type(exc).__name__}: {exc}")
        continue
    print(seed, repr(outcome.findings), repr(outcome.hand.result))
    try:
        text = hand_to_phh(outcome.hand)
    except Exception as exc:  # pot-limit hands have no PHH form
        print(f"{type(exc).__name__}: {exc}")
        continue
    print(replay(text))
    print(histories(outcome.hand, text))
    lines = text.splitlines()
    acts = [i for i, line in enumerate(lines) if line.strip().startswith('"')]
    if acts:
        i = rng.choice(acts)
        print(replay("\n".join(lines[:i] + lines[i + 1:])))
        j = rng.choice(acts)
        changed = lines[:]
        changed[j] = rng.choice(['  "p1 f",', '  "p2 cc",', '  "p1 cbr 7",', '  "d db AsKs",'])
        print(replay("\n".join(changed)))
"""


def run(mode: str) -> str:
    cmd = [sys.executable, "-c", SCRIPT, str(ROOT), mode, str(HANDS)]
    return subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout


def test_compiled_matches_pure() -> None:
    compiled, pure = run("compiled"), run("pure")
    assert compiled.splitlines()[0] == "hand module: compiled"
    assert pure.splitlines()[0] == "hand module: pure"
    assert len(compiled.splitlines()) > 3 * HANDS
    assert compiled.splitlines()[1:] == pure.splitlines()[1:]
