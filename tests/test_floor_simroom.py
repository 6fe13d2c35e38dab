"""A simulated table whose step raises says so and goes on; the pacer survives a fault.

Before, a step that raised ended a simulated table's loop for good (the
controller paused it with an internal-error alert and nothing queued its next
step), and a paced callback that raised ended the process's one pacer thread,
so every paced table of the process stood still. Both are watched here through
events (the controller's listeners, the pacer's own thread), never a clock.
"""

from __future__ import annotations

import threading
from pathlib import Path

from firmware.floor.simroom import STEP_FAILED_KEY, Pacer, SimTable
from firmware.i18n import tr


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
