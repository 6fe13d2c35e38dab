"""Import ``firmware`` from its ``.py`` sources even where compiled modules sit beside them.

``make compiled`` puts mypyc extensions next to the engine's ``.py`` files, and
Python prefers an extension. A benchmark that wants the pure-Python figure in
the same run starts a subprocess that calls :func:`use_pure_sources` first.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class PureFirmware(importlib.abc.MetaPathFinder):
    """Import ``firmware`` and its submodules from ``.py`` sources only (no extensions)."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != "firmware" and not name.startswith("firmware."):
            return None
        finder = importlib.machinery.FileFinder(
            str(ROOT) if path is None else path[0],
            (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES),
        )
        return finder.find_spec(name, target)  # type: ignore[arg-type]


def use_pure_sources() -> None:
    """Make every later ``firmware`` import come from source."""
    sys.meta_path.insert(0, PureFirmware())


def compiled() -> bool:
    """Whether the engine's compiled modules are present (``make compiled``)."""
    spec = importlib.util.find_spec("firmware.engine.evaluator")
    return spec is not None and str(spec.origin).endswith(".so")
