"""Mutation scores of the rules core, the table procedures, authentication and the floor's director.

A thin layer over mutmut 3 (configured in ``[tool.mutmut]`` of pyproject.toml;
``make mutate`` runs it): mutmut makes and runs the mutants, this script picks
them and counts. See docs/testing.md.

    .venv/bin/python tests/mutation/mutation.py run --sample 50            # seed 17 and a fresh one
    .venv/bin/python tests/mutation/mutation.py run --sample 50 --fresh-seed 4242
    .venv/bin/python tests/mutation/mutation.py run --module firmware.engine.pots  # every mutant
    .venv/bin/python tests/mutation/mutation.py score                       # the last run again
    .venv/bin/python tests/mutation/mutation.py survivors                   # its survivors' diffs
    .venv/bin/python tests/mutation/mutation.py equivalents                 # check the list

The score cannot flatter:

- *killed* is a mutant whose tests failed (pytest's exit status 1).
- *timeout* is a mutant that made its tests hang (a loop that never ends):
  mutmut stops it at its CPU limit (``timeout_multiplier`` in pyproject.toml),
  then its tests run again alone under a CPU-time limit of
  :data:`RECHECK_FACTOR` times their measured time (at least
  :data:`RECHECK_MIN_CPU` seconds; CPU time, so a busy machine cannot
  cause it). Only if they exceed it again is it a timeout: a real
  detection (a table that freezes is a failure anyone sees), so it counts
  like a kill, but it is shown in its own column. If they finish, their
  exit status decides as for any other mutant. Any other outcome (a collection or
  internal error, an interrupted run, a crash, a kill by the system) is an
  *error*: reported apart, never counted as killed, and left in the
  denominator, so errors can only lower the score.
- *equivalent* mutants (``tests/mutation/equivalents.toml``) are named by
  their content (the module, the function, the original line and the
  mutated line), not by mutmut's positional name; each run checks that
  every entry still matches a mutant of the current source (else it stops
  and says which entry to fix), and a matched mutant leaves numerator and
  denominator alike.
- each run scores only the mutants it drew and ran itself; nothing of an
  earlier run is counted.
- each run draws two samples per module, one with the fixed seed
  (:data:`FIXED_SEED`, comparable across runs) and one with a fresh seed
  (given, or drawn from the clock and printed), and reports both side by side:
  tests written against the fixed sample cannot hide behind it.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import pathlib
import random
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterable

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
MODULES = (
    "firmware.engine.pots",
    "firmware.engine.betting",
    "firmware.engine.showdown",
    "firmware.table.seating",
    "firmware.table.seating_money",
    "firmware.table.incidents",
    "firmware.protocol.auth",
    "firmware.floor.tournament.mtt",
    "firmware.floor.tournament.director",
)
"""The modules under mutation testing (``only_mutate`` in pyproject.toml lists the same)."""

FIXED_SEED = 17
EQUIVALENTS = ROOT / "tests" / "mutation" / "equivalents.toml"
LAST_RUN = ROOT / "mutants" / "last-run.json"
MUTMUT = str(ROOT / ".venv" / "bin" / "mutmut")

KILLED = {1}
"""pytest's exit status when a test failed: the only status that counts as killed."""
NOT_KILLED = {0, 5, 33}
"""The tests ran and passed (0), or no test reaches the mutant (5, and mutmut's 33)."""
TIMEOUTS = {36, -24, 24, 152, 255}
"""mutmut's timeouts (its own 36; SIGXCPU seen as -24, 24, 152 or 255): checked again."""
RECHECK_FACTOR = 5.0
"""A timed-out mutant's tests, run again alone, get this many times their measured time."""
RECHECK_MIN_CPU = 60
"""... and at least this many CPU seconds: only a real hang exceeds it."""
RECHECK_WALL = 3600.0
"""A last guard in wall-clock seconds, for a mutant that hangs without using the CPU."""


# -- what mutmut made and ran -----------------------------------------------------


def _meta(module: str) -> dict[str, int | None]:
    """Each mutant of ``module`` and its mutmut exit code (``None``: not run yet)."""
    path = ROOT / "mutants" / (module.replace(".", "/") + ".py.meta")
    if not path.exists():
        return {}
    codes: dict[str, int | None] = json.loads(path.read_text())["exit_code_by_key"]
    return codes


