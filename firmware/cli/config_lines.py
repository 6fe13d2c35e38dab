"""The line of a TOML file where a section, a key or an array entry is written.

:mod:`tomllib` gives values, not positions; ``config check`` names the line
of each problem (issue 23) by scanning the file's text: the table headers
(``[table]``, ``[devices.shoe]``, the n-th ``[[staff]]``) and the keys under
them (``small_blind = 50``, ``"seat 1" = ...``).

>>> text = '[table]\\nprofile = "home"\\nsmall_blind = 50\\n\\n[[staff]]\\nname = "A"\\n'
>>> text += '[[staff]]\\n'
>>> line_of(text, Where("table", "small_blind")), line_of(text, Where("staff", None, 2))
(3, 7)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
"""A table header, ``[name]`` or ``[[name]]`` (the name may be dotted or quoted)."""


@dataclass(frozen=True)
class Where:
    """Where a problem is in the configuration: a section, a key in it (or ``None`` for
    the section itself) and, for an array of tables (``[[staff]]``), the entry's number
    from 1."""

    section: str
    key: str | None = None
    index: int | None = None


def _name(raw: str) -> str:
    """A header's or key's name without quotes and spaces around dots."""
    parts = [p.strip().strip("\"'") for p in raw.split(".")]
    return ".".join(parts)


def _key_line(lines: list[str], start: int, end: int, key: str) -> int | None:
    """The first line in ``lines[start:end]`` that assigns ``key`` (1-based), or ``None``."""
    pattern = re.compile(
        r"^\s*(?:\""
        + re.escape(key)
        + r"\"|'"
        + re.escape(key)
        + r"'|"
        + re.escape(key)
        + r")\s*[.=]"
    )
    for i in range(start, end):
        if pattern.match(lines[i]):
            return i + 1
    return None


def line_of(text: str, where: Where) -> int | None:
    """The 1-based line of ``where`` in the TOML ``text``, or ``None`` when it is not
    written there (a section left out, a value that comes from a default)."""
    lines = text.splitlines()
    headers: list[tuple[int, str, bool]] = []  # (index, name, array)
    for i, line in enumerate(lines):
        match = HEADER.match(line)
        if match:
            headers.append((i, _name(match.group(2)), match.group(1) == "[["))
    bounds = [h[0] for h in headers] + [len(lines)]
    first_header = headers[0][0] if headers else len(lines)
    if where.index is not None:
        entries = [n for n, h in enumerate(headers) if h[1] == where.section and h[2]]
        if len(entries) < where.index:
            return None
        n = entries[where.index - 1]
        start, end = headers[n][0], bounds[n + 1]
        if where.key is not None:
            found = _key_line(lines, start + 1, end, where.key)
            if found is not None:
                return found
        return start + 1
    for n, (start, name, _) in enumerate(headers):
        if name != where.section:
            continue
        if where.key is None:
            return start + 1
        found = _key_line(lines, start + 1, bounds[n + 1], where.key)
        if found is not None:
            return found
    if where.key is not None:
        for start, name, _ in headers:  # [devices.shoe], [terminals.seat1]
            if name == f"{where.section}.{where.key}":
                return start + 1
        # A dotted key before any header: ``table.small_blind = 50``.
        found = _key_line(lines, 0, first_header, f"{where.section}.{where.key}")
        if found is not None:
            return found
    for start, name, _ in headers:  # only sub-tables: [devices.shoe] for [devices]
        if name.startswith(where.section + "."):
            return start + 1
    return None


__all__ = ["Where", "line_of"]
