"""What the GPIO and the I/O-expander buttons drivers share: names, pin maps, checks.

Both drivers read a ``buttons`` and a ``leds`` table from their configuration
(name -> pin), where a name is one the controller knows
(:data:`BUTTON_NAME`, :data:`LED_NAME`) and a pin is whatever the backend
calls one: a BCM number on the header (:mod:`drivers.gpio`), ``A0``-``B7`` on
an MCP23017 (:mod:`drivers.mcp23017`). A :class:`PinScheme` says how a backend
reads and names its pins; :func:`pin_map` and :meth:`PinButtons._check_pins`
check the tables the same way for both, and every refusal carries a catalog
key (``config.pins.*``) so ``pokertable config check`` says it in Spanish too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from firmware.errors import ConfigError
from firmware.hal.devices import Buttons

BUTTON_NAME = re.compile(
    r"seat[1-9][0-9]*\.(action|raise|time|sitout)|dealer\.(next|misdeal|pause|exposed)"
)
"""Button names the controller knows (see :class:`firmware.hal.ButtonPressed`)."""

LED_NAME = re.compile(r"seat[1-9][0-9]*\.(turn|button)|dealer\.attention")
"""LED names the controller drives (see :class:`firmware.hal.Buttons`)."""


@dataclass(frozen=True)
class PinScheme:
    """How a backend reads and names its pins."""

    parse: Callable[[object], int | None]
    """A configured value -> the pin's number, or ``None`` when it names no pin."""
    said: Callable[[int], str]
    """A pin's number -> how sentences name it (``GPIO17``, ``A3``)."""
    key: str
    """The catalog's sentences for this backend: ``config.pins.<key>.table`` and
    ``config.pins.<key>.wrong``."""
    table: str
    """English of ``.table``: what a table maps names to, with an example."""
    wrong: str
    """English of ``.wrong``: what a pin must be instead."""


def unknown_options(name: str, backend: str, unknown: Iterable[str], known: str) -> ConfigError:
    """The error for options a backend does not read (``known``: those it does)."""
    listed = ", ".join(sorted(unknown))
    return ConfigError(
        f"[devices.{name}] has unknown option(s) {listed} for the {backend} backend; "
        f"it knows {known}.",
        key="config.device.unknown_options",
        name=name,
        unknown=listed,
        backend=backend,
        known=known,
    )


def pin_map(
    name: str, option: str, value: Any, pattern: re.Pattern[str], scheme: PinScheme
) -> dict[str, int]:
    """``[devices.NAME] option`` (``buttons`` or ``leds``) as name -> pin number.

    :raises ConfigError: for a value that is no table, a name the controller does not
        know or a value that names no pin.
    """
    example = "seat1.action" if option == "buttons" else "seat1.turn"
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"[devices.{name}] {option} must be a table of " + scheme.table.format(
                option=option, example=example
            ),
            key=f"config.pins.{scheme.key}.table",
            name=name,
            option=option,
            example=example,
        )  # fmt: skip
    kind = "button" if option == "buttons" else "LED"
    pins: dict[str, int] = {}
    for key, pin in value.items():
        if not isinstance(key, str) or pattern.fullmatch(key) is None:
            raise ConfigError(
                f"[devices.{name}] {option} names an unknown {kind} '{key}'; "
                f"{kind} names match {pattern.pattern}.",
                key=f"config.pins.unknown_{option}",
                name=name,
                option=option,
                label=str(key),
                pattern=pattern.pattern,
            )
        number = scheme.parse(pin)
        if number is None:
            raise ConfigError(
                f"[devices.{name}] {option}.{key} = {pin!r} {scheme.wrong}",
                key=f"config.pins.{scheme.key}.wrong",
                name=name,
                option=option,
                label=key,
                value=repr(pin),
            )
        pins[key] = number
    return pins


class PinButtons(Buttons):
    """A buttons device whose buttons and LEDs are pins: the names, the LED check and
    the rule that each pin serves one button or LED."""

    _buttons: dict[str, int]
    _leds: dict[str, int]

    def _check_pins(self, scheme: PinScheme) -> None:
        """Refuse a device without buttons and LEDs, and a pin used twice.

        :raises ConfigError: naming the pin and both uses.
        """
        if not self._buttons and not self._leds:
            raise ConfigError(
                f"[devices.{self.name}] configures no buttons and no LEDs; add some.",
                key="config.pins.none",
                name=self.name,
            )
        used: dict[int, dict[str, Any]] = {}
        for kind, pins in (("button", self._buttons), ("LED", self._leds)):
            for label, pin in pins.items():
                use = {"key": f"config.pins.{kind.lower()}", "params": {"label": label},
                       "text": f"{kind} {label}"}  # fmt: skip
                if pin in used:
                    raise ConfigError(
                        f"[devices.{self.name}] uses {scheme.said(pin)} twice, for the "
                        f"{used[pin]['text']} and the {use['text']}; give each its own pin.",
                        key="config.pins.twice",
                        name=self.name,
                        pin=scheme.said(pin),
                        first=used[pin],
                        second=use,
                    )
                used[pin] = use

    def _check_led(self, led: str) -> None:
        """:raises ConfigError: if no LED ``led`` is configured."""
        if led not in self._leds:
            raise ConfigError(
                f"The buttons device '{self.name}' has no LED '{led}'; add it to leds in "
                f"[devices.{self.name}].",
                key="config.pins.no_led",
                name=self.name,
                led=led,
            )

    def buttons(self) -> tuple[str, ...]:
        """The configured button names."""
        return tuple(self._buttons)

    def leds(self) -> tuple[str, ...]:
        """The configured LED names."""
        return tuple(self._leds)


__all__ = ["BUTTON_NAME", "LED_NAME", "PinButtons", "PinScheme", "pin_map", "unknown_options"]
