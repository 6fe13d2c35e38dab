"""Technician diagnostics: test every device without touching game data.

Diagnostics open the configured devices on their own (never the table, the
journal or the meters) and test each item, recording pass or fail with a
sentence:

* shoe: a deck scan - every card of the deck read once, unknown and
  duplicated tags, missing cards, the read rate;
* chip trays: per zone, a test chip placed by the technician must be read in
  that zone and in no neighbouring zone (cross-reads are reported);
* buttons and LEDs: every button pressed in turn, every LED lit in turn;
* smart-card readers: a card presented to each reader;
* serial link quality: CRC errors, retransmissions, resynchronisations.

Steps that need the technician's hands go through a :class:`Technician`
(the console's technician screen, the command line, or a test script).
"""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from firmware.hal import (
    ButtonPressed,
    Buttons,
    CardShoe,
    ChipsChanged,
    ChipTrays,
    DeckScanned,
    Device,
    DeviceEvent,
    IdCardInserted,
    IdReaders,
)
from firmware.registry import TagRegistry
from firmware.table.table import deck_scan_problems


@dataclass
class Item:
    """One tested item and its verdict."""

    device: str
    item: str
    passed: bool
    detail: str


@dataclass
class Report:
    """Every item tested, with pass or fail."""

    items: list[Item] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """All items passed."""
        return all(i.passed for i in self.items)

    def to_json(self) -> str:
        """The report as JSON (for tools and the console)."""
        return json.dumps(
            {"passed": self.passed, "items": [asdict(i) for i in self.items]},
            ensure_ascii=False,
            indent=2,
        )

    def to_text(self) -> str:
        """The report for a person."""
        lines = [
            f"{'PASS' if i.passed else 'FAIL'}  {i.device:10} {i.item:24} {i.detail}"
            for i in self.items
        ]
        verdict = "All items passed." if self.passed else "Some items FAILED: see above."
        return "\n".join([*lines, verdict])


class Technician:
    """What the technician is asked to do; the default one only tells the steps.

    A screen or a test overrides :meth:`ask` to guide or play the step.
    """

    def ask(self, device: Device, step: str, target: str) -> None:
        """Ask for a step: ``press`` a button, ``look`` at an LED, ``place`` a test
        chip in a zone, ``present`` a card to a reader, ``scan`` the deck."""

    def confirm(self, device: Device, question: str) -> bool:
        """Ask a yes/no question (an LED lit?); the default answers yes."""
        return True


