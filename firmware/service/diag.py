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
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from firmware.hal import (
    ButtonPressed,
    Buttons,
    CardRead,
    CardShoe,
    ChipsChanged,
    ChipTrays,
    DeckScanned,
    Device,
    DeviceEvent,
    DeviceFault,
    IdCardInserted,
    IdReaders,
)
from firmware.service.storage import MIN_FREE_BYTES, free_bytes
from firmware.table.table import deck_scan_problems
from firmware.table.walltime import local_text, stamp_text


class CardLookup(Protocol):
    """What the diagnostics need of the tag registry (a :class:`TagRegistry`)."""

    def card_for(self, tag: str) -> int | None:
        """The card bound to ``tag``, or ``None``."""


class DiagnosticsCancelled(Exception):
    """The technician cancelled the diagnostics."""


@dataclass
class Item:
    """One tested item and its verdict."""

    device: str
    item: str
    passed: bool
    detail: str
    key: str = ""
    """Message-catalog key of the detail (``diag.item.*``), for screens in other languages."""
    params: dict[str, Any] = field(default_factory=dict)
    """Values for the key's placeholders."""


@dataclass
class Report:
    """Every item tested, with pass or fail."""

    items: list[Item] = field(default_factory=list)
    time: float = 0.0
    """When the test started (seconds since the epoch, UTC); 0 if unknown."""

    @property
    def passed(self) -> bool:
        """All items passed."""
        return all(i.passed for i in self.items)

    def to_json(self) -> str:
        """The report as JSON (for tools and the console)."""
        return json.dumps(
            {
                "passed": self.passed,
                "time": time_text(self.time) if self.time else None,
                "items": [asdict(i) for i in self.items],
            },
            ensure_ascii=False,
            indent=2,
        )

    def to_text(self) -> str:
        """The report for a person."""
        head = [f"Test of {time_text(self.time)}"] if self.time else []
        lines = [
            f"{'PASS' if i.passed else 'FAIL'}  {i.device:10} {i.item:24} {i.detail}"
            for i in self.items
        ]
        verdict = "All items passed." if self.passed else "Some items FAILED: see above."
        return "\n".join([*head, *lines, verdict])


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


