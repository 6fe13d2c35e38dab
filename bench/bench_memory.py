"""Evaluator memory and import time, each measured in a fresh process.

Run:  .venv/bin/python bench/bench_memory.py

* tables: tracemalloc around ``import firmware.engine.evaluator`` (everything the
  import allocates and keeps: tables, code, the cards/errors modules), plus
  the deep size of the tables themselves (flat index and strength lists with
  their ints, flush list, weights);
* RSS: VmRSS (now) and VmHWM (peak) from /proc/self/status of a fresh
  interpreter after importing nothing, the evaluator, the evaluator with the
  hand engine, and the batch/equity modules (which pull in numpy);
* import time: wall time of the import in a fresh process (best of 5).

MB here means MiB (2**20 bytes). Budgets from the issue: evaluator tables
< 6 MB; engine + evaluator RSS < 60 MB.
Not part of pytest.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import json, sys, time, tracemalloc
sys.path.insert(0, {root!r})
for name in {pre!r}:
    __import__(name)
if {trace}:
    tracemalloc.start()
start = time.perf_counter()
for name in {modules!r}:
    __import__(name)
elapsed = time.perf_counter() - start
traced = tracemalloc.get_traced_memory() if {trace} else (0, 0)
status = dict(
    line.split(":", 1) for line in open("/proc/self/status") if line.startswith("Vm")
)
out = {{
    "rss_kb": int(status["VmRSS"].split()[0]),
    "hwm_kb": int(status["VmHWM"].split()[0]),
    "import_s": elapsed,
    "traced": traced[0],
    "traced_peak": traced[1],
}}
if {deep}:
    from firmware.engine import evaluator as e
    seen = set()
    def size(obj):
        if id(obj) in seen:
            return 0
        seen.add(id(obj))
        total = sys.getsizeof(obj)
        if isinstance(obj, dict):
            total += sum(size(k) + size(v) for k, v in obj.items())
        elif isinstance(obj, list):
            total += sum(size(x) for x in obj)
        return total
    out["tables"] = sum(size(t) for t in (e.LOW_INDEX, e.HIGH_INDEX, e.RANK_STRENGTHS))
    out["tables"] += size(e.FLUSH_TABLE) + size(e.WEIGHTS)
    out["rank_entries"] = sum(len(s) for s in e.RANK_STRENGTHS)
if {batch}:
    from firmware.odds import batch as b
    arrays = [b.WEIGHTS64, b.MASK_WEIGHTS, b.PAIR_WEIGHTS64, b._LB, b._FLUSH]
    arrays += list(b._LA.values()) + list(b._STRENGTH.values())
    out["batch_tables"] = sum(a.nbytes for a in arrays)
print(json.dumps(out))
"""


def probe(
    modules: list[str],
    trace: bool = False,
    deep: bool = False,
    batch: bool = False,
    pre: tuple[str, ...] = (),
) -> dict:
    """Run the probe in a fresh interpreter and return its measurements.

    ``pre`` modules are imported before tracing starts, so tracemalloc sees
    only what ``modules`` add.
    """
    code = PROBE.format(
        root=str(ROOT), modules=modules, trace=trace, deep=deep, batch=batch, pre=list(pre)
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def engine_modules() -> list[str]:
    """The hand engine's modules that exist in this checkout."""
    names = ["hand", "betting", "pots", "rules", "events", "showdown"]
    return [f"firmware.{n}" for n in names if (ROOT / "firmware" / f"{n}.py").exists()]


def main() -> None:
    traced = probe(["firmware.engine.evaluator"], trace=True, deep=True)
    deps = (
        "enum",
        "dataclasses",
        "bisect",
        "itertools",
        "firmware.engine.cards",
        "firmware.errors",
    )
    own = probe(["firmware.engine.evaluator"], trace=True, pre=deps)
    print("Evaluator tables")
    print(f"  rank table entries (5, 6, 7)    {traced['rank_entries']:>10,}")
    print(f"  deep size of the three tables   {traced['tables'] / 2**20:10.2f} MB")
    print(f"  tracemalloc, evaluator only     {own['traced'] / 2**20:10.2f} MB")
    print(f"  tracemalloc peak, building      {own['traced_peak'] / 2**20:10.2f} MB")
    print(f"  tracemalloc, with its imports   {traced['traced'] / 2**20:10.2f} MB")
    batch = probe(["firmware.odds.batch"], batch=True)
    print(f"  batch numpy tables (nbytes)     {batch['batch_tables'] / 2**20:10.2f} MB")
    print()
    rows = [
        ("python, nothing imported", []),
        ("firmware.engine.evaluator", ["firmware.engine.evaluator"]),
        ("engine + firmware.engine.evaluator", [*engine_modules(), "firmware.engine.evaluator"]),
        ("numpy alone", ["numpy"]),
        ("firmware.odds.batch (numpy)", ["firmware.odds.batch"]),
        ("firmware.odds.equity + verify", ["firmware.odds.equity", "firmware.odds.verify"]),
    ]
    print(f"{'fresh process importing':34s} {'VmRSS MB':>9s} {'VmHWM MB':>9s} {'import s':>9s}")
    for label, modules in rows:
        runs = [probe(modules) for _ in range(5)]
        rss = min(r["rss_kb"] for r in runs) / 1024
        hwm = min(r["hwm_kb"] for r in runs) / 1024
        secs = min(r["import_s"] for r in runs)
        print(f"{label:34s} {rss:9.1f} {hwm:9.1f} {secs:9.3f}")
    print(f"\nengine modules found: {', '.join(engine_modules()) or 'none'}")


if __name__ == "__main__":
    main()
