"""The console's game page: seating, buy-ins, sitting out, cash-outs, the button and the clock.

The floor or the dealer runs the game from here (docs/run-the-game.md):

* left, the seat map: every seat of the table with its player, stack, bet,
  status and badges, the seat to act outlined;
* right, the game's guided flows (each ends on a summary that states its
  consequence and the seat, then Confirm): seat a player (an empty seat, the
  name on a keyboard, the buy-in on a keypad beside the table's minimum and
  maximum, CC-16), rebuy, add-on, sit out, come back, cash out and leave, set
  the button; and the tournament clock's start, pause and resume (floor only);
* the level in force, its blinds and the time to the next level (or the break).

Messages (``firmware/protocol/game.py`` declares and checks their fields):
``{"type": "report", "report": "sit", "seat", "player", "chips"}``,
``"rebuy", "seat", "chips"`` (the add-on too), ``"sit_out", "seat", "out": bool``,
``"cash_out", "seat"``, ``"set_button", "seat"``, and
``{"type": "override", "override": "levels", "action": "start" | "pause" | "resume"}``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from ui.console_pages import ConsolePages
from ui.widgets import GOLD, MUTED, PANEL, PANEL_HI, RED, TEXT, WHITE

KEYBOARD = "ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"
"""Letters of the name keyboard (Spanish alphabet)."""
NAME_LENGTH = 20
GAME_FLOWS = ("sit", "rebuy", "addon", "sit_out", "come_back", "cash_out", "set_button")
CLOCK_ACTIONS = ("start", "pause", "resume")


class GamePages(ConsolePages):
    """The game page and the name and buy-in steps of its flows (see the module docstring)."""

    # --- the page -----------------------------------------------------------------------

    def _game_page(self) -> None:
        self._title(self.t("ui.console.game"), self.t("ui.help.game"))
        self.seat_map(self.rect(0.01, 0.26, 0.45, 0.73))
        items = [
            (f"game_{k}", self.t(f"ui.incident.{k}"), self._game_action(k), style)
            for k, style in zip(
                GAME_FLOWS,
                ("go", "primary", "primary", "normal", "normal", "warn", "normal"),
                strict=True,
            )
        ]
        w, h = 0.52 / 3, 0.42 / 3
        for i, (id, label, action, style) in enumerate(items):
            r = self.rect(0.47 + (i % 3) * w, 0.26 + (i // 3) * h, w - 0.008, h - 0.012)
            self.button(id, r, label, None, action, enabled=self.allowed("report"), style=style)
        self._level_panel(self.rect(0.47, 0.69, 0.52, 0.3))
        self._back_button()

    def _game_action(self, kind: str) -> Any:
        if kind == "sit_out":
            return partial(self.start, kind, out=True)
        if kind == "come_back":
            return partial(self.start, kind, out=False)
        return partial(self.start, kind)

    def _level_panel(self, r: pygame.Rect) -> None:
        """The level in force and the clock's buttons (floor)."""
        self.panel(r, PANEL)
        level = self.console.get("level")
        top = pygame.Rect(r.left + 8, r.top + 4, r.width - 16, r.height // 2 - 6)
        if level:
            time = self.clock_text().split(" ")[0]
            key = "ui.level.break" if level.get("on_break") else "ui.level.line"
            line = self.t(
                key,
                n=level.get("number"),
                sb=level.get("small_blind"),
                bb=level.get("big_blind"),
                time=time,
            )
            if level.get("ante"):
                line += " · " + self.t("ui.console.ante", ante=level["ante"])
            self.paragraph(line, top, 0.04, GOLD)
        else:
            self.paragraph(self.t("ui.level.none"), top, 0.038, MUTED)
        w = (r.width - 16) // 3
        for i, action in enumerate(CLOCK_ACTIONS):
            b = pygame.Rect(r.left + 8 + i * w, r.centery, w - 6, r.height // 2 - 8)
            msg = {"type": "override", "override": "levels", "action": action}
            self.button(
                f"levels_{action}",
                b,
                self.t(f"ui.level.{action}"),
                msg,
                enabled=self.allowed("override"),
                style="go" if action != "pause" else "normal",
                rel=0.038,
            )

    def seat_map(self, r: pygame.Rect, compact: bool = False) -> None:
        """Every seat: player, stack, bet, status; the seat to act outlined in gold.

        ``compact`` (the dealing page): the occupied seats only, one line each.
        """
        self.panel(r, PANEL)
        by_number = {int(s.get("seat", 0)): s for s in self.table.get("seats") or []}
        count = int(self.console.get("max_seats") or max([10, *by_number]))
        numbers = sorted(by_number) if compact else list(range(1, count + 1))
        cols = 1 if compact and len(numbers) * 30 <= r.height - 8 else 2
        rows = max(1, (len(numbers) + cols - 1) // cols)
        w = (r.width - 8 - 4 * cols) // cols
        h = min((r.height - 8) // rows, 60 if not compact else 30)
        actor = self.table.get("actor")
        for i, number in enumerate(numbers):
            x = r.left + 4 + (i % cols) * (w + 4)
            tile = pygame.Rect(x, r.top + 4 + (i // cols) * h, w, h - 4)
            s = by_number.get(number)
            self.panel(tile, PANEL_HI if s else PANEL, GOLD if actor == number else None)
            inner = tile.inflate(-10, -4)
            if s is None:
                self.text(self.t("ui.map.empty", seat=number), inner, 0.036, MUTED, align="left")
                continue
            marks = [self.t("ui.map.button")] if s.get("button") else []
            if s.get("blind"):
                marks.append(str(s["blind"]))
            head = f"{number} {s.get('name') or ''} {' '.join(marks)}".strip()
            status = str(s.get("status") or "active")
            detail = self.t("ui.seat.stack", amount=s.get("stack", 0))
            if s.get("bet"):
                detail += " · " + self.t("ui.seat.bet", amount=s["bet"])
            if status != "active":
                detail += " · " + self.t(f"ui.map.status.{status.replace('-', '_')}")
            if actor == number:
                detail += " · " + self.t("ui.map.acts")
            ink = RED if status == "all-in" else (GOLD if actor == number else WHITE)
            if compact:
                self.text(f"{head} · {detail}", inner, 0.034, ink, align="left")
                continue
            half = inner.height // 2
            top = pygame.Rect(inner.left, inner.top, inner.width, half)
            self.text(head, top, 0.036, TEXT, align="left")
            self.text(detail, top.move(0, half), 0.034, ink, align="left")

    # --- flow steps ---------------------------------------------------------------------

    def _name_step(self, nav: list[tuple[str, str, Any, str]]) -> None:
        assert self.flow is not None
        pick = self.flow["pick"]
        name = str(pick.get("player", ""))
        self.text(
            self.t("ui.step.player"), self.rect(0.02, 0.25, 0.6, 0.06), 0.045, TEXT, align="left"
        )
        shown = self.rect(0.62, 0.25, 0.36, 0.07)
        self.panel(shown, PANEL_HI, GOLD)
        self.text(name or "…", shown, 0.05, GOLD if name else MUTED)
        keys = [(f"letter_{c}", c, partial(self._type_name, c), "normal") for c in KEYBOARD]
        keys.append(("letter_space", self.t("ui.space"), partial(self._type_name, " "), "normal"))
        keys.append(("letter_delete", self.t("ui.delete"), partial(self._type_name, ""), "normal"))
        self._grid(keys, 0.33, 10, 3, 0.45)
        if name.strip():
            nav.append(
                (
                    "flow_next",
                    self.t("ui.next"),
                    partial(self._choose, "player", name.strip()),
                    "go",
                )
            )
        self._grid(nav, 0.8, 3, 1, 0.19)

    def _type_name(self, letter: str) -> None:
        assert self.flow is not None
        pick = self.flow["pick"]
        name = str(pick.get("player", ""))
        if not letter:
            name = name[:-1]
        elif len(name) < NAME_LENGTH and not (letter == " " and (not name or name.endswith(" "))):
            # Capital first letter of each word, the rest small: "Ana Pérez".
            name += letter if not name or name.endswith(" ") else letter.lower()
        pick["player"] = name

    def _buy_in_hint(self, r: pygame.Rect) -> None:
        if self.flow is None or self.flow["kind"] not in ("sit", "rebuy"):
            return
        buy_in = self.console.get("buy_in") or {}
        if not buy_in.get("min"):
            return
        key = "ui.buy_in.range" if buy_in.get("max") else "ui.buy_in.min"
        self.paragraph(self.t(key, low=buy_in["min"], high=buy_in.get("max", 0)), r, 0.038, MUTED)


__all__ = ["CLOCK_ACTIONS", "GAME_FLOWS", "KEYBOARD", "GamePages"]
