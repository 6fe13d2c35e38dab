"""Choosing each device's backend from the table configuration.

The ``[devices]`` section of the table's TOML names each device, its kind and
its backend, with the backend's own options::

    [devices.shoe]
    kind = "shoe"
    backend = "serial"
    port = "/dev/pokertable-shoe"     # or a pyserial URL: socket://..., loop://

A backend is a class registered here by ``(kind, backend)`` and imported
only when configured, so a table without smart-card readers never imports
pyscard. Each backend takes ``(name, options)``, reads every option it knows
and refuses the others. A device that cannot be opened stops startup with a
sentence naming it; nothing falls back to a simulation.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from firmware.errors import ConfigError, HardwareError
from firmware.hal.devices import Device

KINDS = ("shoe", "trays", "buttons", "readers")

BACKENDS: dict[tuple[str, str], str] = {
    ("shoe", "serial"): "drivers.shoe:SerialShoe",
    ("trays", "serial"): "drivers.trays:SerialTrays",
    ("buttons", "gpio"): "drivers.gpio:GpioButtons",
    ("buttons", "mcp23017"): "drivers.mcp23017:ExpanderButtons",
    ("readers", "pcsc"): "drivers.pcsc:PcscReaders",
    ("shoe", "virtual"): "drivers.virtual:VirtualShoe",
    ("shoe", "sim"): "hal_sim.fakes:FakeShoe",
    ("trays", "sim"): "hal_sim.fakes:FakeTrays",
    ("buttons", "sim"): "hal_sim.fakes:FakeButtons",
    ("readers", "sim"): "hal_sim.fakes:FakeReaders",
}
"""Every known backend: ``module:Class`` by (kind, backend name)."""


def backend_class(kind: str, backend: str) -> type[Device]:
    """Import and return the class of ``backend`` for a ``kind`` of device.

    :raises ConfigError: for an unknown kind or backend, naming the known ones.
    :raises HardwareError: if the backend's module cannot be imported (for
        example pyscard is not installed).
    """
    if kind not in KINDS:
        raise ConfigError(
            f"Unknown device kind '{kind}'; use one of {', '.join(KINDS)}.",
            key="config.device.kind",
            kind=kind,
            known=", ".join(KINDS),
        )
    target = BACKENDS.get((kind, backend))
    if target is None:
        known = sorted(b for k, b in BACKENDS if k == kind)
        raise ConfigError(
            f"Unknown backend '{backend}' for a {kind}; use one of {', '.join(known)}.",
            key="config.device.backend",
            backend=backend,
            kind=kind,
            known=", ".join(known),
        )
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise HardwareError(
            f"The {backend} backend for the {kind} cannot be loaded ({exc}); install the "
            "firmware with its hardware dependencies (pip install 'pokertable[hardware]').",
            key="config.device.load",
            backend=backend,
            kind=kind,
            error=str(exc),
        ) from exc
    cls = getattr(module, class_name)
    if not (isinstance(cls, type) and issubclass(cls, Device)):
        raise HardwareError(
            f"{target} is not a device backend.", key="config.device.not_backend", target=target
        )
    return cls


def build_devices(section: Mapping[str, Any]) -> dict[str, Device]:
    """Create (not open) every device of a ``[devices]`` configuration section."""
    devices: dict[str, Device] = {}
    for name, raw in section.items():
        if not isinstance(raw, Mapping):
            raise ConfigError(
                f"[devices.{name}] must be a table of options.",
                key="config.device.not_table",
                name=name,
            )
        options = dict(raw)
        kind = options.pop("kind", None)
        backend = options.pop("backend", None)
        if not isinstance(kind, str) or not isinstance(backend, str):
            raise ConfigError(
                f"[devices.{name}] must say its kind (shoe, trays, buttons, readers) and its "
                'backend (for example backend = "serial").',
                key="config.device.kind_backend",
                name=name,
            )
        cls = backend_class(kind, backend)
        devices[name] = cls(name, options)  # type: ignore[call-arg]
    return devices


def open_devices(devices: Mapping[str, Device], post: Any) -> None:
    """Open every device; on the first failure close those opened and re-raise.

    :raises HardwareError: naming the device that could not be opened and why.
    """
    opened: list[Device] = []
    for name, device in devices.items():
        try:
            device.open(post)
        except Exception as exc:
            for done in reversed(opened):
                done.close()
            if isinstance(exc, HardwareError):
                raise
            raise HardwareError(
                f"The device '{name}' could not be opened: {exc}.",
                key="config.device.open",
                device=name,
                error=str(exc),
            ) from exc
        opened.append(device)
