"""``pokertable ... --help`` and argparse's own words in the reader's language.

Each subcommand's help (and each sub-subcommand's: ``audit verify``, ``config
check``, ``history show``...) is printed through the real entry point,
:func:`firmware.cli.main.main`, once with a Spanish locale and once with an
English one. The catalog is the reference: no English text of a ``cli.help.*`` or
``cli.argparse.*`` entry may appear in the Spanish help (nor ``usage:``), no
Spanish one in the English help, and every help text of the catalog is shown by
some command (so the catalog holds no text the command does not use). argparse's
errors (a missing argument, a bad choice, a value of the wrong type...) come as
one Spanish line after the usage, end to end in a subprocess. Last, the catalog's
``cli.argparse.*`` entries are checked against the messages of the running
Python's argparse: a Python whose argparse says something new fails here, naming it.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
from collections.abc import Iterator

import pytest

from firmware.cli.helptext import ARGPARSE_KEYS, argparse_speaks, argparse_words
from firmware.cli.main import COMMANDS, main
from firmware.i18n import CATALOG, LOCALE_VARIABLES
from tests.test_cli_spanish import run
from tests.test_ui_spanish import english_in

OPTION = re.compile(r"(?<![\w-])--?[a-z][a-z0-9-]*")
"""An option's name (``--start-from-dashboard``): the command line's word, the same in every
language, not English prose."""

PERU = "es_PE.UTF-8"
ENGLISH = "C.UTF-8"

HELPS = [
    ["run"],
    ["replay"],
    ["script"],
    ["serve"],
    ["screen"],
    ["floor"],
    ["diag"],
    ["history"],
    ["history", "list"],
    ["history", "show"],
    ["audit"],
    ["audit", "verify"],
    ["audit", "salvage"],
    ["audit", "seal"],
    ["shift"],
    ["shift", "report"],
    ["verify-evaluator"],
    ["init"],
    ["config"],
    ["config", "check"],
    ["config", "pin"],
    ["status"],
]
"""Every help page of the command: each subcommand, and each of theirs."""

HELP_KEYS = sorted(k for k in CATALOG if k.startswith("cli.help."))
WORD_KEYS = sorted(k for k in CATALOG if k.startswith(ARGPARSE_KEYS))
FORMAT = re.compile(r"%(?:\(\w+\))?[sr]|\{\w+\}")
"""argparse's placeholders (``%(default)s``, ``%s``, ``%r``) and the catalog's (``{path}``)."""


def flat(text: str) -> str:
    """Text as argparse's wrapping leaves it comparable: every run of white space one
    space, and a line broken after a hyphen (``--secrets-`` / ``dir``) joined again."""
    return re.sub(r"(?<=\w-)\s+", "", re.sub(r"\s+", " ", text))


def pieces(text: str) -> list[str]:
    """The literal parts of a catalog text (between its placeholders) that hold a word."""
    found = (flat(p).strip() for p in FORMAT.split(text.replace("%%", "%")))
    return [p for p in found if re.search(r"[A-Za-zÁÉÍÓÚáéíóúñÑ]{2}", p)]


def found_in(text: str, lang: str, keys: list[str]) -> list[tuple[str, str]]:
    """(key, piece) for each piece of a ``lang`` catalog text that appears in ``text`` as
    whole words (``DIR`` is not found in ``DIRECCIÓN``), when the other language's
    text differs."""
    other = "es" if lang == "en" else "en"
    hits = []
    for key in keys:
        if CATALOG[key][lang] == CATALOG[key][other]:
            continue
        for piece in pieces(CATALOG[key][lang]):
            if re.search(r"(?<!\w)" + re.escape(piece) + r"(?!\w)", text):
                hits.append((key, piece))
    return hits


@pytest.fixture
def locale(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    yield monkeypatch


def help_page(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as done:
        main([*args, "--help"])
    assert done.value.code == 0, args
    out, err = capsys.readouterr()
    assert err == "", (args, err)
    return out


def test_every_subcommand_has_a_help_page_here() -> None:
    assert {args[0] for args in HELPS} == set(COMMANDS)


def test_every_help_page_reads_in_spanish_in_a_spanish_locale(
    locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    locale.setenv("LANG", PERU)
    shown = ""
    for args in HELPS:
        page = help_page(args, capsys)
        assert page.startswith("uso: pokertable " + " ".join(args)), page
        assert "opciones:" in page and "mostrar esta ayuda y salir" in page, page
        english = found_in(flat(page), "en", HELP_KEYS + WORD_KEYS)
        assert not english, (args, english)
        prose = [OPTION.sub("", line) for line in page.splitlines()]
        assert not english_in(prose), (args, english_in(prose))
        texts = [k for k in HELP_KEYS if ".metavar." not in k]
        assert any(pieces(CATALOG[k]["es"])[0] in flat(page) for k in texts), args
        shown += flat(page) + "\n"
    unused = [k for k in HELP_KEYS if not all(p in shown for p in pieces(CATALOG[k]["es"]))]
    assert not unused, f"help texts no page shows: {unused}"


SAME_IN_BOTH = {
    "cli.argparse.error": "'error' is Spanish too: 'pokertable CMD: error: ...'",
    "cli.argparse.heading": "a section's title and a colon (Python 3.13)",
}
"""The entries whose Spanish is the English, with why."""


def test_no_help_text_is_left_in_english() -> None:
    """A Spanish text copied from the English one would pass the checks above unseen."""
    same = {k for k in HELP_KEYS + WORD_KEYS if CATALOG[k]["en"] == CATALOG[k]["es"]}
    assert same == set(SAME_IN_BOTH), same


def test_every_help_page_reads_in_english_with_lang_en(
    locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check above can fail: ``--lang en`` beats the Spanish locale, and the same
    pages hold the English texts and no Spanish one."""
    locale.setenv("LANG", PERU)
    shown = ""
    for args in HELPS:
        page = help_page([*args, "--lang", "en"], capsys)
        assert page.startswith("usage: pokertable " + " ".join(args)), page
        assert "show this help message and exit" in page
        spanish = found_in(flat(page), "es", HELP_KEYS + WORD_KEYS)
        assert not spanish, (args, spanish)
        shown += flat(page) + "\n"
    assert not [k for k in HELP_KEYS if not all(p in shown for p in pieces(CATALOG[k]["en"]))]
    assert found_in(shown, "en", HELP_KEYS)  # the English texts are there to be found


