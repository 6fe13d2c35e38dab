"""In-process fakes of every device interface, for tests and the simulated table.

Each fake is a full backend (registered as ``backend = "sim"`` in
:mod:`firmware.hal.backends`): built from ``(name, options)``, refusing
unknown options, and reporting through the ``post`` given to ``open``. As
gpiozero's ``MockPin`` does, each adds *test controls*, methods a test calls
to play the physical world (a card drawn, chips placed, a button pressed);
every control posts its event at once, in the caller's thread, with the time
of the injected ``clock`` (``time.monotonic`` by default), so tests are
deterministic. Controls need an open device.

Shared controls: ``fail(detail)`` posts :class:`~firmware.hal.DeviceFault`
and makes :meth:`health` FAULT; ``recover()`` posts
:class:`~firmware.hal.DeviceRecovered` and makes it OK again.

Card tags: the fake shoe names card ``c`` (0-51, see :mod:`firmware.engine.cards`)
by :func:`default_card_tag` -- ``"C0DE"`` followed by the card as two hex
digits, so the ace of spades (51) is ``C0DE33``. The controller does not rely
on it: it learns each deck's tags from a deck scan.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from firmware.errors import ConfigError, HardwareError
from firmware.hal.deck import DECK_SIZE
from firmware.hal.devices import (
    Buttons,
    CardShoe,
    ChipTrays,
    Device,
    DeviceIdentity,
    Health,
    IdReaders,
    Location,
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

Clock = Callable[[], float]

SHOE_STATES = ("ready", "deck_in", "empty", "jam", "cover_open")
"""The states a shoe reports (see :class:`firmware.hal.ShoeState`)."""

UNKNOWN_TAG = "DEADBEEF"
"""The tag :meth:`FakeShoe.unknown_tag` reads by default: in no deck."""

_TAG = re.compile(r"[0-9A-F]+")


def default_card_tag(card: int) -> str:
    """The fake shoe's tag for ``card``: ``"C0DE"`` and the card in two hex digits.

    >>> default_card_tag(0), default_card_tag(51)
    ('C0DE00', 'C0DE33')
    """
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < DECK_SIZE:
        raise ValueError(f"{card!r} is not a card; cards are the numbers 0 to 51.")
    return f"C0DE{card:02X}"


def default_deck_tags() -> tuple[str, ...]:
    """The 52 default card tags, in card order."""
    return tuple(default_card_tag(card) for card in range(DECK_SIZE))


def _tags(name: str, option: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ConfigError(
            f"[devices.{name}] {option} must be a list of tag strings.",
            key="config.sim.tags",
            name=name,
            option=option,
        )
    for tag in value:
        if not isinstance(tag, str) or _TAG.fullmatch(tag) is None:
            raise ConfigError(
                f"[devices.{name}] {option} has the tag {tag!r}; write tags in upper-case hex "
                "without separators, for example 'C0DE33'.",
                key="config.sim.tag",
                name=name,
                option=option,
                tag=repr(tag),
            )
    return tuple(value)


def _names(name: str, option: str, value: Any, *, required: bool) -> tuple[str, ...]:
    if value is None and not required:
        return ()
    if (
        isinstance(value, str)
        or not isinstance(value, Sequence)
        or not all(isinstance(v, str) and v for v in value)
        or (required and not value)
    ):
        raise ConfigError(
            f"[devices.{name}] {option} must be a list of names, for example "
            f'{option} = ["seat1", "seat2"].',
            key="config.sim.names",
            name=name,
            option=option,
        )
    if len(set(value)) != len(value):
        twice = sorted({v for v in value if value.count(v) > 1})
        raise ConfigError(
            f"[devices.{name}] {option} names {', '.join(twice)} twice.",
            key="config.sim.twice",
            name=name,
            option=option,
            twice=", ".join(twice),
        )
    return tuple(value)


def _refuse_unknown(name: str, backend: str, options: Mapping[str, Any], known: str) -> None:
    if options:
        raise ConfigError(
            f"[devices.{name}] has unknown option(s) {', '.join(sorted(options))} for the "
            f"{backend} backend; it knows {known}.",
            key="config.device.unknown_options",
            name=name,
            unknown=", ".join(sorted(options)),
            backend=backend,
            known=known,
        )


class _Fake(Device):
    """What every fake shares: post, clock, identity, fail/recover, close."""

    MODEL = "sim"

    def __init__(self, name: str, clock: Clock) -> None:
        super().__init__(name)
        self._clock = clock
        self._post: Post | None = None
        self._health = Health.CLOSED

    def open(self, post: Post) -> None:
        """Store ``post``; the fake is then OK and its controls work."""
        self._post = post
        self._health = Health.OK

    def close(self) -> None:
        """Stop reporting (idempotent)."""
        self._post = None
        self._health = Health.CLOSED

    def identity(self) -> DeviceIdentity:
        """Model ``sim-<kind>``, serial = the configured name, firmware ``sim``."""
        return DeviceIdentity(model=self.MODEL, serial=self.name, firmware="sim")

    def locations(self) -> dict[str, Location]:
        """Simulated: the device and each of its parts (buttons, LEDs, zones, readers)."""
        parts: list[str] = []
        for method in ("buttons", "leds", "zones", "readers"):
            names = getattr(self, method, None)
            if callable(names):
                parts += list(names())
        return {part: {"simulated": 1} for part in ["", *parts]}

    def health(self) -> Health:
        """CLOSED until opened and after close; FAULT after :meth:`fail`."""
        return self._health

    # -- test controls ----------------------------------------------------------

    def fail(self, detail: str = "") -> None:
        """Test control: the device fails; posts DeviceFault and health is FAULT.

        Without ``detail`` the fault is the catalog's ``alert.fault.silent`` (shown in
        each screen's language); a given ``detail`` is posted as it is.
        """
        self._health = Health.FAULT
        key, params = "", ()  # type: tuple[str, tuple[tuple[str, str], ...]]
        if not detail:
            detail = (
                f"The simulated device '{self.name}' stopped answering: check its cable and "
                "power; the hand is paused until it is back."
            )
            key, params = "alert.fault.silent", (("device", self.name),)
        self._emit(lambda now: DeviceFault(self.name, now, detail, key, params))

    def recover(self) -> None:
        """Test control: the device works again; posts DeviceRecovered, health OK."""
        self._health = Health.OK
        self._emit(lambda now: DeviceRecovered(device=self.name, time=now))

    def _emit(self, make: Callable[[float], DeviceEvent]) -> DeviceEvent:
        if self._post is None:
            raise HardwareError(
                f"The simulated device '{self.name}' is not open; open it before using its "
                "test controls."
            )
        event = make(self._clock())
        self._post(event)
        return event


class FakeShoe(_Fake, CardShoe):
    """A card shoe fed by a virtual deck.

    :param options: ``tags`` (optional): the deck as a scripted list of tags
        in draw order; otherwise the 52 :func:`default_card_tag` tags shuffled
        by ``seed`` (optional int, for a repeatable shuffle) or, by default,
        by :class:`random.SystemRandom`.
    :param rng: From code: the random generator to shuffle with (overrides ``seed``).

    Test controls: :meth:`draw`, :meth:`load`, :meth:`set_state`,
    :meth:`tag_read_twice`, :meth:`unknown_tag`, :meth:`fail`, :meth:`recover`.
    """

    MODEL = "sim-shoe"

    def __init__(
        self,
        name: str,
        options: Mapping[str, Any],
        *,
        clock: Clock = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__(name, clock)
        opts = dict(options)
        tags = opts.pop("tags", None)
        seed = opts.pop("seed", None)
        _refuse_unknown(name, "sim shoe", opts, "tags and seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ConfigError(
                f"[devices.{name}] seed must be a whole number.", key="config.sim.seed", name=name
            )
        if tags is not None and seed is not None:
            raise ConfigError(
                f"[devices.{name}] sets both tags and seed; a scripted deck is not shuffled, "
                "so keep one.",
                key="config.sim.tags_and_seed",
                name=name,
            )
        self._script = None if tags is None else _tags(name, "tags", tags)
        self._rng = rng or (random.SystemRandom() if seed is None else random.Random(seed))
        self._deck: list[str] = []
        self._seq = 0
        self._last: CardRead | None = None

    def open(self, post: Post) -> None:
        """Store ``post`` and put the configured deck in (nothing is posted)."""
        super().open(post)
        self._deck = self._new_deck(None)

    def request_scan(self) -> None:
        """Post DeckScanned with every tag in the shoe, in the order the deck lies."""
        tags = tuple(self._deck)
        self._emit(lambda now: DeckScanned(device=self.name, time=now, tags=tags))

    def deck(self) -> tuple[str, ...]:
        """The tags still in the shoe, next to be drawn first (for assertions)."""
        return tuple(self._deck)

    # -- test controls ----------------------------------------------------------

    def draw(self, n: int = 1) -> tuple[str, ...]:
        """Test control: ``n`` cards leave the shoe; posts a CardRead for each.

        When the last card leaves, posts ShoeState ``empty``. Returns the tags
        drawn, fewer than ``n`` if the deck ran out.
        """
        drawn: list[str] = []
        for _ in range(n):
            if not self._deck:
                break
            tag = self._deck.pop(0)
            drawn.append(tag)
            self._read(tag)
            if not self._deck:
                self.set_state("empty")
        return tuple(drawn)

    def load(self, tags: Iterable[str] | None = None) -> None:
        """Test control: a deck is put in (``tags`` in draw order, or the
        configured deck again, reshuffled); posts ShoeState ``deck_in``."""
        self._deck = self._new_deck(None if tags is None else tuple(tags))
        self.set_state("deck_in")

    def set_state(self, state: str) -> None:
        """Test control: post ShoeState ``state`` (ready, deck_in, empty, jam, cover_open)."""
        if state not in SHOE_STATES:
            raise ValueError(f"'{state}' is not a shoe state; use one of {', '.join(SHOE_STATES)}.")
        self._emit(lambda now: ShoeState(device=self.name, time=now, state=state))

    def tag_read_twice(self) -> CardRead:
        """Test control: the last read arrives again with the same ``seq`` (a retransmission)."""
        if self._last is None:
            raise ValueError("No card has been drawn yet, so there is no read to repeat.")
        last = self._last
        self._emit(lambda now: last)
        return last

    def unknown_tag(self, tag: str = UNKNOWN_TAG) -> CardRead:
        """Test control: a card with a tag in no deck leaves the shoe."""
        return self._read(tag)

    def _read(self, tag: str) -> CardRead:
        self._seq += 1
        seq = self._seq
        event = self._emit(lambda now: CardRead(device=self.name, time=now, tag=tag, seq=seq))
        assert isinstance(event, CardRead)
        self._last = event
        return event

    def _new_deck(self, tags: tuple[str, ...] | None) -> list[str]:
        if tags is not None:
            return list(tags)
        if self._script is not None:
            return list(self._script)
        deck = list(default_deck_tags())
        self._rng.shuffle(deck)
        return deck


class FakeTrays(_Fake, ChipTrays):
    """Chip trays with the zones of ``options["zones"]`` (required list of zone names).

    Test controls: :meth:`place`, :meth:`remove`, :meth:`antenna_fault`,
    :meth:`fail`, :meth:`recover`. An antenna fault makes health DEGRADED
    until :meth:`recover`.
    """

    MODEL = "sim-trays"

    def __init__(
        self, name: str, options: Mapping[str, Any], *, clock: Clock = time.monotonic
    ) -> None:
        super().__init__(name, clock)
        opts = dict(options)
        zones = opts.pop("zones", None)
        _refuse_unknown(name, "sim trays", opts, "zones")
        self._zones = _names(name, "zones", zones, required=True)
        self._present: dict[str, frozenset[str]] = {zone: frozenset() for zone in self._zones}

    def zones(self) -> tuple[str, ...]:
        """The configured zones."""
        return self._zones

    def present(self, zone: str) -> frozenset[str]:
        """The chip tags in ``zone``.

        :raises ConfigError: if ``zone`` is not configured.
        """
        self._check(zone)
        return self._present[zone]

    # -- test controls ----------------------------------------------------------

    def place(self, zone: str, tags: Iterable[str]) -> None:
        """Test control: chips are put in ``zone``; posts ChipsChanged with every tag there."""
        self._check(zone)
        self._change(zone, self._present[zone] | frozenset(tags))

    def remove(self, zone: str, tags: Iterable[str]) -> None:
        """Test control: chips are taken from ``zone``; posts ChipsChanged.

        :raises ValueError: if a tag is not in the zone.
        """
        self._check(zone)
        taken = frozenset(tags)
        missing = taken - self._present[zone]
        if missing:
            raise ValueError(f"The chips {', '.join(sorted(missing))} are not in {zone}.")
        self._change(zone, self._present[zone] - taken)

    def antenna_fault(self, zone: str, detail: str = "The antenna does not answer.") -> None:
        """Test control: ``zone``'s antenna fails; posts AntennaFault, health DEGRADED."""
        self._check(zone)
        self._health = Health.DEGRADED
        self._emit(lambda now: AntennaFault(device=self.name, time=now, zone=zone, detail=detail))

    def _change(self, zone: str, tags: frozenset[str]) -> None:
        self._emit(lambda now: ChipsChanged(device=self.name, time=now, zone=zone, tags=tags))
        self._present[zone] = tags

    def _check(self, zone: str) -> None:
        if zone not in self._present:
            raise ConfigError(
                f"The trays device '{self.name}' has no zone '{zone}'; its zones are "
                f"{', '.join(self._zones)}.",
                key="config.sim.no_zone",
                name=self.name,
                zone=zone,
                zones=", ".join(self._zones),
            )


