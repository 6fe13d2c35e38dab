"""The chip trays' rake zone (HOUSE-RAKE-ZONE): after a raked hand the dealer drops the
rake in the ``rake`` zone; before the next hand the table compares what the trays read
there with the rake it computed, journals it as ``rake_zone``, and a difference is an
alert the dealer resolves by recounting or by confirming with a badge.

The trays are the simulated ones (``hal_sim``) and, once, the serial driver over a
real pseudo-terminal against the trays emulator.
"""

from __future__ import annotations

import pathlib

import pytest

from drivers.trays import SerialTrays
from firmware.engine.cards import parse_cards
from firmware.engine.rules import Structure
from firmware.errors import IllegalAction
from firmware.hal import ChipsChanged, Device
from firmware.service.controller import Controller
from firmware.service.journal import Journal
from firmware.service.recovery import restore, store_table_setup
from firmware.service.registry import TagRegistry
from firmware.table import event_records
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.views.audience import console_view
from hal_sim.fakes import FakeTrays
from hal_sim.trays import TraysEmulator
from tests.test_serial_shoe import Events

STAKES = Stakes(Structure.NO_LIMIT, 1, 2, rake_basis_points=500)
ONES = [f"1{n:03X}" for n in range(40)]  # chips of 1


def controller_with(tmp_path: pathlib.Path, trays: Device | None) -> tuple[Controller, Journal]:
    journal = Journal(str(tmp_path / "journal.sqlite"))
    config = TableConfig("casino-cash", profile_options("casino-cash"), STAKES)
    store_table_setup(journal, config, deck_ready=True)
    registry = TagRegistry(str(tmp_path / "tags.sqlite"))
    registry.add_chip_range("1000", "10FF", 1)
    registry.add_chip_range("E00400000000", "E004000000FF", 1)
    devices = {"trays": trays} if trays is not None else {}
    controller = Controller(Table(config, deck_ready=True), devices, registry, journal.append)
    for seat in (1, 2, 3):
        assert controller.apply(te.SitDown(seat, f"P{seat}", 200))
    assert controller.apply(te.SetButton(1))
    return controller, journal


def play_raked_hand(controller: Controller) -> int:
    """Seat 1 raises to 20, both blinds call (a pot of 60), seat 2 bets the flop and the
    others fold: 5 % of the pot is the house's. Returns the hand's rake."""
    flow: list[te.TableEvent] = [te.Shuffle(), te.Cut()]
    flow += map(te.CardDrawn, parse_cards("AhKd7cAsKh2d"))
    flow += [te.Act(1, "raise", 20), te.Act(2, "call"), te.Act(3, "call")]
    flow += map(te.CardDrawn, parse_cards("3c4d5h9s"))
    flow += [te.Act(2, "bet", 40), te.Act(3, "fold"), te.Act(1, "fold")]
    for event in flow:
        assert controller.apply(event), (event, controller.alerts)
    assert controller.table.hand is None
    rake = int(controller.table.records[-1]["rake"])
    assert rake == 3
    return rake


def zone_records(journal: Journal) -> list[dict[str, object]]:
    return [event_records.to_record(e) for e in journal.events() if isinstance(e, te.RakeZone)]


@pytest.fixture
def sim(tmp_path: pathlib.Path) -> tuple[Controller, Journal, FakeTrays]:
    trays = FakeTrays("trays", {"zones": ["pot", "rake"]})
    controller, journal = controller_with(tmp_path, trays)
    trays.open(controller.post)
    return controller, journal, trays


def drop(controller: Controller, trays: FakeTrays, count: int, first: int = 0) -> None:
    trays.place("rake", ONES[first : first + count])
    controller.run_pending()


def test_a_rake_zone_that_agrees_is_journaled_and_the_next_hand_starts(sim) -> None:  # type: ignore[no-untyped-def]
    """The dealer drops the 3 chips of rake; the next shuffle compares, journals
    ``rake_zone`` (hand, read, computed, resolved_by "") and deals."""
    controller, journal, trays = sim
    rake = play_raked_hand(controller)
    drop(controller, trays, rake)
    assert controller.apply(te.Shuffle())
    assert controller.table.hand is not None
    assert zone_records(journal) == [
        {"kind": "rake_zone", "hand": 1, "read": 3, "computed": 3, "resolved_by": ""}
    ]
    records = list(journal.events())
    assert records.index(te.RakeZone(1, 3, 3)) < records.index(te.Shuffle(), 10)