def test_lang_on_the_command_line_wins_over_the_locale_end_to_end() -> None:
    """As a technician runs it: ``pokertable serve --help`` in a Peruvian locale, and
    the other ways round, ``--lang=es`` written with an equals sign too."""
    spanish = run("serve", "--help", lang=PERU)
    assert spanish.returncode == 0 and spanish.stdout.startswith("uso: pokertable serve")
    assert "la configuración de la mesa (por defecto: /etc/pokertable/table.toml)" in flat(
        spanish.stdout
    )
    assert not found_in(flat(spanish.stdout), "en", HELP_KEYS + WORD_KEYS)
    english = run("serve", "--help", "--lang", "en", lang=PERU)
    assert english.stdout.startswith("usage: pokertable serve")
    assert "the table's configuration (default: /etc/pokertable/table.toml)" in flat(english.stdout)
    assert not found_in(flat(english.stdout), "es", HELP_KEYS + WORD_KEYS)
    chosen = run("config", "check", "--lang=es", "--help", lang=ENGLISH)
    assert chosen.stdout.startswith("uso: pokertable config check"), chosen.stdout
    assert run("status", "--help", lang=ENGLISH).stdout.startswith("usage: pokertable status")


ERRORS = [
    (["audit", "salvage"], "audit salvage", "faltan estos argumentos obligatorios: ARCHIVO, NUEVO"),
    (["config"], "config", "faltan estos argumentos obligatorios: {check,pin}"),
    (
        ["serve", "--log-level", "loud"],
        "serve",
        "argumento --log-level: valor no válido: 'loud' (elija entre 'debug', 'info', "
        "'warning', 'error')",
    ),
    (["screen"], "screen", "se necesita uno de estos argumentos: --seat --console --broadcast"),
    (
        ["screen", "--seat", "1", "--console"],
        "screen",
        "argumento --console: no se permite junto con el argumento --seat",
    ),
    (["status", "--file"], "status", "argumento --file: se esperaba un valor"),
    (["run", "--hands", "x"], "run", "argumento --hands: valor no válido para int: 'x'"),
    (["status", "--bogus"], "status", "argumentos no reconocidos: --bogus"),
    (
        ["status", "--json=yes"],
        "status",
        "argumento --json: esta opción no lleva valor; se ignoró 'yes'",
    ),
    (
        ["config", "check", "--lang", "fr"],
        "config check",
        "argumento --lang: valor no válido: 'fr' (elija entre 'es', 'en')",
    ),
    (
        ["init", "--staff", "B1,Flor"],
        "init",
        "argumento --staff: --staff lleva BADGE,NOMBRE,ROL,PIN",
    ),
]
"""(arguments, the parser that refuses them, its Spanish error after
``pokertable CMD: error: ``)."""


def usage_and_error(stderr: str) -> tuple[list[str], list[str]]:
    """The usage lines (``uso:``/``usage:`` and its indented continuations) and the rest."""
    lines = stderr.splitlines()
    assert lines and lines[0].startswith(("uso: ", "usage: ")), stderr
    usage = [lines[0], *[line for line in lines[1:] if line.startswith(" ")]]
    return usage, lines[len(usage) :]


