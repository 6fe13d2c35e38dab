"""The Pi install's pieces agree with each other (issue 27, the Pi items).

The emulated-Pi run (``systemd/check-emulated-pi.sh``) is slow and out of this
suite; these checks read what it would install: the license as an SPDX string
with a bounded setuptools that install.sh upgrades within the same bounds;
the compiled build in a build environment of its own (mypy never installed
into the runtime venv) showing its progress; the pin factory ``init`` writes
matching the library install.sh installs for the board; Mesa's DRI drivers,
GBM and EGL vendor for SDL's kmsdrm on Raspberry Pi OS Lite.
"""

from __future__ import annotations

import pathlib
import re
import tomllib

import pytest

from firmware.cli.init import board_pin_factory

ROOT = pathlib.Path(__file__).resolve().parent.parent
INSTALL = (ROOT / "systemd" / "install.sh").read_text()
CHECK = (ROOT / "systemd" / "check-emulated-pi.sh").read_text()
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_license_is_an_spdx_string_and_setuptools_is_bounded_alike() -> None:
    assert PROJECT["project"]["license"] == "MIT"
    (requirement,) = PROJECT["build-system"]["requires"]
    assert re.fullmatch(r"setuptools>=77,<\d+", requirement), requirement
    assert f'SETUPTOOLS="{requirement}"' in INSTALL  # install.sh upgrades within the bounds
    assert "install --upgrade pip setuptools" not in INSTALL


def test_mypy_is_installed_only_into_the_build_environment() -> None:
    runtime = [line for line in INSTALL.splitlines() if '"${PIP[@]}" install' in line]
    assert runtime and not any("mypy" in line for line in runtime), runtime
    build = [line for line in INSTALL.splitlines() if '"${BPIP[@]}" install' in line]
    assert any("mypy" in line for line in build), build
    assert "wheel -v" in INSTALL  # the build's own output, not a spinner
    setup = (ROOT / "setup.py").read_text()
    assert "verbose=True" in setup and "pokertable: mypyc compiles" in setup
    assert "mypy (a build tool) is installed in the table's runtime" in CHECK


@pytest.mark.parametrize(
    ("model", "factory"),
    [
        (b"Raspberry Pi 4 Model B Rev 1.4\x00", "rpigpio"),
        (b"Raspberry Pi 3 Model B Plus Rev 1.3\x00", "rpigpio"),
        (b"Raspberry Pi 5 Model B Rev 1.0\x00", "lgpio"),
        (b"Raspberry Pi Compute Module 5 Rev 1.0\x00", "lgpio"),
        (None, "lgpio"),
    ],
)
def test_init_names_the_pin_factory_install_sh_installs_for_the_board(
    tmp_path: pathlib.Path, model: bytes | None, factory: str
) -> None:
    path = tmp_path / "model"
    if model is not None:
        path.write_bytes(model)
    assert board_pin_factory(str(path)) == factory
    # install.sh: the same board gets the library of that factory, and tells init.
    board = "pi5" if model is None or b" 5 " in model or b"Module 5" in model else "pi"
    if model is None:
        board = "none"
    assert 'case "$BOARD" in pi) PIN_FACTORY=rpigpio ;; *) PIN_FACTORY=lgpio ;; esac' in INSTALL
    assert '--pin-factory "$PIN_FACTORY"' in INSTALL
    extras = PROJECT["project"]["optional-dependencies"]
    library = {"rpigpio": "RPi.GPIO", "lgpio": "lgpio"}[factory]
    if board != "none":
        assert re.search(rf'{board}\) EXTRAS="hardware,{board}"', INSTALL)
        assert any(dep.startswith(library) for dep in extras[board]), (board, extras[board])


def test_install_sh_installs_what_sdl_kmsdrm_needs_on_a_lite_image() -> None:
    packages = re.search(r"apt-get install -y --no-install-recommends \\\n(.*?)\n\s*fi", INSTALL,
                         re.S)  # fmt: skip
    assert packages is not None
    names = set(packages.group(1).replace("\\", " ").split())
    # libgl1-mesa-dri: the vc4/v3d DRI drivers; libegl-mesa0: Mesa's EGL vendor (libegl1
    # is only GLVND's loader); libgbm1: GBM; a Lite image ships none of them.
    assert {"libdrm2", "libgbm1", "libegl1", "libegl-mesa0", "libgles2",
            "libgl1-mesa-dri"} <= names  # fmt: skip
    assert "v3d_dri.so" in CHECK and "libEGL_mesa.so.0" in CHECK
