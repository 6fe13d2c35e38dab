"""The documentation matches the code it documents.

docs/profiles.md lists every table option with its default and profile values,
firmware/table/profiles/*.toml are loadable example configurations, and
docs/table-scripts.md names every event-line keyword the script parser accepts
and has a worked example that runs.
"""

from __future__ import annotations

import dataclasses
import inspect
import pathlib
import re
import tomllib
import typing

import pytest

from firmware.table import event_records, script
from firmware.table import events as te
from firmware.table.options import (
    OPTION_NAMES,
    PROFILES,
    TableOptions,
    load_table_config,
    profile_options,
)
from firmware.table.script import format_event, parse_event, parse_script, run_script
from firmware.table.table import Table

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROFILES_DOC = ROOT / "docs" / "profiles.md"
SCRIPTS_DOC = ROOT / "docs" / "table-scripts.md"
EXAMPLES = sorted((ROOT / "firmware" / "table" / "profiles").glob("*.toml"))


def _fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.M | re.S)


# --- docs/profiles.md ---------------------------------------------------------------


def _option_rows() -> dict[str, list[str]]:
    """The rows of the option table: option name -> its cells."""
    rows = {}
    for line in PROFILES_DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`(\w+)`", cells[0]) if len(cells) >= 8 else None
        if match:
            rows[match.group(1)] = cells
    return rows


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{value}`"


def test_every_option_is_in_profiles_doc() -> None:
    text = PROFILES_DOC.read_text(encoding="utf-8")
    missing = [name for name in OPTION_NAMES if f"`{name}`" not in text]
    assert not missing, f"docs/profiles.md does not document {missing}"
    assert set(_option_rows()) == set(OPTION_NAMES)


def test_option_table_defaults_and_profile_values_match_the_code() -> None:
    rows = _option_rows()
    header = next(
        line
        for line in PROFILES_DOC.read_text(encoding="utf-8").splitlines()
        if line.startswith("| option |")
    )
    columns = [c.strip() for c in header.strip().strip("|").split("|")]
    assert columns[:3] == ["option", "type", "default"]
    profiles = columns[3:6]
    assert sorted(profiles) == sorted(PROFILES)
    for field in dataclasses.fields(TableOptions):
        cells = rows[field.name]
        assert cells[1] == type(field.default).__name__, field.name
        assert cells[2] == _toml_value(field.default), f"default of {field.name}"
        for profile, cell in zip(profiles, cells[3:6], strict=True):
            value = getattr(profile_options(profile), field.name)
            assert cell == _toml_value(value), f"{field.name} in {profile}"


def test_toml_example_in_profiles_doc_loads() -> None:
    blocks = _fenced(PROFILES_DOC.read_text(encoding="utf-8"), "toml")
    assert blocks, "docs/profiles.md has no ```toml example"
    for block in blocks:
        load_table_config(block, "docs/profiles.md example")


# --- firmware/table/profiles/*.toml --------------------------------------------------------


def test_there_is_an_example_configuration_per_profile() -> None:
    assert {p.stem for p in EXAMPLES} == set(PROFILES)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_configuration_loads_and_names_its_profile(path: pathlib.Path) -> None:
    text = path.read_text(encoding="utf-8")
    config = load_table_config(text, str(path))
    assert config.profile == path.stem
    overrides = tomllib.loads(text).get("options", {})
    assert config.options == profile_options(path.stem, **overrides)


# --- docs/table-scripts.md -----------------------------------------------------------

# Fields whose text is one of a few words: the values to format them with. Every
# other field gets a dummy of its type, and bool fields are formatted both ways.
_CHOICES: dict[tuple[str, str], tuple[object, ...]] = {
    ("Act", "action"): ("fold", "check", "call", "bet", "raise", "allin"),
    ("Advance", "action"): ("fold", "check_fold", "check", "call", "cancel"),
    ("BurnError", "case"): ("a", "b", "c"),
    ("DeckStep", "step"): ("show", "face_down", "scramble", "shuffle", "cut"),
    ("DeckChange", "by"): ("seat", "floor"),
    ("LevelClock", "action"): ("start", "pause", "resume"),
    ("LevelClock", "at"): (None, 12.5),
    ("DealOrder", "hands"): (-1, 0, 3),
    ("DealOrder", "round"): (0, 2),
    ("GivePenalty", "penalty"): ("warning", "rounds", "disqualification"),
}


def _dummies(cls: type[te.TableEvent], name: str, kind: object) -> tuple[object, ...]:
    if (cls.__name__, name) in _CHOICES:
        return _CHOICES[(cls.__name__, name)]
    if kind is bool:
        return (True, False)
    if kind is int:
        return (1,)
    if kind is float:
        return (1.0,)
    if kind is str:
        return ("why",)
    return ((0, 1),)  # tuples of cards or seats


def _instances(cls: type[te.TableEvent]) -> list[te.TableEvent]:
    hints = typing.get_type_hints(cls)
    fields = [f for f in dataclasses.fields(cls)]
    result: list[dict[str, object]] = [{}]
    for f in fields:
        origin = typing.get_origin(hints[f.name]) or hints[f.name]
        result = [{**r, f.name: v} for r in result for v in _dummies(cls, f.name, origin)]
    return [cls(**values) for values in result]


def _keyword(line: str) -> str:
    words = line.split()
    if words[0].isdigit():  # a player action: SEAT ACTION [AMOUNT]
        return words[1]
    if words[0] in ("dealer", "floor", "deck"):
        return " ".join(words[:2])
    return words[0]