class RelayTechnician(Technician):
    """A technician on a screen: each step is relayed, yes/no answers come back.

    Used by the controller's test mode: the diagnostics run on their own
    thread, :meth:`ask` and :meth:`confirm` hand the prompt to ``show`` (which
    must not block: the controller hands it to its loop) and :meth:`confirm`
    waits for :meth:`answer`, called when the console's answer arrives.

    :param show: Called with the prompt (``device``, ``step``, ``target`` and
        ``question``: true while a yes/no answer is awaited).
    :param timeout: Seconds to wait for an answer; no answer counts as "no".
    """

    def __init__(
        self,
        show: Callable[[dict[str, Any]], None],
        timeout: float = 120.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.show = show
        self.timeout = timeout
        self.clock = clock
        self._answers: queue.SimpleQueue[bool] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._step: tuple[str, str] = ("", "")

    def ask(self, device: Device, step: str, target: str) -> None:
        """Show the step on the screen."""
        self._step = (step, target)
        self.show({"device": device.name, "step": step, "target": target, "question": False})

    def confirm(self, device: Device, question: str) -> bool:
        """Show the question with the current step and wait for the answer."""
        while not self._answers.empty():  # an answer to an earlier question is stale
            self._answers.get_nowait()
        step, target = self._step
        self.show(
            {
                "device": device.name,
                "step": step,
                "target": target,
                "question": True,
                "text": question,
            }
        )
        end = self.clock() + self.timeout
        try:
            while not self._stop.is_set():
                left = end - self.clock()
                if left <= 0:
                    return False
                try:
                    return self._answers.get(timeout=min(left, 0.1))
                except queue.Empty:
                    continue
            return False
        finally:
            self.show({"device": device.name, "step": step, "target": target, "question": False})

    def answer(self, yes: bool) -> None:
        """The technician's answer to the question shown (thread-safe)."""
        self._answers.put(yes)

    def stop(self) -> None:
        """Stop waiting for answers (thread-safe): a question waiting is answered "no"."""
        self._stop.set()


class Diagnostics:
    """Run the tests of the given, opened-here devices.

    :param devices: The devices to test, by name (not yet opened).
    :param registry: Card tags, to judge deck scans (only ``card_for`` is used,
        which reads memory: safe from the diagnostics' own thread).
    :param technician: Who performs the manual steps.
    :param timeout: Seconds to wait for each step's reading.
    :param data_dir: The data directory (journal, history): its free space is
        reported first (enough for the journal, or a failed item).

    :meth:`cancel` (from any thread) ends the run early: the device under test
    is closed, and it and every device not yet tested get a failed item.
    """

    def __init__(
        self,
        devices: Mapping[str, Device],
        registry: CardLookup,
        technician: Technician | None = None,
        timeout: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        data_dir: str | None = None,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.data_dir = data_dir
        self.wall = wall
        self.devices = dict(devices)
        self.registry = registry
        self.technician = technician or Technician()
        self.timeout = timeout
        self.clock = clock
        self._events: queue.SimpleQueue[DeviceEvent] = queue.SimpleQueue()
        self._cancelled = threading.Event()
        self.report = Report()

    def cancel(self) -> None:
        """Stop the run at the next step (thread-safe)."""
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        """:meth:`cancel` was called."""
        return self._cancelled.is_set()

    def run(self) -> Report:
        """Report the data directory's free space, then open each device, test it,
        close it; return the report."""
        self.report.time = self.wall()
        if self.data_dir is not None:
            self.report.items.append(storage_item(self.data_dir))
        for name, device in self.devices.items():
            if self.cancelled:
                self._item(name, "test", False, "not tested: cancelled", "diag.item.not_tested")
                continue
            try:
                device.open(self._events.put)
            except Exception as exc:
                detail = f"cannot be opened: {exc}"
                self._item(name, "open", False, detail, "diag.item.open_failed", error=str(exc))
                continue
            detail, key, params = _identity(device)
            self._item(name, "open", True, detail, key, **params)
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
            except DiagnosticsCancelled:
                self._item(
                    name, "test", False, "cancelled by the technician", "diag.item.cancelled"
                )
            finally:
                device.close()
        return self.report

    # ------------------------------------------------------------ tests

    def _wait(self, accept: Callable[[DeviceEvent], bool]) -> DeviceEvent | None:
        end = self.clock() + self.timeout
        while True:
            if self.cancelled:
                raise DiagnosticsCancelled()
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
        self._ask(shoe, "scan", "deck")
        started = self.clock()
        shoe.request_scan()
        found = self._wait(lambda e: isinstance(e, DeckScanned) and e.device == shoe.name)
        if not isinstance(found, DeckScanned):
            self._item(
                shoe.name,
                "deck scan",
                False,
                "no scan result: check the shoe's antenna",
                "diag.item.no_scan",
            )
            return
        seconds = max(self.clock() - started, 1e-9)
        cards = tuple(self.registry.card_for(t) for t in found.tags)
        problems = deck_scan_problems(cards, tags=found.tags)
        rate = len(found.tags) / seconds
        if problems:
            detail = "; ".join(problems)
            self._item(shoe.name, "deck scan", False, detail, "diag.item.scan_bad", problems=detail)
        else:
            rate_text = f"{rate:.0f}"
            detail = f"52 cards read once each ({rate_text} reads/s)"
            self._item(shoe.name, "deck scan", True, detail, "diag.item.scan_ok", rate=rate_text)

    def _trays(self, trays: ChipTrays) -> None:
        for zone in trays.zones():
            self._ask(trays, "place", zone)
            seen = self._wait(_zone_read(zone))
            if not isinstance(seen, ChipsChanged):
                self._item(
                    trays.name,
                    f"antenna {zone}",
                    False,
                    "the test chip was not read",
                    "diag.item.chip_unread",
                )
                continue
            cross = [
                other
                for other in trays.zones()
                if other != zone and trays.present(other) & seen.tags
            ]
            zones = ", ".join(cross)
            if cross:
                detail, key = f"cross-read in {zones}", "diag.item.cross_read"
            else:
                detail, key = "read in this zone only", "diag.item.zone_only"
            self._item(trays.name, f"antenna {zone}", not cross, detail, key, zones=zones)

    def _buttons(self, panel: Buttons) -> None:
        for button in panel.buttons():
            self._ask(panel, "press", button)
            pressed = self._wait(_pressed(button))
            if pressed is not None:
                self._item(
                    panel.name, f"button {button}", True, "pressed and read", "diag.item.pressed"
                )
            else:
                detail = "no press read: check the switch and wiring"
                self._item(panel.name, f"button {button}", False, detail, "diag.item.not_pressed")
        for led in panel.leds():
            panel.set_led(led, True)
            try:
                self._ask(panel, "look", led)
                lit = self.technician.confirm(panel, f"Is {led} lit?")
            finally:
                panel.set_led(led, False)
            if self.cancelled:
                raise DiagnosticsCancelled()
            if lit:
                self._item(panel.name, f"led {led}", True, "lit", "diag.item.lit")
            else:
                detail = "not lit: check the LED"
                self._item(panel.name, f"led {led}", False, detail, "diag.item.not_lit")

    def _readers(self, readers: IdReaders) -> None:
        for reader in readers.readers():
            self._ask(readers, "present", reader)
            got = self._wait(_inserted(reader))
            if isinstance(got, IdCardInserted):
                detail = f"read {got.identity}"
                key, identity = "diag.item.card_read", got.identity
                self._item(readers.name, f"reader {reader}", True, detail, key, identity=identity)
            else:
                self._item(
                    readers.name, f"reader {reader}", False, "no card read", "diag.item.no_card"
                )

    def _link(self, device: Device) -> None:
        stats = device.link_stats()
        if not stats:
            return
        q = link_quality(stats)
        ok = q["errors_per_1000"] < 10
        detail = (
            f"{q['errors_per_1000']:g} errors per 1,000 frames received ({q['received']} frames), "
            f"{q['resends']} resends, {q['resyncs']} resyncs, "
            f"{q['heartbeats_missed']} heartbeats missed"
        )
        self._item(device.name, "serial link", ok, detail, "diag.item.link", **q)

    def _ask(self, device: Device, step: str, target: str) -> None:
        if self.cancelled:
            raise DiagnosticsCancelled()
        self.technician.ask(device, step, target)

    def _item(
        self, device: str, item: str, passed: bool, detail: str, key: str = "", **params: Any
    ) -> None:
        self.report.items.append(Item(device, item, passed, detail, key, dict(params)))


def time_text(stamp: float, zone: str | None = None) -> str:
    """``stamp`` (seconds since the epoch) in the table's time zone ``zone`` ("" or
    ``None``: the system's) with its abbreviation, ``2026-12-01 12:32:05 -05``."""
    return local_text(stamp, zone)


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


def _identity(device: Device) -> tuple[str, str, dict[str, Any]]:
    """The open item's detail, key and parameters: the device's identity."""
    try:
        ident = device.identity()
    except Exception as exc:
        return f"identity unknown ({exc})", "diag.item.identity_unknown", {"error": str(exc)}
    detail = f"{ident.model}, serial {ident.serial}, firmware {ident.firmware}"
    params = {"model": ident.model, "serial": ident.serial, "firmware": ident.firmware}
    return detail, "diag.item.identity", params


def storage_item(data_dir: str, need: int = MIN_FREE_BYTES) -> Item:
    """The data directory's free space as a diagnostics item (failed below ``need``)."""
    try:
        free = free_bytes(data_dir)
    except OSError as exc:
        return Item(
            "storage", "free space", False, f"{data_dir} cannot be read: {exc}",
            "diag.item.storage_unreadable", {"path": data_dir, "error": str(exc)},
        )  # fmt: skip
    megabytes = free // (1024 * 1024)
    if free < need:
        return Item(
            "storage", "free space", False,
            f"only {megabytes} MB free in {data_dir}: free space before the journal fills it",
            "diag.item.storage_low", {"path": data_dir, "megabytes": megabytes},
        )  # fmt: skip
    return Item(
        "storage", "free space", True, f"{megabytes} MB free in {data_dir}",
        "diag.item.storage_ok", {"path": data_dir, "megabytes": megabytes},
    )  # fmt: skip


LINK_COUNTERS = ("sent", "received", "crc_errors", "resends", "resyncs", "heartbeats_missed")
"""The serial link counters the technician reads, in the order shown."""


def link_quality(stats: Mapping[str, int]) -> dict[str, Any]:
    """The technician's link counters from a device's ``link_stats`` (:mod:`firmware.wire`).

    ``sent`` and ``received`` frames, ``crc_errors``, ``resends`` (frames sent
    again), ``resyncs`` (times the decoder skipped bytes to find a frame) and
    ``heartbeats_missed``; ``errors_per_1000`` is the frames received damaged
    (bad CRC, length or truncated) per 1,000 frames that arrived, to one
    decimal, and ``resends_per_1000`` the resends per 1,000 frames sent.
    """
    received = int(stats.get("frames", 0))
    damaged = sum(int(stats.get(k, 0)) for k in ("crc_errors", "length_errors", "truncated"))
    sent = int(stats.get("frames_out", 0))
    resends = int(stats.get("retransmissions", 0))
    return {
        "sent": sent,
        "received": received,
        "crc_errors": int(stats.get("crc_errors", 0)),
        "resends": resends,
        "resyncs": int(stats.get("resyncs", 0)),
        "heartbeats_missed": int(stats.get("heartbeats_missed", 0)),
        "errors_per_1000": round(1000 * damaged / max(received + damaged, 1), 1),
        "resends_per_1000": round(1000 * resends / max(sent, 1), 1),
    }


READS = (CardRead, ChipsChanged, ButtonPressed, IdCardInserted, DeckScanned)
"""The device events that count as reads for the rates."""


class DeviceRates:
    """Reads and faults per device, for the technician's rates (controller thread only).

    Reads are kept as times within the last ``window`` seconds (at most
    ``limit`` per device), so :meth:`per_minute` is the recent rate, not an
    average since the start.
    """

    def __init__(self, since: float, window: float = 300.0, limit: int = 10_000) -> None:
        self.since = since
        self.window = window
        self.limit = limit
        self.reads: dict[str, int] = {}
        """Reads since the start, by device."""
        self.faults: dict[str, int] = {}
        """Faults reported since the start, by device."""
        self._times: dict[str, deque[float]] = {}

    def seen(self, event: DeviceEvent, now: float) -> None:
        """Count one device event that reached the controller at ``now``."""
        name = event.device
        if isinstance(event, DeviceFault):
            self.faults[name] = self.faults.get(name, 0) + 1
        elif isinstance(event, READS):
            self.reads[name] = self.reads.get(name, 0) + 1
            times = self._times.setdefault(name, deque(maxlen=self.limit))
            times.append(now)

    def per_minute(self, name: str, now: float) -> float | None:
        """Reads per minute over the last window (or since the start, if shorter);
        ``None`` before a whole second has passed."""
        span = min(self.window, now - self.since)
        if span < 1.0:
            return None
        times = self._times.get(name, deque())
        while times and times[0] < now - self.window:
            times.popleft()
        return round(60.0 * len(times) / span, 1)


REPORT_PREFIX = "pokertable-diag-"


def write_report(directory: str, stamp: float, text: str, data: str) -> str:
    """Write a technician report as ``pokertable-diag-<UTC time>.txt`` (and ``.json``
    beside it) in ``directory``, creating it if needed; return the text file's path.

    :param stamp: The report's time (seconds since the epoch, UTC).
    :raises OSError: when the folder cannot be made or written (a USB stick not
        mounted, read-only, full); the caller says so to the technician.
    """
    name = REPORT_PREFIX + stamp_text(stamp)  # UTC in the name: files sort by time
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name + ".txt")
    for target, body in ((path, text), (os.path.join(directory, name + ".json"), data)):
        temporary = target + ".part"
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(body if body.endswith("\n") else body + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    return path
