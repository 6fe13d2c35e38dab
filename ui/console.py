"""The dealer console: hand progress, what the shoe gives next, incidents, rulings, procedures.

:class:`ConsoleScreen` renders a ``console`` view (docs/protocols/table.md) and
turns the dealer's taps into ``report`` and ``override`` messages. Every
incident and ruling is a guided flow: pick what the rule needs (a card, a
seat, a case, a reason), read the summary with the rule, then confirm. Nothing
is sent before the confirmation.

Messages (fields follow the table events in ``firmware/table/events.py``):

* ``{"type": "report", "report": "exposed" | "face_up" | "marked", "card": "Ah"}``;
  ``"misdeal", "reason"``; ``"premature"``; ``"burn_error", "case": "a" | "b" | "c"``;
  ``"empty_seat", "seat"``; ``"kill", "seat", "reason"``; ``"clock"``; ``"pause"`` / ``"resume"``;
  ``"penalty", "seat", "penalty": "warning" | "rounds" | "disqualification"[, "rounds"], "reason"``;
  ``"deck_step", "step"`` (PE-2); ``"chip_race", "old", "new"`` (TDA-2);
* ``{"type": "override", "override": "adjust_stack", "seat", "chips", "reason"}`` (``chips`` is
  the new stack), ``"award_pot", "seats", "reason"``, ``"void", "reason"``, ``"undo", "reason"``;
* ``{"type": "language", "lang": ...}``.

Reasons are preset sentences sent in the console's language (the audit log
keeps the text the floor chose).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from ui.cards import draw_card, draw_recall
from ui.seat import other_language
from ui.widgets import GOLD, GREEN, MUTED, PANEL, PANEL_HI, RED, TEXT, WHITE, Color, Message, Screen

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
FLOWS: dict[str, tuple[str, tuple[str, ...]]] = {
    # kind: (message type, steps)
    "exposed": ("report", ("card",)),
    "misdeal": ("report", ("misdeal_reason",)),
    "face_up": ("report", ("card",)),
    "premature": ("report", ()),
    "burn_error": ("report", ("case",)),
    "empty_seat": ("report", ("seat",)),
    "marked": ("report", ("card",)),
    "kill": ("report", ("seat", "kill_reason")),
    "clock": ("report", ()),
    "penalty": ("report", ("seat", "penalty", "reason")),
    "adjust_stack": ("override", ("seat", "chips", "reason")),
    "award_pot": ("override", ("seats", "reason")),
    "void": ("override", ("reason",)),
    "undo": ("override", ("reason",)),
}
OPTIONS: dict[str, tuple[str, ...]] = {
    "misdeal_reason": ("first_card", "two_exposed", "wrong_count", "wrong_button", "boxed"),
    "kill_reason": ("unprotected", "penalty", "wrong_count", "fouled"),
    "case": ("a", "b", "c"),
    "penalty": ("warning", "rounds1", "rounds2", "rounds3", "rounds4", "disqualification"),
    "reason": (
        "dealer_error",
        "device_error",
        "player_dispute",
        "rule_misapplied",
        "chip_count",
        "etiquette",
    ),
}
FIELD = {"misdeal_reason": "reason", "kill_reason": "reason"}
HEALTH: dict[str, Color] = {"ok": GREEN, "degraded": GOLD, "fault": RED, "closed": (120, 120, 120)}
CHECKLIST = ("show", "face_down", "scramble", "shuffle", "cut")
RACES = ((5, 25), (25, 100), (100, 500), (500, 1000), (1000, 5000))
RANKS = "AKQJT98765432"


class ConsoleScreen(Screen):
    """The dealer's console. Feed views with :meth:`set_view`, input with :meth:`handle`."""

    def __init__(self, view: Message | None = None, **kwargs: Any) -> None:
        super().__init__(view, **kwargs)
        self.page = "main"
        self.flow: dict[str, Any] | None = None
        self.race: tuple[int, int] | None = None

    # --- view helpers -------------------------------------------------------------------

    @property
    def table(self) -> dict[str, Any]:
        """The view's ``table`` part."""
        return dict(self.view.get("table") or {})

    @property
    def console(self) -> dict[str, Any]:
        """The view's ``console`` part."""
        return dict(self.view.get("console") or {})

    def seat_label(self, number: Any) -> str:
        """``Seat 4 (Ana)`` for seat ``number``."""
        for s in self.table.get("seats") or []:
            if s.get("seat") == number and s.get("name"):
                return self.t("ui.console.seat_named", seat=number, name=s["name"])
        return self.t("ui.seat.number", seat=number)

    def clock_text(self) -> str:
        """Level time left (mm:ss) and the player clock: the redraw trigger."""
        level = self.console.get("level") or {}
        out = ""
        if level.get("seconds_left") is not None:
            left = float(level["seconds_left"]) - (0 if self.console.get("paused") else self.now)
            left = max(0, int(left + 0.999))
            out = f"{left // 60}:{left % 60:02d}"
        clock = self.table.get("clock")
        if clock:
            out += f" {max(0, int(float(clock.get('left', 0)) - self.now + 0.999))}"
        return out

    # --- flows --------------------------------------------------------------------------

    def start(self, kind: str) -> None:
        """Start the guided flow of ``kind`` (an incident, ruling or override)."""
        self.flow = {"kind": kind, "step": 0, "fields": {}, "pick": {}}

    def _cancel(self) -> None:
        self.flow = None
        self.page = "main"

    def _back(self) -> None:
        if self.flow is None or self.flow["step"] == 0:
            self.flow = None
        else:
            self.flow["step"] -= 1

    def _choose(self, name: str, value: Any) -> None:
        assert self.flow is not None
        self.flow["fields"][name] = value
        self.flow["step"] += 1

    def _pick(self, part: str, value: Any) -> None:
        assert self.flow is not None
        pick = self.flow["pick"]
        if part == "seats":
            chosen = set(pick.get("seats", ()))
            chosen ^= {value}
            pick["seats"] = sorted(chosen)
        elif part == "digit":
            pick["chips"] = (pick.get("chips", "") + str(value))[:7]
        elif part == "delete":
            pick["chips"] = pick.get("chips", "")[:-1]
        else:
            pick[part] = value

    def message(self) -> Message:
        """The message the current flow sends on confirmation."""
        assert self.flow is not None
        kind = self.flow["kind"]
        mtype = FLOWS[kind][0]
        msg: Message = {"type": mtype, mtype: kind}
        for name, value in self.flow["fields"].items():
            if name == "penalty" and value.startswith("rounds"):
                msg["penalty"], msg["rounds"] = "rounds", int(value[-1])
            elif name in ("reason", "misdeal_reason", "kill_reason"):
                msg[FIELD.get(name, name)] = self.t(f"ui.option.{name}.{value}")
            else:
                msg[FIELD.get(name, name)] = value
        return msg

    def _confirm(self) -> None:
        self.emit(self.message())
        self.flow = None
        self.page = "main"

    def _set_page(self, page: str) -> None:
        self.page = page

    def _toggle_language(self) -> None:
        self.lang = other_language(self.lang)
        self.emit({"type": "language", "lang": self.lang})

    # --- painting -----------------------------------------------------------------------

    def paint(self) -> None:
        """Draw the status bar and the current page or flow."""
        self._status_bar()
        if self.flow is not None:
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
        else:
            self._progress()
            self._buttons()

    def _back_button(self) -> None:
        self.button(
            "back",
            self.rect(0.79, 0.11, 0.19, 0.08),
            self.t("ui.back_short"),
            action=partial(self._set_page, "main"),
            style="primary",
        )

    def _status_bar(self) -> None:
        bar = self.rect(0, 0, 1, 0.09)
        self.panel(bar, PANEL)
        x = bar.left + 6
        font_h = self.px(0.035)
        for d in self.view.get("devices") or []:
            health = str(d.get("health", "ok"))
            label = f"{d.get('name', '?')}"
            if health != "ok":
                label += " " + self.t(f"ui.health.{health}")
            w = self.fonts.get(font_h).size(label)[0] + 34
            if x + w > bar.left + bar.width * 0.55:
                break
            pill = pygame.Rect(x, bar.top + 6, w, bar.height - 12)
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
        lt = self.rect(0.56, 0.0, 0.32, 0.09)
        if self.console.get("paused"):
            self.text(self.t("ui.console.paused"), lt, 0.045, RED)
        elif level:
            time = self.clock_text().split(" ")[0]
            text = self.t(
                "ui.console.level",
                n=level.get("number"),
                sb=level.get("small_blind"),
                bb=level.get("big_blind"),
                time=time,
            )
            if level.get("ante"):
                text += " " + self.t("ui.console.ante", ante=level["ante"])
            self.text(text, lt, 0.04, GOLD)
        self.button(
            "lang",
            self.rect(0.885, 0.012, 0.11, 0.066),
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
        board = list(t.get("board") or [])[:5]
        cw, ch = w // 9, int(w // 9 * 1.4)
        for i in range(5):
            draw_card(
                self.surface,
                pygame.Rect(x + i * (cw + 4), y, cw, ch),
                str(board[i]) if i < len(board) else None,
                self.fonts,
            )
        actor = t.get("actor")
        if actor is not None:
            self.text(
                self.t("ui.console.actor", seat=self.seat_label(actor)),
                pygame.Rect(x + 5 * (cw + 4) + 6, y, w - 5 * (cw + 4) - 6, ch),
                0.04,
                TEXT,
            )
        y += ch + 8
        alerts = [a for a in c.get("alerts") or [] if a.get("text")]
        faults = [
            d for d in self.view.get("devices") or [] if d.get("health") in ("fault", "degraded")
        ]
        if faults or alerts:
            box = pygame.Rect(x, y, w, 78)
            self.panel(box, (110, 25, 25))
            names = ", ".join(
                f"{d.get('name')}: {self.t('ui.health.' + str(d.get('health')))}" for d in faults
            )
            self.text(
                self.t("ui.console.device_fault", devices=names)
                if names
                else self.t("ui.console.alert"),
                pygame.Rect(box.left + 8, box.top + 4, box.width - 16, 24),
                0.04,
                WHITE,
                align="left",
            )
            if alerts:
                self.paragraph(
                    str(alerts[-1]["text"]),
                    pygame.Rect(box.left + 8, box.top + 30, box.width - 16, 44),
                    0.036,
                    WHITE,
                )
            y += 84
        dist = c.get("distribution") or []
        if dist:
            self._distribution(pygame.Rect(x, y, w, area.bottom - pad - y), dist)
            return
        nxt = c.get("next_card") or {}
        role = str(nxt.get("role") or "none")
        box = pygame.Rect(x, y, w, 70)
        self.panel(box, GOLD if role != "none" else PANEL_HI)
        ink = (0, 0, 0) if role != "none" else MUTED
        self.text(
            self.t("ui.console.next"),
            pygame.Rect(box.left + 8, box.top + 2, box.width - 16, 22),
            0.035,
            ink,
            align="left",
        )
        self.text(
            self._role_text(nxt),
            pygame.Rect(box.left + 8, box.top + 24, box.width - 16, 44),
            0.065,
            ink,
        )
        y += 78
        if c.get("prompt"):
            y = self.paragraph(str(c["prompt"]), pygame.Rect(x, y, w, 56), 0.045, TEXT).bottom + 6
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

    def _distribution(self, r: pygame.Rect, dist: list[dict[str, Any]]) -> None:
        self.panel(r, PANEL_HI, GOLD)
        self.text(
            self.t("ui.console.distribute"),
            pygame.Rect(r.left + 8, r.top + 4, r.width - 16, 28),
            0.05,
            GOLD,
            align="left",
        )
        y = r.top + 36
        for pot in dist:
            line = self.t(
                "ui.console.pot_line", pot=pot.get("pot", ""), amount=pot.get("amount", 0)
            )
            self.text(line, pygame.Rect(r.left + 8, y, r.width - 16, 26), 0.045, TEXT, align="left")
            y += 28
            for seat, amount in (pot.get("shares") or {}).items():
                number = int(seat) if str(seat).isdigit() else seat
                share = self.t("ui.console.share", seat=self.seat_label(number), amount=amount)
                self.text(
                    share, pygame.Rect(r.left + 28, y, r.width - 36, 24), 0.042, WHITE, align="left"
                )
                y += 25
            if y > r.bottom - 24:
                break

    def _buttons(self) -> None:
        grid: list[tuple[str, str, Any, str]] = [
            (f"incident_{k}", self.t(f"ui.incident.{k}"), partial(self.start, k), "warn")
            for k in INCIDENTS
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
        ]
        cols, rows = 3, 5
        w, h = 0.47 / cols, 0.89 / rows
        for i, (id, label, action, style) in enumerate(grid):
            r = self.rect(0.52 + (i % cols) * w, 0.1 + (i // cols) * h, w - 0.008, h - 0.012)
            msg = {"type": "report", "report": id} if id in ("pause", "resume") else None
            self.button(id, r, label, msg, action, style=style, rel=0.04)

    def _grid(
        self,
        items: list[tuple[str, str, Any, str]],
        top: float,
        cols: int,
        rows: int,
        height: float,
    ) -> None:
        w, h = 0.98 / cols, height / rows
        for i, (id, label, action, style) in enumerate(items):
            r = self.rect(0.01 + (i % cols) * w, top + (i // cols) * h, w - 0.008, h - 0.012)
            self.button(id, r, label, None, action, style=style, rel=0.042)

    def _title(self, text: str, sub: str = "") -> None:
        self.text(text, self.rect(0.02, 0.1, 0.76, 0.06), 0.05, GOLD, align="left")
        if sub:
            self.paragraph(sub, self.rect(0.02, 0.16, 0.96, 0.09), 0.042, MUTED)

    def _flow(self) -> None:
        assert self.flow is not None
        kind, step = self.flow["kind"], self.flow["step"]
        steps = FLOWS[kind][1]
        self._title(self.t(f"ui.incident.{kind}"), self.t(f"ui.help.{kind}"))
        nav = [
            ("flow_cancel", self.t("ui.cancel"), self._cancel, "normal"),
            ("flow_back", self.t("ui.back_short"), self._back, "normal"),
        ]
        if step >= len(steps):
            summary = self._summary()
            card = self.flow["fields"].get("card")
            width = 0.7 if card else 0.96
            self.paragraph(summary, self.rect(0.02, 0.27, width, 0.45), 0.055, TEXT)
            if card:
                draw_card(self.surface, self.rect(0.8, 0.27, 0.15, 0.45), str(card), self.fonts)
            nav.append(("flow_confirm", self.t("ui.confirm"), self._confirm, "go"))
            self._grid(nav, 0.8, 3, 1, 0.19)
            return
        name = steps[step]
        self.text(
            self.t(f"ui.step.{name}"), self.rect(0.02, 0.25, 0.96, 0.06), 0.045, TEXT, align="left"
        )
        pick = self.flow["pick"]
        if name == "card":
            ranks = [
                (
                    f"rank_{r}",
                    r.replace("T", "10"),
                    partial(self._pick, "rank", r),
                    "selected" if pick.get("rank") == r else "normal",
                )
                for r in RANKS
            ]
            self._grid(ranks, 0.32, 13, 1, 0.14)
            suits = [
                (
                    f"suit_{s}",
                    self.t(f"ui.suit.{s}"),
                    partial(self._pick, "suit", s),
                    "selected" if pick.get("suit") == s else "normal",
                )
                for s in "shdc"
            ]
            self._grid(suits, 0.47, 4, 1, 0.14)
            if pick.get("rank") and pick.get("suit"):
                nav.append(
                    (
                        "flow_next",
                        self.t("ui.next"),
                        partial(self._choose, "card", pick["rank"] + pick["suit"]),
                        "go",
                    )
                )
        elif name in ("seat", "seats"):
            seats = [int(s["seat"]) for s in self.table.get("seats") or []] or list(range(1, 11))
            multi = name == "seats"
            items = [
                (
                    f"seat_{n}",
                    self.seat_label(n),
                    partial(self._pick, "seats", n) if multi else partial(self._choose, "seat", n),
                    "selected" if n in pick.get("seats", ()) else "normal",
                )
                for n in seats
            ]
            self._grid(items, 0.32, 5, 2, 0.42)
            if multi and pick.get("seats"):
                nav.append(
                    (
                        "flow_next",
                        self.t("ui.next"),
                        partial(self._choose, "seats", list(pick["seats"])),
                        "go",
                    )
                )
        elif name == "chips":
            keys = [
                (f"key_{d}", str(d), partial(self._pick, "digit", d), "normal")
                for d in (*range(1, 10), 0)
            ]
            keys.append(
                ("key_delete", self.t("ui.delete"), partial(self._pick, "delete", None), "normal")
            )
            self._grid(keys, 0.32, 6, 2, 0.3)
            self.text(pick.get("chips", "") or "0", self.rect(0.02, 0.64, 0.96, 0.12), 0.09, GOLD)
            if pick.get("chips"):
                nav.append(
                    (
                        "flow_next",
                        self.t("ui.next"),
                        partial(self._choose, "chips", int(pick["chips"])),
                        "go",
                    )
                )
        else:
            items = [
                (
                    f"option_{o}",
                    self.t(f"ui.option.{name}.{o}"),
                    partial(self._choose, name, o),
                    "normal",
                )
                for o in OPTIONS[name]
            ]
            self._grid(items, 0.32, 2, 3, 0.45)
        self._grid(nav, 0.8, 3, 1, 0.19)

    def _summary(self) -> str:
        msg = self.message()
        parts = [self.t(f"ui.incident.{self.flow['kind']}")] if self.flow else []
        for key, value in msg.items():
            if key in ("type", "report", "override"):
                continue
            if key == "seat":
                value = self.seat_label(value)
            elif key == "seats":
                value = ", ".join(self.seat_label(v) for v in value)
            parts.append(f"{self.t('ui.field.' + key)}: {value}")
        return ". ".join(parts) + ". " + self.t("ui.console.confirm_hint")

    def _floor_page(self) -> None:
        self._title(self.t("ui.console.floor"), self.t("ui.help.floor"))
        items = [
            (f"floor_{k}", self.t(f"ui.incident.{k}"), partial(self.start, k), "primary")
            for k in ("penalty", "adjust_stack", "award_pot", "void", "undo")
        ]
        self._grid(items, 0.3, 3, 2, 0.4)
        self._back_button()

    def _deck_page(self) -> None:
        deck = self.console.get("deck") or {}
        done = list(deck.get("checklist") or [])
        self._title(self.t("ui.console.deck"), self.t("ui.help.deck"))
        for i, step in enumerate(CHECKLIST):
            r = self.rect(0.02, 0.27 + i * 0.1, 0.6, 0.09)
            ok = step in done or (bool(deck.get("ready")) and not done)
            self.panel(r, PANEL_HI if ok else PANEL)
            mark = pygame.Rect(r.left + 8, r.top + 8, r.height - 16, r.height - 16)
            pygame.draw.rect(
                self.surface, GREEN if ok else MUTED, mark, width=0 if ok else 2, border_radius=4
            )
            self.text(
                f"{i + 1}. {self.t('ui.deck.' + step)}",
                pygame.Rect(mark.right + 10, r.top, r.width - mark.width - 24, r.height),
                0.042,
                TEXT,
                align="left",
            )
        nxt = next((s for s in CHECKLIST if s not in done), None)
        if nxt is not None and not (deck.get("ready") and not done):
            msg = {"type": "report", "report": "deck_step", "step": nxt}
            self.button(
                "deck_step",
                self.rect(0.64, 0.27, 0.34, 0.19),
                self.t("ui.deck.done", step=self.t("ui.deck." + nxt)),
                msg,
                style="go",
            )
        status = self.t("ui.deck.ready") if deck.get("ready") else self.t("ui.deck.not_ready")
        self.text(
            status, self.rect(0.64, 0.5, 0.34, 0.08), 0.045, GREEN if deck.get("ready") else RED
        )
        repair = deck.get("needs_repair") or []
        if repair:
            self.paragraph(
                self.t("ui.deck.repair", cards=", ".join(map(str, repair))),
                self.rect(0.64, 0.6, 0.34, 0.2),
                0.038,
                GOLD,
            )
        self._back_button()

    def _chip_race_page(self) -> None:
        self._title(self.t("ui.console.chip_race"), self.t("ui.help.chip_race"))
        for i in range(1, 5):
            self.paragraph(
                self.t(f"ui.race.step{i}"),
                self.rect(0.02, 0.26 + (i - 1) * 0.095, 0.55, 0.09),
                0.036,
                TEXT,
            )
        for i, (old, new) in enumerate(RACES):
            r = self.rect(0.6, 0.26 + i * 0.105, 0.38, 0.095)
            label = self.t("ui.race.pair", old=old, new=new)
            self.button(
                f"race_{old}_{new}",
                r,
                label,
                None,
                partial(self._set_race, (old, new)),
                style="primary",
                rel=0.042,
            )
        self._back_button()
        if self.race is not None:
            old, new = self.race
            msg = {"type": "report", "report": "chip_race", "old": old, "new": new}
            self.dialog(
                self.t("ui.race.confirm", old=old, new=new),
                self.t("ui.race.step4"),
                [
                    ("race_cancel", self.t("ui.cancel"), partial(self._set_race, None), "normal"),
                    ("race_confirm", self.t("ui.confirm"), partial(self._set_race, None), "go"),
                ],
                {"race_confirm": msg},
            )

    def _set_race(self, race: tuple[int, int] | None) -> None:
        self.race = race
