"""The controller: one event loop owns the table.

Device backends read on their own threads and hand what they read to
:meth:`Controller.post`; screens and other inputs hand over callables with
:meth:`Controller.call_soon`. Only the loop thread changes state. It turns
device events into table events (a tag read becomes a card drawn, the
dealer's misdeal button a misdeal report), journals each table event before
applying it, and drives the outputs (the turn and dealer-button LEDs).

While a device is in fault the hand is paused: card and chip reads are held,
not applied, and the console shows which device and what to do; when every
device is back the held events are applied in order. Reads carry the
device's sequence number, so a read repeated after a reconnection is applied
once.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware.errors import HardwareError, IllegalAction
from firmware.hal import (
    AntennaFault,
    ButtonPressed,
    Buttons,
    CardRead,
    ChipsChanged,
    DeckScanned,
    Device,
    DeviceEvent,
    DeviceFault,
    DeviceRecovered,
    IdCardInserted,
    IdCardRemoved,
    ShoeState,
)
from firmware.hal.backends import open_devices
from firmware.registry import TagRegistry
from firmware.table import events as te
from firmware.table.table import Table

GAME_INPUT = (te.CardDrawn, te.DeckEmpty)
"""Table events that come from the devices and must wait while the hand is paused."""


@dataclass(frozen=True)
class Alert:
    """Something the dealer console must show: a sentence, and the device if any."""

    time: float
    text: str
    device: str | None = None


@dataclass
class ControllerState:
    """What the controller knows beyond the table: faults, readers, zones."""

    faults: dict[str, str] = field(default_factory=dict)
    manual_pause: bool = False
    held: list[tuple[te.TableEvent, str, str | None]] = field(default_factory=list)
    last_seq: dict[str, int] = field(default_factory=dict)
    readers: dict[str, str] = field(default_factory=dict)
    zones: dict[str, frozenset[str]] = field(default_factory=dict)
    leds: dict[tuple[str, str], bool] = field(default_factory=dict)


class Controller:
    """Runs the table from device events.

    :param table: The table it owns.
    :param devices: The configured devices, by name (not yet opened).
    :param registry: Card and chip tags.
    :param journal: Called with every table event before it is applied.
    :param clock: Monotonic time in seconds (injectable for tests).
    :param tick_seconds: How often timer events reach the table.
    """

    def __init__(
        self,
        table: Table,
        devices: Mapping[str, Device],
        registry: TagRegistry,
        journal: Callable[[te.TableEvent], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
        tick_seconds: float = 1.0,
    ) -> None:
        self.table = table
        self.devices = dict(devices)
        self.registry = registry
        self.journal = journal
        self.clock = clock
        self.tick_seconds = tick_seconds
        self.state = ControllerState()
        self.alerts: list[Alert] = []
        self.listeners: list[Callable[[Controller], None]] = []
        self.services: list[Any] = []
        """Servers started and stopped with the controller (the table protocol)."""
        self.fault_listeners: list[Callable[[DeviceFault], None]] = []
        """Called with every device fault (the meters count them)."""
        self.loop_hooks: list[Callable[[float], None]] = []
        """Called with the time on every turn of the loop (the watchdog ping)."""
        self._queue: queue.SimpleQueue[DeviceEvent | Callable[[], None]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._closed = False
        self._started_at = clock()

    # ------------------------------------------------------------ threads in

    def post(self, event: DeviceEvent) -> None:
        """Hand a device event to the loop (thread-safe, never blocks)."""
        self._queue.put(event)

    def call_soon(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the loop thread (thread-safe, never blocks)."""
        self._queue.put(fn)

    def stop(self) -> None:
        """Ask the loop to stop (thread-safe; safe from a signal handler)."""
        self._stop.set()
        self._queue.put(lambda: None)

    # ------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Open every device; a device that cannot open stops startup.

        :raises HardwareError: naming the device and why.
        """
        open_devices(self.devices, self.post)
        self._outputs()

    def run(self, until: Callable[[], bool] | None = None) -> None:
        """Run the loop until :meth:`stop` (or ``until()`` is true after an event)."""
        next_tick = self.clock() + self.tick_seconds
        while not self._stop.is_set():
            timeout = max(0.0, next_tick - self.clock())
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                item = None
            if item is not None:
                self.dispatch(item)
            now = self.clock()
            for hook in self.loop_hooks:
                hook(now)
            if now >= next_tick:
                self.apply(te.Tick(self.table_time(now)))
                next_tick = now + self.tick_seconds
            if until is not None and until():
                break

    def run_pending(self) -> int:
        """Handle everything already queued without waiting; return how many (tests)."""
        count = 0
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return count
            self.dispatch(item)
            count += 1

    def shutdown(self) -> None:
        """Put every output in its safe state and close every device (idempotent).

        Each device is closed on its own, so one failing does not keep the
        others' outputs live.
        """
        if self._closed:
            return
        self._closed = True
        for device in self.devices.values():
            try:
                device.close()
            except Exception as exc:  # a failing close must not stop the others
                self._alert(
                    f"The device '{device.name}' did not close cleanly: {exc}.", device.name
                )

    def table_time(self, now: float | None = None) -> float:
        """Seconds since the controller started, the table's clock."""
        return round((self.clock() if now is None else now) - self._started_at, 3)

    # ------------------------------------------------------------ events

    @property
    def paused(self) -> bool:
        """The hand is paused: a device is in fault or the dealer paused it."""
        return bool(self.state.faults) or self.state.manual_pause

    def dispatch(self, item: DeviceEvent | Callable[[], None]) -> None:
        """Handle one queued item on the loop thread."""
        if isinstance(item, DeviceEvent):
            self.handle(item)
        else:
            item()
        for listener in self.listeners:
            listener(self)

    def handle(self, event: DeviceEvent) -> None:
        """Turn one device event into table events, alerts and state."""
        st = self.state
        if isinstance(event, CardRead):
            last = st.last_seq.get(event.device)
            if last is not None and event.seq <= last:
                return  # a read repeated after a reconnection: applied once
            st.last_seq[event.device] = event.seq
            card = self.registry.card_for(event.tag)
            if card is None:
                self._alert(
                    f"The shoe read the unknown tag {event.tag}: a joker or a card from another "
                    "deck? Take it out, show it to the floor and report it.",
                    event.device,
                )
                return
            self.game_input(te.CardDrawn(card), f"tag {event.tag}", event.device)
        elif isinstance(event, ShoeState):
            if event.state == "empty":
                self.game_input(te.DeckEmpty())
            elif event.state in ("jam", "cover_open"):
                what = "is jammed" if event.state == "jam" else "has its cover open"
                self._alert(f"The card shoe {what}: clear it before dealing on.", event.device)
        elif isinstance(event, DeckScanned):
            self._deck_scanned(event)
        elif isinstance(event, ChipsChanged):
            before = self._chips_on_table()
            st.zones[event.zone] = event.tags
            after = self._chips_on_table()
            if self.table.hand is not None and after < before:
                self._alert(
                    f"Chips worth {before - after} left the table from {event.zone} during the "
                    "hand (TDA-23): chips must stay in view; call the floor.",
                    event.device,
                )
            _, unknown = self.registry.chips_value(event.tags)
            if unknown:
                self._alert(
                    f"Unknown chip tag(s) in {event.zone}: {', '.join(sorted(unknown))}. Take "
                    "them off the table and report them.",
                    event.device,
                )
        elif isinstance(event, AntennaFault):
            self._alert(
                f"The chip tray antenna for {event.zone} failed ({event.detail}); count that "
                "zone by hand until it is repaired.",
                event.device,
            )
        elif isinstance(event, ButtonPressed):
            self._button(event)
        elif isinstance(event, IdCardInserted):
            st.readers[event.reader] = event.identity
        elif isinstance(event, IdCardRemoved):
            st.readers.pop(event.reader, None)
        elif isinstance(event, DeviceFault):
            st.faults[event.device] = event.detail
            paused = "" if "paused" in event.detail else " The hand is paused."
            self._alert(event.detail + paused, event.device)
            for listener in self.fault_listeners:
                listener(event)
        elif isinstance(event, DeviceRecovered):
            st.faults.pop(event.device, None)
            self._alert(f"The device '{event.device}' is working again.", event.device)
            self._release_held()

    def game_input(self, event: te.TableEvent, origin: str = "", device: str | None = None) -> None:
        """Apply a card or chip event now, or hold it while the hand is paused.

        A refusal becomes an alert naming where the event came from (the tag
        and the device), so a card read twice is traced to its read.
        """
        if self.paused:
            self.state.held.append((event, origin, device))
            return
        try:
            self.submit(event)
        except IllegalAction as exc:
            self._alert(f"{exc} ({origin})" if origin else str(exc), device)

    def apply(self, event: te.TableEvent) -> bool:
        """Journal and apply one table event; a refusal becomes a console alert."""
        try:
            self.submit(event)
        except IllegalAction as exc:
            self._alert(str(exc))
            return False
        return True

    def submit(self, event: te.TableEvent) -> None:
        """Journal and apply one table event (on the loop thread).

        :raises IllegalAction: if the table refuses it, for the caller to
            show (a seat screen shows its own refusals).
        """
        if self.journal is not None:
            self.journal(event)
        try:
            self.table.apply(event)
        finally:
            self._outputs()

    # ------------------------------------------------------------ helpers

    def _release_held(self) -> None:
        if self.paused:
            return
        held, self.state.held = self.state.held, []
        for event, origin, device in held:
            self.game_input(event, origin, device)

    def _deck_scanned(self, event: DeckScanned) -> None:
        cards = tuple(self.registry.card_for(tag) for tag in event.tags)
        unknown = [tag for tag, card in zip(event.tags, cards, strict=True) if card is None]
        if unknown:
            self._alert(
                f"The deck scan found {len(unknown)} unknown tag(s) ({', '.join(unknown[:5])}); "
                "remove jokers and foreign cards (PE-1).",
                event.device,
            )
        expected = self.table.deck.checklist
        if self.table.hand is None and not expected:
            self.apply(te.DeckStep("show", cards))

    def _chips_on_table(self) -> int:
        """Value of every registered chip read in any zone (seats, pot, bank)."""
        return sum(self.registry.chips_value(tags)[0] for tags in self.state.zones.values())

    def _button(self, event: ButtonPressed) -> None:
        name = event.button
        if name == "dealer.next":
            if self.table.hand is None:
                self.apply(te.Shuffle())  # the hand starts at the shuffle (TDA-17)
        elif name == "dealer.misdeal":
            self.apply(te.Misdeal("declared with the dealer's misdeal button"))
        elif name == "dealer.pause":
            self.state.manual_pause = not self.state.manual_pause
            self._alert("The dealer paused the hand." if self.paused else "The hand resumes.")
            self._release_held()
        elif name.startswith("seat") and name.endswith(".sitout"):
            seat = int(name[4:].split(".")[0])
            current = self.table.seating.seats.get(seat)
            if current is not None:
                self.apply(te.SitOut(seat, not current.sitting_out))

    def _alert(self, text: str, device: str | None = None) -> None:
        self.alerts.append(Alert(self.table_time(), text, device))

    def _outputs(self) -> None:
        """Light the turn LED of the seat to act and the dealer-button LED."""
        hand = self.table.hand
        actor_seat = None
        if hand is not None and hand.hand.actor is not None:
            actor_seat = hand.seat(hand.hand.actor)
        button = hand.plan.button if hand is not None else self.table.seating.button
        for device in self.devices.values():
            if not isinstance(device, Buttons) or self._closed:
                continue
            for led in device.leds():
                seat_part, _, what = led.partition(".")
                on = False
                if seat_part.startswith("seat") and seat_part[4:].isdigit():
                    seat = int(seat_part[4:])
                    on = (what == "turn" and seat == actor_seat) or (
                        what == "button" and seat == button
                    )
                elif led == "dealer.attention":
                    on = self.paused
                key = (device.name, led)
                if self.state.leds.get(key) != on:
                    try:
                        device.set_led(led, on)
                    except HardwareError as exc:
                        self._alert(str(exc), device.name)
                        continue
                    self.state.leds[key] = on
