"""The floor's orders on a real nats-server: each answered on its own, journaled, replayed.

A command that waits for a hand to end (taking a player off) holds no other
command of the table; a repeat of its id while it waits is answered once;
a later command for the same seat keeps its place behind it. The dealer's
orders (hand-for-hand rounds, a held table) and the level clock's common
instant are table events: a table restored from its journal still waits,
and levels and breaks change at the same moment at every table (TDA-17),
even at a table whose order arrived late.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import nats
import pytest

from firmware.engine.bots import RandomBot
from firmware.errors import IllegalAction
from firmware.floor.messaging.commands import send_command
from firmware.floor.servers import NatsServer
from firmware.floor.simroom import SimTable
from firmware.floor.store.ingest import ensure_stream
from firmware.service.floorwire import FloorConfig
from firmware.service.journal import Journal
from firmware.service.recovery import restore
from firmware.table import events as te
from tests.floor_kit import run, wait_until

pytestmark = pytest.mark.xdist_group("floor")

LONG_LEVELS: list[dict[str, Any]] = [{"small_blind": 5, "big_blind": 10, "minutes": 600}]


def _held_table(tmp_path: Path, url: str) -> tuple[SimTable, threading.Thread]:
    """A table whose controller and link run, but whose dealer only acts when told
    (its level clock starts with its first hand)."""
    sim = SimTable("T1", str(tmp_path / "T1"), FloorConfig(url, "T1"), 6, LONG_LEVELS, seed=3)
    sim.seat({1: ("ana", 500), 2: ("beto", 500), 3: ("carla", 500)})
    assert sim.link is not None
    sim.link.start()
    sim.controller.start()
    thread = threading.Thread(target=sim.controller.run, daemon=True)
    thread.start()
    return sim, thread


def _on_table(sim: SimTable, fn: Any) -> None:
    """Run ``fn`` on the table's thread and wait for it."""
    done = threading.Event()

    def go() -> None:
        fn()
        done.set()

    sim.controller.call_soon(go)
    assert done.wait(30)


def _play_out(sim: SimTable) -> None:
    while sim.table.hand is not None:
        sim.step()


async def _orders(url: str, sim: SimTable) -> dict[str, Any]:
    nc = await nats.connect(url)
    await ensure_stream(nc.jetstream())
    out: dict[str, Any] = {}
    # beto plays the hand: taking him off waits for its end. The floor asks again every
    # 0.3 s with the same id while it waits (a repeat must not act twice).
    removing = asyncio.create_task(
        send_command(
            nc,
            "T1",
            {"id": "r1", "kind": "remove", "seat": 2, "player": "beto"},
            timeout=0.3,
            attempts=None,
        )
    )
    seating = asyncio.create_task(
        send_command(
            nc, "T1", {"id": "s1", "kind": "seat", "seat": 2, "player": "dora", "chips": 700}, 60
        )
    )
    out["levels"] = await send_command(
        nc, "T1", {"id": "l1", "kind": "levels", "action": "pause", "at": time.time()}
    )
    out["deal"] = await send_command(nc, "T1", {"id": "d1", "kind": "deal", "hands": 0, "round": 3})
    out["other_seat"] = await send_command(
        nc, "T1", {"id": "s2", "kind": "seat", "seat": 5, "player": "eva", "chips": 400}
    )
    await asyncio.sleep(0.9)  # three repeats of r1 while the hand goes on
    out["waiting"] = not removing.done() and not seating.done()
    out["stacks"] = {n: s.stack for n, s in sim.table.seating.seats.items()}
    await asyncio.get_running_loop().run_in_executor(None, _on_table, sim, lambda: _play_out(sim))
    out["beto_after_hand"] = sim.table.records[-1]["finishing_stacks"]["2"]
    out["remove"] = await removing
    out["seat"] = await seating
    out["remove_again"] = await send_command(
        nc, "T1", {"id": "r1", "kind": "remove", "seat": 2, "player": "beto"}
    )
    await nc.close()
    return out


