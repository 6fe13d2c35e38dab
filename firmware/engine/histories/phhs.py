"""Reading PHH collections (``.phhs``): many hands in one file.

The PHH standard writes a collection as one TOML document whose tables are
the hands, headed ``[1]``, ``[2]``... (PokerKit's ``HandHistory.dumps_all``).
:func:`loads_phhs` splits the text at those header lines and reads each hand
with :func:`~firmware.engine.histories.phh.loads_phh`, so one bad hand is
reported (with its header and line) and the others are still read. A text
without any header is read as a single hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from firmware.engine.histories.phh import PHHHand, loads_phh
from firmware.errors import HandHistoryError

_HEADER = re.compile(r"^[ \t]*\[[ \t]*([^\]\n]*?)[ \t]*\][ \t]*(?:#[^\n]*)?$", re.MULTILINE)
"""A table header line: ``[1]`` (any name; PHH collections number the hands)."""


@dataclass(frozen=True)
class PHHSEntry:
    """One hand of a collection, read or not.

    :param label: The hand's header (``"1"``), or ``None`` for a file without headers.
    :param line: Line of the file where the hand starts (1-based).
    :param hand: The hand, or ``None`` if it could not be read.
    :param error: Why it could not be read (a sentence naming file, hand and line).
    """

    label: str | None
    line: int
    hand: PHHHand | None
    error: str | None = None


def split_phhs(text: str, name: str) -> list[tuple[str | None, int, str]]:
    """``(label, first line, text)`` of every hand of a collection.

    :raises HandHistoryError: if text that is not blank or a comment comes
        before the first header, or two hands have the same header.
    """
    headers = list(_HEADER.finditer(text))
    if not headers:
        return [(None, 1, text)]
    before = text[: headers[0].start()]
    for number, raw in enumerate(before.splitlines(), start=1):
        stripped = raw.strip()
        if stripped and not stripped.startswith("#"):
            raise HandHistoryError(
                f"{name}, line {number}: {stripped[:40]!r} comes before the first hand "
                f"header ({headers[0].group(0).strip()}); a .phhs file holds only headed hands."
            )
    out: list[tuple[str | None, int, str]] = []
    seen: set[str] = set()
    line = text.count("\n", 0, headers[0].start()) + 1
    for k, match in enumerate(headers):
        label = match.group(1).strip().strip("\"'")
        end = headers[k + 1].start() if k + 1 < len(headers) else len(text)
        body = text[match.end() : end]
        if label in seen:
            raise HandHistoryError(
                f"{name}, line {line}: the hand header [{label}] appears twice; number the "
                "hands once each."
            )
        seen.add(label)
        out.append((label, line, body))
        line += text.count("\n", match.start(), end)
    return out


def loads_phhs(text: str, *, name: str = "<text>", unit: Decimal | None = None) -> list[PHHSEntry]:
    """Every hand of a ``.phhs`` collection (or of a single-hand ``.phh`` text).

    A hand that cannot be read is an entry with its error; the others are read.

    :raises HandHistoryError: if the file holds no hand at all or its headers
        are not in order (see :func:`split_phhs`).
    """
    sections = split_phhs(text, name)
    entries: list[PHHSEntry] = []
    for label, line, body in sections:
        where = name if label is None else f"{name} [{label}] (line {line})"
        try:
            entries.append(PHHSEntry(label, line, loads_phh(body, name=where, unit=unit)))
        except HandHistoryError as exc:
            entries.append(PHHSEntry(label, line, None, str(exc)))
    if len(entries) == 1 and entries[0].label is None and not text.strip():
        raise HandHistoryError(f"{name} is empty; it holds no hand.")
    return entries
