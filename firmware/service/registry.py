"""Tag registries: which RFID tag is which card, and what each chip is worth.

Both are persisted in an SQLite file (the table's data directory), so a deck
is learned once and survives restarts.

* Cards: a new deck is scanned once in its known order (as it comes out of
  the pack, :func:`new_deck_order`) and each tag is bound to its card. A
  marked card replaced by the same card with a new tag re-binds that card
  (HG-11). Unknown tags are reported, never guessed.
* Chips: a denomination per tag or per range of tags, grouped in chip sets.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence

from firmware.engine.cards import format_card, full_deck
from firmware.errors import ConfigError, IllegalAction
from firmware.hal.deck import new_deck_order
from firmware.service.storage import opening

_SCHEMA = """
CREATE TABLE IF NOT EXISTS card_tags (
    tag TEXT PRIMARY KEY,
    card INTEGER NOT NULL,
    deck TEXT NOT NULL,
    learned REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS card_tags_deck ON card_tags (deck, card);
CREATE TABLE IF NOT EXISTS chip_tags (
    tag TEXT PRIMARY KEY,
    denomination INTEGER NOT NULL,
    chip_set TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS chip_ranges (
    first TEXT NOT NULL,
    last TEXT NOT NULL,
    denomination INTEGER NOT NULL,
    chip_set TEXT NOT NULL
);
"""


def _norm(tag: str) -> str:
    cleaned = tag.replace(":", "").replace(" ", "").upper()
    if not cleaned or any(ch not in "0123456789ABCDEF" for ch in cleaned):
        raise ConfigError(f"'{tag}' is not a tag identifier; tags are hexadecimal.")
    return cleaned


class TagRegistry:
    """Card and chip tags in one SQLite file.

    :param path: The database file (``:memory:`` for a throwaway registry).
    :param read_only: Open an existing file without creating or changing anything.
    """

    def __init__(self, path: str, read_only: bool = False) -> None:
        if read_only:
            # For readers such as the diagnostics: nothing is created or written.
            self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        else:
            self._db = sqlite3.connect(path)
        with opening(path, "card-tag registry"):
            if not read_only:
                self._db.executescript(_SCHEMA)
                self._db.commit()
            self._cards: dict[str, int] = dict(
                self._db.execute("SELECT tag, card FROM card_tags").fetchall()
            )

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    # ------------------------------------------------------------ cards

    def learn_deck(
        self, tags: Sequence[str], deck: str = "deck-1", order: Sequence[int] | None = None
    ) -> None:
        """Bind the tags of a deck scanned in a known order to their cards.

        :raises IllegalAction: unless the scan holds exactly 52 distinct tags.
        """
        cards = list(order) if order is not None else new_deck_order()
        normal = [_norm(t) for t in tags]
        if len(normal) != 52 or len(set(normal)) != 52 or sorted(cards) != full_deck():
            raise IllegalAction(
                f"A deck is learned from a scan of 52 distinct tags in the new-deck order; "
                f"this scan has {len(normal)} tags ({len(set(normal))} distinct). Remove jokers "
                "and foreign cards and scan again.",
                key="error.registry.scan",
            )
        now = time.time()
        with self._db:
            self._db.execute("DELETE FROM card_tags WHERE deck = ?", (deck,))
            self._db.executemany(
                "INSERT OR REPLACE INTO card_tags (tag, card, deck, learned) VALUES (?, ?, ?, ?)",
                [(tag, card, deck, now) for tag, card in zip(normal, cards, strict=True)],
            )
        self._reload()

    def replace_card_tag(self, card: int, new_tag: str, deck: str = "deck-1") -> None:
        """Bind ``card`` to a new tag (a marked card replaced by the same card, HG-11)."""
        tag = _norm(new_tag)
        if tag in self._cards and self._cards[tag] != card:
            raise IllegalAction(
                f"The tag {tag} already belongs to {format_card(self._cards[tag])}; "
                "use a new card of the same rank and suit.",
                key="error.registry.tag_taken",
            )
        with self._db:
            self._db.execute("DELETE FROM card_tags WHERE deck = ? AND card = ?", (deck, card))
            self._db.execute(
                "INSERT OR REPLACE INTO card_tags (tag, card, deck, learned) VALUES (?, ?, ?, ?)",
                (tag, card, deck, time.time()),
            )
        self._reload()

    def card_for(self, tag: str) -> int | None:
        """The card bound to ``tag``, or ``None`` for an unknown tag."""
        try:
            return self._cards.get(_norm(tag))
        except ConfigError:
            return None

    def known_cards(self) -> int:
        """How many card tags are registered."""
        return len(self._cards)

    def _reload(self) -> None:
        self._cards = dict(self._db.execute("SELECT tag, card FROM card_tags").fetchall())

    # ------------------------------------------------------------ chips

    def add_chip_tag(self, tag: str, denomination: int, chip_set: str = "main") -> None:
        """Register one chip's tag and its value in the smallest unit."""
        if denomination < 1:
            raise ConfigError(f"A chip is worth at least 1, not {denomination}.")
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO chip_tags (tag, denomination, chip_set) VALUES (?, ?, ?)",
                (_norm(tag), denomination, chip_set),
            )

    def add_chip_range(
        self, first: str, last: str, denomination: int, chip_set: str = "main"
    ) -> None:
        """Register a range of chip tags (inclusive, compared as hexadecimal numbers)."""
        a, b = _norm(first), _norm(last)
        if int(a, 16) > int(b, 16):
            raise ConfigError(f"The chip tag range {first}..{last} is empty.")
        with self._db:
            self._db.execute(
                "INSERT INTO chip_ranges (first, last, denomination, chip_set) VALUES (?, ?, ?, ?)",
                (a, b, denomination, chip_set),
            )

    def chip_value(self, tag: str) -> int | None:
        """The denomination of a chip tag, or ``None`` if unknown."""
        t = _norm(tag)
        row = self._db.execute("SELECT denomination FROM chip_tags WHERE tag = ?", (t,)).fetchone()
        if row:
            return int(row[0])
        value = int(t, 16)
        for first, last, denomination in self._db.execute(
            "SELECT first, last, denomination FROM chip_ranges"
        ):
            if int(first, 16) <= value <= int(last, 16):
                return int(denomination)
        return None

    def chips_value(self, tags: Sequence[str] | frozenset[str]) -> tuple[int, list[str]]:
        """Total value of ``tags`` and the tags that are not registered chips."""
        total, unknown = 0, []
        for tag in tags:
            value = self.chip_value(tag)
            if value is None:
                unknown.append(tag)
            else:
                total += value
        return total, unknown
