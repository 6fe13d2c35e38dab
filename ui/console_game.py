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
``"cash_out", "seat"``, ``"set_button", "seat"``, ``"sit_card", "seat", "reader", "chips"``
(the player whose card is on that reader now), ``"draw_button"`` (the controller deals the
draw for the button), ``"answer_floor", "seat"`` (a call for the floor answered), and
``{"type": "override", "override": "levels", "action": "start" | "pause" | "resume"}``.

Notices (:meth:`GamePages.notices`, on the game page and the dealing page): the open calls
for the floor, oldest first, each with its Answer button, until a staff member answers
them (journaled, so they survive a restart); a player card on a seat's reader, with a
button that starts seating that player there; the draw for the button's result.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from ui.console_pages import ConsolePages
from ui.widgets import GOLD, MUTED, PANEL, PANEL_HI, RED, TEXT, WHITE

KEYBOARD = "ABCDEFGHIJKLMNÑOPQRSTUVWXYZÁÉÍÓÚÜ"
"""Letters of the name keyboard: the Spanish alphabet and its accented letters ("Pérez",
"Inés", "Güemes"); shown in capitals, typed small after a word's first letter."""
NAME_LENGTH = 20
GAME_FLOWS = (
    "sit",
    "sit_card",
    "rebuy",
    "addon",
    "sit_out",
    "come_back",
    "cash_out",
    "set_button",
    "draw_button",
)
ROW_MIN = 18
"""The seat map's smallest line, in pixels (its text is at least 14 px high)."""
STYLES = ("go", "go", "primary", "primary", "normal", "normal", "warn", "normal", "normal")
CLOCK_ACTIONS = ("start", "pause", "resume")


