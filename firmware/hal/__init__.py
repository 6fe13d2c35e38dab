"""The hardware-abstraction layer: what every device backend must provide.

``firmware/`` talks to hardware only through these interfaces. Real drivers
(``drivers/``) and simulations (``hal_sim/``) implement them and are chosen
by configuration (:mod:`firmware.hal.backends`); a configured device that
cannot be opened stops startup, there is no silent fallback.

Every backend reads on its own thread (or asyncio task) and hands what it
reads to the controller through the ``post`` callable given to
:meth:`Device.open`; only the controller changes state. ``post`` is
thread-safe and never blocks.

As in gpiozero's pin factories, each abstract class lists what a backend
*must* override (abstract methods) and what it *may* override (methods with a
default).
"""

from firmware.hal.devices import (
    Buttons,
    CardShoe,
    ChipTrays,
    Device,
    DeviceIdentity,
    Health,
    IdReaders,
    Post,
)
from firmware.hal.messages import (
    AntennaFault,
    ButtonPressed,
    CardRead,
    ChipsChanged,
    DeckScanned,
    DeviceEvent,
    DeviceFault,
    DeviceRecovered,
    IdCardInserted,
    IdCardRemoved,
    ShoeState,
)

__all__ = [
    "AntennaFault",
    "ButtonPressed",
    "Buttons",
    "CardRead",
    "CardShoe",
    "ChipTrays",
    "ChipsChanged",
    "DeckScanned",
    "Device",
    "DeviceEvent",
    "DeviceFault",
    "DeviceIdentity",
    "DeviceRecovered",
    "Health",
    "IdCardInserted",
    "IdCardRemoved",
    "IdReaders",
    "Post",
    "ShoeState",
]
