"""The ``pokertable`` command in Spanish: its language, ``status`` and ``config check``.

The language is ``--lang`` or the locale (``LANGUAGE``, ``LC_ALL``,
``LC_MESSAGES``, ``LANG``); a machine without a Spanish locale keeps English.
``status`` renders the status file ``serve`` writes (alerts and faults with
their catalog keys) and ``config check`` its verdict in that language.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from firmware.cli.config_check import diag_problems
from firmware.cli.lang import cli_lang
from firmware.cli.status import main_status, render
from tests.test_operations import write_table
from tests.test_ui_spanish import english_in

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("explicit", "environ", "lang"),
    [
        (None, {"LANG": "es_ES.UTF-8"}, "es"),
        (None, {"LANG": "es_AR"}, "es"),
        (None, {"LANG": "C.UTF-8"}, "en"),
        (None, {}, "en"),
        (None, {"LANGUAGE": "es:en", "LANG": "en_GB.UTF-8"}, "es"),
        (None, {"LC_ALL": "en_US.UTF-8", "LANG": "es_ES.UTF-8"}, "en"),
        (None, {"LC_MESSAGES": "es_ES", "LANG": "en_US"}, "es"),
        (None, {"LANG": "estonian"}, "en"),
        ("en", {"LANG": "es_ES.UTF-8"}, "en"),
        ("es", {}, "es"),
    ],
)
def test_the_language_is_the_option_or_the_locale(
    explicit: str | None, environ: dict[str, str], lang: str
) -> None:
    assert cli_lang(explicit, environ) == lang


STATUS = {
    "pid": 1,
    "profile": "home",
    "state": "hand 12 in play",
    "state_code": "hand",
    "hands": 12,
    "devices": {
        "shoe": {
            "kind": "SerialShoe",
            "health": "fault",
            "fault": "The card shoe stopped answering: check its cable.",
            "fault_key": ["alert.fault.silent", {"device": "shoe"}],
        },
        "panel": {"kind": "GpioButtons", "health": "ok", "fault": None, "fault_key": [None, {}]},
    },
    "terminals": [],
    "alerts": [
        {
            "time": 12.5,
            "text": "Seat 3 asks for the clock.",
            "device": None,
            "key": "alert.ask_clock",
            "params": {"seat": 3},
        },
        {
            "time": 14.0,
            "text": "Deal the flop now. (tag 04AB)",
            "device": "shoe",
            "key": "alert.refused_tag",
            "params": {
                "reason": {"key": "error.burn.not_now", "params": {}, "text": "..."},
                "tag": "04AB",
            },
        },
    ],
}


def test_status_in_spanish_reads_in_spanish_and_in_english_in_english() -> None:
    es = render(STATUS, "es")
    assert (
        es.splitlines()[0] == "Mesa (home): mano 12 en juego; 12 manos desde que empezó el diario."
    )
    assert "El dispositivo 'shoe' dejó de responder" in es
    assert "(etiqueta 04AB)" in es and "Terminales conectados: ninguno." in es
    assert not english_in(es.splitlines()), english_in(es.splitlines())
    en = render(STATUS, "en")
    assert "Table (home): hand 12 in play" in en and english_in(en.splitlines())


def test_status_without_a_controller_says_so_in_spanish(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main_status(["--file", str(tmp_path / "status.json"), "--lang", "es"]) == 3
    said = capsys.readouterr().err
    assert said.startswith("pokertable status: el controlador no está en marcha")


def run(*args: str, lang: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``pokertable ARGS`` in a subprocess with ``LANG=lang`` (no other locale variable)."""
    env = {**os.environ, "LANG": lang, "LC_ALL": "", "LANGUAGE": "", "LC_MESSAGES": ""}
    return subprocess.run(
        [sys.executable, "-m", "firmware.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
        input=stdin,
        check=False,
    )


def test_config_check_speaks_the_locales_language(tmp_path: pathlib.Path) -> None:
    config = write_table(tmp_path)
    spanish = run("config", "check", str(config), lang="es_ES.UTF-8")
    assert spanish.returncode == 0, spanish.stderr
    assert spanish.stdout.strip().endswith(f"{config}: no se encontró ningún problema.")
    english = run("config", "check", str(config), lang="C.UTF-8")
    assert english.stdout.strip().endswith(f"{config}: no problems found.")
    config.write_text(config.read_text() + '\n[diag]\nexport_dir = "usb"\n')
    bad = run("config", "check", str(config), lang="es_ES.UTF-8")
    assert bad.returncode == 1
    assert f"{config}: 1 problema:" in bad.stdout and "export_dir" in bad.stdout


def test_diag_section_problems() -> None:
    assert diag_problems({"export_dir": "/media/usb"}) == []
    assert [str(p) for p in diag_problems({"export_dir": "usb", "folder": 1})] == [
        "Unknown [diag] option(s): folder; known: export_dir.",
        "[diag] export_dir must be an absolute folder such as /media/usb (where the "
        "technician's reports are written).",
    ]
    assert [str(p) for p in diag_problems("x")] == [
        '[diag] must be a table: [diag] export_dir = "/media/usb".'
    ]
