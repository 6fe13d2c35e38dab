"""Mutation scores of the rules core, the table procedures and authentication.

A thin layer over mutmut 3 (configured in ``[tool.mutmut]`` of pyproject.toml;
``make mutate`` runs it): mutmut makes and runs the mutants, this script picks
them and counts. See docs/testing.md.

    .venv/bin/python tools/mutation.py run --module firmware.engine.pots
    .venv/bin/python tools/mutation.py run --sample 60            # 60 per module, seed 17
    .venv/bin/python tools/mutation.py score                      # scores of what has run
    .venv/bin/python tools/mutation.py survivors --module firmware.engine.pots

``run`` without ``--sample`` runs every mutant of the module(s). With
``--sample N`` it runs N mutants per module drawn with a fixed seed, so two
runs on the same source pick the same mutants. The score is
killed / (checked - equivalent): mutants listed in
``tests/mutation/equivalents.toml`` (each with the reason it cannot change
behaviour) are taken out of the count; a mutant whose tests ran and passed
("survived") or that no test reaches ("no tests") counts as not killed.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
MODULES = (
    "firmware.engine.pots",
    "firmware.engine.betting",
    "firmware.engine.showdown",
    "firmware.table.seating",
    "firmware.table.incidents",
    "firmware.protocol.auth",
)
"""The modules under mutation testing (``only_mutate`` in pyproject.toml lists the same)."""

EQUIVALENTS = ROOT / "tests" / "mutation" / "equivalents.toml"
MUTMUT = str(ROOT / ".venv" / "bin" / "mutmut")
NOT_KILLED = {0, 5, 33}
"""mutmut exit codes of a mutant that no test caught: survived, no tests (twice)."""


def _meta(module: str) -> dict[str, int | None]:
    """Each mutant of ``module`` and its mutmut exit code (``None``: not run yet)."""
    path = ROOT / "mutants" / (module.replace(".", "/") + ".py.meta")
    if not path.exists():
        return {}
    codes: dict[str, int | None] = json.loads(path.read_text())["exit_code_by_key"]
    return codes


def _equivalents() -> dict[str, str]:
    """Equivalent mutants (name -> the reason), from :data:`EQUIVALENTS`."""
    if not EQUIVALENTS.exists():
        return {}
    data = tomllib.loads(EQUIVALENTS.read_text(encoding="utf-8"))
    return {name: str(reason) for name, reason in data.get("equivalent", {}).items()}


def _mutmut(*args: str) -> None:
    subprocess.run([MUTMUT, *args], cwd=ROOT, check=False)


def _generate() -> None:
    """Make mutmut generate the mutants when there are none yet.

    mutmut generates them at the start of any ``run``; given a name that matches
    no mutant it then stops ("nothing matches"), which is all we want here.
    """
    if not all(_meta(m) for m in MODULES):
        subprocess.run(
            [MUTMUT, "run", "no.such.mutant"], cwd=ROOT, check=False, capture_output=True
        )


def run(modules: list[str], sample: int | None, seed: int) -> None:
    """Run every mutant of ``modules``, or ``sample`` of each drawn with ``seed``."""
    _generate()
    names: list[str] = []
    for module in modules:
        mutants = sorted(_meta(module))
        if not mutants:
            sys.exit(f"No mutants of {module}: is it listed in [tool.mutmut] only_mutate?")
        if sample is not None and sample < len(mutants):
            mutants = sorted(random.Random(f"{seed}:{module}").sample(mutants, sample))
        names += mutants
    _mutmut("run", *names)


def score(modules: list[str]) -> int:
    """Print each module's score; return 1 if one is below 90% after equivalents."""
    equivalent = _equivalents()
    status = 0
    print(f"{'module':28} {'run':>5} {'killed':>6} {'equiv':>5} {'left':>5} {'score':>6}")
    for module in modules:
        codes = {k: v for k, v in _meta(module).items() if v is not None}
        same = [k for k in codes if k in equivalent]
        killed = sum(1 for k, v in codes.items() if v not in NOT_KILLED)
        left = [k for k, v in codes.items() if v in NOT_KILLED and k not in equivalent]
        counted = len(codes) - len(same)
        value = killed / counted if counted else 0.0
        if counted and value < 0.9:
            status = 1
        print(f"{module:28} {len(codes):5} {killed:6} {len(same):5} {len(left):5} {value:6.1%}")
    return status


def survivors(modules: list[str]) -> None:
    """Print the mutants no test killed (equivalents apart), with mutmut's diff."""
    equivalent = _equivalents()
    for module in modules:
        for name, code in sorted(_meta(module).items()):
            if code in NOT_KILLED and name not in equivalent:
                _mutmut("show", name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("run", "score", "survivors"))
    parser.add_argument("--module", action="append", choices=MODULES, help="default: all six")
    parser.add_argument("--sample", type=int, help="mutants per module (default: all)")
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args(argv)
    modules = args.module or list(MODULES)
    if args.command == "run":
        run(modules, args.sample, args.seed)
        return score(modules)
    if args.command == "survivors":
        survivors(modules)
        return 0
    return score(modules)


if __name__ == "__main__":
    sys.exit(main())
