"""The floor pages' sentences: the page's language, plurals, and stored text in that language.

* :func:`page_lang`: ``?lang=``, else the browser's ``Accept-Language``
  (the first of ``en``/``es`` it lists), else the floor's ``--lang``.
* :func:`plural`: ``<key>.one`` for 1, ``<key>.other`` otherwise (English and
  Spanish agree on that rule: "1 mano", "0 manos").
* :func:`stored_text`: a sentence the floor stored in English (a director's
  decision, a table's alert or fault written before notices carried catalog
  keys) said in the page's language. A stored ``key`` with its ``params``
  wins; otherwise the English text is matched against the English template of
  the catalog keys listed in :data:`TEMPLATE_PREFIXES`, and the key's own
  language is used with the fields it captured (each field translated the same
  way, so a move's reason is translated inside the move's sentence). A text
  no template matches is, in a page that is not English, replaced by a sentence
  naming only its rule (no English sentence reaches a Spanish page).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from firmware.i18n import CATALOG, LANGUAGES, tr

TEMPLATE_PREFIXES = ("floor.decision.", "floor.reason.", "alert.fault.")
"""Catalog keys whose English text a stored sentence may be (see :func:`stored_text`)."""
RULE = re.compile(r"\b(?:TDA|HG|PE|CC|FLOOR)-[A-Z0-9]+\b")


def page_lang(asked: str | None, accept: str | None, default: str) -> str:
    """The page's language.

    >>> page_lang(None, "es-PE,es;q=0.9,en;q=0.8", "en"), page_lang("en", "es", "es")
    ('es', 'en')
    >>> page_lang(None, "de-DE,en;q=0.5", "es"), page_lang(None, None, "es")
    ('en', 'es')
    """
    if asked in LANGUAGES:
        return str(asked)
    ranked: list[tuple[float, int, str]] = []
    for n, item in enumerate((accept or "").split(",")):
        tag, _, rest = item.strip().partition(";")
        lang = tag.strip().lower().split("-")[0]
        quality = 1.0
        if rest.strip().startswith("q="):
            try:
                quality = float(rest.strip()[2:])
            except ValueError:
                quality = 0.0
        if lang in LANGUAGES and quality > 0:
            ranked.append((-quality, n, lang))
    return sorted(ranked)[0][2] if ranked else (default if default in LANGUAGES else "es")


def plural(key: str, count: int, lang: str, **params: Any) -> str:
    """``key.one`` when ``count`` is 1, else ``key.other``, with ``count`` among the fields.

    >>> plural("floor.web.hands_count", 1, "es"), plural("floor.web.hands_count", 3, "es")
    ('1 mano', '3 manos')
    """
    return tr(f"{key}.{'one' if count == 1 else 'other'}", lang, count=count, **params)


@cache
def _templates() -> list[tuple[re.Pattern[str], str]]:
    """(pattern, key) for each template key, the most specific (longest literal) first."""
    found = []
    for key, entry in CATALOG.items():
        if not key.startswith(TEMPLATE_PREFIXES):
            continue
        text = entry["en"]
        parts = re.split(r"\{(\w+)\}", text)
        pattern, seen = "", set()
        for n, part in enumerate(parts):
            if n % 2 == 0:
                pattern += re.escape(part)
            elif part in seen:
                pattern += f"(?P={part})"
            else:
                seen.add(part)
                pattern += f"(?P<{part}>.+?)"
        literal = sum(len(p) for p in parts[::2])
        if literal < 12:
            continue  # mostly fields: it would match sentences it does not say
        found.append((literal, re.compile(pattern + r"\Z", re.S), key))
    found.sort(key=lambda item: -item[0])
    return [(pattern, key) for _, pattern, key in found]


def translate(text: str, lang: str, depth: int = 0) -> str | None:
    """``text`` in ``lang`` if a template key's English says it, else None."""
    for pattern, key in _templates():
        match = pattern.match(text)
        if match is None:
            continue
        fields = {
            name: (translate(value, lang, depth + 1) if depth < 2 else None) or value
            for name, value in match.groupdict().items()
        }
        return tr(key, lang, **fields)
    return None


def stored_text(
    text: str,
    lang: str,
    key: str | None = None,
    params: Any = None,
    unknown: str = "floor.decision.unknown",
    rule: str = "",
) -> str:
    """A stored sentence in ``lang``: from its catalog key, else its English template.

    >>> stored_text("TDA-24: table T3 broke.", "es")
    'TDA-24: la mesa T3 se ha disuelto.'
    >>> stored_text("Something new happened (XX-9).", "en")
    'Something new happened (XX-9).'
    """
    if key and key in CATALOG:
        try:
            return tr(key, lang, **(params if isinstance(params, dict) else {}))
        except (KeyError, IndexError, ValueError):
            pass  # fields missing: try the text
    found = translate(text, lang)
    if found is not None:
        return found
    if lang == "en":
        return text
    rules = [rule] if rule else RULE.findall(text)
    return tr(unknown, lang, rule=", ".join(rules) if rules else "-")
