"""The dealer console: hand progress, what the shoe gives next, incidents, rulings, procedures.

:class:`ConsoleScreen` renders a ``console`` view (docs/protocols/table.md) and
turns the dealer's taps into ``report`` and ``override`` messages. Every
incident and ruling is a guided flow: pick what the rule needs (a card, a
seat, a case, a reason), read the summary with the rule, then confirm. Nothing
is sent before the confirmation. The flows and the other pages are in
:mod:`ui.console_pages`.

Messages (fields follow the table events in ``firmware/table/events.py``):

* ``{"type": "login", "pin": "1234"}`` (the badge is the card in the console's reader),
  ``{"type": "logout"}``;
* ``{"type": "report", "report": "exposed" | "face_up" | "marked", "card": "Ah"}``;
  ``"misdeal", "reason"``; ``"premature"``; ``"burn_error", "case": "a" | "b" | "c"``;
  ``"empty_seat", "seat"``; ``"kill", "seat", "reason"``; ``"clock"``; ``"pause"`` / ``"resume"``;
  ``"shuffle"`` (the "new hand" button between hands: the hand starts at the shuffle);
  ``"deck_step", "step"`` (PE-2; the first step, ``show``, comes from the shoe's scan);
  ``"chip_race", "old", "new", "cards": ["Ah", ...]`` (TDA-2: the cards the dealer turned,
  in the order dealt, one per odd chip);
* ``{"type": "override", "override": "penalty", "seat", "penalty": "warning" | "rounds" |
  "disqualification"[, "rounds"], "reason"}``; ``"adjust_stack", "seat", "chips", "reason"``
  (``chips`` is the new stack), ``"award_pot", "seats", "reason"``, ``"void", "reason"``,
  ``"undo", "reason"``;
* ``{"type": "bank", "action": "open" | "fill" | "credit" | "count", "amount"}``,
  ``{"type": "bank_confirm"}``, ``{"type": "bank_cancel"}`` (the bank page,
  :mod:`ui.console_bank`: a second, different badge confirms);
* ``{"type": "language", "lang": ...}``.

Reports need a dealer or floor login, overrides a floor login (the view's
``staff``); other buttons are greyed. Reasons are preset sentences sent in the
console's language (the audit log keeps the text the floor chose).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from ui.cards import draw_card, draw_recall
from ui.console_bank import BankPages
from ui.console_diag import HEALTH
from ui.console_game import ROW_MIN
from ui.console_pages import CHECKLIST, FIELD, FLOWS, OPTIONS, RACES, RANKS
from ui.seat import other_language
from ui.seat_panels import END_HOLD
from ui.widgets import GOLD, MUTED, PANEL, PANEL_HI, RED, TEXT, WHITE, Message

__all__ = ["CHECKLIST", "FIELD", "FLOWS", "HEALTH", "OPTIONS", "RACES", "RANKS", "ConsoleScreen"]

INCIDENTS = (
    "exposed",
    "misdeal",
    "face_up",
    "premature",
    "burn_error",
    "empty_seat",
    "marked",
    "kill",
)


ALERT_TEXT = 0.036
"""The size of an alert's sentence on the dealing page (of the screen's height)."""
BAR = 0.098
"""The status bar's height (of the screen's): its buttons are at least 44 px high at 480."""

DESTRUCTIVE = ("misdeal", "kill")
"""Reports that end a hand or kill a player's hand: drawn apart from the others, in red."""