def _event_keywords() -> set[str]:
    """Keywords of every event line, from formatting every table event type."""
    table = Table(parse_script("").config, deck_ready=True)
    keywords = set()
    for cls in event_records.TABLE_EVENT_TYPES.values():
        for event in _instances(cls):
            line = format_event(event)
            # The parser reads back what format_event writes.
            parsed = parse_event(line, 1, table)
            assert parsed and all(type(p) is type(event) for p in parsed), line
            keywords.add(_keyword(line))
    return keywords


def _parser_sub_keywords() -> set[str]:
    """``dealer X``, ``floor X``, ``deck X``: every X the parser compares against."""
    keywords = set()
    for head, function in (
        ("dealer", script._dealer),
        ("floor", script._floor),
        ("deck", script._deck),
    ):
        source = inspect.getsource(function)
        for group in re.findall(r'what (?:==|in) (\([^)]*\)|"[^"]*")', source):
            keywords.update(f"{head} {w}" for w in re.findall(r'"([^"]+)"', group))
    return keywords


def _documented(keyword: str, text: str) -> bool:
    return re.search(rf"`(?:SEAT )?{re.escape(keyword)}(?=[\s`\[])", text) is not None


def test_keyword_derivation_finds_the_parser_keywords() -> None:
    keywords = _event_keywords() | _parser_sub_keywords()
    # A sanity floor, so a broken derivation cannot pass by finding nothing.
    assert {"draw", "shuffle", "fold", "dealer exposed", "floor void", "deck show"} <= keywords
    assert len(keywords) >= 40


def test_every_event_keyword_is_in_table_scripts_doc() -> None:
    text = SCRIPTS_DOC.read_text(encoding="utf-8")
    keywords = _event_keywords() | _parser_sub_keywords()
    missing = sorted(k for k in keywords if not _documented(k, text))
    assert not missing, f"docs/table-scripts.md does not document {missing}"


def test_every_expect_form_is_in_table_scripts_doc() -> None:
    from firmware.views import expect as view_expect

    source = (
        inspect.getsource(script.check_expectation)
        + inspect.getsource(script.run_script)
        + inspect.getsource(view_expect.check_view_expectation)
    )
    forms = set(re.findall(r'what == "(\w+)"', source)) | {"error"}
    assert {"stacks", "board", "void", "next", "role", "public", "view"} <= forms
    text = SCRIPTS_DOC.read_text(encoding="utf-8")
    missing = sorted(f for f in forms if f"`expect {f}" not in text)
    assert not missing, f"docs/table-scripts.md does not document expect {missing}"


def test_worked_example_runs() -> None:
    blocks = _fenced(SCRIPTS_DOC.read_text(encoding="utf-8"), "script")
    assert len(blocks) == 1, "docs/table-scripts.md needs one ```script worked example"
    _table, records = run_script(blocks[0])
    assert records, "the worked example plays no hand"


# --- docs/rules.md ------------------------------------------------------------------

RULES_DOC = ROOT / "docs" / "rules.md"
RULE_IDS = (
    [f"TDA-{n}" for n in range(1, 41)]
    + [f"HG-{n}" for n in range(1, 21)]
    + [f"PE-{n}" for n in range(1, 6)]
    + [f"CC-{n}" for n in range(1, 17)]
)


def test_rules_doc_lists_every_rule_id_once_with_its_parts() -> None:
    """docs/rules.md has a section for each of the 81 IDs, each with the rule, what
    the firmware does, the option and at least one test."""
    text = RULES_DOC.read_text(encoding="utf-8")
    headings = re.findall(r"^### ([A-Z]+-\d+):", text, flags=re.M)
    assert headings == RULE_IDS
    for block in re.split(r"^### ", text, flags=re.M)[1:]:
        for part in ("**Rule.**", "**Firmware.**", "**Option.**", "**Tests.**"):
            assert part in block, (block.split(":")[0], part)
        assert "none yet" not in block, block.split(":")[0]


def test_rules_doc_names_tests_and_options_that_exist() -> None:
    text = RULES_DOC.read_text(encoding="utf-8")
    tests = ROOT / "tests"
    for name in re.findall(r"`(scenarios/[\w.]+\.txt|test_\w+\.py)`", text):
        assert (tests / name).exists(), name
    defined = {
        n for f in tests.glob("test_*.py") for n in re.findall(r"def (test_\w+)", f.read_text())
    }
    for name in re.findall(r"`(test_\w+)`", text):
        assert name in defined, name
    options = [
        name
        for line in text.splitlines()
        if line.startswith("- **Option.**")
        for name in re.findall(r"`(\w+)(?: = [^`]*)?`", line)
    ]
    assert options, "no options named"
    for name in options:
        assert name in OPTION_NAMES, f"docs/rules.md names an unknown option {name}"


def test_nothing_points_outside_the_repository() -> None:
    """The rules live in the project: no file refers to a folder beside the clone."""
    outside = re.compile("|".join(["\\.\\./" + "shared", "/work/" + "shared", "RULE" + "BOOK"]))
    for path in [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *ROOT.glob("docs/**/*.md")]:
        assert not outside.search(path.read_text(encoding="utf-8")), path
    for folder in ("firmware", "tests", "ui", "hal_sim", "drivers", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            assert not outside.search(path.read_text(encoding="utf-8")), path