def test_argparse_errors_are_one_spanish_line_after_the_usage(
    locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    locale.setenv("LANG", PERU)
    for args, prog, expected in ERRORS:
        with pytest.raises(SystemExit) as done:
            main(args)
        assert done.value.code == 2, args
        usage, rest = usage_and_error(capsys.readouterr().err)
        assert usage[0].startswith(f"uso: pokertable {prog} "), usage
        assert rest == [f"pokertable {prog}: error: {expected}"], (args, rest)
        assert not found_in(rest[0], "en", WORD_KEYS), (args, rest)
        assert not english_in(rest), (args, english_in(rest))


def test_the_same_errors_in_english_read_in_english(
    locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    locale.setenv("LANG", ENGLISH)
    for args, _, _ in ERRORS:
        with pytest.raises(SystemExit):
            main(args)
        usage, rest = usage_and_error(capsys.readouterr().err)
        assert usage[0].startswith("usage: pokertable ") and len(rest) == 1, (args, rest)
        assert found_in(rest[0], "en", WORD_KEYS) or english_in(rest), (args, rest)
        assert not found_in(rest[0], "es", WORD_KEYS), (args, rest)


def test_an_argparse_error_end_to_end_in_a_spanish_locale() -> None:
    result = run("audit", "salvage", lang=PERU)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "uso: pokertable audit salvage [-h] [--lang {es,en}] ARCHIVO NUEVO\n"
        "pokertable audit salvage: error: faltan estos argumentos obligatorios: "
        "ARCHIVO, NUEVO\n"
    )


PROGRAMMING_ERRORS = {
    ".__call__() not defined": "an Action subclass without __call__",
    "'required' is an invalid argument for positionals": "a parser built wrongly",
    "mutually exclusive arguments must be optional": "a parser built wrongly",
    "cannot merge actions - two groups are named %r": "a parser built wrongly",
    "invalid option string %(option)r: must start with a character %(prefix_chars)r": (
        "a parser built wrongly"
    ),
    "dest= is required for options like %r": "a parser built wrongly",
    "invalid conflict_resolution value: %r": "a parser built wrongly",
    "conflicting option string: %s": "a parser built wrongly",
    "conflicting option strings: %s": "a parser built wrongly",
    "cannot have multiple subparser arguments": "a parser built wrongly",
    "conflicting subparser: %s": "a parser built wrongly",
    "conflicting subparser alias: %s": "a parser built wrongly",
    "%r is not callable": "a parser built wrongly",
    'argument "-" with mode %r': "argparse.FileType, which no command uses",
}
"""argparse's messages that only a programmer can cause (never a person typing a
command), with why; they stay in English."""


def argparse_messages() -> set[str]:
    """The literal message ids the running Python's argparse passes to ``_`` and
    ``ngettext``."""
    tree = ast.parse(inspect.getsource(argparse))
    found: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id in ("_", "ngettext"):
            for arg in node.args:
                for part in ast.walk(arg):  # also _(kwargs.pop('title', 'subcommands'))
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        found.add(part.value)
    return found - {"title", "description"}


LATER_PYTHONS = {
    "%(heading)s:": "3.13",
    "%(prog)s: warning: %(message)s\n": "3.13",
    "option '%(option)s' is deprecated": "3.13",
    "argument '%(argument_name)s' is deprecated": "3.13",
    "command '%(parser_name)s' is deprecated": "3.13",
    " (default: %(default)s)": "3.13",
    "show program's version number and exit": "3.13",
}
"""Messages of a later Python's argparse (Debian 13 has 3.13) the catalog already says,
by the version that has them (3.11's argparse does not)."""


def test_the_catalog_says_every_message_of_this_pythons_argparse() -> None:
    messages = argparse_messages()
    assert len(messages) > 25 and "usage: " in messages  # the scan finds them
    words = argparse_words("es")
    missing = messages - set(words) - set(PROGRAMMING_ERRORS)
    assert not missing, f"argparse messages with no cli.argparse.* entry: {sorted(missing)}"
    stale = (set(words) | set(PROGRAMMING_ERRORS)) - messages - set(LATER_PYTHONS)
    assert not stale, f"entries argparse no longer has: {sorted(stale)}"
    assert set(LATER_PYTHONS) <= set(words)


@pytest.mark.parametrize("key", HELP_KEYS + WORD_KEYS)
def test_both_languages_have_the_same_placeholders(key: str) -> None:
    """``%(default)s``, ``%s``, ``%r`` and ``{path}`` alike in English and Spanish, and a
    help text formats as argparse formats it (a lone ``%`` would break ``--help``)."""
    en, es = CATALOG[key]["en"], CATALOG[key]["es"]
    assert sorted(FORMAT.findall(en)) == sorted(FORMAT.findall(es)), key
    if key.startswith("cli.help."):
        for text in (en, es):
            text.format(path="/run/x") % {"default": 1, "prog": "p"}


def test_argparse_speaks_only_inside_the_block() -> None:
    before = vars(argparse)["_"]
    with argparse_speaks("es") as words:
        assert vars(argparse)["_"]("options") == "opciones" == words.gettext("options")
        assert vars(argparse)["ngettext"]("expected %s argument", "expected %s arguments", 3) == (
            "se esperaban %s valores"
        )
        assert words.gettext("something argparse never said") == ("something argparse never said")
    assert vars(argparse)["_"] is before and before("options") == "options"
