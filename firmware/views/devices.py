"""Device status as the console and the technician see it (split from ``audience``).

Each device is named by its configuration key (``name``, what ``diag_start``
takes) and shown by its display name (``label``): the configuration's
``display_name`` in the screen's language (``[devices.shoe] display_name =
{ es = "Zapato", en = "Card shoe" }`` or one text for both), else the key.

For the technician each row also carries where every part is wired
(``locations``: the header pin or expander pin and the seat it serves, the
serial port, the reader's PC/SC name), the recent read rate and faults
(``rates``) and, for a serial device, the link counters of
:func:`firmware.service.diag.link_quality` (``link_counters``), each with its
sentence in the view's language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from firmware.errors import PokerTableError
from firmware.hal import Buttons, CardShoe, ChipTrays, Device, IdReaders
from firmware.hal.devices import HEADER_PIN, Location
from firmware.i18n import tr
from firmware.service.diag import LINK_COUNTERS, DeviceRates, link_quality
from firmware.views.alerts import alert_text
from firmware.views.redact import redact

if TYPE_CHECKING:
    from firmware.service.controller import Controller

SEAT_PART = re.compile(r"seat(\d+)(?:\.|$)")


def display_name(controller: Controller, name: str, lang: str) -> str:
    """The display name of device ``name`` in ``lang`` (the configuration key without one)."""
    return _display(controller.display_names, name, lang)


def _display(names: Mapping[str, Mapping[str, str]], name: str, lang: str) -> str:
    found = names.get(name) or {}
    return found.get(lang) or found.get("en") or found.get("es") or name


KIND_NAMES = ("shoe", "chips", "buttons", "id_readers")
"""Device kinds with a name in the catalog (``device.kind.<kind>``): a device the
configuration gives no display name is shown by its kind's name in the screen's language
("Sabot", "Lectores de tarjetas"), never by its configuration key ("shoe", "reader")."""


def named_devices(
    devices: Mapping[str, Device], names: Mapping[str, Mapping[str, str]] | None = None
) -> dict[str, dict[str, str]]:
    """Every device's display name by language: the configured one, else its kind's
    catalog name (with the key after it when two devices share a kind), else the key."""
    kinds = [_kind(d) for d in devices.values()]
    out: dict[str, dict[str, str]] = {name: dict(found) for name, found in (names or {}).items()}
    for name, device in devices.items():
        if out.get(name):
            continue
        kind = _kind(device)
        if kind not in KIND_NAMES:
            continue
        shared = kinds.count(kind) > 1
        out[name] = {
            lang: tr(f"device.kind.{kind}", lang) + (f" ({name})" if shared else "")
            for lang in ("en", "es")
        }
    return out


def controller_names(controller: Controller) -> dict[str, dict[str, str]]:
    """:func:`named_devices` of the controller's devices and configured display names."""
    return named_devices(controller.devices, controller.display_names)


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


def number(value: float, lang: str) -> str:
    """``value`` with one decimal at most, in the language's way (``2.5`` / ``2,5``)."""
    text = f"{value:.1f}".removesuffix(".0")
    return text.replace(".", ",") if lang == "es" else text


def served(part: str, lang: str) -> tuple[int | None, str]:
    """The seat a part serves (``seat3.action`` -> 3) and who, in words."""
    match = SEAT_PART.match(part)
    if match:
        seat = int(match.group(1))
        return seat, tr("tech.serves.seat", lang, seat=seat)
    if part.startswith("dealer.") or part == "dealer":
        return None, tr("tech.serves.dealer", lang)
    if part.startswith("console"):
        return None, tr("tech.serves.console", lang)
    return None, tr("tech.serves.table", lang)


def place(location: Location, lang: str) -> str:
    """Where a part is wired, in words (a header pin, an expander pin, a port, a reader)."""
    if "gpio" in location:
        gpio = int(location["gpio"])
        pin = HEADER_PIN.get(gpio)
        if pin is None:
            return tr("tech.where.gpio_only", lang, gpio=gpio)
        return tr("tech.where.gpio", lang, gpio=gpio, pin=pin)
    if "expander" in location:
        return tr(
            "tech.where.expander",
            lang,
            pin=location["expander"],
            address=f"0x{int(location.get('address', 0x20)):02x}",
            bus=location.get("bus", 1),
        )
    if "port" in location:
        return tr("tech.where.port", lang, port=location["port"])
    if "reader" in location:
        return tr("tech.where.reader", lang, reader=location["reader"])
    if location.get("simulated"):
        return tr("tech.where.simulated", lang)
    return tr("tech.where.unknown", lang)


