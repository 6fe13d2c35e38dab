"""Emulated RFID chip trays on a pty: ``python -m hal_sim.trays --pty``.

In-process use (fast tests)::

    emu = TraysEmulator(("seat1.bet", "pot"))
    path = emu.start()          # give this path to SerialTrays as its port
    emu.set_zone("seat1.bet", ["E0040150"])
    emu.stop()
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from firmware.wire.codec import AntennaFaultReport, ErrorCode, Identity, ZoneState, chunk_tags
from firmware.wire.link import LinkConfig
from hal_sim.emulator import COMMON_HELP, Emulator, run_cli

TRAYS_HELP = """\
zone NAME TAG...   the chip tags now in zone NAME (none: empty)
antenna ZONE CODE TEXT  report an antenna fault (antenna_open, antenna_short, antenna_noise)
"""

DEFAULT_ZONES = (
    *(f"seat{i}.{kind}" for i in range(1, 11) for kind in ("bet", "stack")),
    "bank",
    "pot",
)


class TraysEmulator(Emulator):
    """Chip trays: zone contents and antenna faults; plus the faults of :class:`Emulator`."""

    def __init__(
        self,
        zones: Sequence[str] = DEFAULT_ZONES,
        model: str = "CT-10 trays",
        serial: str = "TRAY-0001",
        firmware: str = "1.4.2",
        config: LinkConfig | None = None,
    ) -> None:
        super().__init__(Identity(0, 0, 0, 0, model, serial, firmware, tuple(zones)), config)
        self.contents: dict[str, tuple[str, ...]] = {z: () for z in zones}

    def set_zone(self, zone: str, tags: Iterable[str]) -> None:
        """Put exactly these chip tags in ``zone`` and report its full state."""
        with self.lock:
            if zone not in self.contents:
                raise ValueError(f"No zone {zone!r}; the zones are {', '.join(self.contents)}.")
            self.contents[zone] = tuple(t.upper() for t in tags)
            self._send_zone(zone)
        self._wake()

    def antenna_fault(self, zone: str, code: str = "antenna_open", detail: str = "") -> None:
        """Report that ``zone``'s antenna failed."""
        self.send(AntennaFaultReport(zone, ErrorCode[code.upper()], detail))

    def _send_zone(self, zone: str) -> None:
        overhead = 1 + len(zone.encode()) + 1
        for tags, more in chunk_tags(self.contents[zone], overhead):
            self.link.send(ZoneState(zone, tags, more))

    def on_link_up(self) -> None:
        for zone in self.contents:
            self._send_zone(zone)


def main() -> int:
    """Run the emulator as a process on a pty."""
    emu = TraysEmulator()
    commands = {
        "zone": lambda a: emu.set_zone(a[0], [t for t in a[1:] if t != "none"]),
        "antenna": lambda a: emu.antenna_fault(a[0], a[1], " ".join(a[2:])),
    }
    return run_cli(emu, commands, "Emulated chip trays.\n" + TRAYS_HELP + COMMON_HELP)


if __name__ == "__main__":
    raise SystemExit(main())