def test_a_difference_stops_the_next_hand_until_a_recount_agrees(sim) -> None:  # type: ignore[no-untyped-def]
    """Two chips for a rake of 3: an alert, the difference on the console, no shuffle;
    the dealer adds the missing chip and recounts: it agrees and the hand starts."""
    controller, journal, trays = sim
    play_raked_hand(controller)
    drop(controller, trays, 2)
    assert controller.apply(te.Shuffle()) is False
    assert controller.table.hand is None
    keys = [a.key for a in controller.alerts]
    assert "alert.rake_zone.mismatch" in keys
    lines = console_view(controller.table, "es", controller)["house"]["lines"]
    assert lines == ["Zona de comisión 2, comisión 3 (mano 1): recuente o confirme"]
    with pytest.raises(IllegalAction) as refused:  # a recount before the chip is there
        controller.submit(te.Shuffle())
    assert refused.value.key == "error.rake_zone.open"
    drop(controller, trays, 1, first=2)
    controller.rake_zone_answer("recount", "")
    assert controller.apply(te.Shuffle()) and controller.table.hand is not None
    assert [(r["read"], r["resolved_by"]) for r in zone_records(journal)] == [(2, ""), (3, "")]


def test_the_dealer_confirms_a_difference_with_a_badge_and_replay_agrees(sim) -> None:  # type: ignore[no-untyped-def]
    """A confirmation needs a badge; with one it is journaled with ``resolved_by``, the
    table deals on, and a replay of the journal reaches the same state."""
    controller, journal, trays = sim
    play_raked_hand(controller)
    drop(controller, trays, 4)  # one chip too many
    assert controller.apply(te.Shuffle()) is False
    with pytest.raises(IllegalAction) as refused:
        controller.rake_zone_answer("confirm", "")
    assert refused.value.key == "error.rake_zone.badge"
    restored = restore(journal)
    assert restored.house.zone_open == {"hand": 1, "read": 4, "computed": 3}
    controller.rake_zone_answer("confirm", "B-0042")
    assert zone_records(journal)[-1] == {
        "kind": "rake_zone", "hand": 1, "read": 4, "computed": 3, "resolved_by": "B-0042"
    }  # fmt: skip
    assert controller.apply(te.Shuffle())
    with pytest.raises(IllegalAction) as refused:
        controller.rake_zone_answer("confirm", "B-0042")
    assert refused.value.key == "error.rake_zone.none_open"
    assert restore(journal).house == controller.table.house


def test_the_table_refuses_a_comparison_with_another_rake() -> None:
    """A ``rake_zone`` whose computed rake is not the hand's, or a confirmation with no
    difference open, is refused and changes nothing."""
    table = Table(TableConfig("casino-cash", profile_options("casino-cash"), STAKES), True)
    table.records.append({"hand": 1, "rake": 3})
    with pytest.raises(IllegalAction, match="rake of 5"):
        table.apply(te.RakeZone(1, 5, 5))
    with pytest.raises(IllegalAction, match="no open rake-zone difference"):
        table.apply(te.RakeZone(1, 2, 3, "B-1"))
    assert table.house.zone_open is None


def test_an_open_difference_is_closed_only_by_a_comparison_of_its_own_hand() -> None:
    """While hand 2's difference is open, an agreeing comparison of an older hand (still
    among the table's records) is refused: it must not close hand 2's difference and let
    the next hand start without a recount or a badge."""
    table = Table(TableConfig("casino-cash", profile_options("casino-cash"), STAKES), True)
    table.records += [{"hand": 1, "rake": 3}, {"hand": 2, "rake": 6}]
    table.apply(te.RakeZone(2, 7, 6))
    opened = table.house.zone_open
    assert opened == {"hand": 2, "read": 7, "computed": 6}
    with pytest.raises(IllegalAction) as refused:
        table.apply(te.RakeZone(1, 3, 3))
    assert refused.value.key == "error.rake_zone.other_hand"
    assert table.house.zone_open == opened
    table.apply(te.RakeZone(2, 6, 6))  # the recount of its own hand closes it
    assert table.house.zone_open is None and table.house.zone_checked == 2


def test_only_the_last_hand_is_compared_so_a_snapshot_takes_the_same() -> None:
    """The table keeps 200 records in memory but a snapshot only the last 10: a comparison
    of an older hand, once accepted live, would be refused after a journal rotation. Only
    the last finished hand is compared, before and after a snapshot alike."""
    from firmware.table.snapshot import table_state

    config = TableConfig("casino-cash", profile_options("casino-cash"), STAKES)
    table = Table(config, True)
    table.records += [{"hand": n, "rake": 3} for n in range(1, 13)]
    again = Table(config, True)
    again.apply(te.Restore(table_state(table)))
    for one in (table, again):
        with pytest.raises(IllegalAction) as refused:
            one.apply(te.RakeZone(1, 3, 3))
        assert refused.value.key == "error.rake_zone.hand"
        one.apply(te.RakeZone(12, 3, 3))
        assert one.house.zone_checked == 12


