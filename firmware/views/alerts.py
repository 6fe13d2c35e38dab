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
    """``key`` in ``lang`` with ``params`` (nested refusals translated), else ``text``."""
    if not key or key not in CATALOG:
        return text
    values: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, Mapping) and "text" in value:
            value = said(value.get("key"), value.get("params") or {}, str(value["text"]), lang)
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
    """An alert or a fault for a screen: translated, devices by display name, cards hidden."""
    values = dict(params)
    device = values.get("device")
    if isinstance(device, str) and names:
        found = names.get(device) or {}
        values["device"] = found.get(lang) or found.get("en") or found.get("es") or device
    return redact(said(key, values, text, lang), visible)


__all__ = ["alert_text", "said"]