class FakeButtons(_Fake, Buttons):
    """Buttons and LEDs: ``options["buttons"]`` and ``options["leds"]`` list their names.

    Test controls: :meth:`press`, :meth:`fail`, :meth:`recover`; the LEDs'
    states are in :meth:`led` and their history (``(led, on)`` per change,
    including the safe state on close) in :attr:`led_history`.
    """

    MODEL = "sim-buttons"

    def __init__(
        self, name: str, options: Mapping[str, Any], *, clock: Clock = time.monotonic
    ) -> None:
        super().__init__(name, clock)
        opts = dict(options)
        buttons = opts.pop("buttons", None)
        leds = opts.pop("leds", None)
        _refuse_unknown(name, "sim buttons", opts, "buttons and leds")
        self._buttons = _names(name, "buttons", buttons, required=False)
        self._leds = _names(name, "leds", leds, required=False)
        if not self._buttons and not self._leds:
            raise ConfigError(
                f"[devices.{name}] configures no buttons and no LEDs; add some.",
                key="config.pins.none",
                name=name,
            )
        self._lit: dict[str, bool] = {led: False for led in self._leds}
        self.led_history: list[tuple[str, bool]] = []
        """Every LED change as ``(led, on)``, in order."""

    def buttons(self) -> tuple[str, ...]:
        """The configured button names."""
        return self._buttons

    def leds(self) -> tuple[str, ...]:
        """The configured LED names."""
        return self._leds

    def set_led(self, led: str, on: bool) -> None:
        """Light or clear ``led`` (recorded in :attr:`led_history` if it changes).

        :raises ConfigError: if no such LED is configured.
        :raises HardwareError: if the device is not open.
        """
        if led not in self._lit:
            raise ConfigError(
                f"The buttons device '{self.name}' has no LED '{led}'; add it to leds in "
                f"[devices.{self.name}].",
                key="config.pins.no_led",
                name=self.name,
                led=led,
            )
        if self._post is None:
            raise HardwareError(
                f"The buttons device '{self.name}' is not open; open it before setting LEDs.",
                key="hw.not_open",
                device=self.name,
            )
        self._set(led, on)

    def close(self) -> None:
        """Turn every LED off (the safe state) and stop reporting (idempotent)."""
        for led in self._leds:
            self._set(led, False)
        super().close()

    def led(self, led: str) -> bool:
        """Whether ``led`` is lit now (for assertions)."""
        return self._lit[led]

    # -- test controls ----------------------------------------------------------

    def press(self, button: str) -> None:
        """Test control: ``button`` is pressed (already debounced); posts ButtonPressed."""
        if button not in self._buttons:
            raise ConfigError(
                f"The buttons device '{self.name}' has no button '{button}'; its buttons are "
                f"{', '.join(self._buttons) or 'none'}.",
                key="config.sim.no_button",
                name=self.name,
                button=button,
                buttons=", ".join(self._buttons) or "-",
            )
        self._emit(lambda now: ButtonPressed(device=self.name, time=now, button=button))

    def _set(self, led: str, on: bool) -> None:
        if self._lit[led] != on:
            self._lit[led] = on
            self.led_history.append((led, on))


