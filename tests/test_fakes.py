"""The in-process fakes behave as their interfaces say, and their test controls post events."""

from __future__ import annotations

import doctest
import random
from typing import Any

import pytest

from firmware.errors import ConfigError, HardwareError
from firmware.hal import (
    AntennaFault,
    ButtonPressed,
    CardRead,
    ChipsChanged,
    DeckScanned,
    Device,
    DeviceEvent,
    DeviceFault,
    DeviceRecovered,
    Health,
    IdCardInserted,
    IdCardRemoved,
    ShoeState,
)
from hal_sim import fakes
from hal_sim.fakes import (
    FakeButtons,
    FakeReaders,
    FakeShoe,
    FakeTrays,
    default_card_tag,
    default_deck_tags,
)

T = 50.0


def clock() -> float:
    return T


def opened(device: Device) -> list[DeviceEvent]:
    events: list[DeviceEvent] = []
    device.open(events.append)
    return events


def make(kind: str, **options: Any) -> Device:
    defaults: dict[str, dict[str, Any]] = {
        "shoe": {},
        "trays": {"zones": ["seat1.bet", "pot"]},
        "buttons": {"buttons": ["seat1.action"], "leds": ["seat1.turn"]},
        "readers": {"readers": ["seat1", "console"]},
    }
    classes: dict[str, Any] = {
        "shoe": FakeShoe,
        "trays": FakeTrays,
        "buttons": FakeButtons,
        "readers": FakeReaders,
    }
    device: Device = classes[kind](kind, {**defaults[kind], **options}, clock=clock)
    return device


KINDS = ["shoe", "trays", "buttons", "readers"]


def test_the_module_examples_run() -> None:
    assert doctest.testmod(fakes).failed == 0


# -- what every fake shares ---------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_identity_health_fail_recover_and_close(kind: str) -> None:
    device = make(kind)
    assert device.health() is Health.CLOSED
    events = opened(device)
    assert device.identity().model == f"sim-{kind}"
    assert device.identity().serial == kind
    assert device.health() is Health.OK
    device.fail("The shoe's cover sensor is stuck; check the cover.")  # type: ignore[attr-defined]
    assert device.health() is Health.FAULT
    device.recover()  # type: ignore[attr-defined]
    assert device.health() is Health.OK
    assert events == [
        DeviceFault(
            device=kind, time=T, detail="The shoe's cover sensor is stuck; check the cover."
        ),
        DeviceRecovered(device=kind, time=T),
    ]
    device.close()
    device.close()
    assert device.health() is Health.CLOSED
    with pytest.raises(HardwareError, match="not open"):
        device.fail()  # type: ignore[attr-defined]
    assert len(events) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_unknown_options_are_refused_by_name(kind: str) -> None:
    with pytest.raises(ConfigError, match=r"unknown option\(s\) colour, port"):
        make(kind, port="/dev/ttyUSB0", colour="red")