def _generate() -> None:
    """Make mutmut generate the mutants (and its map of tests) for the current source.

    mutmut generates them at the start of any ``run``; given a name that matches
    no mutant it then stops ("nothing matches"), which is all we want here.
    """
    subprocess.run([MUTMUT, "run", "no.such.mutant"], cwd=ROOT, check=False, capture_output=True)
    missing = [m for m in MODULES if not _meta(m)]
    if missing:
        sys.exit(
            f"mutmut made no mutants of {', '.join(missing)}: check [tool.mutmut] only_mutate "
            "in pyproject.toml, and that the tests it selects pass (mutmut run shows why)."
        )


def _diff_lines(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The lines a mutant removes and adds (stripped), from mutmut's own diff."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant  # the dev extra 'mutation'

    module = name[: name.index(".x")]
    path = module.replace(".", "/") + ".py"
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        diff = get_diff_for_mutant(name, path=path)
    finally:
        os.chdir(cwd)
    removed = tuple(
        line[1:].strip()
        for line in diff.splitlines()
        if line.startswith("-") and not line.startswith("---")
    )
    added = tuple(
        line[1:].strip()
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    )
    return removed, added


def _function(name: str) -> str:
    """``StaffDirectory.login`` for ``firmware.protocol.auth.xǁStaffDirectoryǁlogin__mutmut_26``."""
    short = name[name.index(".x") + 2 :].rsplit("__mutmut_", 1)[0]
    if short.startswith("_"):  # x_NAME for a function
        short = short[1:]
    return short.strip("ǁ").replace("ǁ", ".")


# -- equivalents, by content ------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Equivalent:
    """One declared equivalent mutation: where, what it changes, and why it cannot matter."""

    module: str
    function: str
    original: str
    mutant: str
    reason: str

    def matches(self, name: str, removed: tuple[str, ...], added: tuple[str, ...]) -> bool:
        return (
            name.startswith(self.module + ".x")
            and _function(name) == self.function
            and removed == (self.original,)
            and added == (self.mutant,)
        )


def _equivalents() -> list[Equivalent]:
    """The declared equivalents, from :data:`EQUIVALENTS`."""
    data = tomllib.loads(EQUIVALENTS.read_text(encoding="utf-8"))
    return [Equivalent(**entry) for entry in data.get("equivalent", [])]


def _match_equivalents(modules: Iterable[str]) -> dict[str, Equivalent]:
    """Each mutant of ``modules`` that a declared equivalent names (mutant -> entry).

    Stops with a sentence when an entry matches no mutant of the current source:
    the code changed under it, so its reason must be checked again.
    """
    entries = [e for e in _equivalents() if e.module in set(modules)]
    found: dict[str, Equivalent] = {}
    used: set[Equivalent] = set()
    for module in modules:
        candidates = [e for e in entries if e.module == module]
        if not candidates:
            continue
        functions = {e.function for e in candidates}
        for name in _meta(module):
            if _function(name) not in functions:
                continue
            removed, added = _diff_lines(name)
            for entry in candidates:
                if entry.matches(name, removed, added):
                    found[name] = entry
                    used.add(entry)
    stale = [e for e in entries if e not in used]
    if stale:
        lines = "\n".join(
            f"  {e.module} {e.function}: {e.original!r} -> {e.mutant!r}" for e in stale
        )
        sys.exit(
            f"These entries of {EQUIVALENTS.relative_to(ROOT)} match no mutant of the current "
            f"source; check each against the code and update or remove it:\n{lines}"
        )
    return found


# -- running and scoring ----------------------------------------------------------


def draw(modules: Iterable[str], sample: int | None, seed: int) -> dict[str, list[str]]:
    """``sample`` mutants per module drawn with ``seed`` (all of them without a sample)."""
    drawn: dict[str, list[str]] = {}
    for module in modules:
        mutants = sorted(_meta(module))
        if sample is not None and sample < len(mutants):
            mutants = sorted(random.Random(f"{seed}:{module}").sample(mutants, sample))
        drawn[module] = mutants
    return drawn


def _tests_of(name: str) -> list[str]:
    """The tests mutmut runs for a mutant (those that reach its function)."""
    from mutmut.utils.format_utils import mangled_name_from_mutant_name

    stats = json.loads((ROOT / "mutants" / "mutmut-stats.json").read_text())
    return sorted(
        stats["tests_by_mangled_function_name"].get(mangled_name_from_mutant_name(name), [])
    )


def _recheck_cpu(tests: list[str]) -> int:
    """The CPU seconds a timed-out mutant's tests get when run again alone."""
    stats = json.loads((ROOT / "mutants" / "mutmut-stats.json").read_text())
    measured = sum(stats["duration_by_test"].get(t, 0.0) for t in tests)
    return max(RECHECK_MIN_CPU, int(RECHECK_FACTOR * (measured + 1)))


def _limit_cpu(seconds: int) -> None:
    """In the child, before exec: SIGXCPU after ``seconds`` of CPU time."""
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))