class GamePages(ConsolePages):
    """The game page and the name and buy-in steps of its flows (see the module docstring)."""

    # --- the page -----------------------------------------------------------------------

    def _game_page(self) -> None:
        self._title(self.t("ui.console.game"))
        # Below the title and Back: a notice (an open floor call, with its Answer button),
        # else the page's explanation, both the full width.
        if not self.notices(self.rect(0.01, 0.205, 0.98, 0.115)):
            self.paragraph(
                self.t("ui.help.game"), self.rect(0.02, 0.205, 0.96, 0.115), 0.042, MUTED
            )
        self.seat_map(self.rect(0.01, 0.33, 0.45, 0.66))
        items = [
            (f"game_{k}", self.t(f"ui.incident.{k}"), self._game_action(k), style)
            for k, style in zip(GAME_FLOWS, STYLES, strict=True)
        ]
        w, h = 0.52 / 3, 0.36 / 3
        for i, (id, label, action, style) in enumerate(items):
            r = self.rect(0.47 + (i % 3) * w, 0.33 + (i // 3) * h, w - 0.008, h - 0.012)
            self.button(id, r, label, None, action, enabled=self.allowed("report"), style=style)
        self._level_panel(self.rect(0.47, 0.695, 0.52, 0.295))
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
            self.paragraph(self.level_text("panel"), top, 0.04, GOLD)
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
        # One line a seat, one column, while the lines stay readable (ROW_MIN px): a seat's
        # line is too long for half the width; two lines a seat when there is the room.
        lines = 1 if compact or len(numbers) * 2 * ROW_MIN > r.height - 8 else 2
        cols = 1 if len(numbers) * lines * ROW_MIN <= r.height - 8 else 2
        compact = compact or lines == 1
        rows = max(1, (len(numbers) + cols - 1) // cols)
        w = (r.width - 8 - 4 * cols) // cols
        h = min((r.height - 8) // rows, 60 if lines == 2 else 30)
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
        self._grid(keys, 0.33, 10, 4, 0.46)
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

    def _card_step(self, nav: list[tuple[str, str, Any, str]]) -> None:
        """Pick the player card (on the console's reader or a seat's) of the player to seat."""
        self.text(
            self.t("ui.step.player_card"),
            self.rect(0.02, 0.25, 0.96, 0.06),
            0.045,
            TEXT,
            align="left",
        )
        cards = list(self.console.get("player_cards") or [])
        if not cards:
            self.paragraph(self.t("ui.player_card.none"), self.rect(0.02, 0.34, 0.96, 0.2), 0.045)
        items = [
            (
                f"card_{c.get('reader')}",
                self.card_holder(c.get("reader")),
                partial(self._pick_card, c),
                "normal" if c.get("name") else "disabled",
            )
            for c in cards[:6]
        ]
        self._grid(items, 0.34, 2, 3, 0.42)
        self._grid(nav, 0.8, 3, 1, 0.19)

    def _pick_card(self, card: dict[str, Any]) -> None:
        """A card chosen: its seat's reader also chooses that seat when it is free."""
        assert self.flow is not None
        if not card.get("name"):
            self.show_notice(self.t("error.player_card.unknown", card=card.get("card", "")))
            return
        self._choose("player_card", card.get("reader"))
        seat = card.get("seat")
        taken = {int(s["seat"]) for s in self.table.get("seats") or []}
        if isinstance(seat, int) and seat not in taken:
            self._choose("free_seat", seat)

    def card_holder(self, reader: Any) -> str:
        """``Ana Pérez (P-000123) · seat 3's reader`` for the card on ``reader``."""
        for c in self.console.get("player_cards") or []:
            if c.get("reader") == reader:
                name = c.get("name") or self.t("ui.player_card.unknown")
                where = (
                    self.t("ui.reader.seat", seat=c["seat"])
                    if c.get("seat")
                    else self.t("ui.reader.console")
                )
                return f"{name} ({c.get('card')}) · {where}"
        return str(reader)

    def notices(self, r: pygame.Rect, floor_calls_only: bool = False) -> bool:
        """The first thing the staff must see, with its button: an open call for the floor
        (Answer), a jackpot waiting for a floor badge (Confirm), a player card on a seat's
        reader (Seat), the draw for the button's result. ``floor_calls_only`` (the main
        page): a call for the floor or a jackpot only. Returns whether a notice was drawn."""
        c = self.console
        calls = list(c.get("floor_calls") or [])
        button: tuple[str, str, Any] | None = None
        detail = ""
        waiting = self._waiting_card()
        if calls:
            call = calls[0]
            seat = call.get("seat")
            ago = max(0, int(float(c.get("now") or 0) + self.now - float(call.get("time") or 0)))
            text = self.t("alert.call_floor", seat=seat)
            detail = self.t("ui.floor_call.waiting", time=f"{ago // 60}:{ago % 60:02d}")
            if call.get("name"):
                detail = f"{call['name']} · {detail}"
            if len(calls) > 1:
                detail += " · " + self.t("ui.floor_call.more", count=len(calls) - 1)
            msg = {"type": "report", "report": "answer_floor", "seat": seat}
            button = ("answer_floor", self.t("ui.floor_call.answer"), msg)
            fill = (110, 25, 25)
        elif (c.get("jackpot") or {}).get("pending"):
            # A jackpot the table decided (JACKPOT): a floor badge in the reader confirms it.
            award = c["jackpot"]["pending"][0]
            text = str(award.get("title", ""))
            detail = " · ".join([str(award.get("hands", "")), *award.get("lines", [])])
            msg = {
                "type": "report",
                "report": "jackpot",
                "jackpot": award.get("jackpot"),
                "hand": award.get("hand"),
            }
            button = ("jackpot_confirm", self.t("ui.console.jackpot_confirm"), msg)
            fill = (25, 70, 40)
        elif floor_calls_only:
            return False
        elif waiting is not None:
            name = waiting.get("name") or waiting["card"]
            text = self.t("ui.player_card.at_seat", seat=waiting["seat"], name=name)
            button = ("seat_by_card", self.t("ui.player_card.seat"), None)
            fill = PANEL_HI
        elif self.table.get("button_draw"):
            draw = self.table["button_draw"]
            shown = ", ".join(f"{d.get('seat')}: {d.get('card')}" for d in draw.get("cards") or [])
            text = self.t(
                "ui.draw_button.console", cards=shown, seat=self.seat_label(draw.get("button"))
            )
            fill = PANEL_HI
        else:
            return False
        self.panel(r, fill, GOLD)
        side = max(r.width // 4, 120)  # the button's width
        width = r.width - (side + 12 if button else 0)
        inner = pygame.Rect(r.left + 8, r.top + 2, width - 8, r.height - 4)
        if detail:  # the sentence (two lines if need be), its detail on the last line
            below_h = max(18, inner.height // 3)
            above = pygame.Rect(inner.left, inner.top, inner.width, inner.height - below_h)
            if self.fonts.get(self.fonts.min_size).size(text)[0] <= above.width:
                self.text(text, above, 0.038, WHITE, align="left")
            else:
                self.paragraph(text, above, 0.038, WHITE)
            below = pygame.Rect(inner.left, above.bottom, inner.width, below_h)
            self.text(detail, below, 0.034, TEXT, align="left")
        else:
            self.paragraph(text, inner, 0.038)
        if button is not None:
            id, label, msg = button
            b = pygame.Rect(r.right - side - 4, r.top + 4, side, r.height - 8)
            action = None if msg is not None else self._seat_waiting_card
            enabled = self.allowed("report")
            self.button(id, b, label, msg, action, enabled=enabled, style="go", rel=0.038)
        return True

    def _waiting_card(self) -> dict[str, Any] | None:
        """A known player card on a free seat's reader (the player waits to be seated)."""
        taken = {int(s["seat"]) for s in self.table.get("seats") or []}
        for card in self.console.get("player_cards") or []:
            seat = card.get("seat")
            if isinstance(seat, int) and seat not in taken and card.get("name"):
                return dict(card)
        return None

    def _seat_waiting_card(self) -> None:
        """Start seating the player whose card waits on a seat's reader: the buy-in next."""
        card = self._waiting_card()
        if card is None:
            return
        self.start("sit_card")
        self._pick_card(card)

    def _buy_in_hint(self, r: pygame.Rect) -> None:
        if self.flow is None or self.flow["kind"] not in ("sit", "sit_card", "rebuy"):
            return
        buy_in = self.console.get("buy_in") or {}
        if not buy_in.get("min"):
            return
        key = "ui.buy_in.range" if buy_in.get("max") else "ui.buy_in.min"
        self.paragraph(self.t(key, low=buy_in["min"], high=buy_in.get("max", 0)), r, 0.038, MUTED)


__all__ = ["CLOCK_ACTIONS", "GAME_FLOWS", "KEYBOARD", "GamePages"]
