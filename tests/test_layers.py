"""The layer contracts of docs/architecture.md are checked, and they can fail.

`make lint` runs `lint-imports` on the checkout; these tests show that the
contracts are kept and that an upward import (the engine reaching into the
service, a driver reaching into the table) breaks them with the contract's
name, on a copy of the tree so that the checkout is never touched.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINT = pathlib.Path(sys.executable).parent / "lint-imports"

pytestmark = pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed")


def _copy_tree(dst: pathlib.Path) -> pathlib.Path:
    """Copy the packages and the configuration the contracts read into ``dst``."""
    skip = shutil.ignore_patterns("*.so", "__pycache__")
    for name in ("firmware", "ui", "drivers", "hal_sim"):
        shutil.copytree(ROOT / name, dst / name, ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", dst / "pyproject.toml")
    return dst


def _lint(cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(cwd))
    return subprocess.run(
        [str(LINT), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def test_the_checkout_keeps_every_layer_contract() -> None:
    """Every contract in pyproject.toml is kept by the code as it stands."""
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "upward", "contract"),
    [
        ("firmware/engine/cards.py", "firmware.service.controller", "The engine is pure"),
        ("firmware/table/seating.py", "firmware.views.audience", "Layers"),
        ("drivers/shoe.py", "firmware.table.table", "Drivers depend on the hardware interfaces"),
        ("firmware/service/meters.py", "numpy", "imports neither numpy"),
    ],
)
def test_an_upward_import_breaks_its_contract(
    tmp_path: pathlib.Path, module: str, upward: str, contract: str
) -> None:
    """An import against the layers fails the check and the message names the contract."""
    tree = _copy_tree(tmp_path)
    target = tree / module
    target.write_text(target.read_text("utf-8") + f"\nimport {upward}  # noqa\n", "utf-8")
    result = _lint(tree)
    assert result.returncode != 0
    assert contract in result.stdout
    assert "BROKEN" in result.stdout
