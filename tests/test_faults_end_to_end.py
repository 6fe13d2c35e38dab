"""Faults end to end: the real SerialShoe on the ShoeEmulator feeding a real Controller.

The shoe driver runs on a pty against :class:`hal_sim.shoe.ShoeEmulator`; the
controller owns a casino-cash :class:`~firmware.table.table.Table` (3 seats,
button on seat 1, a hand shuffled and cut) and a registry that learned the
emulator's deck in new-deck order. The test drives the controller with
``run_pending()`` in a polling loop with a timeout (never a duration asserted)
and checks what the dealer sees: the hand pauses on a fault with an alert
naming the shoe and what to do, resumes when it is back, and every card drawn
is applied exactly once, in order. Unknown tags and a card read twice are
alerts naming the tag and leave the hand intact.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from drivers.shoe import SerialShoe
from firmware.hal.deck import new_deck_order
from firmware.service.controller import Alert, Controller
from firmware.service.registry import TagRegistry
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from hal_sim.shoe import UNKNOWN_TAG, ShoeEmulator
from tests.contract_kit import FAST_LINK, SERIAL_OPTIONS

WAIT = 10.0
"""Only ends a failing test; nothing asserts how long anything took."""

TAGS = tuple(f"04{0xB000 + i:012X}" for i in range(52))
"""The emulator's deck, learned in this order: TAGS[i] is new_deck_order()[i]."""
CARD = dict(zip(TAGS, new_deck_order(), strict=True))


@dataclass
class Rig:
    emu: ShoeEmulator
    shoe: SerialShoe
    ctl: Controller
    link: str

    def drawn(self) -> list[int]:
        hand = self.ctl.table.hand
        assert hand is not None, "the hand ended"
        return [d.card for d in hand.draws]

    def pump(self, until: Callable[[], bool], what: str) -> None:
        end = time.monotonic() + WAIT
        while True:
            self.ctl.run_pending()
            if until():
                return
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what}; alerts: {self.ctl.alerts}")
            time.sleep(0.005)

    def deal(self, *tags: str) -> None:
        """Draw ``tags`` and wait until the controller applied them."""
        want = len(self.drawn()) + len(tags)
        for tag in tags:
            self.emu.draw(tag)
        self.pump(lambda: len(self.drawn()) >= want, f"{want} cards drawn")

    def alerts_with(self, text: str) -> list[Alert]:
        return [a for a in self.ctl.alerts if text in a.text]


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    registry = TagRegistry(str(tmp_path / "tags.sqlite"))
    registry.learn_deck(TAGS)  # scanned in the new-deck order
    table = Table(
        TableConfig("casino-cash", profile_options("casino-cash"), Stakes()), deck_ready=True
    )
    for seat in (1, 2, 3):
        table.apply(te.SitDown(seat, f"P{seat}", 200))
    table.apply(te.SetButton(1))
    emu = ShoeEmulator(config=FAST_LINK)
    link = str(tmp_path / "pokertable-shoe")  # like the udev name: survives an unplug
    shoe = SerialShoe("shoe", {"port": emu.start(link), **SERIAL_OPTIONS})
    ctl = Controller(table, {"shoe": shoe}, registry)
    rig = Rig(emu, shoe, ctl, link)
    try:
        ctl.start()
        ctl.apply(te.Shuffle())
        ctl.apply(te.Cut())
        assert table.hand is not None and not ctl.alerts
        yield rig
    finally:
        ctl.shutdown()
        emu.stop()
        rig.emu.stop()  # a test may have put a new shoe in
        registry.close()


def cards(*tags: str) -> list[int]:
    return [CARD[t] for t in tags]


@pytest.mark.parametrize("outage", ["silent", "unplug"])
def test_outage_mid_deal_pauses_then_resumes_with_every_card_once_in_order(
    rig: Rig, outage: str
) -> None:
    rig.deal(TAGS[0], TAGS[1])
    rig.emu.drop_next(1)  # TAGS[2] is in flight, unacknowledged, when the shoe goes away
    rig.emu.draw(TAGS[2])
    if outage == "silent":
        rig.emu.go_silent(60.0)
    else:
        rig.emu.unplug(60.0)
    rig.emu.draw(TAGS[3])  # drawn while the shoe is away: queued in the shoe

    rig.pump(lambda: rig.ctl.paused, "the hand to pause")
    assert set(rig.ctl.state.faults) == {"shoe"}
    (alert,) = rig.alerts_with("stopped answering")
    assert alert.device == "shoe"
    assert "card shoe" in alert.text and "check its cable" in alert.text
    assert "paused" in alert.text
    paused_with = rig.drawn()
    assert paused_with == cards(*TAGS[: len(paused_with)])  # nothing out of order
    assert rig.ctl.table.prompt().startswith("Deal a hole card")

    if outage == "silent":
        rig.emu.go_silent(0.0)  # the shoe answers again
    else:
        rig.emu.unplug(0.0)  # plugged back in now (a new pty behind the same link)
    rig.pump(lambda: not rig.ctl.paused, "the hand to resume")
    assert rig.alerts_with("'shoe' is working again")
    rig.pump(lambda: len(rig.drawn()) >= 4, "the cards drawn during the outage")
    rig.deal(TAGS[4], TAGS[5])

    assert rig.drawn() == cards(*TAGS[:6])  # each exactly once, in the order drawn
    assert rig.ctl.state.held == []
    assert rig.ctl.table.prompt() == "Seat 1 to act."  # the deal is complete, betting starts
    if outage == "unplug":
        assert rig.shoe.link_stats()["reopens"] >= 1


