"""The console's bank page: opening float, fill, credit and shift count (TABLE-BANK).

One staff member picks the movement, types the chips on a keypad and proposes
it (``{"type": "bank", "action": "open" | "fill" | "credit" | "count", "amount"}``;
for the count, the chips counted in the tray: the table adds the seats' chips).
The proposal waits on the page until a second, different staff member logs in
with their own badge and confirms it (``bank_confirm``), or somebody cancels it
(``bank_cancel``); only then is it journaled (``firmware/protocol/cage.py``).
The page shows the bank as the journal has it: open or not, the tray, the
seats' chips and the chips expected on the table. Dealers and the floor may use it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ui.console_game import GamePages
from ui.widgets import GOLD, MUTED, PANEL_HI, TEXT

BANK_ACTIONS = ("open", "fill", "credit", "count")
"""The page's movements, in the order of its buttons."""

MAX_DIGITS = 9
"""The most digits the chips keypad takes."""


class BankPages(GamePages):
    """The console with its bank page (see the module docstring)."""

    bank_action = "fill"
    """The movement being typed."""
    bank_amount = ""
    """The chips typed so far (digits)."""

    @property
    def bank(self) -> dict[str, Any]:
        """The view's ``bank`` part (empty: the server sent none)."""
        return dict(self.view.get("bank") or {})

    def _bank_pick(self, action: str) -> None:
        self.bank_action, self.bank_amount = action, ""

    def _bank_digit(self, key: str) -> None:
        if key == "delete":
            self.bank_amount = self.bank_amount[:-1]
        elif len(self.bank_amount) < MAX_DIGITS and (self.bank_amount or key != "0"):
            self.bank_amount += key

    def _bank_propose(self) -> None:
        self.emit(
            {"type": "bank", "action": self.bank_action, "amount": int(self.bank_amount or "0")}
        )
        self.bank_amount = ""

    def _bank_status(self) -> str:
        bank = self.bank
        if not bank.get("open"):
            return self.t("ui.bank.closed")
        return self.t(
            "ui.bank.status",
            tray=bank.get("tray", 0),
            seats=bank.get("seats", 0),
            expected=bank.get("expected", 0),
        )

    def _bank_page(self) -> None:
        """The bank's state, the proposal waiting (confirm, cancel), else the keypad."""
        self._title(self.t("ui.console.bank"), self.t("ui.help.bank"), 0.76)
        self._back_button()
        allowed = self.allowed("report")
        status = self.rect(0.02, 0.27, 0.96, 0.08)
        self.panel(status, PANEL_HI)
        self.paragraph(self._bank_status(), status.inflate(-12, -4), 0.042, TEXT)
        pending = self.bank.get("pending")
        if pending:
            self._bank_waiting(dict(pending), allowed)
            return
        for i, action in enumerate(BANK_ACTIONS):
            style = "selected" if action == self.bank_action else "normal"
            self.button(
                f"bank_{action}",
                self.rect(0.02 + i * 0.24, 0.37, 0.23, 0.12),
                self.t(f"ui.bank.action.{action}"),
                action=partial(self._bank_pick, action),
                enabled=allowed,
                style=style,
                rel=0.04,
            )
        label = self.t(f"ui.bank.amount.{self.bank_action}")
        self.paragraph(label, self.rect(0.02, 0.51, 0.44, 0.1), 0.04, MUTED)
        shown = self.rect(0.02, 0.62, 0.44, 0.12)
        self.panel(shown, PANEL_HI, GOLD)
        self.text(self.bank_amount or "0", shown, 0.07, GOLD if self.bank_amount else MUTED)
        keys = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "delete", "0")
        for i, key in enumerate(keys):
            col, row = i % 4, i // 4
            self.button(
                f"bank_digit_{key}",
                self.rect(0.5 + col * 0.122, 0.51 + row * 0.12, 0.114, 0.11),
                self.t("ui.delete") if key == "delete" else key,
                action=partial(self._bank_digit, key),
                enabled=allowed,
                rel=0.05,
            )
        ready = allowed and bool(self.bank_amount or self.bank_action == "count")
        self.button(
            "bank_propose",
            self.rect(0.02, 0.76, 0.44, 0.13),
            self.t("ui.bank.propose"),
            action=self._bank_propose,
            enabled=ready,
            style="go",
            rel=0.045,
        )

    def _bank_waiting(self, pending: dict[str, Any], allowed: bool) -> None:
        """The movement waiting for its second badge, with Confirm and Cancel."""
        box = self.rect(0.02, 0.37, 0.96, 0.2)
        self.panel(box, PANEL_HI, GOLD)
        what = self.t(
            f"ui.bank.pending.{pending.get('action', 'fill')}",
            amount=pending.get("amount", 0),
            name=pending.get("name", ""),
        )
        self.paragraph(
            what + " " + self.t("ui.bank.second_badge"), box.inflate(-16, -8), 0.045, TEXT
        )
        self.button(
            "bank_confirm",
            self.rect(0.02, 0.6, 0.47, 0.16),
            self.t("ui.bank.confirm"),
            {"type": "bank_confirm"},
            enabled=allowed,
            style="go",
            rel=0.045,
        )
        self.button(
            "bank_cancel",
            self.rect(0.51, 0.6, 0.47, 0.16),
            self.t("ui.cancel"),
            {"type": "bank_cancel"},
            enabled=allowed,
            style="danger",
            rel=0.045,
        )


__all__ = ["BANK_ACTIONS", "BankPages"]
