"""The test-mode part of the technician view (split from :mod:`firmware.views.audience`).

:func:`diag_view` is the ``diag`` block of the technician view: whether a test
can start (between hands only), the step the technician is asked to do, and
the last report, item by item (PASS/FAIL with its sentence in the view's
language) and as JSON. Like the rest of the technician view it names no card:
free text goes through :func:`firmware.views.audience.redact` (a deck scan's missing
cards are counted, not named; ``pokertable diag`` on the controller names
them).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from firmware.errors import IllegalAction
from firmware.i18n import CATALOG, tr
from firmware.service.diag import Item, Report, time_text, write_report
from firmware.views.devices import devices
from firmware.views.redact import redact

if TYPE_CHECKING:
    from firmware.service.controller import Controller

TARGETED = ("antenna", "button", "led", "reader")
"""Items named ``<what> <target>``; the others are one fixed name (``deck scan``)."""


def _redact(text: str) -> str:
    return redact(text, ())


def _clean(item: Item) -> Item:
    """``item`` with every card in its free text hidden."""
    params = {k: _redact(v) if isinstance(v, str) else v for k, v in item.params.items()}
    return replace(item, detail=_redact(item.detail), params=params)


def item_label(item: str, lang: str) -> str:
    """What was tested, translated: ``button seat1.action`` -> ``Botón seat1.action``."""
    what, _, target = item.partition(" ")
    if what in TARGETED and target:
        return tr(f"diag.what.{what}", lang, target=target)
    key = "diag.what." + item.replace(" ", "_")
    return tr(key, lang) if key in CATALOG else item


def item_detail(item: Item, lang: str) -> str:
    """The item's sentence in ``lang`` (its English detail if it has no key)."""
    if item.key and item.key in CATALOG:
        try:
            return tr(item.key, lang, **item.params)
        except (KeyError, IndexError):
            return item.detail
    return item.detail


def report_view(report: Report, lang: str, zone: str = "") -> dict[str, Any]:
    """A report for a screen: the verdict and each item, translated; its time in the
    table's time zone ``zone``."""
    items = [_clean(i) for i in report.items]
    return {
        "passed": report.passed,
        "time": time_text(report.time, zone) if report.time else None,
        "failed": sum(1 for i in items if not i.passed),
        "items": [
            {
                "device": i.device,
                "item": i.item,
                "label": item_label(i.item, lang),
                "passed": i.passed,
                "detail": item_detail(i, lang),
            }
            for i in items
        ],
    }


def prompt_view(prompt: dict[str, Any], lang: str) -> dict[str, Any]:
    """The step shown to the technician, with its sentence (and question) translated."""
    step, target = str(prompt.get("step", "")), str(prompt.get("target", ""))
    key = f"diag.step.{step}"
    text = tr(key, lang, target=target) if key in CATALOG else f"{step} {target}"
    question = bool(prompt.get("question"))
    return {
        "device": prompt.get("device"),
        "step": step,
        "target": target,
        "text": text,
        "question": tr("diag.question.look", lang, target=target) if question else None,
    }


def diag_view(controller: Controller, lang: str) -> dict[str, Any]:
    """The ``diag`` block of the technician view (see ``docs/protocols/table.md``)."""
    session = controller.diag
    running = session is not None and session.running
    in_hand = controller.table.hand is not None
    state = "idle" if session is None else ("running" if running else "done")
    report = session.report if session is not None else None
    prompt = session.prompt if session is not None and running else None
    return {
        "state": state,
        "device": session.device if session is not None else None,
        "devices": sorted(controller.devices),
        "can_start": not in_hand and not running and bool(controller.devices),
        "blocked": tr("diag.refused.hand", lang) if in_hand and not running else None,
        "prompt": prompt_view(prompt, lang) if prompt else None,
        "report": report_view(report, lang, controller.zone) if report is not None else None,
        "json": Report([_clean(i) for i in report.items], report.time).to_json()
        if report is not None
        else None,
        "can_export": not running,
        "export": export_view(controller.state.export, lang, controller.zone),
    }


def export_view(export: dict[str, Any] | None, lang: str, zone: str = "") -> dict[str, Any] | None:
    """The last export for the technician: where the report was written, or why not."""
    if not export:
        return None
    when = time_text(float(export["time"]), zone)
    if export.get("error"):
        text = tr("tech.export.failed", lang, folder=export["folder"], error=export["error"])
        return {"ok": False, "time": when, "path": None, "text": text}
    text = tr("tech.export.done", lang, path=export["path"], time=when)
    return {"ok": True, "time": when, "path": export["path"], "text": text}


