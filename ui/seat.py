"""The seat touchscreen: one player's view of the table, and the messages the player's taps send.

:class:`SeatScreen` renders a seat ``view`` (docs/protocols/table.md) and only
that view: every card it draws comes from the view's ``board`` and ``seats``
entries, so it cannot show a card the controller did not send.

Messages produced (exactly the contract's client → controller messages):

* ``{"type": "act", "action": "fold"}``, ``{"type": "act", "action": "check"}``,
  ``{"type": "act", "action": "call", "amount": N}``,
  ``{"type": "act", "action": "bet" | "raise" | "allin", "amount": N}`` (``N`` is the
  total the bet is made *to*, as in ``legal``; the all-in preset sends ``allin`` after a
  confirmation dialog, since it puts every chip in);
* ``{"type": "advance", "action": "fold" | "check_fold" | "check" | "call" | "cancel"}``;
* ``{"type": "declare_raise"}``; ``{"type": "sit_out"}`` / ``{"type": "sit_in"}``;
* ``{"type": "rebuy", "chips": N}`` (after a confirmation: a rebuy is binding, TDA-18);
* ``{"type": "show", "cards": ["Ah", "Kd"]}`` / ``{"type": "muck"}`` at the showdown, when the
  seat has a live hand not yet tabled and it is its turn to show (``table.to_show``; without
  that field, whenever it has such a hand);
* ``{"type": "call_floor"}`` (the "call the floor" button; journaled, shown on the console
  until a staff member answers it);
* ``{"type": "language", "lang": "es" | "en"}``.

Four-colour deck, large text and the recall page are local display choices.
With ``hold_to_peek`` (``pokertable screen --seat N --hold-to-peek``) the player's
own cards are drawn face down until a finger is held on them.

Explanations: a tap on a seat's tile explains its badges (D, SB, BB, ML, MS), a
tap on the pot explains the pot and the main and side pots (and, where the house
does not tell the pot's size, why: TDA-34); a legend line under the board names
the badges on screen. Notices (explanations, refusals, "the floor has been
called") are drawn over the seat tiles, never over the action panel or the
player's own cards; a tap on a notice closes it.

The end of a hand (``table.ended``: the board, the hands tabled, each pot's
winners and the winning hands' names) stays on screen until the next hand's
first card, and at least :data:`ui.seat_panels.END_HOLD` seconds.
The acting seat's automatic action timer (house option ``action_timer_seconds``)
counts down in the clock panel, then its time bank in red; the draw for the
button shows each seat's card and the winner until the first hand.

The seat's state and the action panel under the board are
:class:`ui.seat_panels.SeatPanels`; its ``ADVANCE`` and ``PRESETS`` are importable from here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import pygame

from ui.cards import draw_card, draw_recall
from ui.seat_panels import ADVANCE, PRESETS, SeatPanels
from ui.widgets import (
    GOLD,
    MUTED,
    PANEL,
    PANEL_HI,
    RED,
    TEXT,
    WHITE,
    Button,
    Message,
)

RULE_ID = re.compile(r"\s*\((?:(?:TDA|HG|CC|PE|GLI)-\d+(?:,\s*)?)+\)|\b(?:TDA|HG|CC|PE)-\d+")
"""Rule IDs in a sentence (``(TDA-18)``, ``(TDA-27, HG-10)``), dropped on a seat screen."""

WON = (70, 58, 12)
"""A winning seat's tile after the hand (gold border on dark gold)."""

BADGE_HELP = {
    "D": "ui.explain.button",
    "SB": "ui.explain.small_blind",
    "BB": "ui.explain.big_blind",
    "ML": "ui.explain.ML",
    "MS": "ui.explain.MS",
}
"""What a tap on each badge explains."""

STATUS_KEYS = {
    "folded": "ui.status.folded",
    "all-in": "ui.status.all_in",
    "sitting-out": "ui.status.sitting_out",
    "away": "ui.status.away",
    "waiting": "ui.status.waiting",
}


def other_language(lang: str) -> str:
    """The language the language button switches to."""
    return "en" if lang == "es" else "es"


