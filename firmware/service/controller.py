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

Test mode (:meth:`Controller.start_diagnostics`): between hands a technician
runs :class:`~firmware.service.diag.Diagnostics` on the table's own devices. The
devices are closed (outputs safe) and tested on a worker thread, never the
loop thread; while the test runs nothing reaches the table: no tick, no
table event (refused with ``diag.busy``), no device event (the devices post
to the diagnostics). Afterwards the devices are reopened and the outputs
restored: the journal, the meters and the table are as they were.
"""

from __future__ import annotations

import queue
import re
import threading
import time
from collections.abc import Callable, Mapping
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
from firmware.service.buttons import TableButtons
from firmware.service.chipbets import ChipBets
from firmware.service.controller_state import (
    Alert,
    AlertLog,
    ControllerState,
    DiagSession,
    said_error,
)
from firmware.service.diag import DeviceRates
from firmware.service.house import HouseMoney
from firmware.service.registry import TagRegistry
from firmware.service.safety import Stops, Trials
from firmware.service.tabletime import LEVEL_JOURNAL_SECONDS, TableTime
from firmware.service.technician import TechnicianMode
from firmware.table import events as te
from firmware.table.table import Table

GAME_INPUT = (te.CardDrawn, te.DeckEmpty)
"""Table events that come from the devices and must wait while the hand is paused."""

BET_ZONE = re.compile(r"seat(\d+)\.bet")


class Controller(Stops, TechnicianMode, HouseMoney, TableTime, TableButtons):
    """Runs the table from device events.

    :param table: The table it owns.
    :param devices: The configured devices, by name (not yet opened).
    :param registry: Card and chip tags.
    :param journal: Called with every table event before it is applied.
    :param clock: Monotonic time in seconds (injectable for tests).
    :param tick_seconds: How often timer events reach the table.
    :param storage_ok: Whether the journal's disk has room again; while the
        journal cannot be written the table is paused and this is checked
        every tick (``None``: retried on the next event instead).
    :param journal_sync: Called after each item once its views are out: the signed
        head its records left due (``Journal.defer_head``), off the screens' path.
    """

    def __init__(
        self,
        table: Table,
        devices: Mapping[str, Device],
        registry: TagRegistry,
        journal: Callable[[te.TableEvent], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
        tick_seconds: float = 1.0,
        storage_ok: Callable[[], bool] | None = None,
        journal_sync: Callable[[], None] | None = None,
    ) -> None:
        self.table = table
        self.devices = dict(devices)
        self.registry = registry
        self.journal = journal
        self.clock = clock
        self.tick_seconds = tick_seconds
        self.storage_ok = storage_ok
        self.journal_sync = journal_sync
        self.data_dir: str | None = None
        """The data directory, for the diagnostics' free-space item (set by ``serve``)."""
        self.state = ControllerState()
        self.trials = Trials()
        """Where each event is tried before it is journaled (a twin of the table)."""
        self.chip_bets = ChipBets(registry)
        self.alerts = AlertLog(self.state.faults)
        self.display_names: dict[str, dict[str, str]] = {}
        """Each device's display name by language (the configuration's ``display_name``)."""
        self.players: dict[str, str] = {}
        """The player directory: a player card's id to the player's name (``[[players]]``)."""
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
        # The table's clock goes on from where the journal left it after a restart.
        self._started_at = clock() - table.now
        self._journaled_time = table.now
        """The table's time as far as the journal knows it (see :meth:`tick`)."""
        self._anchored = False
        """A :class:`~firmware.table.events.WallClock` was journaled since this start."""
        self.diag: DiagSession | None = None
        """The technician's test: running, or the last one's report."""
        self.diag_timeout = 30.0
        """Seconds the diagnostics wait for each reading (a press, a chip, a card)."""
        self.diag_answer_timeout = 120.0
        """Seconds the diagnostics wait for the technician's yes/no answer."""
        self._diag_thread: threading.Thread | None = None
        self.rates = DeviceRates(clock())
        """Reads and faults per device, for the technician's rates."""
        self.wall: Callable[[], float] = time.time
        """Wall-clock time (seconds since the epoch), for timestamped reports and the
        journaled anchor of the records' real times (:class:`te.WallClock`)."""
        self.zone = ""
        """The table's time zone (``[table] timezone``; "": the system's), for showing times."""
        self.export_dir: str | None = None
        """Where the technician's report is written (``[diag] export_dir``, else
        ``<data>/reports``; set by ``serve``)."""

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
        next_tick = self.next_tick_at(self.clock())
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
                self._tick(now)
                next_tick = self.next_tick_at(now)
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
        if self.diag is not None and self.diag.running:
            self.diag.diagnostics.cancel()
            self.diag.relay.stop()
            if self._diag_thread is not None:
                self._diag_thread.join(self.diag_timeout)
        for device in self.devices.values():
            try:
                device.close()
            except Exception as exc:  # a failing close must not stop the others
                self._alert(
                    f"The device '{device.name}' did not close cleanly: {exc}.",
                    device.name,
                    "alert.device.close_failed",
                    device=device.name,
                    error=said_error(exc),
                )

    # ------------------------------------------------------------ events

    @property
    def paused(self) -> bool:
        """The table is paused: a device is in fault, the dealer paused it, or a test runs."""
        return (
            bool(self.state.faults)
            or self.state.manual_pause
            or self.testing
            or bool(self.state.stops)
        )

    @property
    def testing(self) -> bool:
        """The technician's diagnostics are running (test mode)."""
        return self.diag is not None and self.diag.running

    def dispatch(self, item: DeviceEvent | Callable[[], None]) -> None:
        """Handle one queued item on the loop thread.

        A fault of the firmware (any unexpected exception) never ends the
        loop: the table pauses with an alert, and the dealer resumes it from
        the console once the floor has looked (``report resume``).
        """
        try:
            if isinstance(item, DeviceEvent):
                self.handle(item)
            else:
                item()
        except Exception as exc:
            self._stopped_by_error(exc)
        self._tell_listeners()

    def _tell_listeners(self) -> None:
        """Tell the listeners (the screens' views, the floor link) the table changed; then
        the journal's signed head (:attr:`journal_sync`)."""
        for listener in self.listeners:
            try:
                listener(self)
            except Exception as exc:
                self._stopped_by_error(exc)
        try:
            if self.journal_sync is not None:
                self.journal_sync()
        except Exception as exc:  # the head cannot be written: as a journal failure
            self._journal_failed(exc)

    def handle(self, event: DeviceEvent) -> None:
        """Turn one device event into table events, alerts and state (none in test mode)."""
        if self.diag is not None and self.diag.running:
            self.diag.dropped += 1  # the devices belong to the diagnostics now
            return
        self.rates.seen(event, self.clock())
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
                    "alert.shoe.unknown_tag",
                    tag=event.tag,
                )
                return
            self.game_input(te.CardDrawn(card), f"tag {event.tag}", event.device)
        elif isinstance(event, ShoeState):
            if event.state == "empty":
                self.game_input(te.DeckEmpty())
            elif event.state in ("jam", "cover_open"):
                what = "is jammed" if event.state == "jam" else "has its cover open"
                self._alert(
                    f"The card shoe {what}: clear it before dealing on.",
                    event.device,
                    f"alert.shoe.{event.state}",
                )
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
                    "alert.chips.left",
                    value=before - after,
                    zone=event.zone,
                )
            bet_zone = BET_ZONE.fullmatch(event.zone)
            if bet_zone and self.table.hand is not None:
                self.chip_bets.zone_changed(self.table, int(bet_zone.group(1)), event.tags)
            _, unknown = self.registry.chips_value(event.tags)
            if unknown:
                tags = ", ".join(sorted(unknown))
                self._alert(
                    f"Unknown chip tag(s) in {event.zone}: {tags}. Take "
                    "them off the table and report them.",
                    event.device,
                    "alert.chips.unknown",
                    zone=event.zone,
                    tags=tags,
                )
        elif isinstance(event, AntennaFault):
            self._alert(
                f"The chip tray antenna for {event.zone} failed ({event.detail}); count that "
                "zone by hand until it is repaired.",
                event.device,
                "alert.antenna.fault",
                zone=event.zone,
                detail=event.detail,
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
            if event.key:
                st.fault_keys[event.device] = (event.key, dict(event.params))
                self._alert(event.detail + paused, event.device, event.key, **dict(event.params))
            else:
                st.fault_keys.pop(event.device, None)
                self._alert(event.detail + paused, event.device)
            for listener in self.fault_listeners:
                listener(event)
        elif isinstance(event, DeviceRecovered):
            st.faults.pop(event.device, None)
            st.fault_keys.pop(event.device, None)
            self._alert(
                f"The device '{event.device}' is working again.",
                event.device,
                "alert.device.back",
                device=event.device,
            )
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
            self._refusal(exc, device, origin)

    def apply(self, event: te.TableEvent) -> bool:
        """Journal and apply one table event; a refusal becomes a console alert."""
        try:
            self.submit(event)
        except IllegalAction as exc:
            self._refusal(exc)
            return False
        return True

    def submit(self, event: te.TableEvent) -> None:
        """Journal and apply one table event (on the loop thread).

        :raises IllegalAction: if the table refuses it, for the caller to
            show (a seat screen shows its own refusals), or in test mode
            (``diag.busy``): nothing is journaled or applied then.
        """
        if self.testing:
            raise IllegalAction(
                "The technician is testing the devices: the table takes nothing until the test "
                "ends.",
                key="diag.busy",
            )
        if "damaged" in self.state.stops:
            raise IllegalAction(self.state.stops["damaged"], key="table.journal_damaged")
        if "journal" in self.state.stops and not self._storage_back():
            raise IllegalAction(self.state.stops["journal"], key="table.journal_full")
        if isinstance(event, te.Shuffle) and self.table.hand is None:
            self.before_hand()  # the time charge due and the rake zone (HOUSE-TIME, -RAKE-ZONE)
        anchor = self._time_before(event)
        before: list[te.TableEvent] = []
        if (
            self.journal is not None
            and not isinstance(event, te.Tick)
            and self.table.now > self._journaled_time
        ):
            # The time the clock reached without journaling (see tick()) goes first,
            # so a replay applies this event at the same table time.
            before.append(te.Tick(self.table.now))
        if anchor is not None:
            before.append(anchor)
        # Tried first on the table's twin (safety.Trials), exactly as the table will take
        # them: only an event the table accepts reaches the journal.
        self.trials.trial(self.table, [*before, event])
        self.table.record_ready = self.trials.record  # a hand the trial finished
        try:
            if self.journal is not None:
                try:
                    for first in before:
                        self.journal(first)
                        self.table.apply(first)
                    self.journal(event)
                except Exception as exc:
                    self._journal_failed(exc)
                    raise IllegalAction(
                        self.state.stops["journal"], key="table.journal_full"
                    ) from exc
            else:
                for first in before:
                    self.table.apply(first)
            self._anchored = True
            if isinstance(event, te.Tick):
                self._journaled_time = max(self._journaled_time, event.now)
            else:
                self._journaled_time = self.table.now
            try:
                self.table.apply(event)
            finally:
                self._outputs()
        except BaseException:
            self.trials.drop()
            raise
        finally:
            self.table.record_ready = None
        self.trials.taken(self.table)

    def journal_damaged(self, problem: str) -> None:
        """The whole-journal check (run after a restart, on a thread) found damage:
        pause for good with an alert; nothing more is taken or journaled (loop thread)."""
        text = (
            f"The check of the whole journal found damage: {problem}. The table is paused "
            "and takes nothing more; call the floor to run 'pokertable audit verify' and "
            "'pokertable audit salvage'."
        )
        self.state.stops["damaged"] = text
        self._alert(text, None, "alert.journal_damaged", problem=problem)
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
            tags = ", ".join(unknown[:5])
            self._alert(
                f"The deck scan found {len(unknown)} unknown tag(s) ({tags}); "
                "remove jokers and foreign cards (PE-1).",
                event.device,
                "alert.scan.unknown",
                count=len(unknown),
                tags=tags,
            )
        expected = self.table.deck.checklist
        if self.table.hand is None and not expected:
            self.apply(te.DeckStep("show", cards))

    def _chips_on_table(self) -> int:
        """Value of every registered chip read in any zone (seats, pot, bank)."""
        return sum(self.registry.chips_value(tags)[0] for tags in self.state.zones.values())

    def _alert(
        self, text: str, source: str | None = None, key: str | None = None, **params: Any
    ) -> None:
        """An alert for the console about device ``source`` (if any): its English ``text``
        (logs) and, with ``key``, the catalog's sentence in each screen's language."""
        self.alerts.append(Alert(self.table_time(), text, source, key, dict(params)))

    def _refusal(self, exc: IllegalAction, device: str | None = None, origin: str = "") -> None:
        """A refused table event as an alert: the refusal's own sentence (translated when
        it has a key) and, for a device's reading, where it came from."""
        text = f"{exc} ({origin})" if origin else str(exc)
        if exc.key is None:
            self._alert(text, device)
            return
        reason = {"key": exc.key, "params": dict(exc.params), "text": str(exc)}
        if origin.startswith("tag "):  # a card read: the tag traces it to its read
            self._alert(text, device, "alert.refused_tag", reason=reason, tag=origin[4:])
        else:
            self._alert(text, device, "alert.refused", reason=reason)

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
                        self._alert(str(exc), device.name, "alert.device.led_failed",
                                    device=device.name, led=led, error=said_error(exc))  # fmt: skip
                        continue
                    self.state.leds[key] = on


__all__ = ["LEVEL_JOURNAL_SECONDS", "Alert", "Controller", "ControllerState", "DiagSession"]
