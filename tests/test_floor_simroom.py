"""Simulated tables keep dealing: a cash table after one player won every chip, a step
that raises (said, then dealt again), and the pacer surviving a fault.

A cash table's busted player buys again (a rebuy that joins his stack when the next
hand starts); the simulated dealer must count that rebuy: when one player had won
every chip, a dealer that counted only stacks saw one player and waited for ever, and
every floor test that waits for a table's next record (the cluster's kills among them)
waited with it. Before, a step that raised ended a simulated table's loop for good (the
controller paused it with an internal-error alert and nothing queued its next step), and
a paced callback that raised ended the process's one pacer thread, so every paced table
of the process stood still. Both are watched through events, never a clock.
"""

from __future__ import annotations

import threading
from pathlib import Path

from firmware.floor.simroom import STEP_FAILED_KEY, Pacer, SimTable
from firmware.i18n import tr


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


def test_a_step_that_raises_is_reported_and_the_table_plays_on(tmp_path: Path) -> None:
    sim = SimTable("S1", str(tmp_path / "S1"), None, seats=4, seed=3)
    sim.seat({1: ("ann", 200), 2: ("bob", 200), 3: ("cid", 200)})
    real_step = sim.step
    calls = {"n": 0}

    def faulty_step() -> str:
        calls["n"] += 1
        if calls["n"] <= 3:  # the same fault three times, then the dealer deals again
            raise RuntimeError("the virtual shoe jammed")
        return real_step()

    sim.step = faulty_step  # type: ignore[method-assign]
    outcome: list[str] = []
    settled = threading.Event()

    def watch(ctl: object) -> None:
        keys = [a.key for a in sim.controller.alerts]
        if "alert.stopped_error" in keys:  # the old way: the table froze after the fault
            outcome.append("frozen")
            settled.set()
        elif len(sim.table.records) >= 2:  # two hands played after the faults
            outcome.append("played on")
            settled.set()

    sim.controller.listeners.append(watch)
    sim.start()
    try:
        settled.wait()
    finally:
        sim.stop()
    assert outcome[0] == "played on", outcome
    assert sim.faults == 3 and sim.fault == ""
    reported = [a for a in sim.controller.alerts if a.key == STEP_FAILED_KEY]
    assert len(reported) == 1, "one alert for one fault that lasted three steps"
    alert = reported[0]
    assert alert.params == {"table": "S1", "error": "RuntimeError: the virtual shoe jammed"}
    assert "S1" in alert.text and "jammed" in alert.text
    spanish = tr(STEP_FAILED_KEY, "es", **alert.params)
    assert spanish.startswith("La mesa simulada S1 falló un paso")


def test_the_pacer_goes_on_after_a_callback_raises() -> None:
    pacer = Pacer()
    ran = threading.Event()

    def broken() -> None:
        raise RuntimeError("a broken step")

    pacer.later(0.0, broken)
    pacer.later(0.0, ran.set)  # due after the broken one (same moment, queued later)
    thread = pacer._thread
    assert thread is not None
    while not ran.wait(0.01):  # a dead pacer never runs it: the test fails, not hangs
        assert thread.is_alive(), "the pacer's thread died with the broken callback"