def recheck_timeout(name: str) -> str:
    """Run a timed-out mutant's tests again, alone: 'timeout', 'killed', 'survived' or 'error'."""
    tests = _tests_of(name)
    if not tests:
        return "survived"
    cpu = _recheck_cpu(tests)
    mutants = ROOT / "mutants"
    code = (
        "import sys, pathlib; root = pathlib.Path(sys.argv[1]).resolve();"
        "sys.path[:] = [str(root / 'mutants')] + [p for p in sys.path"
        " if p and pathlib.Path(p).resolve() != root];"
        "import pytest; sys.exit(pytest.main(['-p', 'no:xdist', '-p', 'no:cacheprovider',"
        " '-q', '-x', *sys.argv[2:]]))"
    )
    env = dict(os.environ, MUTANT_UNDER_TEST=name, PY_IGNORE_IMPORTMISMATCH="1")
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(ROOT), *tests],
            cwd=mutants,
            env=env,
            capture_output=True,
            timeout=RECHECK_WALL,
            preexec_fn=lambda: _limit_cpu(cpu),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "timeout"  # hangs without using the CPU: never finishes either
    if done.returncode == -24:  # SIGXCPU: the CPU-time limit was reached
        return "timeout"  # a real hang: the tests never finish
    if done.returncode in KILLED:
        return "killed"
    if done.returncode in NOT_KILLED:
        return "survived"
    return "error"


def outcome(name: str, code: int | None) -> str:
    """'killed', 'timeout', 'survived' or 'error' for one mutant's mutmut exit code."""
    if code in KILLED:
        return "killed"
    if code in NOT_KILLED:
        return "survived"
    if code in TIMEOUTS:
        return recheck_timeout(name)
    return "error"


@dataclasses.dataclass
class Row:
    """One module's figures for one seed."""

    module: str
    seed: int
    drawn: int
    equivalent: int
    killed: int
    survived: list[str]
    errors: list[str]
    timeouts: list[str] = dataclasses.field(default_factory=list)
    """Mutants whose tests hung (confirmed): detected, so they count like kills."""

    @property
    def counted(self) -> int:
        return self.drawn - self.equivalent

    @property
    def score(self) -> float:
        return (self.killed + len(self.timeouts)) / self.counted if self.counted else 0.0


def tally(
    drawn: dict[str, list[str]],
    seed: int,
    outcomes: dict[str, str],
    equivalent: dict[str, Equivalent],
) -> list[Row]:
    """Score each module's sample alone: equivalents out of numerator and denominator."""
    rows = []
    for module, names in drawn.items():
        counted = [n for n in names if n not in equivalent]
        rows.append(
            Row(
                module,
                seed,
                len(names),
                len(names) - len(counted),
                sum(1 for n in counted if outcomes[n] == "killed"),
                [n for n in counted if outcomes[n] == "survived"],
                [n for n in counted if outcomes[n] == "error"],
                [n for n in counted if outcomes[n] == "timeout"],
            )
        )
    return rows


def _commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "firmware", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return done.stdout.strip() + ("+uncommitted changes" if dirty else "")


