"""A room on a 3-node NATS cluster on loopback: the stream leader, then a follower, killed.

The test starts its own cluster (:class:`~firmware.floor.servers.NatsCluster`:
three ``nats-server`` processes, private ports and folders), a PostgreSQL,
the floor given every node's URL with the stream kept in 3 replicas, and
three simulated tables, each given every node's URL starting with another
node. The scenario is the benchmark's (``bench/bench_floor_cluster.py``):
during play the node leading the stream is killed with SIGKILL, then (once
it is back) a node following it. The test checks what must hold, not how
fast: the floor ingests records journaled after each kill, each table that
was on the killed node connects to another node and has records journaled
after the kill acknowledged there, and at the end every record of every
table is stored, in order, once. The benchmark reports the pauses.

The stream's settings are checked on the same cluster: a configuration with
fewer replicas or a shorter age is refused with a sentence naming both, and
one that keeps more widens the stream.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from pathlib import Path

import nats
import pytest

from bench.bench_floor_cluster import play
from firmware.errors import ConfigError
from firmware.floor import servers
from firmware.floor.messaging.stream import StreamSettings, ensure_stream
from firmware.floor.servers import NatsCluster, free_port
from firmware.floor.startup import until_reachable
from firmware.service.floorwire import STREAM
from tests.floor_kit import run

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]


def test_cluster_ports_lie_below_the_ephemeral_range_and_stay_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node restarted on its port finds it free: no outgoing connection of any
    process (each takes its local port from the ephemeral range) can hold it."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    drawn = [free_port() for _ in range(20)]
    assert all(1024 <= p < low for p in drawn), drawn
    assert len(set(drawn)) > 1  # drawn at random, not one fixed port
    with socket.socket() as taken:  # a port drawn is one nobody listens on
        taken.bind(("127.0.0.1", drawn[0]))
    # Another program takes a port the cluster drew before its node listens: the
    # cluster draws again and starts.
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    busy = holder.getsockname()[1]
    draws = iter([busy])
    nodes = NatsCluster(tmp_path / "nats")
    monkeypatch.setattr(servers, "free_port", lambda: next(draws, None) or free_port())
    try:
        nodes.start()
    finally:
        monkeypatch.undo()
        holder.close()
    try:
        assert len(nodes.nodes) == 3 and all(n.proc is not None for n in nodes.nodes)
        assert busy not in [n.port for n in nodes.nodes]
        node = nodes.nodes[0]
        port = node.port
        node.kill()
        node.start()  # back on the port its clients know
        assert node.port == port
    finally:
        nodes.stop()


@pytest.fixture
def cluster(tmp_path: Path) -> NatsCluster:
    nodes = NatsCluster(tmp_path / "nats").start()
    yield nodes  # type: ignore[misc]
    nodes.stop()


def test_killing_the_stream_leader_and_a_follower_loses_nothing(
    cluster: NatsCluster, pg_conninfo: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    result = run(play(cluster, pg_conninfo, tmp_path, tables=3, pace=0.01))
    leader, follower = result["kills"]
    for kill in (leader, follower):
        assert kill["ingest_back_s"] is not None  # records journaled after the kill stored
        assert kill["tables_on_it"], kill  # every node had a table on it
        # Every table on the dead node moved to another and published there.
        assert set(kill["tables_reconnected_s"]) == set(kill["tables_on_it"])
        assert set(kill["tables_republished_s"]) == set(kill["tables_on_it"])
    assert "leader" in leader["role"] and "follower" in follower["role"]
    assert result["every_record_stored_in_order_once"], result
    assert result["records_journaled"] > 0
    # NATS away is a sentence in the floor's log, never a traceback. (Whether the floor
    # itself loses its node depends on which node it happened to be on, so the sentence
    # is not required here; tests/test_floor_startup.py requires it once per outage.)
    floor_lines = [r for r in caplog.records if r.name.startswith("firmware.floor")]
    assert not [r for r in floor_lines if r.exc_info], "a traceback in the floor's log"


async def _settings(urls: list[str]) -> list[str]:
    nc = await nats.connect(servers=urls)
    js = nc.jetstream()
    said: list[str] = []
    try:
        stop = asyncio.Event()
        created: list[str] = []

        async def create() -> None:
            created.append(await ensure_stream(js, StreamSettings(replicas=3, max_age=259200)))

        await until_reachable(create, stop, said.append, retry=0.2)  # JetStream elects first
        said += created
        info = await js.stream_info(STREAM)
        assert info.config.num_replicas == 3 and info.config.max_age == 259200
        with pytest.raises(ConfigError) as refused:
            await ensure_stream(js, StreamSettings(replicas=1, max_age=3600))
        said.append(str(refused.value))
        info = await js.stream_info(STREAM)
        assert info.config.num_replicas == 3 and info.config.max_age == 259200  # untouched
        said.append(await ensure_stream(js, StreamSettings()))  # says nothing: kept
        said.append(await ensure_stream(js, StreamSettings(max_age=0)))  # no limit: widened
        info = await js.stream_info(STREAM)
        assert info.config.num_replicas == 3 and not info.config.max_age
    finally:
        await nc.close()
    return said


def test_the_floor_never_downgrades_the_stream_it_only_widens_it(cluster: NatsCluster) -> None:
    said = run(_settings(cluster.urls))
    assert any("created with 3 replica(s), 3d" in s for s in said), said
    refusal = next(s for s in said if "never keeps less" in s)
    assert "replicas 3 (the configuration says 1)" in refusal
    assert "max_age 3d (the configuration says 1h)" in refusal
    assert said[-2].endswith("kept as it is.") and said[-1].endswith("widened: max_age."), said