class Diagnostics:
    """Run the tests of the given, opened-here devices.

    :param devices: The devices to test, by name (not yet opened).
    :param registry: Card and chip tags, to judge scans and test chips.
    :param technician: Who performs the manual steps.
    :param timeout: Seconds to wait for each step's reading.
    """

    def __init__(
        self,
        devices: Mapping[str, Device],
        registry: TagRegistry,
        technician: Technician | None = None,
        timeout: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.devices = dict(devices)
        self.registry = registry
        self.technician = technician or Technician()
        self.timeout = timeout
        self.clock = clock
        self._events: queue.SimpleQueue[DeviceEvent] = queue.SimpleQueue()
        self.report = Report()

    def run(self) -> Report:
        """Open each device, test it, close it; return the report."""
        for name, device in self.devices.items():
            try:
                device.open(self._events.put)
            except Exception as exc:
                self._item(name, "open", False, f"cannot be opened: {exc}")
                continue
            self._item(name, "open", True, _identity(device))
            try:
                if isinstance(device, CardShoe):
                    self._shoe(device)
                elif isinstance(device, ChipTrays):
                    self._trays(device)
                elif isinstance(device, Buttons):
                    self._buttons(device)
                elif isinstance(device, IdReaders):
                    self._readers(device)
                self._link(device)
            finally:
                device.close()
        return self.report

    # ------------------------------------------------------------ tests

    def _wait(self, accept: Callable[[DeviceEvent], bool]) -> DeviceEvent | None:
        end = self.clock() + self.timeout
        while True:
            left = end - self.clock()
            if left <= 0:
                return None
            try:
                event = self._events.get(timeout=min(left, 0.1))
            except queue.Empty:
                continue
            if accept(event):
                return event

    def _shoe(self, shoe: CardShoe) -> None:
        self.technician.ask(shoe, "scan", "deck")
        started = self.clock()
        shoe.request_scan()
        found = self._wait(lambda e: isinstance(e, DeckScanned) and e.device == shoe.name)
        if not isinstance(found, DeckScanned):
            self._item(shoe.name, "deck scan", False, "no scan result: check the shoe's antenna")
            return
        seconds = max(self.clock() - started, 1e-9)
        cards = tuple(self.registry.card_for(t) for t in found.tags)
        problems = deck_scan_problems(cards, tags=found.tags)
        rate = len(found.tags) / seconds
        detail = "; ".join(problems) or f"52 cards read once each ({rate:.0f} reads/s)"
        self._item(shoe.name, "deck scan", not problems, detail)

    def _trays(self, trays: ChipTrays) -> None:
        for zone in trays.zones():
            self.technician.ask(trays, "place", zone)
            seen = self._wait(_zone_read(zone))
            if not isinstance(seen, ChipsChanged):
                self._item(trays.name, f"antenna {zone}", False, "the test chip was not read")
                continue
            cross = [
                other
                for other in trays.zones()
                if other != zone and trays.present(other) & seen.tags
            ]
            detail = f"cross-read in {', '.join(cross)}" if cross else "read in this zone only"
            self._item(trays.name, f"antenna {zone}", not cross, detail)

    def _buttons(self, panel: Buttons) -> None:
        for button in panel.buttons():
            self.technician.ask(panel, "press", button)
            pressed = self._wait(_pressed(button))
            self._item(
                panel.name,
                f"button {button}",
                pressed is not None,
                "pressed and read" if pressed else "no press read: check the switch and wiring",
            )
        for led in panel.leds():
            panel.set_led(led, True)
            self.technician.ask(panel, "look", led)
            lit = self.technician.confirm(panel, f"Is {led} lit?")
            panel.set_led(led, False)
            self._item(panel.name, f"led {led}", lit, "lit" if lit else "not lit: check the LED")

    def _readers(self, readers: IdReaders) -> None:
        for reader in readers.readers():
            self.technician.ask(readers, "present", reader)
            got = self._wait(_inserted(reader))
            detail = f"read {got.identity}" if isinstance(got, IdCardInserted) else "no card read"
            self._item(readers.name, f"reader {reader}", got is not None, detail)

    def _link(self, device: Device) -> None:
        stats = device.link_stats()
        if not stats:
            return
        errors = stats.get("crc_errors", 0) + stats.get("resyncs", 0)
        frames = max(stats.get("frames", 0), 1)
        ok = errors / frames < 0.01
        detail = ", ".join(f"{k} {v}" for k, v in sorted(stats.items()))
        self._item(device.name, "serial link", ok, detail)

    def _item(self, device: str, item: str, passed: bool, detail: str) -> None:
        self.report.items.append(Item(device, item, passed, detail))


def _zone_read(zone: str) -> Callable[[DeviceEvent], bool]:
    def accept(event: DeviceEvent) -> bool:
        return isinstance(event, ChipsChanged) and event.zone == zone and bool(event.tags)

    return accept


def _pressed(button: str) -> Callable[[DeviceEvent], bool]:
    def accept(event: DeviceEvent) -> bool:
        return isinstance(event, ButtonPressed) and event.button == button

    return accept


def _inserted(reader: str) -> Callable[[DeviceEvent], bool]:
    def accept(event: DeviceEvent) -> bool:
        return isinstance(event, IdCardInserted) and event.reader == reader

    return accept


def _identity(device: Device) -> str:
    try:
        ident = device.identity()
    except Exception as exc:
        return f"identity unknown ({exc})"
    return f"{ident.model}, serial {ident.serial}, firmware {ident.firmware}"


def main_diag(argv: list[str] | None = None) -> int:
    """``pokertable diag``: test all devices (or one) and print a human or JSON report."""
    import argparse
    import os
    import tomllib

    from firmware.hal.backends import build_devices

    parser = argparse.ArgumentParser(prog="pokertable diag", description=__doc__)
    parser.add_argument("--config", default="/etc/pokertable/table.toml")
    parser.add_argument("--data", default="/var/lib/pokertable")
    parser.add_argument("--device", help="test only this device")
    parser.add_argument("--json", action="store_true", help="print the JSON report")
    args = parser.parse_args(argv)
    with open(args.config, "rb") as handle:
        section: dict[str, Any] = tomllib.load(handle).get("devices", {})
    if args.device:
        if args.device not in section:
            print(f"pokertable diag: no device '{args.device}' in {args.config}.")
            return 2
        section = {args.device: section[args.device]}
    registry = TagRegistry(os.path.join(args.data, "tags.sqlite"))
    report = Diagnostics(build_devices(section), registry, _PromptTechnician()).run()
    print(report.to_json() if args.json else report.to_text())
    return 0 if report.passed else 1


class _PromptTechnician(Technician):
    """Tells the steps on the terminal and asks the yes/no questions."""

    def ask(self, device: Device, step: str, target: str) -> None:
        words = {
            "press": f"Press {target}.",
            "look": f"Look at {target}.",
            "place": f"Place a test chip in {target}.",
            "present": f"Present a card to reader {target}.",
            "scan": "Put a full deck in the shoe for a scan.",
        }
        print(f"[{device.name}] {words.get(step, step)}", flush=True)

    def confirm(self, device: Device, question: str) -> bool:
        return input(f"[{device.name}] {question} [y/n] ").strip().lower().startswith("y")