def test_a_waiting_command_holds_no_other_and_is_answered_once_floor_hfh(
    nats_server: NatsServer, tmp_path: Path
) -> None:
    """While a move waits for the hand, the level clock and a hand-for-hand order are
    carried out at once; the seat being emptied is refilled only after the move; the
    repeated move acted once. The deal order (FLOOR-HFH round 3, none to deal) is
    journaled: the table restored from its journal still waits."""
    sim, thread = _held_table(tmp_path, nats_server.url)
    assert sim.link is not None and sim.link.wait_for(lambda k: k.connected)
    _on_table(sim, sim.step)  # the dealer shuffles and cuts: a hand is open
    assert sim.table.hand is not None
    out = run(_orders(nats_server.url, sim))
    sim.controller.stop()
    thread.join(30)
    sim.link.stop()
    sim.controller.shutdown()
    sim.journal.close()

    assert out["levels"]["ok"] and out["levels"]["playing"]
    assert out["deal"]["ok"] and out["other_seat"]["ok"]
    assert out["waiting"]
    assert out["remove"]["ok"] and out["remove"]["player"] == "beto"
    assert out["remove"]["chips"] == out["beto_after_hand"]  # his chips after the hand
    assert out["remove_again"] == out["remove"]
    assert out["seat"]["ok"]
    journal = Journal(str(tmp_path / "T1" / "journal.sqlite"))
    events = [e for e in journal.events() if not isinstance(e, te.Tick)]
    kinds = [(e.kind, getattr(e, "seat", None)) for e in events]
    assert kinds.count(("cash_out", 2)) == 1  # three repeats, one act
    # In the order the floor's commands were carried out, not the order they came.
    order = [k for k in kinds if k[0] in ("levels", "deal_order", "cash_out", "sit")]
    assert order[-5:] == [
        ("levels", None),
        ("deal_order", None),
        ("sit", 5),
        ("cash_out", 2),
        ("sit", 2),
    ]
    (deal,) = [e for e in events if isinstance(e, te.DealOrder)]
    assert (deal.hands, deal.round) == (0, 3)
    restored = restore(journal)
    journal.close()
    assert (restored.deal_limit, restored.deal_round) == (0, 3)
    assert restored.levels is not None and restored.levels.paused_at is not None
    with pytest.raises(IllegalAction, match="floor holds this table"):
        restored.apply(te.Shuffle())


BREAK_LEVELS: list[dict[str, Any]] = [
    {"small_blind": 5, "big_blind": 10, "minutes": 0.05},
    {"break_minutes": 0.1},
    {"small_blind": 10, "big_blind": 20, "minutes": 600},
]
"""Three seconds of level 1, a six-second break, then level 2."""


def _wall(sim: SimTable, table_time: float) -> float:
    """The wall-clock instant of a moment of the table's own clock."""
    return time.time() - (sim.controller.table_time() - table_time)


def _dealt_after(sims: list[SimTable], played: dict[str, int]) -> bool:
    """Whether every table has finished a hand since ``played``; a table that can never
    deal again (fewer than two players with chips) fails at once, saying so."""
    for sim in sims:
        live = [s for s in sim.table.seating.seats.values() if s.stack > 0]
        if len(live) < 2 and sim.table.hand is None:
            raise AssertionError(
                f"{sim.table_id} has {len(live)} player(s) with chips after "
                f"{len(sim.table.records)} hands: it can never deal again."
            )
    return all(len(s.table.records) > played[s.table_id] for s in sims)


def _on_break(sim: SimTable) -> bool:
    levels = sim.table.levels
    assert levels is not None and levels.started_at is not None
    return levels.current(sim.controller.table_time()).on_break


