"""The seat touchscreen: one player's view of the table, and the messages the player's taps send.

:class:`SeatScreen` renders a seat ``view`` (docs/protocols/table.md) and only
that view: every card it draws comes from the view's ``board`` and ``seats``
entries, so it cannot show a card the controller did not send.

Messages produced (exactly the contract's client → controller messages):

* ``{"type": "act", "action": "fold"}``, ``{"type": "act", "action": "check"}``,
  ``{"type": "act", "action": "call", "amount": N}``,
  ``{"type": "act", "action": "bet" | "raise" | "allin", "amount": N}`` (``N`` is the
  total the bet is made *to*, as in ``legal``; the all-in preset sends ``allin``);
* ``{"type": "advance", "action": "fold" | "check_fold" | "check" | "call" | "cancel"}``;
* ``{"type": "declare_raise"}``; ``{"type": "sit_out"}`` / ``{"type": "sit_in"}``;
* ``{"type": "rebuy", "chips": N}`` (after a confirmation: a rebuy is binding, TDA-18);
* ``{"type": "show", "cards": ["Ah", "Kd"]}`` / ``{"type": "muck"}`` at the showdown, when the
  seat has a live hand not yet tabled and it is its turn to show (``table.to_show``; without
  that field, whenever it has such a hand);
* ``{"type": "language", "lang": "es" | "en"}``.

Four-colour deck, large text and the recall page are local display choices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any

import pygame

from ui.cards import draw_card, draw_recall
from ui.widgets import (
    GOLD,
    MUTED,
    PANEL,
    PANEL_HI,
    RED,
    TEXT,
    WHITE,
    Message,
    Screen,
)

STATUS_KEYS = {
    "folded": "ui.status.folded",
    "all-in": "ui.status.all_in",
    "sitting-out": "ui.status.sitting_out",
    "away": "ui.status.away",
    "waiting": "ui.status.waiting",
}
ADVANCE = (
    ("fold", "ui.advance.fold"),
    ("check_fold", "ui.advance.check_fold"),
    ("check", "ui.advance.check"),
    ("call", "ui.advance.call"),
)
PRESETS = (
    ("min", "ui.preset.min"),
    ("half_pot", "ui.preset.half_pot"),
    ("pot", "ui.preset.pot"),
    ("all_in", "ui.preset.all_in"),
)


def other_language(lang: str) -> str:
    """The language the language button switches to."""
    return "en" if lang == "es" else "es"


class SeatScreen(Screen):
    """A player's screen. Feed views with :meth:`set_view`, input with :meth:`handle`.

    :param view: The first ``view`` message (``audience`` ``seat``).
    :param four_colour: Draw a four-colour deck.
    :param rebuy_chips: Rebuy amounts offered when the seat has no chips, used when the
        view carries none (``view["rebuy"]["chips"]``, an optional extension).
    """

    def __init__(
        self,
        view: Message | None = None,
        *,
        four_colour: bool = False,
        rebuy_chips: Sequence[int] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(view, **kwargs)
        self.four_colour = four_colour
        self.rebuy_chips = tuple(rebuy_chips)
        self.page = "table"
        self.amount: int | None = None
        self.advance: str | None = None
        self.rebuy_pick: int | None = None
        self._turn_key: tuple[Any, ...] = ()
        self.on_view()

    # --- view helpers -------------------------------------------------------------------

    @property
    def table(self) -> dict[str, Any]:
        """The view's ``table`` part ({} if absent)."""
        return dict(self.view.get("table") or {})

    @property
    def legal(self) -> dict[str, Any] | None:
        """The seat's legal actions when it is to act, else ``None``."""
        legal = self.view.get("legal")
        return dict(legal) if legal else None

    def me(self) -> dict[str, Any]:
        """This seat's entry in the view ({} if absent)."""
        mine = self.view.get("seat")
        for s in self.table.get("seats") or []:
            if s.get("seat") == mine:
                return dict(s)
        return {}

    def seat_name(self, number: int | None) -> str:
        """The name at seat ``number`` (or the seat number)."""
        for s in self.table.get("seats") or []:
            if s.get("seat") == number:
                return str(s.get("name") or self.t("ui.seat.number", seat=number))
        return self.t("ui.seat.number", seat=number)

    def raise_range(self) -> tuple[int, int] | None:
        """``(min, max)`` of a bet or raise, or ``None`` if the seat cannot raise."""
        legal = self.legal or {}
        low, high = legal.get("min_raise"), legal.get("max_raise")
        if low is None or high is None or high < low:
            return None
        return int(low), int(high)

    def on_view(self) -> None:
        """Reset the slider when a new decision starts, and advance actions on a new street."""
        t = self.table
        key = (t.get("hand"), t.get("street"), t.get("actor"), bool(self.view.get("legal")))
        if key != self._turn_key:
            street_changed = self._turn_key[:2] != key[:2]
            self._turn_key = key
            rng = self.raise_range()
            self.amount = rng[0] if rng else None
            if street_changed or self.legal:
                self.advance = None

    def clock_text(self) -> str:
        """The countdown in whole seconds ('' when no clock runs)."""
        clock = self.table.get("clock")
        if not clock:
            return ""
        left = max(0.0, float(clock.get("left", 0)) - self.now)
        return str(math.ceil(left))

    def clock_urgent(self) -> bool:
        """The last ten seconds (or the called clock's countdown): shown large and red (TDA-5)."""
        clock = self.table.get("clock") or {}
        text = self.clock_text()
        return bool(text) and (bool(clock.get("countdown")) or int(text) <= 10)

    # --- local actions ------------------------------------------------------------------

    def _set_amount(self, value: int) -> None:
        self.amount = value

    def _toggle_language(self) -> None:
        self.lang = other_language(self.lang)
        self.emit({"type": "language", "lang": self.lang})

    def _toggle(self, attr: str) -> None:
        setattr(self, attr, not getattr(self, attr))

    def _set_page(self, page: str) -> None:
        self.page = page

    def _set_advance(self, action: str) -> None:
        if self.advance == action:
            self.advance = None
            self.emit({"type": "advance", "action": "cancel"})
        else:
            self.advance = action
            self.emit({"type": "advance", "action": action})

    def _pick_rebuy(self, chips: int | None) -> None:
        self.rebuy_pick = chips

    def _confirm_rebuy(self) -> None:
        if self.rebuy_pick is not None:
            self.emit({"type": "rebuy", "chips": self.rebuy_pick})
        self.rebuy_pick = None

    def all_in_amount(self) -> int | None:
        """This seat's all-in total (stack plus bet), from its seat entry."""
        me = self.me()
        return int(me.get("stack") or 0) + int(me.get("bet") or 0) if me else None

    def bet_message(self, amount: int) -> Message:
        """The ``act`` message for a bet or raise to ``amount`` (``allin`` for the whole stack)."""
        if amount == self.all_in_amount():
            return {"type": "act", "action": "allin", "amount": amount}
        facing = any(int(s.get("bet") or 0) > 0 for s in self.table.get("seats") or [])
        return {"type": "act", "action": "raise" if facing else "bet", "amount": amount}

    def showdown_cards(self) -> list[str]:
        """This seat's two cards when it may show or muck now, else ``[]``.

        At the showdown, with a live hand not yet tabled, on its turn to show:
        ``table.to_show`` names that seat; a view without the field allows it.
        """
        t, me = self.table, self.me()
        cards = [str(c) for c in me.get("cards") or []]
        if (
            t.get("phase") != "showdown"
            or me.get("status") not in ("active", "all-in")
            or me.get("shown")
            or len(cards) != 2
            or "??" in cards
        ):
            return []
        if "to_show" in t and t["to_show"] != self.view.get("seat"):
            return []
        return cards

    # --- painting -----------------------------------------------------------------------

    def paint(self) -> None:
        """Draw the table page or the recall page."""
        self._top_bar()
        if self.page == "recall":
            self._recall()
            return
        self._seats()
        self._middle()
        self._own_cards()
        self._actions()
        if self.rebuy_pick is not None:
            self._rebuy_dialog()

    def _top_bar(self) -> None:
        t = self.table
        bar = self.rect(0, 0, 1, 0.09)
        self.panel(bar, PANEL)
        hand = t.get("hand")
        title = self.t("ui.seat.hand", hand=hand) if hand is not None else self.t("ui.seat.between")
        mine = self.view.get("seat")
        title = f"{self.t('ui.seat.number', seat=mine)} · {title}"
        self.text(title, self.rect(0.01, 0.005, 0.33, 0.08), 0.045, TEXT, align="left")
        y, h, rel = 0.012, 0.066, 0.038
        lang_label = self.t("ui.lang.other")
        self.button(
            "lang", self.rect(0.35, y, 0.1, h), lang_label, action=self._toggle_language, rel=rel
        )
        self.button(
            "large_text",
            self.rect(0.46, y, 0.1, h),
            self.t("ui.large_text"),
            action=lambda: self._toggle("large_text"),
            style="selected" if self.large_text else "toggle",
            rel=rel,
        )
        self.button(
            "four_colour",
            self.rect(0.57, y, 0.1, h),
            self.t("ui.four_colour"),
            action=lambda: self._toggle("four_colour"),
            style="selected" if self.four_colour else "toggle",
            rel=rel,
        )
        if self.page == "recall":
            self.button(
                "back",
                self.rect(0.68, y, 0.31, h),
                self.t("ui.back"),
                action=lambda: self._set_page("table"),
                style="primary",
                rel=rel,
            )
            return
        self.button(
            "recall",
            self.rect(0.68, y, 0.14, h),
            self.t("ui.recall"),
            action=lambda: self._set_page("recall"),
            rel=rel,
        )
        if self.me().get("status") == "sitting-out":
            self.button(
                "sit_in",
                self.rect(0.83, y, 0.16, h),
                self.t("ui.sit_in"),
                {"type": "sit_in"},
                style="go",
                rel=rel,
            )
        elif self.me():
            self.button(
                "sit_out",
                self.rect(0.83, y, 0.16, h),
                self.t("ui.sit_out"),
                {"type": "sit_out"},
                rel=rel,
            )

    def _seats(self) -> None:
        seats = sorted(self.table.get("seats") or [], key=lambda s: int(s.get("seat", 0)))
        per_row = 5
        w, h = 0.192, 0.145
        for i, s in enumerate(seats[:10]):
            col, row = i % per_row, i // per_row
            r = self.rect(0.01 + col * (w + 0.004), 0.1 + row * (h + 0.008), w, h)
            self._seat_tile(r, s)

    def _seat_tile(self, r: pygame.Rect, s: dict[str, Any]) -> None:
        t = self.table
        number = s.get("seat")
        status = str(s.get("status") or "active")
        is_actor = t.get("actor") == number
        is_me = self.view.get("seat") == number
        fill = PANEL_HI if is_me else PANEL
        border = GOLD if is_actor else (WHITE if is_me else None)
        self.panel(r, fill, border)
        pad = max(3, r.width // 30)
        inner = r.inflate(-2 * pad, -2 * pad)
        cards = [c for c in (s.get("cards") or [])][:2]
        text_w = inner.width if not cards else int(inner.width * 0.58)
        line_h = inner.height // 3
        ink = MUTED if status in ("folded", "sitting-out", "away") else TEXT
        badges = []
        if s.get("button"):
            badges.append("D")
        if s.get("blind"):
            badges.append(str(s["blind"]))
        if s.get("markers"):
            badges.append(str(s["markers"]))
        name = f"{number} {s.get('name') or ''}".strip()
        name_w = text_w - (len(badges) * line_h if not cards else 0)
        self.text(name, pygame.Rect(inner.left, inner.top, name_w, line_h), 0.05, ink, align="left")
        self.text(
            self.t("ui.seat.stack", amount=s.get("stack", 0)),
            pygame.Rect(inner.left, inner.top + line_h, text_w, line_h),
            0.045,
            ink,
            align="left",
        )
        bet = int(s.get("bet") or 0)
        third = pygame.Rect(inner.left, inner.top + 2 * line_h, text_w, line_h)
        if status in STATUS_KEYS:
            colour = RED if status == "all-in" else MUTED
            self.text(self.t(STATUS_KEYS[status]), third, 0.045, colour, align="left")
        elif bet:
            self.text(self.t("ui.seat.bet", amount=bet), third, 0.045, GOLD, align="left")
        elif s.get("chips"):
            # The stack by denomination, where the chip trays read it (TDA-19).
            breakdown = " ".join(f"{n}×{d}" for d, n in s["chips"].items())
            self.text(breakdown, third, 0.04, MUTED, align="left")
        if bet and status == "all-in":
            self.text(str(bet), third, 0.045, GOLD, align="right")
        if badges:
            self._badges(badges, r)
        if cards:
            cw = min(int(inner.width * 0.2), int(inner.height * 0.68))
            ch = min(inner.height - 2, int(cw * 1.45))
            x = inner.right - 2 * cw - 3
            for j, c in enumerate(cards):
                cr = pygame.Rect(x + j * (cw + 3), inner.bottom - ch, cw, ch)
                draw_card(
                    self.surface,
                    cr,
                    str(c),
                    self.fonts,
                    four_colour=self.four_colour,
                    dim=status == "folded",
                )

    def _badges(self, badges: list[str], r: pygame.Rect) -> None:
        size = max(14, r.height // 3)
        x = r.right - 4
        for b in reversed(badges):
            w = max(size, self.fonts.get(self.px(0.03)).size(b)[0] + 8)
            br = pygame.Rect(x - w, r.top + 3, w, size)
            colour = WHITE if b == "D" else (GOLD if b in ("SB", "BB") else RED)
            pygame.draw.rect(self.surface, colour, br, border_radius=size // 2)
            self.text(b, br, 0.03, (0, 0, 0) if colour != RED else WHITE)
            x -= w + 3

    def _middle(self) -> None:
        t = self.table
        board = [c for c in (t.get("board") or [])][:5]
        cw, ch = 0.075, 0.19
        for i in range(5):
            r = self.rect(0.02 + i * (cw + 0.008), 0.42, cw, ch)
            draw_card(
                self.surface,
                r,
                str(board[i]) if i < len(board) else None,
                self.fonts,
                four_colour=self.four_colour,
            )
        pot = self.rect(0.445, 0.42, 0.32, 0.19)
        self.panel(pot, PANEL)
        pot_total = t.get("pot_total", 0)
        self.text(
            self.t("ui.pot", amount=pot_total)
            if pot_total is not None
            else self.t("ui.pot.hidden"),
            pygame.Rect(pot.left + 8, pot.top + 4, pot.width - 16, pot.height // 2),
            0.06,
            GOLD,
        )
        pots = [p for p in t.get("pots") or [] if p.get("amount") is not None]
        if len(pots) > 1 or (pots and pots[0].get("amount") != t.get("pot_total")):
            parts = []
            for i, p in enumerate(pots):
                key = "ui.pot.main" if i == 0 else "ui.pot.side"
                parts.append(self.t(key, n=i, amount=p.get("amount", 0)))
            line = pygame.Rect(pot.left + 8, pot.centery + 2, pot.width - 16, pot.height // 2 - 6)
            self.text(" · ".join(parts), line, 0.045, TEXT)
        self._clock(self.rect(0.775, 0.42, 0.215, 0.19))

    def _clock(self, r: pygame.Rect) -> None:
        t = self.table
        clock = t.get("clock")
        phase = t.get("phase")
        urgent = bool(clock) and self.clock_urgent()
        self.panel(r, PANEL, RED if urgent else None)
        top = pygame.Rect(r.left + 6, r.top + 4, r.width - 12, r.height // 3)
        if clock:
            who = clock.get("seat")
            label = self.t("ui.clock.you") if who == self.view.get("seat") else self.seat_name(who)
            self.text(label, top, 0.036, TEXT)
            body = pygame.Rect(r.left, r.top + r.height // 3, r.width, r.height * 2 // 3)
            self.text(self.clock_text(), body, 0.12 if urgent else 0.08, RED if urgent else TEXT)
        elif t.get("actor") is not None:
            self.text(self.t("ui.to_act"), top, 0.036, MUTED)
            body = pygame.Rect(r.left + 6, r.top + r.height // 3, r.width - 12, r.height * 2 // 3)
            self.text(self.seat_name(t.get("actor")), body, 0.05, TEXT)
        elif phase:
            self.text(self.t(f"ui.phase.{phase}"), r.inflate(-12, 0), 0.045, MUTED)

    def _own_cards(self) -> None:
        cards = [c for c in (self.me().get("cards") or [])][:2]
        folded = self.me().get("status") == "folded"
        for i in range(2):
            r = self.rect(0.02 + i * 0.145, 0.635, 0.135, 0.35)
            code = str(cards[i]) if i < len(cards) else None
            draw_card(self.surface, r, code, self.fonts, four_colour=self.four_colour, dim=folded)

    def _actions(self) -> None:
        area = self.rect(0.32, 0.635, 0.67, 0.35)
        self.panel(area, PANEL)
        t = self.table
        me = self.me()
        winners = t.get("winners") or []
        if winners and t.get("phase") in ("showdown", "complete"):
            self._winners(area, winners)
        elif self.showdown_cards():
            self._show_or_muck(area)
        elif self.legal:
            self._to_act(area)
        elif me.get("status") == "sitting-out":
            self.text(self.t("ui.sitting_out_help"), area.inflate(-20, -20), 0.045, MUTED)
        elif int(me.get("stack") or 0) == 0 and me and t.get("phase") in (None, "idle", "complete"):
            self._rebuy_prompt(area)
        elif (
            me.get("status", "active") == "active"
            and t.get("phase") == "betting"
            and t.get("actor") not in (None, self.view.get("seat"))
            and me.get("cards")
        ):
            self._advance_toggles(area)
        else:
            msg = self.t("ui.waiting") if t.get("hand") is None else self.t("ui.waiting_hand")
            self.text(msg, area.inflate(-20, -20), 0.05, MUTED)

    def _to_act(self, area: pygame.Rect) -> None:
        legal = self.legal or {}
        x, y, w, h = area
        pad = 6
        row_h = (h - 4 * pad) // 3
        bottom = pygame.Rect(x + pad, y + h - pad - row_h, w - 2 * pad, row_h)
        bw = (bottom.width - 2 * pad) // 3
        rng = self.raise_range()
        if legal.get("fold"):
            self.button(
                "fold",
                pygame.Rect(bottom.left, bottom.top, bw, row_h),
                self.t("ui.act.fold"),
                {"type": "act", "action": "fold"},
                style="danger",
                rel=0.05,
            )
        mid = pygame.Rect(bottom.left + bw + pad, bottom.top, bw, row_h)
        if legal.get("check"):
            self.button(
                "check",
                mid,
                self.t("ui.act.check"),
                {"type": "act", "action": "check"},
                style="go",
                rel=0.05,
            )
        elif legal.get("call"):
            call = int(legal["call"])
            self.button(
                "call",
                mid,
                self.t("ui.act.call", amount=call),
                {"type": "act", "action": "call", "amount": call},
                style="go",
                rel=0.05,
            )
        if rng is None:
            return
        low, high = rng
        amount = min(high, max(low, self.amount if self.amount is not None else low))
        self.amount = amount
        msg = self.bet_message(amount)
        key = {"bet": "ui.act.bet", "raise": "ui.act.raise", "allin": "ui.act.all_in"}[
            msg["action"]
        ]
        self.button(
            "raise",
            pygame.Rect(bottom.left + 2 * (bw + pad), bottom.top, bw, row_h),
            self.t(key, amount=amount),
            msg,
            style="primary",
            rel=0.05,
        )
        # Presets row, then the slider row.
        top = pygame.Rect(x + pad, y + pad, w - 2 * pad, row_h)
        presets = legal.get("presets") or {}
        all_in = self.all_in_amount()
        shown: list[tuple[str, str]] = []
        seen: set[int] = set()
        for k, label in PRESETS:
            v = presets.get(k)
            if v is None or not low <= int(v) <= high or int(v) in seen:
                continue
            if k == "all_in" and int(v) != all_in:
                continue  # a pot-limit cap is not an all-in
            seen.add(int(v))
            shown.append((k, label))
        n = len(shown) + 1
        pw = (top.width - (n - 1) * pad) // n
        for i, (k, label) in enumerate(shown):
            value = int(presets[k])
            text = self.t(label)
            if k == "pot" and value == high and value != all_in:
                text = self.t("ui.preset.pot_max")
            self.button(
                f"preset_{k}",
                pygame.Rect(top.left + i * (pw + pad), top.top, pw, row_h),
                text,
                action=partial(self._set_amount, value),
                style="selected" if value == amount else "normal",
                rel=0.04,
            )
        self.button(
            "declare_raise",
            pygame.Rect(top.left + (n - 1) * (pw + pad), top.top, pw, row_h),
            self.t("ui.declare_raise"),
            {"type": "declare_raise"},
            style="warn",
            rel=0.036,
        )
        srow = pygame.Rect(x + pad, y + 2 * pad + row_h, w - 2 * pad, row_h)
        label_w = srow.width // 4
        self.slider(
            "slider",
            pygame.Rect(srow.left + 14, srow.top, srow.width - label_w - 28, srow.height),
            low,
            high,
            amount,
            self._set_amount,
        )
        self.text(
            str(amount),
            pygame.Rect(srow.right - label_w, srow.top, label_w, srow.height),
            0.06,
            GOLD,
        )

    def _show_or_muck(self, area: pygame.Rect) -> None:
        pad = 8
        head = pygame.Rect(area.left + pad, area.top + pad, area.width - 2 * pad, area.height // 3)
        self.text(self.t("ui.showdown.your_turn"), head, 0.05, TEXT)
        bw = (area.width - 3 * pad) // 2
        row = pygame.Rect(area.left + pad, head.bottom + pad, bw, area.height * 2 // 3 - 3 * pad)
        cards = self.showdown_cards()
        self.button(
            "show", row, self.t("ui.show"), {"type": "show", "cards": cards}, style="go", rel=0.06
        )
        self.button(
            "muck",
            row.move(bw + pad, 0),
            self.t("ui.muck"),
            {"type": "muck"},
            style="danger",
            rel=0.06,
        )

    def _advance_toggles(self, area: pygame.Rect) -> None:
        x, y, w, h = area
        pad = 6
        head = pygame.Rect(x + pad, y + pad, w - 2 * pad, h // 3)
        self.text(self.t("ui.advance.title"), head, 0.04, MUTED)
        n = len(ADVANCE)
        bw = (w - (n + 1) * pad) // n
        for i, (action, key) in enumerate(ADVANCE):
            r = pygame.Rect(x + pad + i * (bw + pad), y + h // 3 + pad, bw, h * 2 // 3 - 2 * pad)
            self.button(
                f"advance_{action}",
                r,
                self.t(key),
                action=partial(self._set_advance, action),
                style="selected" if self.advance == action else "toggle",
                rel=0.042,
            )

    def _winners(self, area: pygame.Rect, winners: list[dict[str, Any]]) -> None:
        pad = 8
        n = max(1, min(3, len(winners)))
        line_h = (area.height - 2 * pad) // (n * 2)
        y = area.top + pad
        for w in winners[:3]:
            who = w.get("seat")
            name = self.t("ui.you") if who == self.view.get("seat") else self.seat_name(who)
            r = pygame.Rect(area.left + pad, y, area.width - 2 * pad, line_h)
            self.text(self.t("ui.wins", name=name, amount=w.get("amount", 0)), r, 0.06, GOLD)
            if w.get("hand"):
                r2 = pygame.Rect(area.left + pad, y + line_h, area.width - 2 * pad, line_h)
                self.text(str(w["hand"]), r2, 0.05, TEXT)
            y += 2 * line_h

    def _rebuy_options(self) -> list[int]:
        extra = self.view.get("rebuy") or {}
        chips = extra.get("chips") if isinstance(extra, dict) else None
        return [int(c) for c in (chips or self.rebuy_chips)]

    def _rebuy_prompt(self, area: pygame.Rect) -> None:
        options = self._rebuy_options()
        pad = 8
        head = pygame.Rect(area.left + pad, area.top + pad, area.width - 2 * pad, area.height // 3)
        self.text(self.t("ui.rebuy.prompt"), head, 0.05, TEXT)
        if not options:
            body = pygame.Rect(area.left + pad, head.bottom, area.width - 2 * pad, area.height // 2)
            self.text(self.t("ui.rebuy.ask_dealer"), body, 0.04, MUTED)
            return
        n = len(options[:4])
        bw = (area.width - (n + 1) * pad) // n
        for i, chips in enumerate(options[:4]):
            r = pygame.Rect(
                area.left + pad + i * (bw + pad), head.bottom + pad, bw, area.height // 2
            )
            self.button(
                f"rebuy_{chips}",
                r,
                self.t("ui.rebuy.chips", chips=chips),
                action=partial(self._pick_rebuy, chips),
                style="primary",
                rel=0.045,
            )

    def _rebuy_dialog(self) -> None:
        self.dialog(
            self.t("ui.rebuy.confirm", chips=self.rebuy_pick),
            self.t("ui.rebuy.binding"),
            [
                ("rebuy_cancel", self.t("ui.cancel"), partial(self._pick_rebuy, None), "normal"),
                ("rebuy_confirm", self.t("ui.confirm"), self._confirm_rebuy, "go"),
            ],
        )

    def _recall(self) -> None:
        entries = list(self.view.get("recall") or [])
        draw_recall(
            self,
            self.rect(0.01, 0.1, 0.98, 0.89),
            entries,
            self.t("ui.recall.title"),
            self.four_colour,
            self.seat_name,
            viewer=self.view.get("seat"),
        )
