"""Device status as the console and the technician see it (split from ``audience``).

Each device is named by its configuration key (``name``, what ``diag_start``
takes) and shown by its display name (``label``): the configuration's
``display_name`` in the screen's language (``[devices.shoe] display_name =
{ es = "Zapato", en = "Card shoe" }`` or one text for both), else the key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.errors import PokerTableError
from firmware.hal import Buttons, CardShoe, ChipTrays, IdReaders
from firmware.views.redact import redact

if TYPE_CHECKING:
    from firmware.service.controller import Controller


def display_name(controller: Controller, name: str, lang: str) -> str:
    """The display name of device ``name`` in ``lang`` (the configuration key without one)."""
    names = controller.display_names.get(name) or {}
    return names.get(lang) or names.get("en") or names.get("es") or name


def _kind(device: object) -> str:
    if isinstance(device, CardShoe):
        return "shoe"
    if isinstance(device, ChipTrays):
        return "chips"
    if isinstance(device, Buttons):
        return "buttons"
    if isinstance(device, IdReaders):
        return "id_readers"
    return type(device).__name__.lower()


def devices(controller: Controller | None, lang: str = "es") -> list[dict[str, Any]]:
    """Status of every configured device: its display name in ``lang``, health, identity
    and link counters."""
    if controller is None:
        return []
    rows = []
    for name in sorted(controller.devices):
        device = controller.devices[name]
        try:
            health = device.health().value
        except Exception:  # a device that cannot say is treated as in fault
            health = "fault"
        fault = controller.state.faults.get(name)
        if fault is not None:
            health = "fault"
        identity: dict[str, str] | None
        try:
            ident = device.identity()
            identity = {"model": ident.model, "serial": ident.serial, "firmware": ident.firmware}
        except (PokerTableError, OSError, RuntimeError, AttributeError):
            identity = None
        try:
            link = {str(k): int(v) for k, v in device.link_stats().items()}
        except (PokerTableError, OSError, RuntimeError):
            link = {}
        rows.append(
            {
                "name": name,
                "label": display_name(controller, name, lang),
                "kind": _kind(device),
                "health": health,
                "identity": identity,
                "link": link,
                "fault": redact(fault, ()) if fault is not None else None,
            }
        )
    return rows