def test_a_shoe_fault_holds_reads_and_releases_them_in_order(rig: Rig) -> None:
    rig.deal(TAGS[0])
    rig.emu.report_error("jam", "card stuck at the gate")
    rig.pump(lambda: rig.ctl.paused, "the hand to pause")
    (alert,) = rig.alerts_with("jam: card stuck at the gate")
    assert alert.device == "shoe" and "technician" in alert.text
    rig.emu.draw(TAGS[1])  # the link is up: these reach the controller while it is paused
    rig.emu.draw(TAGS[2])
    rig.pump(lambda: len(rig.ctl.state.held) == 2, "two reads held")
    assert rig.drawn() == cards(TAGS[0])  # held, not applied as game input
    rig.emu.report_error("none", "")
    rig.pump(lambda: not rig.ctl.paused, "the hand to resume")
    assert rig.drawn() == cards(*TAGS[:3])
    assert rig.ctl.state.held == []


def test_a_link_duplicate_is_applied_once(rig: Rig) -> None:
    rig.emu.duplicate_next(2)
    rig.deal(TAGS[0], TAGS[1])
    rig.deal(TAGS[2])
    assert rig.drawn() == cards(*TAGS[:3])
    assert not [a for a in rig.ctl.alerts if "twice" in a.text]


def test_unknown_tag_and_a_card_read_twice_are_alerts_and_the_hand_goes_on(rig: Rig) -> None:
    rig.deal(TAGS[0], TAGS[1])
    rig.emu.draw(UNKNOWN_TAG)
    rig.pump(lambda: bool(rig.alerts_with(UNKNOWN_TAG)), "the unknown-tag alert")
    (unknown,) = rig.alerts_with(UNKNOWN_TAG)
    assert unknown.device == "shoe" and "Take it out" in unknown.text
    assert rig.drawn() == cards(TAGS[0], TAGS[1])

    rig.emu.draw_twice(TAGS[2])  # one card, two reads, two read numbers
    rig.pump(lambda: bool(rig.alerts_with("read twice")), "the read-twice alert")
    assert rig.drawn() == cards(TAGS[0], TAGS[1], TAGS[2])

    rig.deal(TAGS[3], TAGS[4], TAGS[5])
    assert rig.drawn() == cards(*TAGS[:6])
    assert rig.ctl.table.prompt() == "Seat 1 to act."
    hand = rig.ctl.table.hand
    assert hand is not None
    dealt = [c for hole in hand.hand.hole for c in hole if c is not None]
    assert sorted(dealt) == sorted(cards(*TAGS[:6]))


def test_the_read_twice_alert_names_the_tag_and_the_shoe(rig: Rig) -> None:
    rig.deal(TAGS[0])
    rig.emu.draw(TAGS[0])
    rig.pump(lambda: bool(rig.alerts_with("read twice")), "the read-twice alert")
    (alert,) = rig.alerts_with("read twice")
    assert TAGS[0] in alert.text and alert.device == "shoe"


def test_cards_read_after_the_shoe_restarts_are_applied(rig: Rig) -> None:
    rig.deal(TAGS[0], TAGS[1])
    rig.emu.stop()  # power cycle: the pty goes away and a new shoe session starts
    rig.emu = ShoeEmulator(config=FAST_LINK)
    rig.emu.start(rig.link)
    rig.pump(lambda: rig.ctl.paused, "the hand to pause")
    rig.pump(lambda: not rig.ctl.paused, "the shoe to be back")
    rig.emu.draw(TAGS[2])  # read number 1 of the new session
    rig.emu.set_state("jam")  # a marker behind it on the same ordered link
    rig.pump(lambda: bool(rig.alerts_with("jammed")), "the jam alert after the card")
    assert rig.drawn() == cards(*TAGS[:3])
