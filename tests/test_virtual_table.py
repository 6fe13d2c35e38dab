"""A fully electronic table: the virtual shoe deals when the table needs a card, and
after a restart the rest of the deck is shuffled again from the cards not yet seen."""

from collections.abc import Callable

from drivers.virtual import VirtualShoe, virtual_tag
from firmware.hal import ButtonPressed
from firmware.service.controller import Controller
from firmware.service.journal import Journal
from firmware.service.recovery import restore, store_table_setup
from firmware.service.registry import TagRegistry
from firmware.service.virtual_dealer import VirtualDealer
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table


def pump(controller: Controller, until: Callable[[], bool], limit: int = 500) -> None:
    for _ in range(limit):
        if until():
            return
        controller.run_pending()
    raise AssertionError("the table never reached the expected state")


def electronic(journal: Journal, table: Table | None = None) -> tuple[Controller, VirtualShoe]:
    if table is None:
        config = TableConfig("home", profile_options("home"), Stakes())
        store_table_setup(journal, config, deck_ready=True)
        table = Table(config, deck_ready=True)
    shoe = VirtualShoe("deck", {})
    controller = Controller(table, {"deck": shoe}, TagRegistry(":memory:"), journal=journal.append)
    VirtualDealer(controller, shoe)
    controller.start()
    return controller, shoe


def test_the_virtual_shoe_deals_each_card_the_table_needs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    controller, _ = electronic(Journal(str(tmp_path / "j.sqlite")))
    for seat in (1, 2, 3):
        controller.apply(te.SitDown(seat, f"P{seat}", 200))
    controller.post(ButtonPressed("panel", 0.0, "dealer.next"))
    table = controller.table
    pump(controller, lambda: table.hand is not None and table.hand.s.dealt)
    hand = table.hand
    assert hand is not None
    holes = [c for h in hand.hand.hole for c in h]
    assert len(holes) == 6 and len(set(holes)) == 6
    assert table.deck.cut  # cut automatically: nothing to cut by hand


def test_after_a_restart_the_deck_is_shuffled_from_the_cards_not_yet_seen(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "j.sqlite")
    journal = Journal(path)
    controller, _ = electronic(journal)
    for seat in (1, 2, 3):
        controller.apply(te.SitDown(seat, f"P{seat}", 200))
    controller.post(ButtonPressed("panel", 0.0, "dealer.next"))
    table = controller.table
    pump(controller, lambda: table.hand is not None and table.hand.s.dealt)
    for seat, action in ((1, "call"), (2, "call"), (3, "check")):
        controller.apply(te.Act(seat, action))  # the flop is now due; the "power" goes
    controller.shutdown()
    journal.close()
    # Undealt cards were never written: the journal holds only the cards drawn.
    drawn = [e.card for e in Journal(path).events() if isinstance(e, te.CardDrawn)]
    assert len(drawn) == 6
    again = Journal(path)
    restored = restore(again)
    controller2, _ = electronic(again, restored)
    controller2.call_soon(lambda: None)
    pump(controller2, lambda: len(restored.hand.hand.board) == 3)  # type: ignore[union-attr]
    hand = restored.hand
    assert hand is not None
    seen = {c for h in hand.hand.hole for c in h}
    assert not seen & set(hand.hand.board)  # the rest of the deck was reshuffled, no repeats
    assert virtual_tag(hand.hand.board[0]).startswith("F1D0")
