"""The language of the ``pokertable`` command's sentences.

``--lang es`` or ``--lang en`` when given; otherwise the locale, as gettext
reads it (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the first one
set): Spanish for ``es`` / ``es_PE.UTF-8``..., English otherwise, so a
machine without a locale keeps the English sentences that logs and scripts
expect.

Every sentence the command prints comes from the catalog
(``firmware/i18n/messages.toml``, keys ``cli.*`` and ``config.*``):
:func:`say` for a sentence, :func:`fail` for a one-line error on standard
error, :func:`keyed` for an error raised with a key (its English sentence is
the catalog's), and :func:`said_error` to show an error in the chosen
language (as written when it came without a key). The ``--help`` texts and
argparse's own words: :mod:`firmware.cli.helptext`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, TypeVar

from firmware.errors import PokerTableError
from firmware.i18n import LOCALE_VARIABLES, language_of, tr
from firmware.views.alerts import said

E = TypeVar("E", bound=PokerTableError)


def cli_lang(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """``explicit`` if given, else ``es`` when the locale is Spanish, else ``en``
    (:func:`firmware.i18n.language_of`)."""
    return language_of(explicit, environ)


def say(key: str, lang: str, **params: Any) -> str:
    """The catalog's sentence ``key`` in ``lang`` (see :func:`firmware.i18n.tr`)."""
    return tr(key, lang, **params)


def keyed(cls: type[E], key: str, **params: Any) -> E:
    """An error of class ``cls`` carrying ``key`` and ``params``; its English sentence
    (logs, ``str(error)``) is the catalog's. A value that is itself a catalog sentence
    (``{"key", "params", "text"}``) is said in the same language."""
    values = {
        name: said(v.get("key"), v.get("params") or {}, str(v["text"]), "en")
        if isinstance(v, Mapping) and "text" in v
        else v
        for name, v in params.items()
    }
    return cls(tr(key, "en", **values), key, **params)


def said_error(exc: BaseException, lang: str) -> str:
    """An error's sentence in ``lang`` when it has a catalog key, else as written."""
    said_in = getattr(exc, "said_in", None)  # an error made of several (config_check)
    if callable(said_in):
        return str(said_in(lang))
    if isinstance(exc, PokerTableError):
        return said(exc.key, exc.params, str(exc), lang)
    return str(exc)


def fail(command: str, key: str, lang: str, code: int = 1, **params: Any) -> int:
    """Print ``pokertable COMMAND: <sentence>`` on standard error; return ``code``."""
    print(f"pokertable {command}: " + say(key, lang, **params), file=sys.stderr)
    return code


def fail_with(command: str, exc: BaseException, lang: str, code: int = 1) -> int:
    """Print ``pokertable COMMAND: <the error's sentence>`` on standard error."""
    print(f"pokertable {command}: " + said_error(exc, lang), file=sys.stderr)
    return code


__all__ = [
    "LOCALE_VARIABLES",
    "cli_lang",
    "fail",
    "fail_with",
    "keyed",
    "said_error",
    "say",
]
