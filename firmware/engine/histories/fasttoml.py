"""A fast, strict reader for the flat TOML subset that PHH files use.

Python's :mod:`tomllib` is pure Python and takes longer to read a PHH hand
than our engine takes to play it. PHH files, as our writer (``tomli_w``) and
PokerKit write them, are flat ``key = value`` lines; :func:`fast_toml` reads
exactly those with a few regular expressions and hands everything else back
to :mod:`tomllib`.
"""

from __future__ import annotations

import json
import re
from typing import Any

_TOML_COMMENT = r"#[^\n\x00-\x08\x0a-\x1f\x7f]*"
_TOML_SCALAR = (
    r'"[^"\\\x00-\x08\x0a-\x1f\x7f]*"|\'[^\'\x00-\x08\x0a-\x1f\x7f]*\''
    r"|true|false|-?(?:0|[1-9][0-9]{0,17})"
)
_TOML_GAP = rf"[ \t\n]*(?:{_TOML_COMMENT}\n[ \t\n]*)*"
_TOML_LINE = re.compile(
    rf"(?:[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*"
    rf"({_TOML_SCALAR}|\[{_TOML_GAP}(?:(?:{_TOML_SCALAR}){_TOML_GAP},{_TOML_GAP})*"
    rf"(?:(?:{_TOML_SCALAR}){_TOML_GAP})?\]))?"
    rf"[ \t]*(?:{_TOML_COMMENT})?(?:\n|\Z)"
)
"""One line of the subset: blank, a comment, or ``key = value`` (arrays may span lines)."""
_TOML_ITEM = re.compile(rf"({_TOML_COMMENT})|\"([^\"]*)\"|'([^']*)'|(true|false)|(-?[0-9]+)")
_TOML_INTS = re.compile(r"-?[0-9]+")
_TOML_STRINGS = re.compile(r'"([^"]*)"')
_INT = r"-?(?:0|[1-9][0-9]{0,17})"
_STR = r'"[^"\\\x00-\x08\x0a-\x1f\x7f]*"'
_WS = r"[ \t\n]*"
_PLAIN_LINE = re.compile(
    rf"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*("
    rf"\[{_WS}(?:{_INT}{_WS},{_WS})*(?:{_INT}{_WS})?\]"
    rf"|\[{_WS}(?:{_STR}{_WS},{_WS})*(?:{_STR}{_WS})?\]"
    rf"|{_STR}|true|false|{_INT}"
    rf")[ \t]*(?:\n|\Z)"
)
"""A ``key = value`` line without comments whose value is also JSON (after a trailing comma)."""
_JSON = json.JSONDecoder(strict=False).decode
"""JSON decoding that, like TOML, accepts a tab inside a string."""
_TOML_ONLY_STRINGS = re.compile(r'\[(?:[ \t\n]*"[^"]*"[ \t\n]*,)*[ \t\n]*(?:"[^"]*"[ \t\n]*)?\]')


def fast_toml(text: str) -> dict[str, Any] | None:
    """Read the flat TOML subset that PHH files use, or return ``None``.

    The subset: ``key = value`` lines with bare keys, values that are
    decimal integers, ``true``/``false``, double-quoted strings without
    escapes, single-quoted literal strings (as PokerKit writes), or arrays
    of those (over several lines, with comments and a trailing comma); blank
    and comment lines. Within it the result is exactly
    what :func:`tomllib.loads` returns (``tests/test_phh.py`` checks this).
    Anything else (tables, floats, dates, escapes, multi-line strings, nested
    arrays, duplicate keys, syntax errors) returns ``None`` so the caller
    falls back to :mod:`tomllib`, which then reads or rejects the text.
    """
    data = _plain_toml(text)
    if data is not None:
        return data
    data = {}
    pos = 0
    end = len(text)
    match = _TOML_LINE.match
    while pos < end:
        m = match(text, pos)
        if m is None:
            return None
        pos = m.end()
        key, value = m.group(1, 2)
        if key is None:
            continue
        if key in data:
            return None  # a duplicate key: tomllib reports the error
        data[key] = _toml_value(value)
    return data


def _toml_value(value: str) -> Any:
    first = value[0]
    if first == '"' or first == "'":
        return value[1:-1]
    if first == "t" or first == "f":
        return first == "t"
    if first != "[":
        return int(value)
    if "#" not in value and "'" not in value:
        if '"' not in value:
            if "t" not in value and "f" not in value:
                return [int(x) for x in _TOML_INTS.findall(value)]
        elif _TOML_ONLY_STRINGS.fullmatch(value):
            return _TOML_STRINGS.findall(value)
    items: list[Any] = []
    for comment, string, literal, boolean, integer in _TOML_ITEM.findall(value):
        if comment:
            continue
        if integer:
            items.append(int(integer))
        elif boolean:
            items.append(boolean == "true")
        else:
            items.append(string or literal)
    return items


def _plain_toml(text: str) -> dict[str, Any] | None:
    """The common case of :func:`fast_toml`: only ``key = value`` lines, no comments.

    Within :data:`_PLAIN_LINE` a value (integers, ``true``/``false``, strings
    without escapes or control characters, flat arrays of integers or of
    strings) reads the same as JSON once an array's trailing comma is dropped,
    so :func:`json.loads` decodes it. Returns ``None`` for anything else.
    """
    data: dict[str, Any] = {}
    pos = 0
    end = len(text)
    match = _PLAIN_LINE.match
    loads = _JSON
    while pos < end:
        m = match(text, pos)
        if m is None:
            return None
        pos = m.end()
        key, value = m.group(1, 2)
        if key in data:
            return None
        if value[0] == "[":
            body = value[:-1].rstrip()
            if body[-1] == ",":
                value = body[:-1] + "]"
        data[key] = loads(value)
    return data
