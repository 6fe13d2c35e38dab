"""A floor command with a NaN or infinite instant is refused and never journaled.

Issue 27, item 12: the floor's ``levels`` command took ``at`` = NaN or infinity
(msgpack carries both as floats) and the table journaled it. Sent here over a
real nats-server to a table with its link, and straight to the table: every
such command is answered with a refusal, the journal holds no ``levels``
record for it, and a finite instant still works afterwards.
"""

from __future__ import annotations

import math
import threading
import time
from pathlib import Path
from typing import Any

import msgpack
import nats
import pytest

from firmware.errors import IllegalAction
from firmware.floor.messaging.commands import send_command
from firmware.floor.servers import NatsServer
from firmware.floor.simroom import SimTable
from firmware.floor.store.ingest import ensure_stream
from firmware.service.floorwire import FloorConfig
from firmware.table import events as te
from tests.floor_kit import run

pytestmark = pytest.mark.xdist_group("floor")

LEVELS: list[dict[str, Any]] = [{"small_blind": 5, "big_blind": 10, "minutes": 600}]
BAD = [math.nan, math.inf, -math.inf, 1e308]


def levels_records(sim: SimTable) -> list[dict[str, Any]]:
    rows = sim.journal._db.execute("SELECT record FROM events WHERE kind = 'levels'").fetchall()
    return [msgpack.unpackb(r[0]) for r in rows]


async def commands(url: str) -> list[dict[str, Any]]:
    nc = await nats.connect(url)
    await ensure_stream(nc.jetstream())
    replies = []
    for at in BAD:
        replies.append(
            await send_command(nc, "T1", {"kind": "levels", "action": "start", "at": at})
        )
    replies.append(
        await send_command(nc, "T1", {"kind": "levels", "action": "start", "at": time.time()})
    )
    await nc.close()
    return replies


def test_a_nan_or_infinite_instant_is_refused_and_never_journaled(
    nats_server: NatsServer, tmp_path: Path
) -> None:
    sim = SimTable("T1", str(tmp_path / "T1"), FloorConfig(nats_server.url, "T1"), 6, LEVELS, 3)
    sim.seat({1: ("ana", 500), 2: ("beto", 500)})
    assert sim.link is not None
    sim.link.start()
    sim.controller.start()
    thread = threading.Thread(target=sim.controller.run, daemon=True)
    thread.start()
    try:
        replies = run(commands(nats_server.url))
    finally:
        sim.controller.stop()
        thread.join(30)
        sim.link.stop()
    for at, reply in zip(BAD, replies, strict=False):
        assert not reply["ok"] and "moment" in reply["error"], (at, reply)
    assert replies[-1]["ok"], replies[-1]
    records = levels_records(sim)
    assert len(records) == 1 and math.isfinite(records[0]["at"])


@pytest.mark.parametrize("at", BAD[:3])
def test_the_table_itself_refuses_a_level_clock_at_no_finite_moment(
    tmp_path: Path, at: float
) -> None:
    sim = SimTable("T1", str(tmp_path / "T1"), None, 6, LEVELS, 3)
    before = len(sim.journal)
    with pytest.raises(IllegalAction, match="finite time") as refused:
        sim.controller.submit(te.LevelClock("start", at))
    assert refused.value.key == "error.levels.at"
    assert len(sim.journal) == before and not levels_records(sim)