class ConsoleScreen(BankPages):
    """The dealer's console. Feed views with :meth:`set_view`, input with :meth:`handle`."""

    def __init__(self, view: Message | None = None, **kwargs: Any) -> None:
        super().__init__(view, **kwargs)
        self._end: dict[str, Any] | None = None
        self._end_since = 0.0
        self.on_view()

    def on_view(self) -> None:
        """Note when the last hand's end (``table.ended``) arrived, to hold it on show."""
        ended = self.table.get("ended")
        if ended and (self._end is None or self._end.get("hand") != ended.get("hand")):
            self._end, self._end_since = dict(ended), self.clock

    def ending(self) -> dict[str, Any] | None:
        """The last hand's end to show: while the view carries it (until the next hand's
        first card), and at least :data:`END_HOLD` seconds on the screen's clock."""
        ended = self.table.get("ended")
        if ended:
            return dict(ended)
        if self._end is not None and self.clock - self._end_since < END_HOLD:
            return self._end
        return None

    def tick(self, seconds: float) -> bool:
        """Advance the clock; redraw when the last hand's end stops being shown."""
        before = self.ending() is not None
        dirty = super().tick(seconds)
        if (self.ending() is not None) != before:
            self.dirty = dirty = True
        return dirty

    def clock_text(self) -> str:
        """The player clock's seconds (TDA-5): a redraw trigger with :meth:`level_text`."""
        clock = self.table.get("clock")
        if clock:
            return str(max(0, int(float(clock.get("left", 0)) - self.now + 0.999)))
        return ""

    def _toggle_language(self) -> None:
        self.lang = other_language(self.lang)
        self.emit({"type": "language", "lang": self.lang})

    # --- painting -----------------------------------------------------------------------

    def _logout(self) -> None:
        self.emit({"type": "logout"})
        self._set_page("main")

    def paint(self) -> None:
        """Draw the status bar and the current page or flow."""
        self._status_bar()
        if self.view.get("audience") == "technician":
            self._technician_page()
        elif self.page == "login":
            self._login_page()
        elif self.flow is not None:
            self._flow()
        elif self.page == "recall":
            title = self.t("ui.console.recall_title")
            draw_recall(
                self,
                self.rect(0.01, 0.1, 0.98, 0.89),
                list(self.view.get("recall") or []),
                title,
                False,
                self.seat_label,
                RED,
            )
            self._back_button()
        elif self.page == "deck":
            self._deck_page()
        elif self.page == "chiprace":
            self._chip_race_page()
        elif self.page == "floor":
            self._floor_page()
        elif self.page == "game":
            self._game_page()
        elif self.page == "bank":
            self._bank_page()
        else:
            self._progress()
            self._buttons()

    def _status_bar(self) -> None:
        bar = self.rect(0, 0, 1, BAR)
        self.panel(bar, PANEL)
        x = bar.left + 6
        font_h = self.px(0.035)
        # Devices in fault first; those that do not fit are counted ("+2").
        devices = sorted(self.view.get("devices") or [], key=lambda d: d.get("health") == "ok")
        for n, d in enumerate(devices):
            health = str(d.get("health", "ok"))
            label = f"{d.get('label') or d.get('name', '?')}"
            if health != "ok":
                label += " " + self.t(f"ui.health.{health}")
            w = self.fonts.get(font_h).size(label)[0] + 34
            if x + w > bar.left + bar.width * 0.4 - 30:
                more = pygame.Rect(x, bar.top, bar.left + bar.width * 0.4 - x, bar.height)
                self.text(f"+{len(devices) - n}", more, 0.035, MUTED, align="left")
                break
            pill = pygame.Rect(x, bar.top + 8, w, bar.height - 16)
            pygame.draw.rect(
                self.surface,
                PANEL_HI if health == "ok" else (90, 20, 20),
                pill,
                border_radius=pill.height // 2,
            )
            pygame.draw.circle(
                self.surface, HEALTH.get(health, RED), (pill.left + 13, pill.centery), 7
            )
            self.text(
                label,
                pygame.Rect(pill.left + 24, pill.top, pill.width - 28, pill.height),
                0.035,
                TEXT,
                align="left",
            )
            x += w + 4
        level = self.console.get("level")
        lt = self.rect(0.405, 0.0, 0.265, BAR)
        if self.console.get("paused"):
            self.text(self.t("ui.console.paused"), lt, 0.045, RED)
        elif level:  # the level clock, its break or its pause (issue 23)
            colour = RED if level.get("paused") else GOLD
            self.text(self.level_text("console"), lt, 0.04, colour)
        staff = self.staff
        if staff is not None:
            role = self.t(f"ui.staff_role.{staff['role']}")
            self.button(
                "logout",
                self.rect(0.675, 0.003, 0.205, BAR - 0.006),
                self.t("ui.console.logout", name=staff.get("name", ""), role=role),
                action=self._logout,
                rel=0.034,
            )
        else:
            self.button(
                "login",
                self.rect(0.675, 0.003, 0.205, BAR - 0.006),
                self.t("ui.console.login"),
                action=partial(self._set_page, "login"),
                style="primary" if self.page != "login" else "selected",
                rel=0.036,
            )
        self.button(
            "lang",
            self.rect(0.885, 0.003, 0.11, BAR - 0.006),
            self.t("ui.lang.other"),
            action=self._toggle_language,
            rel=0.038,
        )

    def _progress(self) -> None:
        t, c = self.table, self.console
        area = self.rect(0.01, 0.1, 0.5, 0.89)
        self.panel(area, PANEL)
        pad = 8
        x, w = area.left + pad, area.width - 2 * pad
        y = area.top + pad
        hand = t.get("hand")
        head = self.t("ui.seat.hand", hand=hand) if hand is not None else self.t("ui.seat.between")
        if t.get("phase"):
            head += " · " + self.t(f"ui.phase.{t['phase']}")
        self.text(head, pygame.Rect(x, y, w * 2 // 3, 26), 0.045, TEXT, align="left")
        self.text(
            self.t("ui.pot", amount=t.get("pot_total", 0)),
            pygame.Rect(x + w * 2 // 3, y, w // 3, 26),
            0.045,
            GOLD,
            align="right",
        )
        y += 30
        ended = self.ending()
        board = list(t.get("board") or [])[:5]
        if not board and ended:  # the last hand's river stays until the next hand's cards
            board = list(ended.get("board") or [])[:5]
        cw, ch = w // 10, int(w // 10 * 1.4)
        for i in range(5):
            draw_card(
                self.surface,
                pygame.Rect(x + i * (cw + 4), y, cw, ch),
                str(board[i]) if i < len(board) else None,
                self.fonts,
            )
        actor = t.get("actor")
        beside = pygame.Rect(x + 5 * (cw + 4) + 6, y, w - 5 * (cw + 4) - 6, ch)
        prompt = str(c.get("prompt") or "")
        if actor is not None:
            self.paragraph(
                self.t("ui.console.actor", seat=self.seat_label(actor)), beside, 0.04, TEXT
            )
        elif prompt and self._wrapped_height(prompt, beside.width) <= beside.height:
            self.paragraph(prompt, beside, 0.04, TEXT)  # what to do, beside the board
            prompt = ""
        y += ch + 8
        if self.notices(pygame.Rect(x, y, w, 54), floor_calls_only=True):
            y += 60  # an open call for the floor (Answer) or a jackpot (Confirm)
        # An open call for the floor is the notice above, with its Answer button.
        alerts = [
            a for a in c.get("alerts") or [] if a.get("text") and a.get("key") != "alert.call_floor"
        ]
        faults = [
            d for d in self.view.get("devices") or [] if d.get("health") in ("fault", "degraded")
        ]
        if faults or alerts:
            names = ", ".join(
                f"{d.get('label') or d.get('name')}: {self.t('ui.health.' + str(d.get('health')))}"
                for d in faults
            )
            line = self.t("ui.console.device_fault", devices=names) if names else ""
            box = pygame.Rect(x, y, w, 30)
            if alerts:  # the "Seen" button at the right, the alert's sentence in full
                line = line or self.t("ui.console.alert")
                text_w = w * 3 // 4 - 20
                head_h = self._wrapped_height(line, text_w)
                text_h = self._wrapped_height(alerts[-1]["text"], text_w)
                under = 20 if len(alerts) > 1 else 0  # "2 more" under the button
                box.height = 8 + max(46 + under, head_h + 2 + text_h)
                self.panel(box, (110, 25, 25))
                first = pygame.Rect(box.left + 8, box.top + 4, text_w, head_h)
                self.paragraph(line, first, 0.04, WHITE)
                self._alert_line(box, alerts, first.bottom + 2)
            else:
                self.panel(box, (110, 25, 25))
                first = pygame.Rect(box.left + 8, box.top + 4, box.width - 16, 22)
                self.text(line, first, 0.04, WHITE, align="left")
            y += box.height + 6
        dist = c.get("distribution") or []
        hands = dict((ended or {}).get("hands") or {})
        if dist:  # between hands: push the pots, who gets what and with which hand
            title = self.t("ui.console.distribute")
            self._distribution(pygame.Rect(x, y, w, area.bottom - pad - y), dist, hands, title)
            return
        nxt = c.get("next_card") or {}
        role = str(nxt.get("role") or "none")
        box = pygame.Rect(x, y, w, 56)
        self.panel(box, GOLD if role != "none" else PANEL_HI)
        ink = (0, 0, 0) if role != "none" else MUTED
        self.text(
            self.t("ui.console.next"),
            pygame.Rect(box.left + 8, box.top + 2, box.width - 16, 18),
            0.035,
            ink,
            align="left",
        )
        self.text(
            self._role_text(nxt),
            pygame.Rect(box.left + 8, box.top + 20, box.width - 16, 34),
            0.065,
            ink,
        )
        y += 62
        pots = [p for p in (ended or {}).get("pots") or [] if p.get("shares")]
        if pots:  # the next hand shuffled and cut: the last one's winners stay on show
            title = self.t("ui.console.ended", hand=(ended or {}).get("hand", ""))
            named = sum(len({hands.get(str(s)) for s in p["shares"]} - {None}) for p in pots)
            need = 30 + ROW_MIN * (len(pots) + sum(len(p["shares"]) for p in pots) + named)
            box = pygame.Rect(x, y, w, min(need, area.bottom - pad - y))
            self._distribution(box, pots, hands, title)
            y = box.bottom + 6
        if prompt:
            if area.bottom - pad - y < ROW_MIN:
                self.cut.append(prompt)  # no room left (noted, so tests see it)
            else:
                box = pygame.Rect(x, y, w, min(56, area.bottom - pad - y))
                y = self.paragraph(prompt, box, 0.045, TEXT).bottom + 6
        for inc in list(c.get("incidents") or [])[-2:]:
            if y > area.bottom - 40:
                break
            text = f"{inc.get('rule', '')}: {inc.get('what', '')} {inc.get('instruction', '')}"
            y = (
                self.paragraph(
                    text, pygame.Rect(x, y, w, area.bottom - pad - y), 0.036, GOLD
                ).bottom
                + 4
            )
        room = pygame.Rect(x, y, w, area.bottom - pad - y)
        if pots:
            pass  # the last hand's winners took the room of the seat map
        elif room.height >= 40 and c.get("equity"):  # an all-in, hands tabled: each one's odds
            self._equity(room, c["equity"])
        elif room.height >= len(t.get("seats") or []) * ROW_MIN + 8:
            # The seats at a glance (stacks, bets, who acts), one line each, when there is
            # the room for all of them (the game page has them always).
            self.seat_map(room, compact=True)

    def _wrapped_height(self, text: Any, width: int) -> int:
        """The height ``text`` takes as a paragraph ``width`` wide at the smallest readable
        size (a paragraph in a box that high shrinks to fit, never below it)."""
        font = self.fonts.get(self.fonts.min_size)
        text = str(text)
        lines: list[str] = []
        for word in text.split():
            if lines and font.size(lines[-1] + " " + word)[0] <= width:
                lines[-1] += " " + word
            else:
                lines.append(word)
        return max(1, len(lines)) * int(font.get_linesize())

    def _alert_line(self, box: pygame.Rect, alerts: list[dict[str, Any]], top: int) -> None:
        """The newest alert's sentence in ``box`` from ``top``, its "Seen" button and how
        many more wait: a dealer dismisses it (``report dismiss_alert {id}``) and the one
        before shows."""
        last = alerts[-1]
        button = pygame.Rect(box.right - box.width // 4 - 6, box.top + 4, box.width // 4, 46)
        # The alert's sentence under the first line, beside the button, in full.
        text = pygame.Rect(box.left + 8, top, button.left - box.left - 14, 0)
        text.height = box.bottom - 2 - text.top
        self.paragraph(str(last["text"]), text, ALERT_TEXT, WHITE)
        if len(alerts) > 1:  # how many more wait, under the button
            count = self.t("ui.console.more_alerts", count=len(alerts) - 1)
            below = pygame.Rect(button.left, button.bottom + 2, button.width, 18)
            self.text(count, below, 0.034, WHITE)
        if last.get("id"):
            msg = {"type": "report", "report": "dismiss_alert", "id": int(last["id"])}
            label = self.t("ui.console.dismiss_alert")
            enabled = self.allowed("report")
            self.button("dismiss_alert", button, label, msg, enabled=enabled, rel=0.036)

    def _percent(self, value: Any) -> str:
        """A percentage with one decimal, with the language's decimal mark ("62,4 %")."""
        number = f"{float(value):.1f}"
        return self.t("ui.console.percent", value=number.replace(".", self.t("ui.decimal_mark")))

    def _equity(self, r: pygame.Rect, equity: Any) -> None:
        """During an all-in with the hands tabled: each live hand, its cards and its share of
        the pot over the boards still to come (and of the split boards); or, when the share is
        not computed yet (a catalog key), the tabled hands and why."""
        self.panel(r, PANEL_HI, GOLD)
        inner = r.inflate(-16, -8)
        title = pygame.Rect(inner.left, inner.top, inner.width, 24)
        self.text(self.t("ui.console.equity"), title, 0.04, GOLD, align="left")
        seats = {int(s.get("seat", 0)): s for s in self.table.get("seats") or []}
        bottom = inner.bottom
        if isinstance(equity, str):
            bottom -= 48
            note = pygame.Rect(inner.left, bottom + 4, inner.width, 44)
            self.paragraph(self.t(equity), note, 0.038, MUTED)
            rows = [
                {"seat": n} for n, s in sorted(seats.items()) if s.get("shown") and s.get("cards")
            ]
        else:
            rows = list(equity)
        h = max(18, min(34, (bottom - title.bottom - 2) // max(1, len(rows))))
        y = title.bottom + 2
        for row in rows:
            if y + h > bottom + 1:
                break
            number = int(row.get("seat", 0))
            cards = list((seats.get(number) or {}).get("cards") or [])[:2]
            ch = h - 4
            cw = int(ch / 1.4)
            for i, code in enumerate(cards):
                box = pygame.Rect(inner.left + i * (cw + 2), y + 1, cw, ch)
                draw_card(self.surface, box, str(code), self.fonts)
            left = inner.left + 2 * (cw + 2) + 6
            label = pygame.Rect(left, y, inner.width * 0.5 - left + inner.left, h)
            self.text(self.seat_label(number), label, 0.036, TEXT, align="left")
            if "equity" not in row:
                y += h
                continue
            share = pygame.Rect(inner.left + inner.width * 0.5, y, inner.width * 0.24, h)
            self.text(self._percent(row["equity"]), share, 0.045, GOLD, align="right")
            if row.get("tie"):
                tie = pygame.Rect(share.right + 4, y, inner.right - share.right - 4, h)
                split = self.t("ui.console.equity_tie", tie=self._percent(row["tie"]))
                self.text(split, tie, 0.032, MUTED, align="right")
            y += h

    def _role_text(self, nxt: dict[str, Any]) -> str:
        role = str(nxt.get("role") or "none")
        if role in ("hole", "replacement") and nxt.get("seat") is not None:
            return self.t(f"ui.role.{role}", seat=nxt["seat"])
        if role == "board":
            street = nxt.get("street")
            if street is None:
                street = {0: 1, 3: 2, 4: 3}.get(len(self.table.get("board") or []), 3)
            return self.t(f"ui.role.board{min(3, max(1, int(street)))}")
        return self.t("ui.role.burn" if role == "burn" else "ui.role.none")

    def _distribution(
        self, r: pygame.Rect, dist: list[dict[str, Any]], hands: dict[str, Any], title: str
    ) -> None:
        """``title``, then each pot, each seat's share and the hand it won with (``hands``,
        by seat, from the view's ``table.ended``); what does not fit is noted as cut."""
        self.panel(r, PANEL_HI, GOLD)
        self.text(title, pygame.Rect(r.left + 8, r.top + 3, r.width - 16, 22), 0.05, GOLD, "left")
        y = r.top + 26
        lines: list[tuple[str, int, Any]] = []
        for pot in dist:
            line = pot.get("said") or self.t(
                "ui.console.pot_line", pot=pot.get("pot", ""), amount=pot.get("amount", 0)
            )
            lines.append((line, 8, TEXT))
            for seat, amount in (pot.get("shares") or {}).items():
                number = int(seat) if str(seat).isdigit() else seat
                share = self.t("ui.console.share", seat=self.seat_label(number), amount=amount)
                lines.append((share, 24, WHITE))
            named = sorted(
                {str(hands[str(s)]) for s in pot.get("shares") or {} if hands.get(str(s))}
            )
            lines += [(name, 24, GOLD) for name in named]  # the winning hand (one if split)
        house = self.view.get("house") or {}
        lines += [(str(line), 8, GOLD) for line in house.get("lines") or []]  # HOUSE-TIME, -ZONE
        bottom = r.bottom
        if house.get("rake_zone"):  # the dealer recounts the rake zone or confirms its count
            bottom -= 52
            half = (r.width - 24) // 2
            for k, answer in enumerate(("recount", "confirm")):
                box = pygame.Rect(r.left + 8 + k * (half + 8), bottom + 4, half, 44)
                msg = {"type": "report", "report": "rake_zone", "answer": answer}
                label = self.t(f"ui.console.rake_zone_{answer}")
                enabled = self.allowed("report")
                self.button(f"rake_zone_{answer}", box, label, msg, enabled=enabled, rel=0.036)
        step = max(ROW_MIN, min(28, (bottom - 4 - y) // max(1, len(lines))))
        for i, (line, indent, ink) in enumerate(lines):
            if y + step > bottom - 2:
                self.cut += [text for text, _, _ in lines[i:]]
                break
            box = pygame.Rect(r.left + indent, y, r.width - indent - 8, step)
            self.text(line, box, 0.045 if indent == 8 else 0.042, ink, align="left")
            y += step

    def _buttons(self) -> None:
        """Harmless reports and pages above; the destructive ones (misdeal, kill) apart, in red."""
        grid: list[tuple[str, str, Any, str]] = [
            (f"incident_{k}", self.t(f"ui.incident.{k}"), partial(self.start, k), "warn")
            for k in INCIDENTS
            if k not in DESTRUCTIVE
        ]
        paused = bool(self.console.get("paused"))
        grid += [
            ("clock", self.t("ui.console.call_clock"), partial(self.start, "clock"), "normal"),
            (
                "resume" if paused else "pause",
                self.t("ui.console.resume" if paused else "ui.console.pause"),
                None,
                "go" if paused else "normal",
            ),
            ("floor", self.t("ui.console.floor"), partial(self._set_page, "floor"), "primary"),
            ("deck", self.t("ui.console.deck"), partial(self._set_page, "deck"), "normal"),
            (
                "chiprace",
                self.t("ui.console.chip_race"),
                partial(self._set_page, "chiprace"),
                "normal",
            ),
            ("recall", self.t("ui.console.recall"), partial(self._set_page, "recall"), "normal"),
            ("game", self.t("ui.console.game"), partial(self._set_page, "game"), "go"),
            ("bank", self.t("ui.console.bank"), partial(self._set_page, "bank"), "normal"),
        ]
        between = self.table.get("hand") is None
        if between:  # the dealer starts the next hand by shuffling (TDA-17: it starts there)
            grid.append(("next_hand", self.t("ui.console.next_hand"), None, "go"))
        gated = {f"incident_{k}" for k in INCIDENTS} | {"clock", "pause", "resume", "next_hand"}
        cols, rows = 3, 5
        w, h = 0.47 / cols, 0.72 / rows
        reports = self.allowed("report")
        for i, (id, label, action, style) in enumerate(grid):
            r = self.rect(0.52 + (i % cols) * w, 0.1 + (i // cols) * h, w - 0.008, h - 0.012)
            msg = {"type": "report", "report": id} if id in ("pause", "resume") else None
            if id == "next_hand":
                msg = {"type": "report", "report": "shuffle"}
            enabled = reports or id not in gated  # pages stay open; their sends are gated
            self.button(id, r, label, msg, action, enabled=enabled, style=style, rel=0.04)
        # Apart, below a gap: the reports that end or kill a hand.
        for i, kind in enumerate(DESTRUCTIVE):
            r = self.rect(0.52 + i * 0.235, 0.845, 0.227, 0.145)
            label = self.t(f"ui.incident.{kind}")
            action = partial(self.start, kind)
            self.button(f"incident_{kind}", r, label, None, action, enabled=reports, style="danger")