def report(result: dict[str, object]) -> int:
    """Print a run's table; 1 if a module is below 90% on either seed, or any error."""
    rows = [Row(**r) for r in result["rows"]]  # type: ignore[arg-type, attr-defined]
    print(
        f"\nMutation run of {result['date']} on commit {result['commit']}, "
        f"{result['sample']} per module; fixed seed {result['fixed_seed']}, "
        f"fresh seed {result['fresh_seed']}"
    )
    print(
        f"{'module':30} {'seed':>6} {'drawn':>5} {'equiv':>5} {'killed':>6} "
        f"{'timeout':>7} {'surv':>4} {'error':>5} {'score':>6}"
    )
    status = 0
    for row in rows:
        print(
            f"{row.module:30} {row.seed:6} {row.drawn:5} {row.equivalent:5} {row.killed:6} "
            f"{len(row.timeouts):7} {len(row.survived):4} {len(row.errors):5} {row.score:6.1%}"
        )
        if (row.counted and row.score < 0.9) or row.errors:
            status = 1
    timeouts = sorted({n for r in rows for n in r.timeouts})
    if timeouts:
        print("\nTimeouts (the tests hung again when run alone; counted as detected):")
        for name in timeouts:
            print(f"  {name}")
    errors = sorted({n for r in rows for n in r.errors})
    if errors:
        print("\nErrors (neither killed nor survived; they count against the score):")
        for name in errors:
            print(f"  {name}")
    return status


def run(modules: list[str], sample: int | None, fresh_seed: int | None) -> int:
    """Draw the fixed and the fresh sample, run them with mutmut, score each alone."""
    _generate()
    equivalent = _match_equivalents(modules)
    fresh = fresh_seed if fresh_seed is not None else int(time.time()) % 100_000
    if fresh == FIXED_SEED:
        fresh += 1
    fixed_draw = draw(modules, sample, FIXED_SEED)
    fresh_draw = draw(modules, sample, fresh)
    names = sorted({n for d in (fixed_draw, fresh_draw) for ns in d.values() for n in ns})
    started = datetime.datetime.now(datetime.UTC)
    subprocess.run([MUTMUT, "run", *names], cwd=ROOT, check=False)
    codes = {n: c for m in modules for n, c in _meta(m).items()}
    outcomes = {n: outcome(n, codes.get(n)) for n in names}
    rows = [
        r
        for module in modules
        for r in (
            *tally({module: fixed_draw[module]}, FIXED_SEED, outcomes, equivalent),
            *tally({module: fresh_draw[module]}, fresh, outcomes, equivalent),
        )
    ]
    result: dict[str, object] = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _commit(),
        "sample": sample if sample is not None else "all",
        "fixed_seed": FIXED_SEED,
        "fresh_seed": fresh,
        "rows": [r.__dict__ for r in rows],
    }
    LAST_RUN.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return report(result)


def _last() -> dict[str, object]:
    if not LAST_RUN.exists():
        sys.exit("No run yet: run `tests/mutation/mutation.py run --sample 50` first.")
    data: dict[str, object] = json.loads(LAST_RUN.read_text(encoding="utf-8"))
    return data


def survivors() -> None:
    """Print the last run's survivors and errors with mutmut's diff."""
    names = sorted(
        {n for r in _last()["rows"] for n in r["survived"] + r["errors"]}  # type: ignore[attr-defined]
    )
    for name in names:
        subprocess.run([MUTMUT, "show", name], cwd=ROOT, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("run", "score", "survivors", "equivalents"))
    parser.add_argument("--module", action="append", choices=MODULES, help="default: all")
    parser.add_argument("--sample", type=int, help="mutants per module and seed (default: all)")
    parser.add_argument(
        "--fresh-seed", type=int, help="the second sample's seed (default: from the clock)"
    )
    args = parser.parse_args(argv)
    modules = args.module or list(MODULES)
    if args.command == "run":
        return run(modules, args.sample, args.fresh_seed)
    if args.command == "equivalents":
        _generate()
        for name, entry in sorted(_match_equivalents(modules).items()):
            print(f"{name}: {entry.original!r} -> {entry.mutant!r}")
        return 0
    if args.command == "survivors":
        survivors()
        return 0
    return report(_last())


if __name__ == "__main__":
    sys.exit(main())
