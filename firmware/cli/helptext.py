"""The ``pokertable`` command's ``--help`` and argparse's own words, in the reader's language.

The language is known before any parser is built (:func:`argv_lang`: ``--lang es``
or ``--lang=en`` on the command line, else the locale), so each ``description``
and ``help`` text is taken from the catalog in that language (keys
``cli.help.*``). What argparse writes by itself (``usage:``, ``options:``, ``-h``'s
line, ``error:`` and its messages) goes through its gettext function;
:func:`argparse_speaks` puts :class:`ArgparseWords` there while a command runs:
argparse's English message is looked up among the catalog's ``cli.argparse.*``
entries (their ``en`` text is argparse's message as written) and the chosen
language's text comes back. A message the catalog does not hold stays as
argparse wrote it; ``tests/test_cli_help.py`` checks the catalog against the
messages of the running Python's argparse.
"""

from __future__ import annotations

import argparse
import gettext
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from firmware.i18n import CATALOG, argv_language, tr

ARGPARSE_KEYS = "cli.argparse."
"""The catalog's keys for argparse's own words."""


def argv_lang(argv: Sequence[str] | None) -> str:
    """The language of a command line (``None``: this process's) before it is parsed:
    ``--lang X`` / ``--lang=X`` when given, else the locale's
    (:func:`firmware.i18n.argv_language`)."""
    return argv_language(sys.argv[1:] if argv is None else argv)


def argparse_words(lang: str) -> dict[str, str]:
    """argparse's English messages (its gettext message ids) mapped to ``lang``."""
    return {
        entry["en"]: entry.get(lang) or entry["en"]
        for key, entry in CATALOG.items()
        if key.startswith(ARGPARSE_KEYS)
    }


class ArgparseWords(gettext.NullTranslations):
    """argparse's messages in one language of the catalog (English: as written)."""

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang
        self.words = argparse_words(lang)

    def gettext(self, message: str) -> str:
        """``message`` (an argparse message id) in this language, else as it is."""
        return self.words.get(message, message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        """The singular or plural message for ``n``, in this language."""
        return self.gettext(msgid1 if n == 1 else msgid2)


@contextmanager
def argparse_speaks(lang: str) -> Iterator[ArgparseWords]:
    """While the block runs, argparse writes its own words in ``lang`` (its ``_`` and
    ``ngettext`` are :class:`ArgparseWords`'); afterwards they are what they were."""
    words = ArgparseWords(lang)
    module = vars(argparse)  # argparse looks these two names up when it writes
    before = module["_"], module["ngettext"]
    module["_"], module["ngettext"] = words.gettext, words.ngettext
    try:
        yield words
    finally:
        module["_"], module["ngettext"] = before


def lang_option(parser: argparse.ArgumentParser, lang: str, *, sub: bool = False) -> None:
    """``--lang es|en``: the language of the command's sentences and of its help. On a
    subcommand's parser (``sub``) it is left out of the result when not given, so a
    ``--lang`` before the subcommand (``history --lang es list``) stays."""
    parser.add_argument(
        "--lang",
        choices=("es", "en"),
        default=argparse.SUPPRESS if sub else None,
        help=tr("cli.help.lang", lang),
    )


def name_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Show a command's subcommands as ``{a,b}`` everywhere, also in "required: ..."
    (argparse would name them by their English ``dest``)."""
    sub.metavar = "{" + ",".join(sub.choices) + "}"


__all__ = [
    "ARGPARSE_KEYS",
    "ArgparseWords",
    "argparse_speaks",
    "argparse_words",
    "argv_lang",
    "lang_option",
    "name_commands",
]