def report_text(
    rows: list[dict[str, Any]], report: Report | None, lang: str, stamp: float, zone: str = ""
) -> str:
    """The technician's report as text in ``lang``: every device (health, identity, rates,
    link counters, where each part is wired) and the last test, item by item."""

    def t(key: str, **params: Any) -> str:
        return tr(key, lang, **params)

    out = [t("tech.report.title", time=time_text(stamp, zone)), "", t("tech.report.devices")]
    if not rows:
        out.append("  " + t("ui.tech.none"))
    for row in rows:
        identity = row.get("identity") or {}
        ident = t("diag.item.identity", **identity) if identity else ""
        health = t("ui.health." + row["health"])
        out.append(f"* {row['label']} ({row['name']}): {health}. {ident}".rstrip())
        if row.get("fault"):
            out.append(f"  {row['fault']}")
        rates = row.get("rates") or {}
        if rates.get("text"):
            out.append(f"  {rates['text']}")
        link = row.get("link_counters")
        if link:
            out.append(f"  {t('tech.report.link')}: {link['text']}")
            counters = ", ".join(f"{c['label']} {c['value']}" for c in link["rows"])
            out.append(f"    {counters}")
        if row.get("locations"):
            out.append(f"  {t('tech.report.where')}:")
            for loc in row["locations"]:
                serves = f" ({loc['serves']})" if loc["serves"] else ""
                out.append(f"    {loc['label']}{serves}: {loc['where']}")
    out.append("")
    if report is None:
        out.append(t("tech.report.no_test"))
        return "\n".join(out)
    view = report_view(report, lang, zone)
    count, failed = len(view["items"]), view["failed"]
    verdict = (
        t("ui.diag.passed", count=count)
        if view["passed"]
        else t("ui.diag.failed", failed=failed, count=count)
    )
    when = view["time"] or "—"
    out.append(t("tech.report.test", time=when, verdict=verdict))
    for item in view["items"]:
        word = t("ui.diag.pass" if item["passed"] else "ui.diag.fail")
        out.append(f"  {word:6} {item['device']} · {item['label']}: {item['detail']}")
    return "\n".join(out)


def report_data(
    rows: list[dict[str, Any]], report: Report | None, lang: str, stamp: float, zone: str = ""
) -> str:
    """The same report as JSON (devices as the view has them, the test's items raw and
    translated), for tools."""
    test = None
    if report is not None:
        test = {**report_view(report, lang, zone), "raw": [asdict(_clean(i)) for i in report.items]}
    body = {"time": time_text(stamp, zone), "lang": lang, "devices": rows, "test": test}
    return json.dumps(body, ensure_ascii=False, indent=2)


def export_report(controller: Controller, lang: str) -> str:
    """Write the technician's report (text and JSON, in ``lang``) to the export folder
    and remember it for the view; return the text file's path (loop thread).

    The folder is ``[diag] export_dir`` (a USB stick's mount point, say), else
    ``reports`` in the data directory.

    :raises IllegalAction: without a folder (``tech.export.nowhere``) or when it
        cannot be written (``tech.export.failed``: the stick not mounted, full).
    """
    folder = controller.export_dir
    if folder is None and controller.data_dir is not None:
        folder = os.path.join(controller.data_dir, "reports")
    if folder is None:
        raise IllegalAction(
            "This table has no folder for reports; set [diag] export_dir in the configuration.",
            key="tech.export.nowhere",
        )
    stamp = controller.wall()
    rows = devices(controller, lang, detail=True)
    session = controller.diag
    report = session.report if session is not None and not session.running else None
    try:
        path = write_report(
            folder,
            stamp,
            report_text(rows, report, lang, stamp, controller.zone),
            report_data(rows, report, lang, stamp, controller.zone),
        )
    except OSError as exc:
        error = exc.strerror or str(exc)
        controller.state.export = {"time": stamp, "folder": folder, "error": error}
        raise IllegalAction(
            f"The report could not be written to {folder} ({error}); check that the USB "
            "stick is in and writable, or set [diag] export_dir to another folder.",
            key="tech.export.failed",
            folder=folder,
            error=error,
        ) from exc
    controller.state.export = {"time": stamp, "folder": folder, "path": path}
    return path