@pytest.mark.parametrize(
    ("kind", "options", "message"),
    [
        ("shoe", {"seed": "x"}, "seed must be a whole number"),
        ("shoe", {"tags": ["c0de00"]}, "upper-case hex"),
        ("shoe", {"tags": "C0DE00"}, "list of tag strings"),
        ("shoe", {"tags": ["C0DE00"], "seed": 3}, "both tags and seed"),
        ("trays", {"zones": []}, "list of names"),
        ("trays", {"zones": ["pot", "pot"]}, "pot twice"),
        ("readers", {"readers": "seat1"}, "list of names"),
        ("buttons", {"buttons": [], "leds": []}, "no buttons and no LEDs"),
    ],
)
def test_bad_options_are_config_errors(kind: str, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make(kind, **options)


# -- the shoe --------------------------------------------------------------------------


def test_default_card_tags_are_distinct_upper_hex() -> None:
    tags = default_deck_tags()
    assert len(set(tags)) == 52
    assert tags[0] == "C0DE00" and tags[51] == "C0DE33" and default_card_tag(10) == "C0DE0A"
    with pytest.raises(ValueError, match="0 to 51"):
        default_card_tag(52)


def test_draws_post_reads_with_rising_sequence_numbers() -> None:
    shoe = FakeShoe("shoe", {"tags": ["C0DE33", "C0DE32", "C0DE00"]}, clock=clock)
    events = opened(shoe)
    assert shoe.draw(2) == ("C0DE33", "C0DE32")
    assert events == [
        CardRead(device="shoe", time=T, tag="C0DE33", seq=1),
        CardRead(device="shoe", time=T, tag="C0DE32", seq=2),
    ]
    assert shoe.draw(5) == ("C0DE00",)
    assert events[2:] == [
        CardRead(device="shoe", time=T, tag="C0DE00", seq=3),
        ShoeState(device="shoe", time=T, state="empty"),
    ]
    assert shoe.draw() == ()
    assert len(events) == 4


def test_a_seeded_shoe_repeats_and_a_default_shoe_is_a_full_deck(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = make("shoe", seed=7)
    second = FakeShoe("shoe", {}, clock=clock, rng=random.Random(7))
    opened(first)
    opened(second)
    assert first.deck() == second.deck()  # type: ignore[attr-defined]
    assert first.deck() != default_deck_tags()  # type: ignore[attr-defined]
    shuffles: list[list[str]] = []

    class Spy(random.SystemRandom):
        def shuffle(self, x: Any) -> None:
            shuffles.append(list(x))
            super().shuffle(x)

    monkeypatch.setattr(random, "SystemRandom", Spy)
    secure = FakeShoe("shoe", {})
    opened(secure)
    assert len(shuffles) == 1  # the unseeded shoe shuffles with the system's CSPRNG
    assert sorted(secure.deck()) == sorted(default_deck_tags())


def test_request_scan_reports_every_tag_in_the_shoe() -> None:
    shoe = FakeShoe("shoe", {"seed": 3}, clock=clock)
    events = opened(shoe)
    shoe.request_scan()
    # Every tag, in the order the deck lies (the order seen, as a real shoe reports it).
    assert events == [DeckScanned(device="shoe", time=T, tags=shoe.deck())]
    assert sorted(shoe.deck()) == sorted(default_deck_tags())
    shoe.draw()
    shoe.request_scan()
    last = events[-1]
    assert isinstance(last, DeckScanned) and len(last.tags) == 51


def test_retransmission_unknown_tag_states_and_reload() -> None:
    shoe = FakeShoe("shoe", {"tags": ["C0DE01", "C0DE02"]}, clock=clock)
    events = opened(shoe)
    with pytest.raises(ValueError, match="No card has been drawn"):
        shoe.tag_read_twice()
    shoe.draw()
    shoe.tag_read_twice()
    shoe.unknown_tag()
    shoe.set_state("jam")
    with pytest.raises(ValueError, match="'open' is not a shoe state"):
        shoe.set_state("open")
    shoe.load(["C0DE05"])
    assert shoe.deck() == ("C0DE05",)
    assert events == [
        CardRead(device="shoe", time=T, tag="C0DE01", seq=1),
        CardRead(device="shoe", time=T, tag="C0DE01", seq=1),
        CardRead(device="shoe", time=T, tag="DEADBEEF", seq=2),
        ShoeState(device="shoe", time=T, state="jam"),
        ShoeState(device="shoe", time=T, state="deck_in"),
    ]
    shoe.load()
    assert shoe.deck() == ("C0DE01", "C0DE02")


# -- the trays --------------------------------------------------------------------------


def test_chips_placed_and_removed_are_reported_per_zone() -> None:
    trays = make("trays")
    assert isinstance(trays, FakeTrays)
    events = opened(trays)
    assert trays.zones() == ("seat1.bet", "pot")
    trays.place("seat1.bet", ["A1", "A2"])
    trays.remove("seat1.bet", ["A1"])
    trays.place("pot", ["A1"])
    assert trays.present("seat1.bet") == frozenset({"A2"})
    assert trays.present("pot") == frozenset({"A1"})
    assert events == [
        ChipsChanged(device="trays", time=T, zone="seat1.bet", tags=frozenset({"A1", "A2"})),
        ChipsChanged(device="trays", time=T, zone="seat1.bet", tags=frozenset({"A2"})),
        ChipsChanged(device="trays", time=T, zone="pot", tags=frozenset({"A1"})),
    ]
    with pytest.raises(ValueError, match="B9 are not in pot"):
        trays.remove("pot", ["B9"])
    with pytest.raises(ConfigError, match=r"no zone 'bank'.*seat1\.bet, pot"):
        trays.place("bank", ["A3"])
    assert len(events) == 3


def test_an_antenna_fault_degrades_until_recovered() -> None:
    trays = make("trays")
    assert isinstance(trays, FakeTrays)
    events = opened(trays)
    trays.antenna_fault("pot", "The pot antenna is open circuit; reseat its cable.")
    assert trays.health() is Health.DEGRADED
    trays.recover()
    assert trays.health() is Health.OK
    assert events[0] == AntennaFault(
        device="trays",
        time=T,
        zone="pot",
        detail="The pot antenna is open circuit; reseat its cable.",
    )


# -- the buttons -----------------------------------------------------------------------


def test_presses_and_leds_with_history_and_safe_close() -> None:
    buttons = FakeButtons(
        "buttons",
        {"buttons": ["seat1.action", "dealer.next"], "leds": ["seat1.turn", "dealer.attention"]},
        clock=clock,
    )
    events = opened(buttons)
    buttons.press("dealer.next")
    assert events == [ButtonPressed(device="buttons", time=T, button="dealer.next")]
    with pytest.raises(ConfigError, match=r"no button 'seat2\.action'"):
        buttons.press("seat2.action")
    buttons.set_led("seat1.turn", True)
    buttons.set_led("seat1.turn", True)
    buttons.set_led("dealer.attention", True)
    assert buttons.led("seat1.turn") and buttons.led("dealer.attention")
    with pytest.raises(ConfigError, match=r"no LED 'seat3\.turn'"):
        buttons.set_led("seat3.turn", True)
    buttons.close()
    buttons.close()
    assert not buttons.led("seat1.turn") and not buttons.led("dealer.attention")
    assert buttons.led_history == [
        ("seat1.turn", True),
        ("dealer.attention", True),
        ("seat1.turn", False),
        ("dealer.attention", False),
    ]
    with pytest.raises(HardwareError, match="not open"):
        buttons.set_led("seat1.turn", True)


# -- the readers -----------------------------------------------------------------------


def test_cards_inserted_and_removed() -> None:
    readers = make("readers")
    assert isinstance(readers, FakeReaders)
    events = opened(readers)
    assert readers.readers() == ("seat1", "console")
    readers.insert("seat1", "player:1042")
    with pytest.raises(ValueError, match="already holds a card"):
        readers.insert("seat1", "player:7")
    assert readers.card("seat1") == "player:1042"
    readers.remove("seat1")
    with pytest.raises(ValueError, match="holds no card"):
        readers.remove("seat1")
    with pytest.raises(ConfigError, match="no reader 'seat9'"):
        readers.insert("seat9", "staff:1")
    assert events == [
        IdCardInserted(device="readers", time=T, reader="seat1", identity="player:1042"),
        IdCardRemoved(device="readers", time=T, reader="seat1"),
    ]
