"""Card names in free text, and their redaction for an audience.

A dealer's reason or a device's fault may name cards; before such text
reaches an audience every card it may not see becomes ``??``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from firmware.engine.cards import RANKS, SUITS

CARD_RUN = re.compile(
    rf"(?<![A-Za-z0-9])((?:[{re.escape(RANKS)}][{re.escape(SUITS)}])+)(?![A-Za-z0-9])"
)
"""Card names in free text: ``Ah`` or runs such as ``AhKd7c`` (as :func:`format_cards` writes)."""

UNSEEN = "??"
"""How a face-down or hidden card is written."""


def cards_in_text(text: str) -> list[str]:
    """Every card name written in ``text`` (``"Ah"``), in order."""
    found: list[str] = []
    for match in CARD_RUN.finditer(text):
        run = match.group(1)
        found.extend(run[i : i + 2] for i in range(0, len(run), 2))
    return found


def redact(text: str, visible: Iterable[str]) -> str:
    """Replace every card named in ``text`` that is not in ``visible`` with ``??``."""
    allowed = set(visible)

    def one(match: re.Match[str]) -> str:
        run = match.group(1)
        return "".join(
            run[i : i + 2] if run[i : i + 2] in allowed else UNSEEN for i in range(0, len(run), 2)
        )

    return CARD_RUN.sub(one, text)
