"""An emulated RFID card shoe on a pty: ``python -m hal_sim.shoe --pty``.

In-process use (fast tests)::

    emu = ShoeEmulator()
    path = emu.start()          # give this path to SerialShoe as its port
    emu.draw("04A1B2C3D4E5F6")
    emu.stop()
"""

from __future__ import annotations

from collections.abc import Sequence

from firmware.wire.codec import (
    CardDrawn,
    DeviceError,
    ErrorCode,
    Identity,
    Message,
    ScanRequest,
    ScanResult,
    ShoeStateCode,
    ShoeStateReport,
    chunk_tags,
)
from firmware.wire.link import LinkConfig
from hal_sim.emulator import COMMON_HELP, Emulator, run_cli

SHOE_HELP = """\
draw TAG           a card with this tag leaves the shoe
double TAG         the reader reports one card twice (two reads, two read numbers)
unknown            a card whose tag belongs to no deck (FFFFFFFFFFFFFF) leaves the shoe
state NAME         ready, deck_in, empty, jam or cover_open
scan TAG...        the tags the next deck scan finds, in order
error CODE TEXT    report a device fault (code name, e.g. overheat; none clears it)
"""

UNKNOWN_TAG = "FFFFFFFFFFFFFF"


class ShoeEmulator(Emulator):
    """A card shoe: draws, states, deck scans; plus the faults of :class:`Emulator`."""

    def __init__(
        self,
        model: str = "RS-52 shoe",
        serial: str = "SHOE-0001",
        firmware: str = "2.1.0",
        config: LinkConfig | None = None,
        major: int | None = None,
    ) -> None:
        super().__init__(Identity(0, 0, 0, 0, model, serial, firmware), config)
        self.read_no = 0
        self.scan_tags: tuple[str, ...] = ()
        self.scans_requested = 0
        if major is not None:
            self.link.major = major

    def draw(self, tag: str) -> int:
        """A card leaves the shoe; returns its read number."""
        with self.lock:
            self.read_no += 1
            n = self.read_no
            self.send(CardDrawn(n, tag.upper()))
        return n

    def draw_twice(self, tag: str) -> None:
        """The reader reports one physical card twice."""
        self.draw(tag)
        self.draw(tag)

    def set_state(self, state: str) -> None:
        """Report the shoe's state: ready, deck_in, empty, jam or cover_open."""
        try:
            code = ShoeStateCode[state.upper()]
        except KeyError:
            names = ", ".join(s.name.lower() for s in ShoeStateCode)
            raise ValueError(f"Unknown shoe state {state!r}; use one of {names}.") from None
        self.send(ShoeStateReport(code))

    def set_scan(self, tags: Sequence[str]) -> None:
        """What the next deck scan finds."""
        with self.lock:
            self.scan_tags = tuple(t.upper() for t in tags)

    def report_error(self, code: str, detail: str) -> None:
        """Send DEVICE_ERROR (``none`` clears the fault)."""
        self.send(DeviceError(ErrorCode[code.upper()], detail))

    def handle(self, msg: Message) -> None:
        if isinstance(msg, ScanRequest):
            self.scans_requested += 1
            for tags, more in chunk_tags(self.scan_tags, overhead=3):
                self.link.send(ScanResult(msg.scan_id, tags, more))


def main() -> int:
    """Run the emulator as a process on a pty."""
    emu = ShoeEmulator()
    commands = {
        "draw": lambda a: str(emu.draw(a[0])),
        "double": lambda a: emu.draw_twice(a[0]),
        "unknown": lambda a: str(emu.draw(UNKNOWN_TAG)),
        "state": lambda a: emu.set_state(a[0]),
        "scan": lambda a: emu.set_scan(a),
        "error": lambda a: emu.report_error(a[0], " ".join(a[1:])),
    }
    return run_cli(emu, commands, "Emulated card shoe.\n" + SHOE_HELP + COMMON_HELP)


if __name__ == "__main__":
    raise SystemExit(main())
