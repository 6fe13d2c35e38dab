"""The console's technician page: device status and the test mode (split from ui.console_pages).

Drawn when the view's audience is ``technician`` (docs/protocols/table.md):

* left: the report of the last test, item by item (PASS/FAIL, what was
  tested, its sentence), a page at a time; before any report, and while a
  test runs, the device list with each device's health and identity;
* right: the test mode. Start buttons (all devices, or one), greyed with the
  reason during a hand; while a test runs, the step to do now (what to press,
  place, present or look at), Yes/No for a question (an LED lit?) and Cancel.

Messages: ``{"type": "diag_start"}`` / ``{"type": "diag_start", "device": name}``,
``{"type": "diag_answer", "yes": true | false}``, ``{"type": "diag_cancel"}``.
The start buttons appear only with a view that carries ``diag`` (a server
with test mode).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from ui.widgets import GOLD, GREEN, MUTED, PANEL, PANEL_HI, RED, TEXT, Color, Message, Screen

HEALTH: dict[str, Color] = {"ok": GREEN, "degraded": GOLD, "fault": RED, "closed": (120, 120, 120)}
REPORT_ROWS = 7
"""Report items per page."""

LEFT = (0.02, 0.55)
"""The left column's x and width (report or devices)."""
RIGHT = (0.59, 0.39)
"""The right column's x and width (test mode)."""


