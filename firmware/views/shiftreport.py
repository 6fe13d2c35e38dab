"""A table's shift report as CSV and as a printable PDF (TABLE-BANK).

The numbers are :func:`firmware.table.shiftreport.shift_report`'s, computed from
the journal alone; this module only lays them out, in the reader's language
(every label is a catalog key ``shift.line.*``) with times in the table's
zone. Amounts are whole chips in the smallest unit, never rounded.

The PDF is written with fpdf2 (``docs/architecture.md`` says why): one page per
shift with its lines, the bank's movements with the two badges of each, and
lines for the two staff members who sign the count.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from firmware.i18n import tr
from firmware.table.shiftreport import LINES, Shift, ShiftReport
from firmware.table.walltime import local_text

CSV_FIELDS = ("shift", "started", "ended", "hands", *LINES, "staff")
"""The CSV's columns, in order; the header row names them in the reader's language."""


def _when(wall: float | None, zone: str | None, lang: str) -> str:
    return tr("shift.unknown_time", lang) if wall is None else local_text(wall, zone)


def _value(shift: Shift, name: str) -> int | None:
    value: int | None = getattr(shift, name)
    return value


def shift_rows(report: ShiftReport, lang: str, zone: str | None) -> list[list[str]]:
    """The report as rows of text: a header row, then one row per shift."""
    rows = [[tr(f"shift.line.{name}", lang) for name in CSV_FIELDS]]
    for shift in report.shifts:
        row = [
            str(shift.number),
            _when(shift.started_wall, zone, lang),
            _when(shift.ended_wall, zone, lang),
            str(shift.hands),
        ]
        for name in LINES:
            value = _value(shift, name)
            row.append("" if value is None else str(value))
        row.append(" + ".join(shift.staff))
        rows.append(row)
    return rows


def shift_csv(report: ShiftReport, lang: str, zone: str | None) -> str:
    """The report as CSV text (comma-separated, a header row, one row per shift)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(shift_rows(report, lang, zone))
    return out.getvalue()


def _latin(text: str) -> str:
    """``text`` in the PDF core fonts' character set (Spanish fits; anything else is '?')."""
    return text.encode("latin-1", "replace").decode("latin-1")


def shift_pdf(report: ShiftReport, lang: str, zone: str | None, table: str = "") -> bytes:
    """The report as a printable PDF (A4, one page per shift)."""
    from fpdf import FPDF  # the PDF writer is needed by this command only

    pdf = FPDF(format="A4")
    pdf.set_title(_latin(tr("shift.title", lang, table=table)))
    pdf.set_creator("pokertable")
    pdf.set_auto_page_break(auto=True, margin=15)
    for shift in report.shifts:
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        title = tr("shift.title", lang, table=table)
        pdf.cell(0, 10, _latin(title), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        period = tr(
            "shift.period",
            lang,
            number=shift.number,
            start=_when(shift.started_wall, zone, lang),
            end=_when(shift.ended_wall, zone, lang),
            hands=shift.hands,
        )
        pdf.multi_cell(0, 6, _latin(period), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
        for name in LINES:
            value = _value(shift, name)
            bold = name in ("expected", "counted", "difference", "drop")
            pdf.set_font("Helvetica", "B" if bold else "", 11)
            pdf.cell(110, 7, _latin(tr(f"shift.line.{name}", lang)), border="B")
            shown = tr("shift.not_counted", lang) if value is None else str(value)
            pdf.cell(50, 7, _latin(shown), border="B", align="R", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
        pdf.set_font("Helvetica", "", 10)
        if not shift.agrees:
            pdf.multi_cell(0, 6, _latin(tr("shift.disagrees", lang)), new_x="LMARGIN", new_y="NEXT")
        for movement in shift.movements:
            pdf.multi_cell(0, 6, _latin(_movement(movement, lang)), new_x="LMARGIN", new_y="NEXT")
        if report.skipped:
            skipped = tr("shift.skipped", lang, count=report.skipped)
            pdf.multi_cell(0, 6, _latin(skipped), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(10)
        badges = " + ".join(shift.staff) or "-"
        signed = tr("shift.signatures", lang, badges=badges)
        pdf.multi_cell(0, 6, _latin(signed), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(12)
        pdf.cell(80, 6, "_" * 30)
        pdf.cell(80, 6, "_" * 30, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def _movement(movement: dict[str, Any], lang: str) -> str:
    return tr(
        f"shift.movement.{movement['kind']}",
        lang,
        amount=str(movement["amount"]),
        badges=" + ".join(movement["staff"]),
    )


__all__ = ["CSV_FIELDS", "shift_csv", "shift_pdf", "shift_rows"]
