"""A fast, strict reader for the flat TOML subset that PHH files use.

Python's :mod:`tomllib` is pure Python and takes longer to read a PHH hand
than our engine takes to play it. PHH files, as our writer (``tomli_w``) and
PokerKit write them, are flat ``key = value`` lines; :func:`fast_toml` reads
exactly those and hands everything else back to :mod:`tomllib`. Three readers,
fastest first, each giving up (``None``) on anything it does not know:

* :func:`scan_toml`: the two layouts the writers produce (``key = value``
  with one space each side of ``=``, arrays inline or one item per line),
  each value read by the C JSON scanner straight from the text;
* :func:`_plain_toml`: any spacing, values decoded as JSON;
* the general subset with comments, by regular expressions.
"""

from __future__ import annotations

import json
import json.scanner
import re
from collections.abc import Callable
from typing import Any, Final

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
_PLAIN_LINE: Final = re.compile(
    rf"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*("
    rf"\[{_WS}(?:{_INT}{_WS},{_WS})*(?:{_INT}{_WS})?\]"
    rf"|\[{_WS}(?:{_STR}{_WS},{_WS})*(?:{_STR}{_WS})?\]"
    rf"|{_STR}|true|false|{_INT}"
    rf")[ \t]*(?:\n|\Z)"
)
"""A ``key = value`` line without comments whose value is also JSON (after a trailing comma)."""
_JSON: Final = json.JSONDecoder(strict=False).decode
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
    data = scan_toml(text)
    if data is not None:
        return data
    return other_toml(text)


def other_toml(text: str) -> dict[str, Any] | None:
    """:func:`fast_toml` without its first reader (for a caller that tried :func:`scan_toml`)."""
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


_SCAN: Final[Callable[[str, int], tuple[Any, int]]] = json.scanner.make_scanner(
    json.JSONDecoder(strict=True)  # type: ignore[arg-type]  # typeshed: the scanner's context
)
"""The C JSON scanner: ``_SCAN(text, index)`` is ``(value, end)`` of the JSON value at ``index``."""
_ARRAY_COMMA_ONLY: Final = re.compile(r"\[[ \t\n]*,")
"""An array whose first item is missing (``[,``): TOML refuses it."""
_LIMIT: Final = 10**18
"""Integers of 19 digits or more go to the slower readers (as :data:`_INT` does)."""
_INTS: Final = frozenset({int})
_BOOLS: Final = frozenset({bool})
PHH_FIELDS: Final = frozenset(
    {
        "variant",
        "ante_trimming_status",
        "antes",
        "blinds_or_straddles",
        "min_bet",
        "small_bet",
        "big_bet",
        "starting_stacks",
        "actions",
        "finishing_stacks",
        "winnings",
        "seats",
        "players",
        "_dead",
    }
)
"""The fields a PHH hand uses (the reader keeps others as ignored): bare keys, so
they need no check here."""


def _is_bare_key(key: str) -> bool:
    """Whether ``key`` is a TOML bare key (ASCII letters, digits, ``_`` and ``-``)."""
    return key.isascii() and key.replace("_", "a").replace("-", "a").isalnum()


def scan_toml(text: str) -> dict[str, Any] | None:
    """The layouts our writer (``tomli_w``) and PokerKit write, values read as JSON.

    Every array it returns holds items of one type (all ``int``, all ``str`` or
    all ``bool``), which :func:`fast_toml`'s other readers do not promise.

    ``key = value`` lines, exactly one space each side of ``=`` and nothing
    after the value, and empty lines. A value is a string, ``true``/``false``,
    a decimal integer, or an array of one of those types (inline, or over
    several lines with a trailing comma, which is dropped first). Within that,
    TOML and JSON spell values the same, with three adjustments made before
    the scan: a trailing comma is dropped (``,\\n]``); single-quoted strings
    become double-quoted when the text has no ``"`` and no backslash at all
    (then a literal string and a JSON string hold the same characters); and a
    text with a carriage return, a DEL or an escape is left to the slower
    readers. The JSON scanner is strict (no control character in a string),
    and every value's type is checked, so anything JSON reads that TOML would
    not (``null``, floats, objects, nested arrays) returns ``None``.
    """
    if "\\" in text or "\r" in text or "\x7f" in text:
        return None
    if '"' not in text:
        text = text.replace("'", '"')
    elif "'" in text:
        return None
    if ",\n]" in text:
        if _ARRAY_COMMA_ONLY.search(text) is not None:
            return None
        text = text.replace(",\n]", "\n]")
    data: dict[str, Any] = {}
    scan = _SCAN
    pos = 0
    end = len(text)
    while pos < end:
        if text[pos] == "\n":
            pos += 1
            continue
        equals = text.find(" = ", pos)
        if equals < 0:
            return None
        key = text[pos:equals]
        if key in data or (key not in PHH_FIELDS and not _is_bare_key(key)):
            return None
        try:
            value, pos = scan(text, equals + 3)
        except (StopIteration, ValueError, RecursionError):
            return None
        if pos < end and text[pos] != "\n":
            return None
        kind = type(value)
        if kind is list:
            if value and type(value[0]) is str:
                # Long lists (the actions) are strings: join fails on any other item.
                try:
                    "".join(value)
                except TypeError:
                    return None
            elif value:
                types = set(map(type, value))
                if types == _INTS:
                    if max(value) >= _LIMIT or min(value) <= -_LIMIT:
                        return None
                elif types != _BOOLS:
                    return None
        elif kind is int:
            if not -_LIMIT < value < _LIMIT:
                return None
        elif kind is not str and kind is not bool:
            return None
        data[key] = value
    return data
