"""The dealer console's pages and guided flows (split from :mod:`ui.console`).

:class:`ConsolePages` holds the console's local state (the page shown, the
flow in progress, the PIN being typed) and draws every page except the main
one: the guided incident/ruling flows, the floor page, the new-deck
checklist, the chip race and the staff login; the technician's page (devices
and test mode) is :class:`ui.console_diag.TechnicianPage`.
:class:`ui.console.ConsoleScreen` adds the status bar and the main page.

Roles (from the view's ``staff``, added by the server for the console's own
connection): reports need a ``dealer`` or ``floor`` login, overrides a
``floor`` login; buttons the logged-in person may not use are drawn greyed
and do nothing (the server refuses them anyway).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from firmware.i18n import CATALOG
from ui.cards import draw_card
from ui.console_diag import TechnicianPage
from ui.widgets import GOLD, GREEN, MUTED, PANEL, PANEL_HI, RED, TEXT, Message

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
    "chip_race": ("report", ("cards",)),
    "penalty": ("override", ("seat", "penalty", "reason")),
    "adjust_stack": ("override", ("seat", "chips", "reason")),
    "award_pot": ("override", ("seats", "reason")),
    "void": ("override", ("reason",)),
    "undo": ("override", ("reason",)),
    # Game management (ui.console_game): seat, buy-ins, sit out, cash out, button.
    "sit": ("report", ("free_seat", "player", "chips")),
    "rebuy": ("report", ("seat", "chips")),
    "addon": ("report", ("seat", "chips")),
    "sit_out": ("report", ("seat",)),
    "come_back": ("report", ("seat",)),
    "cash_out": ("report", ("seat",)),
    "set_button": ("report", ("seat",)),
    # Issue 12, second round: seat by player card, the draw for the button.
    "sit_card": ("report", ("player_card", "free_seat", "chips")),
    "draw_button": ("report", ()),
}
SENDS = {"addon": "rebuy", "come_back": "sit_out"}
"""Flows that send another report kind (an add-on is a rebuy; coming back ends sitting out)."""
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
FIELD = {
    "misdeal_reason": "reason",
    "kill_reason": "reason",
    "free_seat": "seat",
    "player_card": "reader",
}
CHECKLIST = ("show", "face_down", "scramble", "shuffle", "cut")
RACES = ((5, 25), (25, 100), (100, 500), (500, 1000), (1000, 5000))
RANKS = "AKQJT98765432"
PIN_LENGTH = (4, 12)


class ConsolePages(TechnicianPage):
    """The console's state, flows and secondary pages (see the module docstring)."""

    def __init__(self, view: Message | None = None, **kwargs: Any) -> None:
        super().__init__(view, **kwargs)
        self.page = "main"
        self.flow: dict[str, Any] | None = None
        self.pin = ""

    # --- view helpers -------------------------------------------------------------------

    @property
    def table(self) -> dict[str, Any]:
        """The view's ``table`` part."""
        return dict(self.view.get("table") or {})

    @property
    def console(self) -> dict[str, Any]:
        """The view's ``console`` part."""
        return dict(self.view.get("console") or {})

    @property
    def staff(self) -> dict[str, Any] | None:
        """Who is logged in on this console (``{"name", "role"}``), or ``None``."""
        staff = self.view.get("staff")
        return dict(staff) if isinstance(staff, dict) and staff.get("role") else None

    def allowed(self, mtype: str) -> bool:
        """Whether the logged-in person may send a ``report`` or an ``override``."""
        role = (self.staff or {}).get("role")
        return role == "floor" if mtype == "override" else role in ("dealer", "floor")

    def seat_label(self, number: Any) -> str:
        """``Seat 4 (Ana)`` for seat ``number``."""
        for s in self.table.get("seats") or []:
            if s.get("seat") == number and s.get("name"):
                return self.t("ui.console.seat_named", seat=number, name=s["name"])
        return self.t("ui.seat.number", seat=number)

    def race_cards_needed(self, old: int, new: int) -> int | None:
        """Cards a chip race deals: one per odd ``old`` chip (TDA-2), from the view's stacks."""
        seats = self.table.get("seats")
        if not seats:
            return None
        return sum((int(s.get("stack") or 0) % new) // old for s in seats)

    # --- flows --------------------------------------------------------------------------

    def start(self, kind: str, **fields: Any) -> None:
        """Start the guided flow of ``kind`` (an incident, ruling or override)."""
        self.flow = {"kind": kind, "step": 0, "fields": dict(fields), "pick": {}}

    def _cancel(self) -> None:
        # Back to the page the flow was started from (the game page, the floor page...).
        self.flow = None

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
        elif part == "add_card":
            pick["cards"] = [*pick.get("cards", []), pick.pop("rank") + pick.pop("suit")]
        elif part == "drop_card":
            pick["cards"] = pick.get("cards", [])[:-1]
        else:
            pick[part] = value

    def message(self) -> Message:
        """The message the current flow sends on confirmation."""
        assert self.flow is not None
        kind = self.flow["kind"]
        mtype = FLOWS[kind][0]
        msg: Message = {"type": mtype, mtype: SENDS.get(kind, kind)}
        for name, value in self.flow["fields"].items():
            if name == "penalty" and value.startswith("rounds"):
                msg["penalty"], msg["rounds"] = "rounds", int(value[-1])
            elif name in ("reason", "misdeal_reason", "kill_reason"):
                msg[FIELD.get(name, name)] = self.t(f"ui.option.{name}.{value}")
            else:
                msg[FIELD.get(name, name)] = value
        return msg

    def _confirm(self) -> None:
        # The console stays on the page the dealer was using (issue 23): the next
        # seating or rebuy starts from the same page.
        self.emit(self.message())
        self.flow = None

    def _set_page(self, page: str) -> None:
        self.page = page
        self.pin = ""

    # --- shared drawing -----------------------------------------------------------------

    def _back_button(self) -> None:
        self.button(
            "back",
            self.rect(0.79, 0.104, 0.19, 0.096),
            self.t("ui.back_short"),
            action=partial(self._set_page, "main"),
            style="primary",
        )

    def _grid(
        self,
        items: list[tuple[str, str, Any, str]],
        top: float,
        cols: int,
        rows: int,
        height: float,
        enabled: bool = True,
    ) -> None:
        w, h = 0.98 / cols, height / rows
        for i, (id, label, action, style) in enumerate(items):
            r = self.rect(0.01 + (i % cols) * w, top + (i // cols) * h, w - 0.008, h - 0.012)
            self.button(id, r, label, None, action, enabled=enabled, style=style, rel=0.042)

    def _title(self, text: str, sub: str = "", width: float = 0.96) -> None:
        """The page's title and its explanation below (``width``: 0.76 beside Back)."""
        self.text(text, self.rect(0.02, 0.1, 0.76, 0.06), 0.05, GOLD, align="left")
        if sub:
            self.paragraph(sub, self.rect(0.02, 0.16, width, 0.1), 0.042, MUTED)

    # --- the guided flow ----------------------------------------------------------------

    def _flow(self) -> None:
        assert self.flow is not None
        kind, step = self.flow["kind"], self.flow["step"]
        steps = FLOWS[kind][1]
        help_key = "ui.help.chip_race_cards" if kind == "chip_race" else f"ui.help.{kind}"
        self._title(self.t(f"ui.incident.{kind}"), self.t(help_key))
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
            self._grid(nav, 0.8, 3, 1, 0.19)
            self.button(
                "flow_confirm",
                self.rect(0.01 + 2 * 0.98 / 3, 0.8, 0.98 / 3 - 0.008, 0.19 - 0.012),
                self.t("ui.confirm"),
                action=self._confirm,
                enabled=self.allowed(FLOWS[kind][0]),
                style="go",
                rel=0.042,
            )
            return
        name = steps[step]
        if name == "cards":
            self._cards_step(nav)
            return
        if name == "player":
            self._name_step(nav)
            return
        if name == "player_card":
            self._card_step(nav)
            return
        self.text(
            self._label("step", name), self.rect(0.02, 0.25, 0.96, 0.06), 0.045, TEXT, align="left"
        )
        pick = self.flow["pick"]
        if name == "card":
            self._card_picker(pick)
            if pick.get("rank") and pick.get("suit"):
                choose = partial(self._choose, "card", pick["rank"] + pick["suit"])
                nav.append(("flow_next", self.t("ui.next"), choose, "go"))
        elif name in ("seat", "seats", "free_seat"):
            self._seat_picker(name, pick, nav)
        elif name == "chips":
            keys = [
                (f"key_{d}", str(d), partial(self._pick, "digit", d), "normal")
                for d in (*range(1, 10), 0)
            ]
            keys.append(
                ("key_delete", self.t("ui.delete"), partial(self._pick, "delete", None), "normal")
            )
            self._grid(keys, 0.32, 6, 2, 0.3)
            self.text(pick.get("chips", "") or "0", self.rect(0.02, 0.64, 0.5, 0.12), 0.09, GOLD)
            self._buy_in_hint(self.rect(0.52, 0.64, 0.46, 0.12))
            if pick.get("chips"):
                choose = partial(self._choose, "chips", int(pick["chips"]))
                nav.append(("flow_next", self.t("ui.next"), choose, "go"))
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

    def _seat_picker(
        self, name: str, pick: dict[str, Any], nav: list[tuple[str, str, Any, str]]
    ) -> None:
        """Every seat of the table in its place (seat 1 first, five to a row), so a seat is
        always where the dealer saw it; the seats the step cannot take are greyed: a taken
        seat when seating a player or reporting an empty seat dealt, an empty seat else."""
        assert self.flow is not None
        taken = {int(s["seat"]) for s in self.table.get("seats") or []}
        top = int(self.console.get("max_seats") or max([10, *taken]))
        wants_empty = name == "free_seat" or self.flow["kind"] == "empty_seat"
        multi = name == "seats"
        cols, rows = 5, max(2, (top + 4) // 5)
        w, h = 0.98 / cols, 0.42 / rows
        for n in range(1, top + 1):
            usable = (n not in taken) if wants_empty else (n in taken or not taken)
            action = partial(self._pick, "seats", n) if multi else partial(self._choose, name, n)
            style = "selected" if n in pick.get("seats", ()) else "normal"
            i = n - 1
            r = self.rect(0.01 + (i % cols) * w, 0.32 + (i // cols) * h, w - 0.008, h - 0.012)
            self.button(
                f"seat_{n}",
                r,
                self.seat_label(n),
                None,
                action,
                enabled=usable,
                style=style,
                rel=0.042,
            )
        if multi and pick.get("seats"):
            choose = partial(self._choose, "seats", list(pick["seats"]))
            nav.append(("flow_next", self.t("ui.next"), choose, "go"))

    def _label(self, prefix: str, name: str) -> str:
        """``ui.prefix.name.kind`` for the flow in progress when the catalog has it, else
        ``ui.prefix.name`` (a buy-in's chips are not a new stack)."""
        kind = self.flow["kind"] if self.flow else ""
        specific = f"ui.{prefix}.{name}.{kind}"
        return self.t(specific if specific in CATALOG else f"ui.{prefix}.{name}")

    def _name_step(self, nav: list[tuple[str, str, Any, str]]) -> None:
        """The player's name on a keyboard (drawn by :class:`ui.console_game.GamePages`)."""
        raise NotImplementedError

    def _buy_in_hint(self, r: pygame.Rect) -> None:
        """The table's buy-in range beside the chips keypad (:class:`ui.console_game.GamePages`)."""
        raise NotImplementedError

    def _card_step(self, nav: list[tuple[str, str, Any, str]]) -> None:
        """The player cards on the readers, to pick one (:class:`ui.console_game.GamePages`)."""
        raise NotImplementedError

    def card_holder(self, reader: Any) -> str:
        """Who holds the card on ``reader`` (:class:`ui.console_game.GamePages`)."""
        raise NotImplementedError

    def _card_picker(self, pick: dict[str, Any], top: float = 0.32) -> None:
        ranks = [
            (
                f"rank_{r}",
                r.replace("T", "10"),
                partial(self._pick, "rank", r),
                "selected" if pick.get("rank") == r else "normal",
            )
            for r in RANKS
        ]
        self._grid(ranks, top, 13, 1, 0.14)
        suits = [
            (
                f"suit_{s}",
                self.t(f"ui.suit.{s}"),
                partial(self._pick, "suit", s),
                "selected" if pick.get("suit") == s else "normal",
            )
            for s in "shdc"
        ]
        self._grid(suits, top + 0.15, 4, 1, 0.14)

    def _cards_step(self, nav: list[tuple[str, str, Any, str]]) -> None:
        """The chip race's cards: pick each card dealt, in order, until every odd chip has one."""
        assert self.flow is not None
        pick, fields = self.flow["pick"], self.flow["fields"]
        cards: list[str] = pick.get("cards", [])
        needed = self.race_cards_needed(int(fields["old"]), int(fields["new"]))
        label = self.t("ui.step.cards", done=len(cards), needed="?" if needed is None else needed)
        self.text(label, self.rect(0.02, 0.25, 0.96, 0.06), 0.045, TEXT, align="left")
        full = needed is not None and len(cards) >= needed
        if not full:
            self._card_picker(pick)
        x = 0.02
        for code in cards[-12:]:
            draw_card(self.surface, self.rect(x, 0.62, 0.05, 0.15), code, self.fonts)
            x += 0.055
        if cards:  # the last card entered can be taken back; else Back to the chip page
            drop = partial(self._pick, "drop_card", 0)
            nav[1] = ("card_drop", self.t("ui.delete"), drop, "normal")
        if pick.get("rank") and pick.get("suit") and not full:
            nav.append(("card_add", self.t("ui.add"), partial(self._pick, "add_card", 0), "go"))
        elif full or (needed is None and cards):
            done = partial(self._choose, "cards", cards)
            nav.append(("flow_next", self.t("ui.next"), done, "go"))
        self._grid(nav, 0.8, 3, 1, 0.19)

    def _summary(self) -> str:
        msg = self.message()
        parts = [self.t(f"ui.incident.{self.flow['kind']}")] if self.flow else []
        for key, value in msg.items():
            if key in ("type", "report", "override"):
                continue
            if key == "seat":
                value = self.seat_label(value)
            elif key == "reader":
                value = self.card_holder(value)
            elif key == "seats":
                value = ", ".join(self.seat_label(v) for v in value)
            elif key == "cards":
                value = " ".join(value) or "-"
            elif isinstance(value, bool):
                continue  # sit out / come back: the consequence says it
            parts.append(f"{self._label('field', key)}: {value}")
        if self.flow and f"ui.consequence.{self.flow['kind']}" in CATALOG:
            seat = msg.get("seat")
            who = self.seat_label(seat) if seat is not None else ""
            if self.flow["kind"] == "sit_card" and seat is not None:
                who = self.t("ui.seat.number", seat=seat)  # not seated yet
            stack = next(
                (s.get("stack", 0) for s in self.table.get("seats") or [] if s.get("seat") == seat),
                0,
            )  # a cash-out states the chips the player takes
            parts.append(self.t(f"ui.consequence.{self.flow['kind']}", seat=who, amount=stack))
        return ". ".join(parts) + ". " + self.t("ui.console.confirm_hint")

    # --- pages --------------------------------------------------------------------------

    def _floor_page(self) -> None:
        self._title(self.t("ui.console.floor"), self.t("ui.help.floor"), 0.76)
        items = [
            (f"floor_{k}", self.t(f"ui.incident.{k}"), partial(self.start, k), "primary")
            for k in ("penalty", "adjust_stack", "award_pot", "void", "undo")
        ]
        self._grid(items, 0.3, 3, 2, 0.4, enabled=self.allowed("override"))
        self._back_button()

    def _deck_page(self) -> None:
        deck = self.console.get("deck") or {}
        done = list(deck.get("checklist") or [])
        self._title(self.t("ui.console.deck"), self.t("ui.help.deck"), 0.76)
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
        if nxt == "show" and not deck.get("ready"):
            # The scan of every card comes from the shoe (DeckScanned), not from a tap.
            self.paragraph(
                self.t("ui.deck.scan_hint"), self.rect(0.64, 0.27, 0.34, 0.19), 0.04, GOLD
            )
        elif nxt is not None and not (deck.get("ready") and not done):
            msg = {"type": "report", "report": "deck_step", "step": nxt}
            self.button(
                "deck_step",
                self.rect(0.64, 0.27, 0.34, 0.19),
                self.t("ui.deck.done", step=self.t("ui.deck." + nxt)),
                msg,
                enabled=self.allowed("report"),
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
        self._title(self.t("ui.console.chip_race"), self.t("ui.help.chip_race"), 0.76)
        for i in range(1, 5):
            self.paragraph(
                self.t(f"ui.race.step{i}"),
                self.rect(0.02, 0.26 + (i - 1) * 0.095, 0.55, 0.09),
                0.036,
                TEXT,
            )
        for i, (old, new) in enumerate(RACES):
            self.button(
                f"race_{old}_{new}",
                self.rect(0.6, 0.26 + i * 0.105, 0.38, 0.095),
                self.t("ui.race.pair", old=old, new=new),
                None,
                partial(self.start, "chip_race", old=old, new=new),
                enabled=self.allowed("report"),
                style="primary",
                rel=0.042,
            )
        self._back_button()

    # --- staff login --------------------------------------------------------------------

    def _type_pin(self, key: str) -> None:
        if key == "delete":
            self.pin = self.pin[:-1]
        elif len(self.pin) < PIN_LENGTH[1]:
            self.pin += key

    def _send_login(self) -> None:
        # The badge is the card in the console's reader: the server reads it there.
        self.emit({"type": "login", "pin": self.pin})
        self._set_page("main")

    def _login_page(self) -> None:
        """Badge in the console's reader + PIN on a keypad; the PIN is never drawn."""
        self._title(self.t("ui.login.title"))
        card = self.console.get("card_present")
        if card is None:
            hint, colour = self.t("ui.login.insert"), TEXT
        elif card:
            hint, colour = self.t("ui.login.card"), GREEN
        else:
            hint, colour = self.t("ui.login.no_card"), RED
        self.paragraph(hint, self.rect(0.02, 0.17, 0.74, 0.1), 0.045, colour)
        shown = self.rect(0.02, 0.29, 0.44, 0.14)
        self.panel(shown, PANEL_HI, GOLD)
        self.text(" ".join("*" * len(self.pin)) or "PIN", shown, 0.08, GOLD if self.pin else MUTED)
        usable = card is not False
        for i, key in enumerate(("1", "2", "3", "4", "5", "6", "7", "8", "9", "delete", "0")):
            col, row = i % 3, i // 3
            self.button(
                f"pin_{key}",
                self.rect(0.5 + col * 0.162, 0.29 + row * 0.135, 0.152, 0.125),
                self.t("ui.delete") if key == "delete" else key,
                action=partial(self._type_pin, key),
                enabled=usable,
                rel=0.06,
            )
        ok = usable and PIN_LENGTH[0] <= len(self.pin) <= PIN_LENGTH[1]
        self.button(
            "login_send",
            self.rect(0.02, 0.46, 0.44, 0.16),
            self.t("ui.login.send"),
            action=self._send_login,
            enabled=ok,
            style="go",
            rel=0.055,
        )
        self.button(
            "login_cancel",
            self.rect(0.02, 0.65, 0.44, 0.12),
            self.t("ui.cancel"),
            action=partial(self._set_page, "main"),
        )
