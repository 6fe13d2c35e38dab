"""Alerts and device faults in the screen's language.

The controller keeps each alert's English sentence (for logs) and, when it
has one, a message-catalog key with its values (``Alert.key``,
``Alert.params``). A value may itself be a refusal (``{"key", "params",
"text"}``: a card refused at the shoe, a record recovery skipped): it is
translated first, or its sentence kept when it has no key. A ``device``
value is shown by the device's display name. Card names in the result are
hidden from an audience that may not see them (:func:`firmware.views.redact.redact`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from firmware.i18n import CATALOG, tr
from firmware.views.redact import redact


def said(key: str | None, params: Mapping[str, Any], text: str, lang: str) -> str:
    """``key`` in ``lang`` with ``params`` (nested refusals translated), else ``text``.

    A nested refusal without a catalog key (a driver's English sentence) is said in
    English only; another language says where its detail is (``alert.detail_in_log``).
    """
    if not key or key not in CATALOG:
        return text
    values: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, Mapping) and "text" in value:
            inner = value.get("key")
            if (not inner or inner not in CATALOG) and lang != "en":
                value = tr("alert.detail_in_log", lang)
            else:
                value = said(inner, value.get("params") or {}, str(value["text"]), lang)
        values[name] = value
    try:
        return tr(key, lang, **values)
    except (KeyError, IndexError, ValueError):  # a value the sender did not give
        return text


def alert_text(
    key: str | None,
    params: Mapping[str, Any],
    text: str,
    lang: str,
    visible: Iterable[str] = (),
    names: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """An alert or a fault for a screen: translated, devices by display name (in a nested
    refusal too), cards hidden."""
    return redact(said(key, _named(params, lang, names or {}), text, lang), visible)


def _named(
    params: Mapping[str, Any], lang: str, names: Mapping[str, Mapping[str, str]]
) -> dict[str, Any]:
    """``params`` with a ``device`` value shown by its display name in ``lang``."""
    values = dict(params)
    device = values.get("device")
    if isinstance(device, str):
        found = names.get(device) or {}
        values["device"] = found.get(lang) or found.get("en") or found.get("es") or device
    for name, value in params.items():
        if isinstance(value, Mapping) and isinstance(value.get("params"), Mapping):
            values[name] = {**value, "params": _named(value["params"], lang, names)}
    return values


__all__ = ["alert_text", "said"]
