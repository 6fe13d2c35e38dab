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

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from firmware.i18n import CATALOG, tr
from firmware.service.diag import Item, Report
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


def report_view(report: Report, lang: str) -> dict[str, Any]:
    """A report for a screen: the verdict and each item, translated."""
    items = [_clean(i) for i in report.items]
    return {
        "passed": report.passed,
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
        "report": report_view(report, lang) if report is not None else None,
        "json": Report([_clean(i) for i in report.items]).to_json() if report is not None else None,
    }
