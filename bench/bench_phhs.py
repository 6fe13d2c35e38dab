"""Hands per second reading a 10,000-hand ``.phhs`` file: ours against PokerKit 0.7.7.

Usage::

    .venv/bin/python bench/bench_phhs.py [--hands 10000] [--repeat 3] [--file PATH]
                                        [--writer pokerkit|ours]

Generates ``--hands`` random no-limit and fixed-limit hands that both engines
agree on (the differential-test generator, as ``bench_engine.py`` does) and
writes them as ONE ``.phhs`` collection (``[1]``, ``[2]``...), by default with
PokerKit's own ``HandHistory.dumps_all`` (``--writer ours`` writes each hand
with our ``hand_to_phh``). The file is kept at ``--file`` (default
``/tmp/pokertable-bench-<hands>-<writer>.phhs``) and reused when it exists.

Then, in one run, each side reads the same file text and plays every hand to
the end, best of ``--repeat``:

* ours: ``loads_phhs`` (split, read and check every hand) + ``play_phh``
  (cash-game rules: the generator's heads-up fixed-limit hands may raise
  without the tournament cap, as PokerKit plays them);
* PokerKit: ``HandHistory.loads_all`` + iterating each hand's states to the end.

Reading only (no play) is timed too. The finishing stacks of both sides'
first timed run are compared; the run reports failure if they differ.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import pathlib
import sys
import time
import warnings
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_engine import generate  # noqa: E402
from pokerkit import HandHistory  # noqa: E402

from firmware.engine.histories.phh import play_phh  # noqa: E402
from firmware.engine.histories.phhs import loads_phhs  # noqa: E402
from firmware.engine.rules import GameKind  # noqa: E402

COMPILED = importlib.util.find_spec("firmware.engine.hand").origin.endswith(".so")  # type: ignore[union-attr]

warnings.filterwarnings("ignore", category=UserWarning)


def write_file(path: pathlib.Path, hands: int, writer: str) -> None:
    """Generate the hands and write them as one ``.phhs`` collection."""
    texts = generate(hands, 10_000)
    if writer == "pokerkit":
        text = HandHistory.dumps_all(HandHistory.loads(t) for t in texts)
    else:
        text = "".join(f"[{i + 1}]\n{t}\n" for i, t in enumerate(texts))
    path.write_text(text, encoding="utf-8")


def ours(text: str) -> list[list[int]]:
    """Read the collection and play every hand with our engine."""
    out = []
    for entry in loads_phhs(text, name="bench.phhs"):
        assert entry.hand is not None, entry.error
        result = play_phh(entry.hand, GameKind.CASH).hand.result
        assert result is not None
        out.append(list(result.finishing_stacks))
    return out


def pokerkit(text: str) -> list[list[int]]:
    """Read the collection and play every hand with PokerKit."""
    out = []
    for history in HandHistory.loads_all(text):
        state = None
        for state in history:  # noqa: B007
            pass
        assert state is not None
        out.append([int(s) for s in state.stacks])
    return out


def best(func: Callable[[str], object], text: str, repeat: int) -> tuple[float, object]:
    """Smallest CPU time of ``repeat`` runs of ``func(text)``, and the first run's result.

    CPU time (``time.process_time``), as ``bench_engine.py`` takes it: on a shared,
    loaded machine the wall time of the same run swings far more.
    """
    times = []
    first: object = None
    for k in range(repeat):
        t0 = time.process_time()
        result = func(text)
        times.append(time.process_time() - t0)
        first = result if k == 0 else first
    return min(times), first


def main() -> int:
    """Run the benchmark and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--file", type=pathlib.Path)
    parser.add_argument("--writer", choices=("pokerkit", "ours"), default="pokerkit")
    args = parser.parse_args()
    path = args.file or pathlib.Path(f"/tmp/pokertable-bench-{args.hands}-{args.writer}.phhs")
    if not path.exists():
        write_file(path, args.hands, args.writer)
    text = path.read_text(encoding="utf-8")
    n = len(loads_phhs(text, name=str(path)))
    gc.collect()
    gc.freeze()  # the set-up's objects out of the collector's reach, as in bench_engine.py
    label = "compiled" if COMPILED else "pure"
    print(f"{path}: {n} hands, {len(text.encode()):,} bytes, written by {args.writer}")
    print(f"engine modules: {label}; best of {args.repeat}", flush=True)
    t_ours, stacks_ours = best(ours, text, args.repeat)
    t_pk, stacks_pk = best(pokerkit, text, args.repeat)
    if stacks_ours != stacks_pk:
        print("The engines disagree on finishing stacks; fix that before trusting the times.")
        return 1
    print(f"finishing stacks agree on all {n} hands", flush=True)
    r_ours, _ = best(lambda s: loads_phhs(s, name="bench.phhs"), text, args.repeat)
    r_pk, _ = best(lambda s: list(HandHistory.loads_all(s)), text, args.repeat)
    print(f"{'':<40}{'hands/s':>10}{'us/hand':>10}{'ratio':>8}")
    for name, t, ref in (
        ("PokerKit 0.7.7 loads_all + play", t_pk, t_pk),
        (f"ours ({label}) loads_phhs + play_phh", t_ours, t_pk),
        ("PokerKit 0.7.7 loads_all (read only)", r_pk, r_pk),
        (f"ours ({label}) loads_phhs (read only)", r_ours, r_pk),
    ):
        print(f"{name:<40}{n / t:>10,.0f}{t / n * 1e6:>10,.0f}{ref / t:>7.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
