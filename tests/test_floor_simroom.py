"""The simulated tables of the floor's tests, demo and benches keep dealing.

A cash table's busted player buys again (a rebuy that joins his stack when
the next hand starts). The simulated dealer must count that rebuy: when one
player had won every chip, a dealer that counted only stacks saw one player
and waited for ever, and every floor test that waits for a table's next
record (the cluster's kills among them) waited with it.
"""

from __future__ import annotations

from pathlib import Path

from firmware.floor.simroom import SimTable


def test_a_cash_table_deals_again_after_one_player_won_every_chip(tmp_path: Path) -> None:
    sim = SimTable("S1", str(tmp_path), None, 6, seed=7)
    sim.seat({1: ("ana", 100), 2: ("beto", 100)})  # heads-up: the first bust leaves one
    rebuys = 0
    for _ in range(100_000):
        busted_before = {n for n, s in sim.table.seating.seats.items() if s.busted}
        what = sim.step()
        assert what != "wait", (
            "the dealer waits with "
            f"{[(s.player, s.stack, s.rebuy) for s in sim.table.seating.seats.values()]}"
        )
        if busted_before and sim.table.hand is not None:
            rebuys += 1  # a hand started after a bust: the rebuy was dealt in
            if rebuys == 3:
                break
    assert rebuys == 3
    # Nothing was lost: two buy-ins and the rebuys, every chip at the table.
    total = sum(s.stack + s.rebuy for s in sim.table.seating.seats.values())
    assert total == 200 + rebuys * sim.buy_in
    sim.controller.shutdown()
    sim.journal.close()
