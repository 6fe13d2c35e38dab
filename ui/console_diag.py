"""The console's technician page: device status and the test mode (split from ui.console_pages).

Drawn when the view's audience is ``technician`` (docs/protocols/table.md):

* left, four tabs, a page at a time:

  - *Devices*: each device's health, identity, recent reads per minute, reads
    and faults since the start, and a fault's sentence;
  - *Wiring*: every part (button, LED, antenna, reader, the device itself),
    the seat it serves and where it is wired (header pin, expander pin,
    serial port, reader name);
  - *Serial links*: the link counters of each serial device (frames sent and
    received, CRC errors, resends, resyncs, heartbeats missed) and its error
    rates per 1,000 frames;
  - *Last test*: the report, item by item (PASS/FAIL, what was tested, its
    sentence), failures first, with the test's time; shown by itself when a
    test ends;

* right: the test mode. Start buttons (all devices, or one), greyed with the
  reason during a hand; while a test runs, the step to do now (what to press,
  place, present or look at), Yes/No for a question (an LED lit?) and Cancel.
  Below, *Export report* writes the whole report to a timestamped file and
  says where.

Messages: ``{"type": "diag_start"}`` / ``{"type": "diag_start", "device": name}``,
``{"type": "diag_answer", "yes": true | false}``, ``{"type": "diag_cancel"}``,
``{"type": "diag_export"}``.
The start buttons appear only with a view that carries ``diag`` (a server
with test mode).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from ui.widgets import GOLD, GREEN, MUTED, PANEL, PANEL_HI, RED, TEXT, Color, Message, Screen

HEALTH: dict[str, Color] = {"ok": GREEN, "degraded": GOLD, "fault": RED, "closed": (120, 120, 120)}
REPORT_ROWS = 3
"""Report items per page (each with room for a four-line detail: a link's counters)."""
DEVICE_ROWS = 5
"""Devices per page (each with room for a two-line fault)."""
TABS = ("devices", "where", "link", "report")
"""The left column's tabs, in order."""
TAB_H = 0.095
"""The tabs' and the pager's height (of the screen's): 44 px and more at 480."""
TOP = 0.205
"""Where the left column's content starts, under its tabs."""

LEFT = (0.02, 0.55)
"""The left column's x and width (report or devices)."""
RIGHT = (0.59, 0.39)
"""The right column's x and width (test mode)."""


class TechnicianPage(Screen):
    """The technician's page (see the module docstring)."""

    report_page = 0
    """The page shown of the current tab (class default; set per screen when paging)."""
    tech_tab: str | None = None
    """The tab chosen by the technician; ``None`` until then: the last test's report
    when there is one, else the devices."""

    @property
    def diag(self) -> dict[str, Any]:
        """The view's ``diag`` part (empty from a server without test mode)."""
        return dict(self.view.get("diag") or {})

    @property
    def tab(self) -> str:
        """The tab shown now."""
        if self.tech_tab is not None:
            return self.tech_tab
        report = self.diag.get("report")
        return "report" if report and self.diag.get("state") != "running" else "devices"

    def _technician_page(self) -> None:
        """The tabs and their content on the left, the test mode on the right."""
        diag = self.diag
        x, w = LEFT if diag else (0.02, 0.96)
        tabs = TABS if diag else TABS[:3]
        width = (w - 0.01 * (len(tabs) - 1)) / len(tabs)
        shown = self.tab
        for i, tab in enumerate(tabs):
            self.button(
                f"tech_tab_{tab}",
                self.rect(x + i * (width + 0.01), 0.1, width, TAB_H),
                self.t(f"ui.tech.tab.{tab}"),
                action=partial(self._choose_tab, tab),
                style="selected" if tab == shown else "normal",
                rel=0.036,
            )
        if shown == "report":
            report = diag.get("report")
            if report:
                self._report(report)
            else:
                self.text(self.t("ui.tech.no_report"), self.rect(x, 0.22, w, 0.08), 0.042, MUTED)
        elif shown == "where":
            self._wiring(x, w)
        elif shown == "link":
            self._links(x, w)
        else:
            self._devices(x, w)
        if diag:
            self._test_mode(diag)

    def _choose_tab(self, tab: str) -> None:
        self.tech_tab, self.report_page = tab, 0

    def _pager(self, x: float, w: float, y: float, pages: int) -> None:
        """Previous / page n of m / next, when there is more than one page."""
        if pages <= 1:
            return
        self.button(
            "diag_prev",
            self.rect(x, y, 0.12, TAB_H),
            "<",
            action=partial(self._turn, -1),
            enabled=self.report_page > 0,
        )
        self.text(
            self.t("ui.diag.page", page=self.report_page + 1, pages=pages),
            self.rect(x + 0.13, y, w - 0.26, TAB_H),
            0.04,
            MUTED,
        )
        self.button(
            "diag_next",
            self.rect(x + w - 0.12, y, 0.12, TAB_H),
            ">",
            action=partial(self._turn, 1),
            enabled=self.report_page < pages - 1,
        )

    def _page_of(self, rows: list[Any], per_page: int) -> tuple[list[Any], int]:
        pages = max(1, -(-len(rows) // per_page))
        self.report_page = min(self.report_page, pages - 1)
        start = self.report_page * per_page
        return rows[start : start + per_page], pages

    # --- left column ----------------------------------------------------------------------

    def _devices(self, x: float, w: float) -> None:
        devices = list(self.view.get("devices") or [])
        if not devices:
            self.text(self.t("ui.tech.none"), self.rect(x, 0.22, w, 0.08), 0.045, MUTED)
            return
        shown, pages = self._page_of(devices, DEVICE_ROWS)
        for i, d in enumerate(shown):
            r = self.rect(x, TOP + i * 0.135, w, 0.127)
            health = str(d.get("health", "ok"))
            self.panel(r, PANEL)
            pygame.draw.circle(self.surface, HEALTH.get(health, RED), (r.left + 16, r.centery), 8)
            identity = d.get("identity") or {}
            detail = " ".join(str(identity.get(k, "")) for k in ("model", "serial", "firmware"))
            label = d.get("label") or d.get("name", "?")
            top = pygame.Rect(r.left + 32, r.top + 3, r.width - 40, 22)
            line = f"{label}: {self.t('ui.health.' + health)}  {detail}"
            self.text(line.strip(), top, 0.04, TEXT, align="left")
            fault = d.get("fault")
            below = str(fault or (d.get("rates") or {}).get("text") or "")
            rest = pygame.Rect(top.left, top.bottom, top.width, r.bottom - top.bottom - 2)
            self.paragraph(below, rest, 0.036, RED if fault else MUTED)  # two lines if need be
        self._pager(x, w, TOP + DEVICE_ROWS * 0.135, pages)

    def _wiring(self, x: float, w: float) -> None:
        rows = [
            (d.get("label") or d.get("name", "?"), loc)
            for d in self.view.get("devices") or []
            for loc in d.get("locations") or []
        ]
        if not rows:
            self.text(self.t("ui.tech.no_where"), self.rect(x, 0.22, w, 0.08), 0.042, MUTED)
            return
        shown, pages = self._page_of(rows, 7)
        for i, (device, loc) in enumerate(shown):
            r = self.rect(x, TOP + i * 0.096, w, 0.088)
            self.panel(r, PANEL)
            seat = self.rect(x, TOP + i * 0.096, 0.14, 0.088)
            self.panel(seat, PANEL_HI)
            self.text(str(loc.get("serves") or "—"), seat.inflate(-6, -6), 0.034, GOLD)
            body = pygame.Rect(seat.right + 8, r.top + 2, r.right - seat.right - 14, r.height // 2)
            self.text(f"{device} · {loc.get('label', '')}", body, 0.036, TEXT, align="left")
            self.text(
                str(loc.get("where", "")), body.move(0, r.height // 2 - 2), 0.036, MUTED, "left"
            )
        self._pager(x, w, TOP + 7 * 0.096, pages)

    def _links(self, x: float, w: float) -> None:
        linked = [d for d in self.view.get("devices") or [] if d.get("link_counters")]
        if not linked:
            self.text(self.t("ui.tech.no_link"), self.rect(x, 0.22, w, 0.08), 0.042, MUTED)
            return
        shown, pages = self._page_of(linked, 2)
        for i, d in enumerate(shown):
            link = d["link_counters"]
            r = self.rect(x, TOP + i * 0.33, w, 0.32)
            worst = float(link.get("errors_per_1000") or 0) >= 10
            self.panel(r, PANEL, RED if worst else None)
            inner = r.inflate(-16, -10)
            line = inner.height // 5
            title = pygame.Rect(inner.left, inner.top, inner.width, line)
            self.text(str(d.get("label") or d.get("name")), title, 0.042, GOLD, align="left")
            rates = pygame.Rect(inner.left, title.bottom, inner.width, 2 * line)
            self.paragraph(str(link.get("text", "")), rates, 0.036, RED if worst else TEXT)
            third = inner.width // 3
            for j, row in enumerate(link.get("rows") or []):
                cell = pygame.Rect(
                    inner.left + (j % 3) * third, rates.bottom + (j // 3) * line, third - 6, line
                )
                self.text(f"{row['label']}: {row['value']}", cell, 0.034, MUTED, "left")
        self._pager(x, w, TOP + 2 * 0.33, pages)

    def _report(self, report: dict[str, Any]) -> None:
        # Failures first, so the first page shows what needs repair; otherwise in test order.
        items = sorted(report.get("items") or [], key=lambda i: bool(i.get("passed")))
        x, w = LEFT
        count, failed = len(items), int(report.get("failed") or 0)
        verdict = (
            self.t("ui.diag.passed", count=count)
            if report.get("passed")
            else self.t("ui.diag.failed", failed=failed, count=count)
        )
        if report.get("time"):
            verdict = f"{self.t('ui.tech.report_time', time=report['time'])} · {verdict}"
        head = self.rect(x, TOP, w, 0.085)
        self.panel(head, PANEL_HI, GREEN if report.get("passed") else RED)
        colour = GREEN if report.get("passed") else RED
        self.paragraph(verdict, head.inflate(-16, -6), 0.038, colour)  # two lines if need be
        shown, pages = self._page_of(items, REPORT_ROWS)
        labels = {d.get("name"): d.get("label") for d in self.view.get("devices") or []}
        for i, item in enumerate(shown):
            y = TOP + 0.095 + i * 0.195
            r = self.rect(x, y, w, 0.187)
            self.panel(r, PANEL)
            passed = bool(item.get("passed"))
            mark = self.rect(x, y, 0.075, 0.187)
            self.panel(mark, GREEN if passed else RED)
            word = self.t("ui.diag.pass" if passed else "ui.diag.fail")
            self.text(word, mark.inflate(-6, -6), 0.04, (255, 255, 255))
            body = pygame.Rect(mark.right + 8, r.top + 2, r.right - mark.right - 14, 20)
            device = labels.get(item.get("device"), item.get("device", "?"))  # display name
            title = f"{device} · {item.get('label') or item.get('item', '')}"
            self.text(title, body, 0.04, TEXT, align="left")
            detail = pygame.Rect(body.left, body.bottom, body.width, r.bottom - body.bottom - 2)
            ink = MUTED if passed else RED
            self.paragraph(str(item.get("detail", "")), detail, 0.036, ink)  # up to three lines
        self._pager(x, w, TOP + 0.095 + REPORT_ROWS * 0.195, pages)

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
        self.paragraph(hint, self.rect(inner_x, 0.165, inner_w, 0.11), 0.036, colour)
        can = bool(diag.get("can_start"))
        self.button(
            "diag_all",
            self.rect(inner_x, 0.28, inner_w, 0.095),
            self.t("ui.diag.all"),
            message={"type": "diag_start"},
            enabled=can,
            style="primary",
        )
        names = list(diag.get("devices") or [])[:8]
        labels = {d.get("name"): d.get("label") for d in self.view.get("devices") or []}
        half = (inner_w - 0.01) / 2
        for i, name in enumerate(names):
            col, row = i % 2, i // 2
            self.button(
                f"diag_{name}",
                self.rect(inner_x + col * (half + 0.01), 0.385 + row * 0.1, half, 0.093),
                self.t("ui.diag.one", device=labels.get(name) or name),
                message={"type": "diag_start", "device": name},
                enabled=can,
                rel=0.036,
            )
        self._export(diag, inner_x, inner_w, 0.385 + -(-len(names) // 2) * 0.1)

    def _export(self, diag: dict[str, Any], x: float, w: float, y: float) -> None:
        """Export report at ``y``, and where the last one was written (or why it was not)."""
        self.button(
            "diag_export",
            self.rect(x, y, w, 0.095),
            self.t("ui.tech.export"),
            message={"type": "diag_export"},
            enabled=bool(diag.get("can_export", True)),
            rel=0.04,
        )
        export = diag.get("export")
        if export:
            colour = GREEN if export.get("ok") else RED
            text = str(export.get("text", ""))
        else:
            text, colour = self.t("ui.tech.export_hint"), MUTED
        self.paragraph(text, self.rect(x, y + 0.105, w, 0.98 - y - 0.105), 0.032, colour)

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
