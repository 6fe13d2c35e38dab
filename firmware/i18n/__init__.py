"""Translated messages: every user-facing string in Spanish and English.

Messages live in ``firmware/i18n/messages.toml``, one table per key with the
English and Spanish text using the same ``{placeholders}``; a test checks that
both exist and agree, and that every key the code uses is in the catalog.

>>> tr("hand.header", "es", number=3, button=6)
'Mano n.º 3 (botón en el asiento 6)'
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

LANGUAGES = ("en", "es")
DEFAULT_LANGUAGE = "es"


def _load() -> dict[str, dict[str, str]]:
    text = resources.files("firmware.i18n").joinpath("messages.toml").read_text("utf-8")
    data = tomllib.loads(text)
    return {key: {lang: str(value) for lang, value in entry.items()} for key, entry in data.items()}


CATALOG: dict[str, dict[str, str]] = _load()
"""Every message by key, then by language."""

ONE = ".one"
"""The suffix of a message's singular form: ``key + ONE`` is said instead of ``key`` when
its ``count`` is 1 (:func:`tr`, :func:`tr_count`): "1 problema", "3 problemas"."""


def tr(key: str, lang: str = DEFAULT_LANGUAGE, **params: Any) -> str:
    """Return the message ``key`` in ``lang`` with ``params`` filled in.

    An unknown language falls back to English; an unknown key is a
    programming error and raises :class:`KeyError`.
    """
    if params.get("count") == 1 and key + ONE in CATALOG:  # "1 problema", not "1 problemas"
        key += ONE
    entry = CATALOG[key]
    text = entry.get(lang) or entry["en"]
    return text.format(**params)


def tr_count(key: str, count: int, lang: str = DEFAULT_LANGUAGE, **params: Any) -> str:
    """Message ``key`` for ``count`` things ("1 mano", "3 manos"): its singular form
    ``key.one`` when ``count`` is 1 and the catalog has one, else ``key``; ``count`` is
    passed as the ``count`` placeholder unless ``params`` names it otherwise.

    >>> tr_count("cli.config.problems", 1, "es", file="t.toml")
    't.toml: 1 problema:'
    >>> tr_count("cli.config.problems", 2, "es", file="t.toml")
    't.toml: 2 problemas:'
    """
    params.setdefault("count", count)
    singular = key + ONE
    return tr(singular if count == 1 and singular in CATALOG else key, lang, **params)


LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""The locale's variables in the order gettext reads them (the first one set wins)."""


def language_of(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """``explicit`` if it is a language of the catalog, else ``es`` when the locale is
    Spanish (``es``, ``es_PE.UTF-8``...), else ``en``: the language of a command's
    sentences (``pokertable``, the screens' command line).

    >>> language_of(None, {"LANG": "es_PE.UTF-8"}), language_of("en", {"LANG": "es_PE"})
    ('es', 'en')
    """
    if explicit in LANGUAGES:
        return str(explicit)
    env = os.environ if environ is None else environ
    for name in LOCALE_VARIABLES:
        value = env.get(name, "")
        if value:
            first = value.split(":")[0].lower()  # LANGUAGE may list several
            return "es" if first == "es" or first.startswith(("es_", "es.", "es@")) else "en"
    return "en"


def argv_language(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> str:
    """The language a command line asks for before it is parsed: the last ``--lang X``
    or ``--lang=X`` (before a ``--``), else as :func:`language_of` (the locale). A
    command builds its ``--help`` texts in it, so they read as its sentences do.

    >>> argv_language(["check", "--lang", "es"], {}), argv_language(["--lang=en"], {"LANG": "es"})
    ('es', 'en')
    """
    given = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(argv):
            given = argv[i + 1]
        elif arg.startswith("--lang="):
            given = arg.split("=", 1)[1]
    return language_of(given, environ)