class TechnicianPage(Screen):
    """The technician's page (see the module docstring)."""

    report_page = 0
    """The report page shown (class default; set per screen when paging)."""

    @property
    def diag(self) -> dict[str, Any]:
        """The view's ``diag`` part (empty from a server without test mode)."""
        return dict(self.view.get("diag") or {})

    def _technician_page(self) -> None:
        """Devices or the last report on the left, the test mode on the right."""
        diag = self.diag
        self.text(
            self.t("ui.tech.title"), self.rect(0.02, 0.1, 0.55, 0.06), 0.05, GOLD, align="left"
        )
        report = diag.get("report")
        if report and diag.get("state") != "running":
            self._report(report)
        else:
            self._devices()
        if diag:
            self._test_mode(diag)

    # --- left column ----------------------------------------------------------------------

    def _devices(self) -> None:
        x, w = LEFT if self.diag else (0.02, 0.96)
        devices = list(self.view.get("devices") or [])
        if not devices:
            self.text(self.t("ui.tech.none"), self.rect(x, 0.2, w, 0.08), 0.045, MUTED)
        for i, d in enumerate(devices[:8]):
            r = self.rect(x, 0.18 + i * 0.1, w, 0.09)
            health = str(d.get("health", "ok"))
            self.panel(r, PANEL)
            pygame.draw.circle(self.surface, HEALTH.get(health, RED), (r.left + 16, r.centery), 8)
            identity = d.get("identity") or {}
            detail = " ".join(str(identity.get(k, "")) for k in ("model", "serial", "firmware"))
            fault = d.get("fault") or ""
            shown = d.get("label") or d.get("name", "?")
            line = f"{shown}: {self.t('ui.health.' + health)}  {detail} {fault}"
            self.text(line.strip(), r.inflate(-44, 0).move(14, 0), 0.042, TEXT, align="left")

    def _report(self, report: dict[str, Any]) -> None:
        # Failures first, so the first page shows what needs repair; otherwise in test order.
        items = sorted(report.get("items") or [], key=lambda i: bool(i.get("passed")))
        pages = max(1, -(-len(items) // REPORT_ROWS))
        self.report_page = min(self.report_page, pages - 1)
        x, w = LEFT
        count, failed = len(items), int(report.get("failed") or 0)
        verdict = (
            self.t("ui.diag.passed", count=count)
            if report.get("passed")
            else self.t("ui.diag.failed", failed=failed, count=count)
        )
        head = self.rect(x, 0.165, w, 0.06)
        self.panel(head, PANEL_HI, GREEN if report.get("passed") else RED)
        colour = GREEN if report.get("passed") else RED
        self.text(verdict, head.inflate(-16, -4), 0.042, colour)
        start = self.report_page * REPORT_ROWS
        for i, item in enumerate(items[start : start + REPORT_ROWS]):
            r = self.rect(x, 0.235 + i * 0.092, w, 0.085)
            self.panel(r, PANEL)
            passed = bool(item.get("passed"))
            mark = self.rect(x, 0.235 + i * 0.092, 0.085, 0.085)
            self.panel(mark, GREEN if passed else RED)
            word = self.t("ui.diag.pass" if passed else "ui.diag.fail")
            self.text(word, mark.inflate(-6, -6), 0.04, (255, 255, 255))
            body = pygame.Rect(mark.right + 8, r.top + 2, r.right - mark.right - 14, r.height // 2)
            title = f"{item.get('device', '?')} · {item.get('label') or item.get('item', '')}"
            self.text(title, body, 0.04, TEXT, align="left")
            detail = body.move(0, r.height // 2 - 2)
            self.text(str(item.get("detail", "")), detail, 0.04, MUTED if passed else RED, "left")
        if pages > 1:
            y = 0.235 + REPORT_ROWS * 0.092
            self.button(
                "diag_prev",
                self.rect(x, y, 0.12, 0.07),
                "<",
                action=partial(self._turn, -1),
                enabled=self.report_page > 0,
            )
            self.text(
                self.t("ui.diag.page", page=self.report_page + 1, pages=pages),
                self.rect(x + 0.13, y, w - 0.26, 0.07),
                0.04,
                MUTED,
            )
            self.button(
                "diag_next",
                self.rect(x + w - 0.12, y, 0.12, 0.07),
                ">",
                action=partial(self._turn, 1),
                enabled=self.report_page < pages - 1,
            )

    def _turn(self, step: int) -> None:
        self.report_page = max(0, self.report_page + step)

    # --- right column ---------------------------------------------------------------------

    def _test_mode(self, diag: dict[str, Any]) -> None:
        x, w = RIGHT
        box = self.rect(x, 0.1, w, 0.89)
        self.panel(box, PANEL)
        inner_x, inner_w = x + 0.015, w - 0.03
        self.text(
            self.t("ui.diag.title"), self.rect(inner_x, 0.11, inner_w, 0.06), 0.05, GOLD, "left"
        )
        if diag.get("state") == "running":
            self.report_page = 0  # the next report opens at its first page
            self._running(diag, inner_x, inner_w)
            return
        blocked = diag.get("blocked")
        hint, colour = (str(blocked), RED) if blocked else (self.t("ui.diag.idle"), MUTED)
        self.paragraph(hint, self.rect(inner_x, 0.18, inner_w, 0.14), 0.04, colour)
        can = bool(diag.get("can_start"))
        self.button(
            "diag_all",
            self.rect(inner_x, 0.34, inner_w, 0.12),
            self.t("ui.diag.all"),
            message={"type": "diag_start"},
            enabled=can,
            style="primary",
        )
        names = list(diag.get("devices") or [])[:8]
        labels = {d.get("name"): d.get("label") for d in self.view.get("devices") or []}
        for i, name in enumerate(names):
            col, row = i % 2, i // 2
            half = (inner_w - 0.01) / 2
            self.button(
                f"diag_{name}",
                self.rect(inner_x + col * (half + 0.01), 0.48 + row * 0.12, half, 0.11),
                self.t("ui.diag.one", device=labels.get(name) or name),
                message={"type": "diag_start", "device": name},
                enabled=can,
                rel=0.04,
            )

    def _running(self, diag: dict[str, Any], x: float, w: float) -> None:
        device = diag.get("device")
        status = (
            self.t("ui.diag.running", device=device) if device else self.t("ui.diag.running_all")
        )
        self.paragraph(status, self.rect(x, 0.18, w, 0.08), 0.04, MUTED)
        prompt = diag.get("prompt")
        card = self.rect(x, 0.27, w, 0.3)
        self.panel(card, PANEL_HI, GOLD)
        inner = card.inflate(-20, -16)
        if not prompt:
            self.text(self.t("ui.diag.waiting"), inner, 0.045, MUTED)
        else:
            top = pygame.Rect(inner.left, inner.top, inner.width, inner.height // 4)
            self.text(str(prompt.get("device", "")), top, 0.04, GOLD, align="left")
            body = pygame.Rect(inner.left, top.bottom, inner.width, inner.height - top.height)
            self.paragraph(str(prompt.get("text", "")), body, 0.05, TEXT)
        question = (prompt or {}).get("question")
        if question:
            self.paragraph(str(question), self.rect(x, 0.59, w, 0.08), 0.045, GOLD)
            half = (w - 0.02) / 2
            answers: list[tuple[str, str, bool, str]] = [
                ("diag_yes", "ui.diag.yes", True, "go"),
                ("diag_no", "ui.diag.no", False, "danger"),
            ]
            for i, (id, key, yes, style) in enumerate(answers):
                answer: Message = {"type": "diag_answer", "yes": yes}
                r = self.rect(x + i * (half + 0.02), 0.68, half, 0.14)
                self.button(id, r, self.t(key), message=answer, style=style, rel=0.06)
        self.button(
            "diag_cancel",
            self.rect(x, 0.86, w, 0.1),
            self.t("ui.diag.cancel"),
            message={"type": "diag_cancel"},
            style="warn",
        )
