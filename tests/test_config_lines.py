"""``config check`` names only real problems, each with its line in the file (issue 23).

A bad big blind once brought a phantom problem: the small blind (50) checked
on its own against the default big blind (2). Each problem now carries the
line of its key (or of its section, or of the n-th ``[[staff]]`` entry),
found by scanning the file's text since :mod:`tomllib` gives no positions.
"""

from __future__ import annotations

import pathlib
import tomllib

from firmware.cli.config_check import located_problems, main_config
from firmware.cli.config_lines import Where, line_of
from firmware.i18n import tr

BAD = """\
# a table with five problems
[table]
profile = "casino-cash"
small_blind = 50
big_blind = "100"

[options]
max_buy_in_multiple = "x"

[server]
socket = "relative.sock"

[[staff]]
name = "Ana"
badge = "01"
role = "dealer"
pin_hash = "scrypt$16384$8$1$c2FsdA$aGFzaA"

[[staff]]
name = "Bea"
role = "boss"
"""


def located(text: str) -> list[tuple[str, int | None]]:
    return [(str(p.key), line) for p, line in located_problems(tomllib.loads(text), text, "t")]


def test_a_bad_big_blind_brings_no_phantom_small_blind_problem() -> None:
    found = located(BAD)
    assert ("config.table.type", 5) in found
    assert "config.stakes.small_above_big" not in [key for key, _ in found]


def test_each_problem_names_the_line_of_its_key_or_section() -> None:
    found = dict(located(BAD))
    assert found["config.table.type"] == 5  # big_blind = "100"
    assert found["config.option.type"] == 8  # max_buy_in_multiple = "x"
    assert found["config.server.socket"] == 11  # socket = "relative.sock"
    assert found["config.staff.pin_hash"] == 17  # pin_hash = "scrypt$..." (not a real hash)
    assert found["config.staff.fields"] == 19  # the second [[staff]]
    assert len(found) == 5


def test_a_real_small_blind_above_the_big_blind_is_still_named_with_its_line() -> None:
    text = BAD.replace('big_blind = "100"', "big_blind = 20").split("[options]")[0]
    text += '[server]\nsocket = "/run/t.sock"\n'
    assert located(text) == [("config.stakes.small_above_big", 4)]
    # Only the small blind written: the default big blind is the table's real one.
    text = text.replace("big_blind = 20\n", "")
    assert located(text) == [("config.stakes.small_above_big", 4)]


def test_line_of_finds_headers_keys_dotted_and_quoted_names() -> None:
    text = "\n".join(
        [
            "top = 1",  # 1
            "[devices.shoe]",  # 2
            'backend = "serial"',  # 3
            "[terminals]",  # 4
            '"seat1" = "x"',  # 5
            "[[levels]]",  # 6
            "small_blind = 1",  # 7
            "[[levels]]  # the second",  # 8
            "minutes = 5",  # 9
        ]
    )
    assert line_of(text, Where("devices", "shoe")) == 2
    assert line_of(text, Where("devices")) == 2
    assert line_of(text, Where("terminals", "seat1")) == 5
    assert line_of(text, Where("levels", "minutes", 2)) == 9
    assert line_of(text, Where("levels", None, 2)) == 8
    assert line_of(text, Where("levels", None, 3)) is None
    assert line_of(text, Where("server")) is None
    assert line_of("table.small_blind = 5\n[x]\n", Where("table", "small_blind")) == 1


def test_config_check_prints_each_line_in_spanish(tmp_path: pathlib.Path, capsys: object) -> None:
    path = tmp_path / "table.toml"
    path.write_text(BAD, encoding="utf-8")
    assert main_config(["check", str(path), "--lang", "es"]) == 1
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert tr("cli.config.problems", "es", file=str(path), count=5) in out
    problems = [line for line in out.splitlines() if line.startswith("  - ")]
    assert len(problems) == 5
    assert problems[0].startswith(f"  - {path}, línea 5: ")
    assert "ciega pequeña" not in out