class SeatScreen(SeatPanels):
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
        hold_to_peek: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(view, rebuy_chips=rebuy_chips, **kwargs)
        self.four_colour = four_colour
        self.hold_to_peek = hold_to_peek
        self.peeking = False
        """A finger is held on the own cards (``hold_to_peek``): they are shown face up."""
        self._cards_rect: pygame.Rect | None = None
        self.page = "table"
        self.on_view()

    # --- view helpers -------------------------------------------------------------------

    def clock_text(self) -> str:
        """The countdown in whole seconds: a called clock, else the action timer ('' without)."""
        clock = self.table.get("clock") or self.table.get("timer")
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

    def show_notice(self, text: str, seconds: float = 5.0) -> None:
        """Show a refusal or alert without the rule IDs in it: players do not read them."""
        super().show_notice(RULE_ID.sub("", text).replace(" .", ".").strip(), seconds)

    def explain(self, key: str, **params: Any) -> None:
        """Show the catalog's explanation ``key`` in the notice banner (a tap on a badge)."""
        self.show_notice(self.t(key, **params), 8.0)

    def explain_all(self, keys: Sequence[str]) -> None:
        """Show the explanations ``keys`` one after the other (a tap on a seat's tile)."""
        self.show_notice(" ".join(self.t(k) for k in keys), 10.0)

    def explain_pot(self) -> None:
        """What the pot is; where the house does not tell its size, why (TDA-34)."""
        text = self.t("ui.explain.pot")
        if self.table.get("pot_total") is None and self.table.get("hand") is not None:
            text += " " + self.t("ui.pot.hidden_why")
        self.show_notice(text, 10.0)

    def handle(self, event: pygame.event.Event) -> list[Message]:
        """Input; with ``hold_to_peek`` a finger held on the own cards shows them."""
        press = (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP)
        if self.hold_to_peek and event.type in press and getattr(event, "button", 1) == 1:
            self._ensure()
            down = event.type == pygame.MOUSEBUTTONDOWN
            area = self._cards_rect
            if down and area is not None and area.collidepoint(event.pos):
                self.peeking = True
                self.dirty = True
                return []
            if not down and self.peeking:
                self.peeking = False
                self.dirty = True
                return []
        return super().handle(event)

    def tick(self, seconds: float) -> bool:
        """Advance the clock; redraw when the end of the last hand stops being shown."""
        before = self.ending() is not None
        dirty = super().tick(seconds)
        if (self.ending() is not None) != before:
            self.dirty = dirty = True
        return dirty

    notice_size = 0.06

    def notice_rect(self) -> pygame.Rect:
        """Notices go over the seat tiles: never over the action panel or the own cards."""
        return self.rect(0.01, 0.105, 0.98, 0.305)

    def _toggle_language(self) -> None:
        self.lang = other_language(self.lang)
        self.emit({"type": "language", "lang": self.lang})

    def _toggle(self, attr: str) -> None:
        setattr(self, attr, not getattr(self, attr))

    def _set_page(self, page: str) -> None:
        self.page = page

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
        elif self.allin_pending is not None:
            self._allin_dialog()

    def _top_bar(self) -> None:
        """Title, level line and the bar's buttons (each 44 px high at 480: a finger)."""
        t = self.table
        bar = self.rect(0, 0, 1, 0.1)
        self.panel(bar, PANEL)
        hand = t.get("hand")
        title = self.t("ui.seat.hand", hand=hand) if hand is not None else self.t("ui.seat.between")
        mine = self.view.get("seat")
        title = f"{self.t('ui.seat.number', seat=mine)} · {title}"
        # The level line, or at a cash table the latest time charge (HOUSE-TIME).
        level = self.level_text() or " · ".join((self.view.get("house") or {}).get("lines") or [])
        if level:  # level, blinds and time to the next level, under the title
            self.text(title, self.rect(0.01, 0.0, 0.34, 0.05), 0.045, TEXT, align="left")
            self.text(level, self.rect(0.01, 0.05, 0.34, 0.05), 0.045, GOLD, align="left")
        else:
            self.text(title, self.rect(0.01, 0.005, 0.34, 0.09), 0.05, TEXT, align="left")
        me = self.me()
        row: list[tuple[str, float, str, Message | None, Callable[[], None] | None, str]] = [
            ("lang", 0.08, self.t("ui.lang.other"), None, self._toggle_language, "normal"),
            ("large_text", 0.09, self.t("ui.large_text"), None,
             lambda: self._toggle("large_text"), "selected" if self.large_text else "toggle"),
            ("four_colour", 0.085, self.t("ui.four_colour"), None,
             lambda: self._toggle("four_colour"), "selected" if self.four_colour else "toggle"),
        ]  # fmt: skip
        if self.page == "recall":
            row.append(("back", 0.35, self.t("ui.back"), None,
                        lambda: self._set_page("table"), "primary"))  # fmt: skip
        else:
            row.append(("recall", 0.115, self.t("ui.recall"), None,
                        lambda: self._set_page("recall"), "normal"))  # fmt: skip
            sent = self.t("ui.call_floor.sent")
            row.append(("call_floor", 0.11, self.t("ui.call_floor"), {"type": "call_floor"},
                        lambda: self.show_notice(sent), "warn"))  # fmt: skip
            if me.get("status") == "sitting-out":
                row.append(("sit_in", 0.13, self.t("ui.sit_in"), {"type": "sit_in"}, None, "go"))
            elif me:
                row.append(("sit_out", 0.13, self.t("ui.sit_out"), {"type": "sit_out"}, None,
                            "normal"))  # fmt: skip
        x = 0.355
        for id, width, label, message, action, style in row:
            r = self.rect(x, 0.004, width, 0.092)
            self.button(id, r, label, message, action, style=style, rel=0.045)
            x += width + 0.004

    def _seats(self) -> None:
        seats = sorted(self.table.get("seats") or [], key=lambda s: int(s.get("seat", 0)))
        per_row = 5
        w, h = 0.192, 0.148
        for i, s in enumerate(seats[:10]):
            col, row = i % per_row, i // per_row
            r = self.rect(0.01 + col * (w + 0.004), 0.105 + row * (h + 0.008), w, h)
            self._seat_tile(r, s)

    def _seat_tile(self, r: pygame.Rect, s: dict[str, Any]) -> None:
        t = self.table
        number = s.get("seat")
        status = str(s.get("status") or "active")
        is_actor = t.get("actor") == number
        is_me = self.view.get("seat") == number
        won = t.get("phase") in ("showdown", "complete", "idle") and any(
            w.get("seat") == number for w in t.get("winners") or []
        )
        fill = WON if won else (PANEL_HI if is_me else PANEL)
        border = GOLD if is_actor or won else (WHITE if is_me else None)
        self.panel(r, fill, border)
        pad = max(3, r.width // 30)
        inner = r.inflate(-2 * pad, -2 * pad)
        cards = [c for c in (s.get("cards") or [])][:2]
        ended = self.ending()
        if not cards and ended and not self.table.get("board"):
            cards = list((ended.get("shown") or {}).get(str(number)) or [])[:2]
        if is_me and self.hold_to_peek and not self.peeking:
            cards = ["??" if c else c for c in cards]  # face down on the tile too
        drawn = self.drawn_card(number)
        if drawn and not cards:  # the draw for the button: the seat's card, face up
            cards = [drawn]
        line_h = inner.height // 3
        ink = MUTED if status in ("folded", "sitting-out", "away") else TEXT
        badges = []
        if s.get("button"):
            badges.append("D")
        if s.get("blind"):
            badges.append(str(s["blind"]))
        if s.get("markers"):
            badges.append(str(s["markers"]))
        # Cards top right beside the name and stack; the third line (bet or status) and the
        # badges after it get the tile's whole width.
        cw = min(int(inner.width * 0.17), int((2 * line_h - 2) / 1.45))
        cards_w = len(cards) * (cw + 3) + 2 if cards else 0
        text_w = inner.width - cards_w
        name = f"{number} {s.get('name') or ''}".strip()
        self.text(name, pygame.Rect(inner.left, inner.top, text_w, line_h), 0.05, ink, align="left")
        self.text(
            self.t("ui.seat.stack", amount=s.get("stack", 0)),
            pygame.Rect(inner.left, inner.top + line_h, text_w, line_h),
            0.045,
            ink,
            align="left",
        )
        third = pygame.Rect(inner.left, inner.top + 2 * line_h, inner.width, line_h)
        if badges:
            third.width -= self._badges(badges, third) + 4
        bet = int(s.get("bet") or 0)
        if status in STATUS_KEYS:
            colour = RED if status == "all-in" else MUTED
            label = self.t(STATUS_KEYS[status])
            if bet and status == "all-in":
                label = f"{label} {bet}"
            self.text(label, third, 0.045, colour, align="left")
        elif bet:
            self.text(self.t("ui.seat.bet", amount=bet), third, 0.045, GOLD, align="left")
        elif s.get("chips"):
            # The stack by denomination, where the chip trays read it (TDA-19).
            breakdown = " ".join(f"{n}×{d}" for d, n in s["chips"].items())
            self.text(breakdown, third, 0.04, MUTED, align="left")
        helps = [BADGE_HELP[b] for b in badges if b in BADGE_HELP]
        if helps:  # a tap on the tile explains its badges (the whole tile: a finger's size)
            action = partial(self.explain_all, helps)
            self._frame.buttons.append(Button(f"seat_{number}", r, "", None, action))
        for j, c in enumerate(cards):
            cr = pygame.Rect(
                inner.right - cards_w + 2 + j * (cw + 3), inner.top, cw, int(cw * 1.45)
            )
            draw_card(
                self.surface, cr, str(c), self.fonts, four_colour=self.four_colour,
                dim=status == "folded",
            )  # fmt: skip

    def _badges(self, badges: list[str], line: pygame.Rect) -> int:
        """The badges at the right end of ``line``; return the width they take."""
        size = line.height
        font = self.fonts.get(self.px(0.03))
        x = line.right
        for b in reversed(badges):
            w = max(size, font.size(b)[0] + 10)
            br = pygame.Rect(x - w, line.top, w, size)
            colour = WHITE if b == "D" else (GOLD if b in ("SB", "BB") else RED)
            pygame.draw.rect(self.surface, colour, br, border_radius=size // 2)
            self.text(b, br, 0.03, (0, 0, 0) if colour != RED else WHITE)
            x -= w + 3
        return line.right - x

    def _middle(self) -> None:
        t = self.table
        board = [c for c in (t.get("board") or [])][:5]
        ended = self.ending()
        if not board and ended:  # the last hand's river stays until the next hand's cards
            board = list(ended.get("board") or [])[:5]
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
        # A tap on the pot explains "pot" and the main and side pots.
        self._frame.buttons.append(Button("explain_pot", pot, "", None, self.explain_pot))
        if self._draw_result(pot):
            self._clock(self.rect(0.775, 0.42, 0.215, 0.19))
            return
        pot_total = t.get("pot_total", 0)
        head = pygame.Rect(pot.left + 8, pot.top + 2, pot.width - 16, pot.height // 3)
        below = pygame.Rect(pot.left + 8, head.bottom, pot.width - 16, pot.bottom - head.bottom - 2)
        if pot_total is None and t.get("hand") is None:  # between hands: nothing to hide
            pot_total = sum(int(p.get("amount") or 0) for p in (ended or {}).get("pots") or [])
        if pot_total is None:  # the house does not tell it (TDA-34): say so, readably
            self.text(self.t("ui.pot.hidden"), head, 0.05, GOLD)
            self.paragraph(self.t("ui.pot.hidden_why"), below, 0.045, TEXT)
            self._clock(self.rect(0.775, 0.42, 0.215, 0.19))
            return
        if self.legend() and not self._side_pots():
            self.text(self.t("ui.pot", amount=pot_total), head, 0.05, GOLD)
            self.paragraph(self.legend(), below, 0.045, MUTED)
            self._clock(self.rect(0.775, 0.42, 0.215, 0.19))
            return
        self.text(
            self.t("ui.pot", amount=pot_total),
            pygame.Rect(pot.left + 8, pot.top + 4, pot.width - 16, pot.height // 2),
            0.06,
            GOLD,
        )
        pots = self._side_pots()
        if pots:
            parts = []
            for i, p in enumerate(pots):
                key = "ui.pot.main" if i == 0 else "ui.pot.side"
                parts.append(self.t(key, n=i, amount=p.get("amount", 0)))
            line = pygame.Rect(pot.left + 8, pot.centery + 2, pot.width - 16, pot.height // 2 - 6)
            self.paragraph(" · ".join(parts), line, 0.045, TEXT)
        self._clock(self.rect(0.775, 0.42, 0.215, 0.19))

    def _side_pots(self) -> list[dict[str, Any]]:
        """The pots to list under the total: when there are side pots (else [])."""
        t = self.table
        pots = [p for p in t.get("pots") or [] if p.get("amount") is not None]
        if len(pots) > 1 or (pots and pots[0].get("amount") != t.get("pot_total")):
            return pots
        return []

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
        elif t.get("timer"):
            self._timer(r, top)
        elif t.get("actor") is not None:
            self.text(self.t("ui.to_act"), top, 0.036, MUTED)
            body = pygame.Rect(r.left + 6, r.top + r.height // 3, r.width - 12, r.height * 2 // 3)
            self.text(self.seat_name(t.get("actor")), body, 0.05, TEXT)
        elif phase:
            self.text(self.t(f"ui.phase.{phase}"), r.inflate(-12, 0), 0.045, MUTED)

    def _timer(self, r: pygame.Rect, top: pygame.Rect) -> None:
        """The acting seat's action timer, then its time bank in red (the bank left below)."""
        timer = dict(self.table.get("timer") or {})
        mine = timer.get("seat") == self.view.get("seat")
        bank = timer.get("phase") == "bank"
        if bank:
            label = (
                self.t("ui.timer.bank_you")
                if mine
                else self.t("ui.timer.bank", seat=timer.get("seat"))
            )
        else:
            label = self.t("ui.clock.you") if mine else self.seat_name(timer.get("seat"))
        if bank:  # "Seat 2: time bank" may take two lines; the seconds below, large
            head = pygame.Rect(top.left, top.top, top.width, r.height * 9 // 20)
            self.paragraph(label, head, 0.036, RED)
            body = pygame.Rect(r.left, head.bottom, r.width, r.bottom - head.bottom - 2)
            self.text(self.clock_text(), body, 0.09, RED)
            return
        self.text(label, top, 0.036, TEXT)
        body = pygame.Rect(r.left, r.top + r.height // 3, r.width, r.height * 4 // 9)
        self.text(self.clock_text(), body, 0.07, TEXT)
        if timer.get("bank"):
            below = pygame.Rect(r.left + 6, body.bottom, r.width - 12, r.bottom - body.bottom - 2)
            left = int(float(timer["bank"]))
            self.text(self.t("ui.timer.bank_left", seconds=left), below, 0.034, MUTED)

    def drawn_card(self, number: Any) -> str:
        """The card ``number`` drew for the button ('' without a draw on show)."""
        draw = self.table.get("button_draw") or {}
        for row in draw.get("cards") or []:
            if row.get("seat") == number:
                return str(row.get("card") or "")
        return ""

    def _draw_result(self, r: pygame.Rect) -> bool:
        """The draw for the button in the pot panel (between hands); whether it was shown."""
        draw = self.table.get("button_draw")
        if not draw or self.table.get("hand") is not None:
            return False
        button = draw.get("button")
        half = pygame.Rect(r.left + 8, r.top + 4, r.width - 16, r.height // 2)
        self.text(self.t("ui.draw_button.title"), half, 0.045, GOLD)
        line = self.t(
            "ui.draw_button.result",
            seat=self.seat_name(button),
            card=self.drawn_card(button),
        )
        self.paragraph(line, half.move(0, half.height - 2), 0.038, TEXT)
        return True

    def legend(self) -> str:
        """The legend line: the missed-blind badges on screen, and that a tap explains them."""
        marks = sorted({str(s.get("markers")) for s in self.table.get("seats") or []} - {""})
        if not marks:
            return ""
        return self.t("ui.legend.markers", marks="/".join(marks))

    def _own_cards(self) -> None:
        cards = [c for c in (self.me().get("cards") or [])][:2]
        folded = self.me().get("status") == "folded"
        hidden = self.hold_to_peek and not self.peeking and any(c and c != "??" for c in cards)
        area = self.rect(0.02, 0.635, 0.28, 0.35)
        self._cards_rect = area
        for i in range(2):
            r = self.rect(0.02 + i * 0.145, 0.635, 0.135, 0.35)
            code = str(cards[i]) if i < len(cards) else None
            if hidden and code is not None:
                code = "??"  # face down until a finger is held on them
            draw_card(self.surface, r, code, self.fonts, four_colour=self.four_colour, dim=folded)
        band = self.rect(0.02, 0.865, 0.28, 0.12)  # two lines over the cards' lower half
        if hidden:
            self.panel(band, PANEL)
            self.paragraph(self.t("ui.peek.hold"), band.inflate(-8, -4), 0.045, TEXT)
            return
        own = self.view.get("own_hand")
        if own and not folded:  # the player's own hand, named (at the showdown above all)
            self.panel(band, PANEL, GOLD)
            self.paragraph(self.t("ui.own_hand", hand=own), band.inflate(-8, -4), 0.045, GOLD)

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


__all__ = ["ADVANCE", "PRESETS", "STATUS_KEYS", "SeatScreen", "other_language"]