class FakeReaders(_Fake, IdReaders):
    """Smart-card readers named by ``options["readers"]`` (required list).

    ``options["cards"]`` (optional, ``{console = "staff:F-001"}``) puts a card on
    a reader each time the device opens: a simulated table's console can log in
    without a reader (see docs/run-the-game.md).

    Test controls: :meth:`insert`, :meth:`remove`, :meth:`fail`, :meth:`recover`.
    """

    MODEL = "sim-readers"

    def __init__(
        self, name: str, options: Mapping[str, Any], *, clock: Clock = time.monotonic
    ) -> None:
        super().__init__(name, clock)
        opts = dict(options)
        readers = opts.pop("readers", None)
        present = opts.pop("cards", {})
        _refuse_unknown(name, "sim readers", opts, "readers, cards")
        if isinstance(readers, Mapping):
            # The PC/SC backend's shape, {ours = "PC/SC name"}: the sim needs only our names.
            readers = list(readers)
        self._readers = _names(name, "readers", readers, required=True)
        self._cards: dict[str, str | None] = {reader: None for reader in self._readers}
        if not isinstance(present, Mapping) or not all(
            r in self._cards and isinstance(i, str) and i for r, i in present.items()
        ):
            raise ConfigError(
                f"[devices.{name}] cards must map reader names ({', '.join(self._readers)}) "
                'to card identities, for example cards = { console = "staff:F-001" }.',
                key="config.sim.cards",
                name=name,
                readers=", ".join(self._readers),
            )
        self._present = {str(r): str(i) for r, i in present.items()}

    def open(self, post: Post) -> None:
        """Open, then put the configured cards (``options["cards"]``) on their readers."""
        super().open(post)
        self._cards = {reader: None for reader in self._readers}
        for reader, identity in self._present.items():
            self.insert(reader, identity)

    def readers(self) -> tuple[str, ...]:
        """The configured reader names."""
        return self._readers

    def card(self, reader: str) -> str | None:
        """The identity of the card on ``reader``, if any (for assertions)."""
        self._check(reader)
        return self._cards[reader]

    # -- test controls ----------------------------------------------------------

    def insert(self, reader: str, identity: str) -> None:
        """Test control: a card is put on ``reader``; posts IdCardInserted.

        :raises ValueError: if a card is already there.
        """
        self._check(reader)
        if self._cards[reader] is not None:
            raise ValueError(f"Reader {reader} already holds a card; remove it first.")
        self._emit(
            lambda now: IdCardInserted(device=self.name, time=now, reader=reader, identity=identity)
        )
        self._cards[reader] = identity

    def remove(self, reader: str) -> None:
        """Test control: the card on ``reader`` is taken away; posts IdCardRemoved.

        :raises ValueError: if there is no card.
        """
        self._check(reader)
        if self._cards[reader] is None:
            raise ValueError(f"Reader {reader} holds no card to remove.")
        self._emit(lambda now: IdCardRemoved(device=self.name, time=now, reader=reader))
        self._cards[reader] = None

    def _check(self, reader: str) -> None:
        if reader not in self._cards:
            raise ConfigError(
                f"The readers device '{self.name}' has no reader '{reader}'; its readers are "
                f"{', '.join(self._readers)}.",
                key="config.sim.no_reader",
                name=self.name,
                reader=reader,
                readers=", ".join(self._readers),
            )
