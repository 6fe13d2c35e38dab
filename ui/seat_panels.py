"""The seat screen's state and action panel (split from :mod:`ui.seat`).

:class:`SeatPanels` holds the seat's local state (the bet amount on the
slider, the advance action chosen, the rebuy being confirmed), reads the view
(the seat's entry, its legal actions, the raise range) and draws the action
panel under the board: the bet/raise controls on the seat's turn, show or
muck at the showdown, the advance-action toggles, the end of the last hand
(winners per pot and the winning hands' names, kept at least :data:`END_HOLD`
seconds and until the next hand's first card), and the rebuy prompt and its
binding confirmation (TDA-18).

Whatever puts the seat's whole stack in - a call, a bet or raise (the slider
at its maximum, the all-in preset) or an advance "call" that would take every
chip - is asked again in a dialog before it is sent.
:class:`ui.seat.SeatScreen` adds the top bar, the seat tiles, the board and
the recall page.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import pygame

from ui.widgets import GOLD, MUTED, PANEL, TEXT, Message, Screen

END_HOLD = 8.0
"""Seconds the end of a hand stays on the seat at least (on the screen's clock), even
when the next hand's first card comes sooner."""

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


class SeatPanels(Screen):
    """The seat's state, view helpers and action panel (see the module docstring).

    :param view: The first ``view`` message (``audience`` ``seat``).
    :param rebuy_chips: Rebuy amounts offered when the seat has no chips, used when the
        view carries none (``view["rebuy"]["chips"]``, an optional extension).
    """

    def __init__(
        self, view: Message | None = None, *, rebuy_chips: Sequence[int] = (), **kwargs: Any
    ) -> None:
        super().__init__(view, **kwargs)
        self.rebuy_chips = tuple(rebuy_chips)
        self.amount: int | None = None
        self.advance: str | None = None
        self.rebuy_pick: int | None = None
        self.allin_pending: Message | None = None
        """A message that puts every chip in, waiting for its confirmation."""
        self._turn_key: tuple[Any, ...] = ()
        self._end: dict[str, Any] | None = None
        self._end_since = 0.0

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
            self.allin_pending = None
            rng = self.raise_range()
            self.amount = rng[0] if rng else None
            if street_changed or self.legal:
                self.advance = None
        ended = self.table.get("ended")
        if ended and (self._end is None or self._end.get("hand") != ended.get("hand")):
            self._end, self._end_since = dict(ended), self.clock

    def ending(self) -> dict[str, Any] | None:
        """The last hand's end to show: while the view carries it, and at least
        :data:`END_HOLD` seconds on the screen's clock once it arrived."""
        ended = self.table.get("ended")
        if ended:
            return dict(ended)
        if self._end is not None and self.clock - self._end_since < END_HOLD:
            return self._end
        return None

    def _rebuy_due(self) -> bool:
        """A busted seat between hands, once the hand's end has been on show END_HOLD
        seconds: the rebuy prompt takes the panel (the board and hands stay above)."""
        me, phase = self.me(), self.table.get("phase")
        busted = bool(me) and int(me.get("stack") or 0) == 0
        waited = self._end is None or self.clock - self._end_since >= END_HOLD
        return busted and phase in (None, "idle", "complete") and waited

    def to_call(self) -> int:
        """Chips a call would add for this seat now (from the seats' bets)."""
        bets = [int(s.get("bet") or 0) for s in self.table.get("seats") or []]
        return max(0, max(bets, default=0) - int(self.me().get("bet") or 0))

    def call_takes_all(self, call: int) -> bool:
        """Whether calling ``call`` more chips puts the seat's whole stack in."""
        stack = int(self.me().get("stack") or 0)
        return stack > 0 and call >= stack

    # --- local actions ------------------------------------------------------------------

    def _set_amount(self, value: int) -> None:
        self.amount = value

    def _set_advance(self, action: str) -> None:
        if self.advance == action:
            self.advance = None
            self.emit({"type": "advance", "action": "cancel"})
        elif action == "call" and self.call_takes_all(self.to_call()):
            self.allin_pending = {"type": "advance", "action": action}  # asked again first
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

    # --- the action panel ---------------------------------------------------------------

    def _actions(self) -> None:
        area = self.rect(0.32, 0.635, 0.67, 0.35)
        self.panel(area, PANEL)
        t = self.table
        me = self.me()
        winners = t.get("winners") or []
        ended = self.ending()
        if self.showdown_cards():
            self._show_or_muck(area)
        elif self.legal:
            self._to_act(area)
        elif t.get("jackpot"):  # a jackpot the floor just confirmed (JACKPOT)
            self._jackpot(area, [str(line) for line in t["jackpot"]])
        elif ended and ended.get("winners") and not self._rebuy_due():
            self._ended(area, ended)
        elif (
            winners and t.get("phase") in ("showdown", "complete", "idle") and not self._rebuy_due()
        ):
            self._winners(area, winners)
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
            message = {"type": "act", "action": "call", "amount": call}
            every_chip = self.call_takes_all(call)  # asked again before it goes
            self.button(
                "call",
                mid,
                self.t("ui.act.call_all_in" if every_chip else "ui.act.call", amount=call),
                None if every_chip else message,
                partial(self._ask_allin, message) if every_chip else None,
                style="danger" if every_chip else "go",
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
        allin = msg["action"] == "allin"  # asked again before it goes (all the chips)
        self.button(
            "raise",
            pygame.Rect(bottom.left + 2 * (bw + pad), bottom.top, bw, row_h),
            self.t(key, amount=amount),
            None if allin else msg,
            partial(self._ask_allin, msg) if allin else None,
            style="danger" if allin else "primary",
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

    def win_line(self, seat: Any, amount: Any) -> str:
        """The win line: "Ana wins 100", or "You win 100" for this seat (its own grammar)."""
        if seat == self.view.get("seat"):
            return self.t("ui.wins.you", amount=amount)
        return self.t("ui.wins", name=self.seat_name(seat), amount=amount)

    def _ended(self, area: pygame.Rect, ended: dict[str, Any]) -> None:
        """The last hand's end: each pot, who won it and with which hand."""
        pots = [p for p in ended.get("pots") or [] if p.get("shares")]
        hands = dict(ended.get("hands") or {})
        if len(pots) <= 1:
            rows = [
                {**w, "hand": w.get("hand") or hands.get(str(w.get("seat")), "")}
                for w in ended.get("winners") or []
            ]
            self._winners(area, rows)
            return
        pad = 8
        line_h = (area.height - 2 * pad) // max(3, len(pots[:4]))
        mine = str(self.view.get("seat"))
        for i, pot in enumerate(pots[:4]):
            names = ", ".join(
                (self.t("ui.you") if seat == mine else self.seat_name(int(seat))) + f" {amount}"
                for seat, amount in pot["shares"].items()
            )
            named = sorted({hands[s] for s in pot["shares"] if hands.get(s)})
            if named:
                names += " · " + " / ".join(named)
            line = self.t("ui.pot_won", pot=pot.get("pot", ""), names=names)
            r = pygame.Rect(
                area.left + pad, area.top + pad + i * line_h, area.width - 2 * pad, line_h
            )
            ink = GOLD if mine in pot["shares"] else TEXT
            self.paragraph(line, r, 0.045, ink)

    def _winners(self, area: pygame.Rect, winners: list[dict[str, Any]]) -> None:
        pots = [p for p in self.view.get("distribution") or [] if p.get("shares")]
        if len(pots) > 1:
            self._pot_winners(area, pots)
            return
        pad = 8
        if pots and pots[0].get("said"):  # "Bote 480 · comisión 20" (HOUSE-RAKE)
            head = pygame.Rect(area.left + pad, area.top + 2, area.width - 2 * pad, 24)
            self.text(str(pots[0]["said"]), head, 0.045, TEXT, align="left")
            area = pygame.Rect(area.left, area.top + 26, area.width, area.height - 26)
        n = max(1, min(3, len(winners)))
        line_h = (area.height - 2 * pad) // (n * 2)
        y = area.top + pad
        for w in winners[:3]:
            r = pygame.Rect(area.left + pad, y, area.width - 2 * pad, line_h)
            self.text(self.win_line(w.get("seat"), w.get("amount", 0)), r, 0.06, GOLD)
            if w.get("hand"):
                r2 = pygame.Rect(area.left + pad, y + line_h, area.width - 2 * pad, line_h)
                self.text(str(w["hand"]), r2, 0.05, TEXT)
            y += 2 * line_h

    def _jackpot(self, area: pygame.Rect, lines: list[str]) -> None:
        """The jackpots the floor confirmed since the last hand, one paragraph each."""
        pad = 8
        line_h = (area.height - 2 * pad) // max(1, min(3, len(lines)))
        for i, line in enumerate(lines[:3]):
            r = pygame.Rect(
                area.left + pad, area.top + pad + i * line_h, area.width - 2 * pad, line_h
            )
            self.paragraph(line, r, 0.045, GOLD)

    def _pot_winners(self, area: pygame.Rect, pots: list[dict[str, Any]]) -> None:
        """Each pot and who won it, one line per pot; the viewer's own wins in gold."""
        pad = 8
        line_h = (area.height - 2 * pad) // max(3, len(pots))
        mine = str(self.view.get("seat"))
        for i, pot in enumerate(pots[:6]):
            names = ", ".join(
                (self.t("ui.you") if seat == mine else self.seat_name(int(seat))) + f" {amount}"
                for seat, amount in pot["shares"].items()
            )
            line = self.t("ui.pot_won", pot=pot.get("said") or pot.get("pot", ""), names=names)
            r = pygame.Rect(
                area.left + pad, area.top + pad + i * line_h, area.width - 2 * pad, line_h
            )
            ink = GOLD if mine in pot["shares"] else TEXT
            self.text(line, r, 0.05, ink, align="left")

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

    def _ask_allin(self, message: Message | None) -> None:
        self.allin_pending = message

    def _confirm_allin(self) -> None:
        pending = self.allin_pending
        if pending is not None:
            self.emit(dict(pending))
            if pending.get("type") == "advance":
                self.advance = str(pending["action"])
        self.allin_pending = None

    def _allin_dialog(self) -> None:
        assert self.allin_pending is not None
        self.dialog(
            self.t("ui.allin.confirm", amount=self.all_in_amount() or 0),
            self.t("ui.allin.binding"),
            [
                ("allin_cancel", self.t("ui.cancel"), partial(self._ask_allin, None), "normal"),
                ("allin_confirm", self.t("ui.allin.go"), self._confirm_allin, "danger"),
            ],
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


__all__ = ["ADVANCE", "PRESETS", "SeatPanels"]