@pytest.mark.parametrize(
    "bad",
    [te.RakeZone(1.0, 4, 3), te.RakeZone(1, 4, 3, 7), te.RakeZone(True, 4, 3)],  # type: ignore[arg-type]
)
def test_a_comparison_that_is_not_whole_numbers_and_a_badge_is_refused(bad: te.RakeZone) -> None:
    """A damaged record (hand 1.0 or True, a badge that is a number) is refused and leaves
    the open difference as it was."""
    table = Table(TableConfig("casino-cash", profile_options("casino-cash"), STAKES), True)
    table.records.append({"hand": 1, "rake": 3})
    table.apply(te.RakeZone(1, 4, 3))
    opened = dict(table.house.zone_open or {})
    with pytest.raises(IllegalAction) as refused:
        table.apply(bad)
    assert refused.value.key == "error.rake_zone.count"
    assert table.house.zone_open == opened


def test_a_table_without_a_rake_zone_compares_nothing(tmp_path: pathlib.Path) -> None:
    """Trays without a ``rake`` zone (or no trays): the rake is not compared, nothing is
    journaled, the next hand starts."""
    trays = FakeTrays("trays", {"zones": ["pot"]})
    controller, journal = controller_with(tmp_path, trays)
    trays.open(controller.post)
    play_raked_hand(controller)
    assert controller.apply(te.Shuffle())
    assert zone_records(journal) == []


def test_the_serial_trays_rake_zone_over_a_pty(tmp_path: pathlib.Path) -> None:
    """The real trays driver announces the ``rake`` zone in its handshake; the chips the
    emulator puts there are what the table compares with the rake."""
    emulator = TraysEmulator(("pot", "rake"))
    trays = SerialTrays("trays", {"port": emulator.start()})
    events = Events()
    try:
        trays.open(events)
        events.wait_count(ChipsChanged, 2)  # the full state after the handshake
        controller, journal = controller_with(tmp_path, trays)
        rake = play_raked_hand(controller)
        tags = [f"E004{n:08X}" for n in range(rake - 1)]
        emulator.set_zone("rake", tags)
        events.wait_for(lambda: trays.present("rake") == frozenset(tags), "the rake chips")
        for event in events.of(ChipsChanged):
            controller.post(event)
        controller.run_pending()
        assert controller.apply(te.Shuffle()) is False
        assert zone_records(journal)[-1]["read"] == rake - 1
    finally:
        trays.close()
        emulator.stop()


def test_the_console_offers_recount_and_confirm_and_the_request_reaches_the_table(sim) -> None:  # type: ignore[no-untyped-def]
    """With a difference open the console shows "Recontar comisión" and "Confirmar
    conteo"; its ``report rake_zone`` request, checked against the protocol's declared
    shape, confirms with the logged-in staff's badge."""
    import os

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from firmware.protocol.clients import ClientState
    from firmware.protocol.game import game_request
    from firmware.protocol.requests import lookup
    from firmware.protocol.schema import check_fields
    from tests.test_ui_seat import ids, tap
    from ui.console import ConsoleScreen

    controller, journal, trays = sim
    play_raked_hand(controller)
    drop(controller, trays, 2)
    assert controller.apply(te.Shuffle()) is False
    pygame.init()
    pygame.display.set_mode((800, 480))
    try:
        view = console_view(controller.table, "es", controller)
        view["staff"] = {"name": "Dana", "role": "dealer"}
        screen = ConsoleScreen(view)
        assert {"rake_zone_recount", "rake_zone_confirm"} <= set(ids(screen))
        (message,) = tap(screen, "rake_zone_confirm")
    finally:
        pygame.quit()
    assert message == {"type": "report", "report": "rake_zone", "answer": "confirm"}
    client = ClientState(1, "tcp", terminal="console", role="dealer", staff="Dana", badge="B-7")
    spec = lookup(client, message)
    values = check_fields(spec, message)
    game_request(client, spec.name, values, lambda _c, fn, _name: fn(), controller)
    assert zone_records(journal)[-1]["resolved_by"] == "B-7"
    assert controller.table.house.zone_open is None