def part_label(device: Device, part: str, lang: str) -> str:
    """What a part is: the device itself, a button, an LED, an antenna or a reader."""
    if not part:
        return tr("tech.part.device", lang)
    if isinstance(device, Buttons):
        what = "led" if part in device.leds() else "button"
    elif isinstance(device, ChipTrays):
        what = "antenna"
    elif isinstance(device, IdReaders):
        what = "reader"
    else:
        return part
    return tr(f"diag.what.{what}", lang, target=part)


def locations(device: Device, lang: str) -> list[dict[str, Any]]:
    """Every part of ``device`` with where it is wired and whom it serves."""
    try:
        found = device.locations()
    except (PokerTableError, OSError, RuntimeError, AttributeError):
        found = {}
    rows = []
    for part, location in found.items():
        seat, who = served(part, lang)
        rows.append(
            {
                "part": part,
                "label": part_label(device, part, lang),
                "seat": seat,
                "serves": who if part else "",
                "where": place(location, lang),
                "location": dict(location),
            }
        )
    return rows


def rates(rates: DeviceRates | None, name: str, now: float, lang: str) -> dict[str, Any]:
    """The device's recent reads per minute, its reads and faults since the start, in words."""
    if rates is None:
        return {"per_minute": None, "reads": 0, "faults": 0, "text": ""}
    per_minute = rates.per_minute(name, now)
    reads, faults = rates.reads.get(name, 0), rates.faults.get(name, 0)
    shown = "—" if per_minute is None else number(per_minute, lang)
    minutes = number(rates.window / 60, lang)
    text = tr("tech.rates", lang, per_minute=shown, minutes=minutes, reads=reads, faults=faults)
    return {"per_minute": per_minute, "reads": reads, "faults": faults, "text": text}


def link_counters(stats: Mapping[str, int], lang: str) -> dict[str, Any] | None:
    """A serial device's counters with their names and its error rates in words."""
    if not stats:
        return None
    q = link_quality(stats)
    return {
        **q,
        "rows": [
            {"key": k, "label": tr(f"tech.counter.{k}", lang), "value": q[k]} for k in LINK_COUNTERS
        ],
        "text": tr(
            "tech.link_rates",
            lang,
            errors=number(q["errors_per_1000"], lang),
            resends=number(q["resends_per_1000"], lang),
        ),
    }


def device_rows(
    devices: Mapping[str, Device],
    lang: str = "es",
    *,
    faults: Mapping[str, str] | None = None,
    names: Mapping[str, Mapping[str, str]] | None = None,
    device_rates: DeviceRates | None = None,
    now: float = 0.0,
    detail: bool = False,
) -> list[dict[str, Any]]:
    """Status of every device: its display name in ``lang``, health, identity and raw
    link counters; with ``detail`` (the technician) also where its parts are wired, its
    rates and its link counters in words (see the module docstring)."""
    faults = faults or {}
    names = named_devices(devices, names)
    rows = []
    for name in sorted(devices):
        device = devices[name]
        try:
            health = device.health().value
        except Exception:  # a device that cannot say is treated as in fault
            health = "fault"
        fault = faults.get(name)
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
        row: dict[str, Any] = {
            "name": name,
            "label": _display(names or {}, name, lang),
            "kind": _kind(device),
            "health": health,
            "identity": identity,
            "link": link,
            "fault": redact(fault, ()) if fault is not None else None,
        }
        if detail:
            row["link_counters"] = link_counters(link, lang)
            row["locations"] = locations(device, lang)
            row["rates"] = rates(device_rates, name, now, lang)
        rows.append(row)
    return rows


def fault_text(controller: Controller, name: str, text: str, lang: str) -> str:
    """Device ``name``'s fault in ``lang`` (its English sentence without a key), no card."""
    key, params = controller.state.fault_keys.get(name, (None, {}))
    return alert_text(key, params, text, lang, (), controller_names(controller))


def devices(
    controller: Controller | None, lang: str = "es", detail: bool = False
) -> list[dict[str, Any]]:
    """Status of every configured device of ``controller`` (see :func:`device_rows`)."""
    if controller is None:
        return []
    return device_rows(
        controller.devices,
        lang,
        faults={
            name: fault_text(controller, name, text, lang)
            for name, text in controller.state.faults.items()
        },
        names=controller.display_names,
        device_rates=controller.rates,
        now=controller.clock(),
        detail=detail,
    )