async def _start_clocks(url: str, sims: list[SimTable]) -> tuple[float, float, dict[str, Any]]:
    """Start T1 and T2 at one instant; T3 gets the same order only once the others are
    on the break."""
    nc = await nats.connect(url)
    at = time.time()
    for sim in sims[:2]:
        reply = await send_command(
            nc, sim.table_id, {"kind": "levels", "action": "start", "at": at}
        )
        assert reply["ok"], reply
        sim.hands_to_play = None  # deal: the clock runs
    await asyncio.get_running_loop().run_in_executor(
        None, lambda: wait_until(lambda: _on_break(sims[0]))
    )
    late = time.time()
    reply = await send_command(nc, "T3", {"kind": "levels", "action": "start", "at": at})
    sims[2].hands_to_play = None
    await nc.close()
    return at, late, reply


def test_tda_17_levels_and_breaks_change_at_one_moment_on_every_table(
    nats_server: NatsServer, tmp_path: Path
) -> None:
    """Three tables; the third receives the start of the level clock only during the
    others' break, yet it starts from the same instant: it is on the same break at
    once, and every table's break begins and ends at the same wall-clock moment; no
    table starts a hand during the break."""
    run(_stream_ready(nats_server.url))
    sims = [
        SimTable(
            t,
            str(tmp_path / t),
            FloorConfig(nats_server.url, t),
            6,
            BREAK_LEVELS,
            seed=i,
            pace=0.002,
        )
        for i, t in enumerate(["T1", "T2", "T3"])
    ]
    for sim in sims:
        # Bots that never raise: two players who only check, call or fold cannot bust each
        # other, so every table can always deal. (Random raises reach all-in; a heads-up
        # table then loses a player within 41-69 hands, which an idle machine plays before
        # the break: that table could never deal again, and the test waited for nothing.)
        sim.bot = RandomBot(sim.rng, aggression=0.0)
        sim.seat({1: ("a" + sim.table_id, 10**6), 2: ("b" + sim.table_id, 10**6)})
        sim.hands_to_play = 0  # no hand before the floor starts the clock
        sim.start()
        assert sim.link is not None and sim.link.wait_for(lambda k: k.connected)
    at, late, reply = run(_start_clocks(nats_server.url, sims))
    # T3's order came about 3 s after the instant (when T1's break began); the tables'
    # clocks are kept in milliseconds, so the break may be seen a fraction of one early.
    assert reply["ok"] and late - at >= 2.99
    assert _on_break(sims[2])  # T3 is on the break at once
    assert wait_until(lambda: not any(_on_break(s) for s in sims))
    for sim in sims:
        levels = sim.table.levels
        assert levels is not None and levels.started_at is not None
        start = _wall(sim, levels.started_at)
        # Told about 3 s late, T3 would be 3 s off without the common instant; the
        # margin (half of that) is for reading two clocks on a loaded machine.
        assert abs(start - at) < 1.5, (sim.table_id, start - at)
    played = {s.table_id: len(s.table.records) for s in sims}
    assert wait_until(lambda: _dealt_after(sims, played)), {
        s.table_id: (played[s.table_id], len(s.table.records), s.table.now) for s in sims
    }
    for sim in sims:
        sim.stop()
    for sim in sims:
        levels = sim.table.levels
        assert levels is not None and levels.started_at is not None
        break_from, break_to = levels.started_at + 3.0, levels.started_at + 9.0
        started = [r["started_at"] for r in sim.table.records]
        assert not [t for t in started if break_from <= t < break_to], sim.table_id
        # The simulated dealer waits for the break's end, as a dealer reading the clock
        # does: the floor gets no refusal alert from a table trying to deal through it.
        keys = [a.params.get("reason", {}).get("key") for a in sim.controller.alerts]
        assert "error.levels.on_break" not in keys, sim.table_id
        after = [r for r in sim.table.records if r["started_at"] >= break_to]
        assert after and all(r["posts"] for r in after)
        blinds = {p["blind"] for r in after for p in r["posts"].values()}
        assert blinds <= {0, 10, 20} and 20 in blinds  # level 2 everywhere after the break


async def _stream_ready(url: str) -> None:
    nc = await nats.connect(url)
    await ensure_stream(nc.jetstream())
    await nc.close()
