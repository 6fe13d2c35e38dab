"""No import cycles between the project's modules, counted on the source itself.

import-linter's layer contracts (pyproject.toml) keep the layers in order,
but two modules of one layer can still import each other, and a cycle that
runs only through an ``if TYPE_CHECKING:`` block or an import inside a
function is a cycle all the same: the part names its whole, and the split
that made the part did not really separate them. This test reads every
module of ``firmware``, ``ui``, ``hal_sim`` and ``drivers`` with :mod:`ast`,
takes every import it finds anywhere in the file (module level,
``TYPE_CHECKING`` blocks, functions, methods), builds the graph of imports
between those modules, and counts its strongly connected components of more
than one module (Tarjan's algorithm). The count must be zero.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("firmware", "ui", "hal_sim", "drivers")

KNOWN_CYCLES: list[frozenset[str]] = []
"""Cycles another branch removes (the only exceptions allowed); empty when none is pending."""


def module_files() -> dict[str, Path]:
    """Every module of :data:`PACKAGES`, by dotted name (a package by its ``__init__``)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _target(name: str, modules: Iterable[str]) -> str | None:
    """The most specific known module ``name`` refers to (``None``: outside the project)."""
    known = set(modules)
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def imports_of(module: str, path: Path, modules: set[str]) -> set[str]:
    """The project modules ``module`` imports anywhere in its file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if not is_package:
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # ``from a.b import c`` imports the module a.b.c when there is one, else a.b
            names = [
                f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in modules else stem
                for alias in node.names
            ]
        for name in names:
            target = _target(name, modules)
            if target is not None and target != module:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    files = module_files()
    modules = set(files)
    return {module: imports_of(module, path, modules) for module, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[frozenset[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_the_cycle_finder_finds_a_cycle_through_a_type_checking_import(tmp_path: Path) -> None:
    """The counter itself can fail: a back-reference under TYPE_CHECKING or in a
    function is an edge, and a two-module and a three-module loop are found."""
    (tmp_path / "whole.py").write_text("from part import helper\n")
    (tmp_path / "part.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from whole import Whole\n"
    )
    (tmp_path / "a.py").write_text("def f():\n    import b\n")
    (tmp_path / "b.py").write_text("import c\n")
    (tmp_path / "c.py").write_text("from a import f\n")
    (tmp_path / "alone.py").write_text("import whole\n")
    names = {p.stem for p in tmp_path.glob("*.py")}
    graph = {n: imports_of(n, tmp_path / f"{n}.py", names) for n in names}
    assert sorted(sorted(c) for c in cycles(graph)) == [["a", "b", "c"], ["part", "whole"]]


def test_relative_imports_resolve_to_the_named_module() -> None:
    graph = import_graph()
    assert "firmware.table.seating_money" in graph["firmware.table.seating"]
    assert "firmware.engine.events" in graph["firmware.table.seating"]


def test_the_import_graph_has_no_cycles() -> None:
    every = cycles(import_graph())
    found = [c for c in every if c not in KNOWN_CYCLES]
    described = ["  " + " <-> ".join(sorted(c)) for c in found]
    assert not found, (
        f"{len(found)} import cycle(s) (TYPE_CHECKING and function-level imports count); "
        "move what both sides need into a module of its own, or pass it in:\n"
        + "\n".join(described)
    )


def test_a_known_exception_is_still_a_cycle() -> None:
    """An exception that no longer matches a cycle must be deleted, not kept as a hole."""
    every = cycles(import_graph())
    stale = [sorted(c) for c in KNOWN_CYCLES if c not in every]
    assert not stale, f"These cycles are gone; delete them from KNOWN_CYCLES: {stale}"
