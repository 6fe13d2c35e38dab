"""The lexical layer of table scripts: bytes to checked lines and words.

Everything a script file can contain is refused here with a one-line
:class:`ScriptError` naming the line, before any of it reaches the table:
bytes that are not UTF-8, lines longer than :data:`MAX_LINE` characters
(``shlex`` splits a long line in quadratic time), unclosed quotes, and names
with control characters. The limits are documented in ``docs/table-scripts.md``.
"""

from __future__ import annotations

import shlex

from firmware.errors import PokerTableError

MAX_LINE = 4096
"""Longest script line read, in characters (a restore line of a full table is about 2,000)."""

MAX_NAME = 64
"""Longest player name, in characters."""


class ScriptError(PokerTableError, ValueError):
    """A script line cannot be read or an expectation failed."""


def decode_script(data: bytes) -> str:
    """The text of a script file's bytes.

    :raises ScriptError: naming the line of the first byte that is not UTF-8.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ScriptError(
            f"Line {line}: the byte {data[exc.start : exc.start + 1]!r} is not UTF-8 text; "
            "save the script as UTF-8."
        ) from exc


def check_line(raw: str, number: int) -> None:
    """Refuse a physical line that is too long to be a script line."""
    if len(raw) > MAX_LINE:
        raise ScriptError(
            f"Line {number} has {len(raw)} characters; a script line has at most {MAX_LINE}. "
            "Split it or check that the file is a table script."
        )


def strip_comment(raw: str) -> str:
    """``raw`` without its comment and surrounding spaces: a ``#`` outside quotes starts
    the comment (a quoted reason or name may hold one).

    >>> strip_comment('floor void "table #3 spilled"  # a drink')
    'floor void "table #3 spilled"'
    """
    if "#" not in raw:
        return raw.strip()
    quote = ""
    escaped = False
    for i, char in enumerate(raw):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return raw[:i].strip()
    return raw.strip()  # an unclosed quote: split_words names it


def quote_text(text: str, *, words: bool = False) -> str:
    """``text`` written so that :func:`split_words` reads it back exactly.

    As it is when that already holds (one word; with ``words``, words separated by
    single spaces, as a reason is read); otherwise in double quotes.

    >>> print(quote_text("Ana Pérez"), quote_text("dealer's error", words=True))
    "Ana Pérez" "dealer's error"
    >>> print(quote_text("wrong button", words=True))
    wrong button
    """
    plain = text.split(" ") if words else [text]
    if all(w and not any(c.isspace() or c in "'\"\\#" for c in w) for w in plain):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def split_words(line: str, number: int) -> list[str]:
    """Split a line into words as a shell does (quotes group words).

    :raises ScriptError: for an unclosed quote, a line too long or a NUL byte.
    """
    check_line(line, number)
    if "\x00" in line:
        raise ScriptError(f"Line {number} contains a NUL character; remove it.")
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise ScriptError(
            f"Line {number}: {exc} (a quote is not closed); close the quote or remove it."
        ) from exc
    if not words:
        raise ScriptError(f"Line {number} has only empty quotes; write a line or remove it.")
    return words


def check_name(name: str, number: int) -> str:
    """A player name as written, or a :class:`ScriptError` if it cannot be one."""
    if not name or len(name) > MAX_NAME:
        raise ScriptError(
            f"Line {number}: a player name has 1 to {MAX_NAME} characters, not {len(name)}."
        )
    if not name.isprintable():
        raise ScriptError(
            f"Line {number}: the player name {name!r} contains a control character; "
            "write printable characters only."
        )
    return name


def whole(word: str, number: int, what: str = "a whole number") -> int:
    """Read one whole number (at most 18 digits) of a script line."""
    text = word.strip()
    digits = text[1:] if text[:1] in "+-" else text
    if not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        shown = word if len(word) <= 40 else word[:40] + "..."
        raise ScriptError(f"Line {number}: expected {what} (at most 18 digits), got {shown!r}.")
    return int(text)


def seconds(word: str, number: int, what: str) -> float:
    """Read a time in seconds (0 up) of a script line; ``what`` names the keyword."""
    try:
        value = float(word)
    except ValueError as exc:
        raise ScriptError(f"Line {number}: '{what}' takes a number of seconds.") from exc
    if not 0 <= value < 1e12:
        raise ScriptError(f"Line {number}: '{what}' takes a number of seconds from 0 up.")
    return value
