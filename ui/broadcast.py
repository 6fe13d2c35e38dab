"""The broadcast screen: the delayed feed of a filmed table (house procedure BROADCAST).

:class:`BroadcastScreen` draws a ``broadcast`` view (docs/protocols/table.md):
the seats with their stacks, bets and the cards the feed carries (every live
hand's when the house allows hole cards, else only what the console sees),
each hand's equity when the feed has it, the board and the pots, and how late
the feed runs. It is a preview for the broadcaster (``pokertable screen
--broadcast``): nothing on it can be touched, and it sends nothing but its
language.
"""

from __future__ import annotations

from typing import Any

import pygame

from ui.cards import draw_card
from ui.widgets import GOLD, MUTED, PANEL, PANEL_HI, RED, TEXT, Screen

STATUS_KEYS = {
    "folded": "ui.status.folded",
    "all-in": "ui.status.all_in",
    "sitting-out": "ui.status.sitting_out",
    "away": "ui.status.away",
}


class BroadcastScreen(Screen):
    """The broadcast feed's preview. Feed views with :meth:`set_view`."""

    @property
    def table(self) -> dict[str, Any]:
        """The view's ``table`` part."""
        part = self.view.get("table")
        return part if isinstance(part, dict) else {}

    def equity_of(self, seat: object) -> dict[str, Any] | None:
        """The feed's equity row of ``seat`` (``None``: none shown)."""
        for row in self.view.get("equity") or []:
            if isinstance(row, dict) and row.get("seat") == seat:
                return row
        return None

    def delay_text(self) -> str:
        """How late the feed runs, in minutes (seconds under a minute)."""
        delay = int(self.view.get("delay_seconds") or 0)
        if delay >= 60:
            return self.t("ui.broadcast.delay_minutes", minutes=delay // 60)
        return self.t("ui.broadcast.delay_seconds", seconds=delay)

    # --- drawing ----------------------------------------------------------------------

    def paint(self) -> None:
        """Title and delay, the seats, the board and the pots, the equity note."""
        t = self.table
        bar = self.rect(0, 0, 1, 0.09)
        self.panel(bar, PANEL)
        hand = t.get("hand")
        title = self.t("ui.seat.hand", hand=hand) if hand is not None else self.t("ui.seat.between")
        self.text(
            f"{self.t('ui.broadcast.title')} · {title}",
            self.rect(0.01, 0.005, 0.5, 0.08),
            0.045,
            TEXT,
            align="left",
        )
        self.text(self.delay_text(), self.rect(0.52, 0.005, 0.22, 0.08), 0.04, RED)
        level = self.level_text()
        if level:
            self.text(level, self.rect(0.75, 0.005, 0.24, 0.08), 0.035, GOLD, align="right")
        seats = sorted(t.get("seats") or [], key=lambda s: int(s.get("seat", 0)))
        w, h = 0.192, 0.2
        for i, row in enumerate(seats[:10]):
            col, line = i % 5, i // 5
            self._tile(self.rect(0.01 + col * (w + 0.004), 0.1 + line * (h + 0.01), w, h), row)
        self._board()
        note = self.view.get("equity_note")
        if note:
            self.text(self.t(str(note)), self.rect(0.02, 0.9, 0.96, 0.08), 0.035, MUTED)

    def _tile(self, r: pygame.Rect, row: dict[str, Any]) -> None:
        number = row.get("seat")
        status = str(row.get("status") or "active")
        actor = self.table.get("actor") == number
        self.panel(r, PANEL_HI if actor else PANEL, GOLD if actor else None)
        inner = r.inflate(-8, -8)
        line_h = inner.height // 4
        ink = MUTED if status in ("folded", "sitting-out", "away") else TEXT
        name = f"{number} {row.get('name') or ''}".strip()
        self.text(name, pygame.Rect(inner.left, inner.top, inner.width, line_h), 0.045, ink,
                  align="left")  # fmt: skip
        third = pygame.Rect(inner.left, inner.top + line_h, int(inner.width * 0.55), line_h)
        self.text(self.t("ui.seat.stack", amount=row.get("stack", 0)), third, 0.04, ink,
                  align="left")  # fmt: skip
        below = third.move(0, line_h)
        bet = int(row.get("bet") or 0)
        if status in STATUS_KEYS:
            self.text(self.t(STATUS_KEYS[status]), below, 0.04, MUTED, align="left")
        elif bet:
            self.text(self.t("ui.seat.bet", amount=bet), below, 0.04, GOLD, align="left")
        equity = self.equity_of(number)
        if equity is not None:
            shown = self.t("ui.broadcast.equity", equity=equity.get("equity"))
            self.text(shown, below.move(0, line_h), 0.045, GOLD, align="left")
        cards = list(row.get("cards") or [])[:2]
        cw = int(inner.width * 0.2)
        ch = int(cw * 1.45)
        for j, code in enumerate(cards):
            cr = pygame.Rect(inner.right - (2 - j) * (cw + 3), inner.bottom - ch, cw, ch)
            draw_card(self.surface, cr, str(code), self.fonts, dim=status == "folded")

    def _board(self) -> None:
        t = self.table
        board = list(t.get("board") or [])[:5]
        cw, ch = 0.075, 0.19
        for i in range(5):
            code = str(board[i]) if i < len(board) else None
            draw_card(self.surface, self.rect(0.02 + i * (cw + 0.008), 0.55, cw, ch), code,
                      self.fonts)  # fmt: skip
        pot = self.rect(0.445, 0.55, 0.53, 0.32)
        self.panel(pot, PANEL)
        total = t.get("pot_total")
        heading = self.t("ui.pot", amount=total) if total is not None else self.t("ui.pot.hidden")
        self.text(heading, pygame.Rect(pot.left + 8, pot.top + 4, pot.width - 16, pot.height // 3),
                  0.06, GOLD)  # fmt: skip
        for i, entry in enumerate((t.get("pots") or [])[:3]):
            key = "ui.pot.main" if i == 0 else "ui.pot.side"
            amount = entry.get("amount") if isinstance(entry, dict) else None
            if amount is None:
                continue
            line = pygame.Rect(pot.left + 8, pot.top + (i + 1) * pot.height // 4 + 4,
                               pot.width - 16, pot.height // 4)  # fmt: skip
            self.text(self.t(key, amount=amount, n=i), line, 0.045, TEXT)


__all__ = ["BroadcastScreen"]
