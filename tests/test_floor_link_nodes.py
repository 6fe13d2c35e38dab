"""A table's link given several NATS nodes leaves a dead one at once.

The link connects to one node at a time and, when a node is gone, goes on to
the next (issue 24: tables republishing within seconds of a node's loss). The
NATS client, even told not to reconnect, knocks by default 60 times, 2 s
apart, on a node that refuses the connection before it gives up: the link sat
two minutes on a dead node before trying the next, and could not stop
meanwhile (a floor's or a test's shutdown waited for it, then left its
thread running). These tests count the attempts and watch the thread; they
wait for events, not for a time.
"""

from __future__ import annotations

import logging
from pathlib import Path

import nats
import pytest

from firmware.floor.servers import NatsServer, free_port
from firmware.floor.simroom import SimTable
from firmware.floor.store.ingest import ensure_stream
from firmware.service.floorwire import FloorConfig
from tests.floor_kit import run, wait_until

pytestmark = pytest.mark.xdist_group("floor")


async def _setup_stream(url: str) -> None:
    nc = await nats.connect(url)
    await ensure_stream(nc.jetstream())
    await nc.close()


def _table(tmp_path: Path, url: str) -> SimTable:
    sim = SimTable("N1", str(tmp_path / "N1"), FloorConfig(url, "N1"), seats=6, seed=3, pace=0.002)
    sim.seat({1: ("ana", 200), 2: ("beto", 200)})
    return sim


def test_the_link_tries_a_dead_node_once_and_publishes_through_the_next(
    nats_server: NatsServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="firmware.service.floorlink")
    run(_setup_stream(nats_server.url))
    dead = free_port()  # nobody listens there: the connection is refused
    sim = _table(tmp_path, f"nats://127.0.0.1:{dead},{nats_server.url}")
    sim.start()
    try:
        assert sim.link is not None
        assert sim.link.wait_for(lambda link: link.acked > 0), "nothing published"
        assert sim.link.server == nats_server.url
        tries = [r for r in caplog.records if f"'127.0.0.1', {dead})" in r.getMessage()]
        assert 1 <= len(tries) <= 2, [r.getMessage() for r in tries]
    finally:
        sim.stop()


def test_a_link_on_a_dead_node_stops_when_asked(tmp_path: Path) -> None:
    dead = free_port()
    sim = _table(tmp_path, f"nats://127.0.0.1:{dead}")
    sim.start()
    link = sim.link
    assert link is not None
    assert wait_until(lambda: bool(link.last_error))  # it has knocked on the dead node
    sim.stop()
    thread = link._thread
    assert thread is not None and not thread.is_alive(), "the link's thread is still running"
