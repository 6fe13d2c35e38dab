"""The language of the ``pokertable`` command's sentences.

``--lang es`` or ``--lang en`` when given; otherwise the locale, as gettext
reads it (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the first one
set): Spanish for ``es`` / ``es_ES.UTF-8``..., English otherwise, so a
machine without a locale keeps the English sentences that logs and scripts
expect.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from firmware.i18n import tr

LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def cli_lang(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """``explicit`` if given, else ``es`` when the locale is Spanish, else ``en``."""
    if explicit in ("es", "en"):
        return explicit
    env = os.environ if environ is None else environ
    for name in LOCALE_VARIABLES:
        value = env.get(name, "")
        if value:
            first = value.split(":")[0].lower()  # LANGUAGE may list several
            return "es" if first == "es" or first.startswith(("es_", "es.", "es@")) else "en"
    return "en"


def say(key: str, lang: str, **params: Any) -> str:
    """The catalog's sentence ``key`` in ``lang`` (see :func:`firmware.i18n.tr`)."""
    return tr(key, lang, **params)


__all__ = ["LOCALE_VARIABLES", "cli_lang", "say"]
