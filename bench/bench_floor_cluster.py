"""A room on a 3-node NATS cluster: the stream's leader and then a follower killed during play.

Usage::

    .venv/bin/python bench/bench_floor_cluster.py [--tables 6] [--pace 0.01]

Starts three ``nats-server`` nodes on the loopback address (one cluster,
private ports and folders, :class:`~firmware.floor.servers.NatsCluster`), a
PostgreSQL, the floor (every node's URL, the stream with 3 replicas) and
simulated tables in this process (real controllers, journals and floor
links; bots), each table given every node's URL starting with a different
node, so every node has tables on it. During play it kills (``SIGKILL``) the
node that leads the stream, waits until the floor ingests again and every
table publishes again, starts that node again, then kills a node that
follows the stream, and measures the same. At the end it stops the tables
and checks that the floor stored every journaled record of every table, in
order, once.

It prints, for each kill: the seconds until the floor stored records again
(ingest back), until each table that was on the killed node was connected to
another node, and until each such table had a record acknowledged through
the new node (republishing), and whether nothing was lost. The test
``tests/test_floor_cluster.py`` runs the same scenario small and checks the
outcome, not the times.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from firmware.floor.messaging.stream import StreamSettings
from firmware.floor.servers import NatsCluster, NatsServer, PostgresServer
from firmware.floor.service import Floor
from firmware.floor.simroom import SimTable
from firmware.floor.startup import until_reachable
from firmware.service.floorwire import STREAM, FloorConfig

PLAYERS = ({1: ("ana", 500), 2: ("beto", 500), 3: ("carla", 500), 4: ("dora", 500)},)


async def _until(check: Any, guard: float = 300.0) -> float:
    """Wait until ``check()`` holds; the seconds it took (``guard``: against a hang only)."""
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > guard:
            raise AssertionError("the room never got there")
        await asyncio.sleep(0.05)
    return time.monotonic() - start


async def _peers(floor: Floor, replicas: int = 3) -> tuple[str, list[str]]:
    """The stream's leader and its followers (server names), once it has a leader and
    every follower is current (a node just restarted has caught up: killing the other
    follower before then would leave the stream without a quorum)."""
    while True:
        with contextlib.suppress(Exception):
            info = await floor.js.stream_info(STREAM)
            cluster = info.cluster
            followers = list(cluster.replicas or []) if cluster is not None else []
            if (
                cluster is not None
                and cluster.leader
                and len(followers) == replicas - 1
                and all(p.current and not p.offline for p in followers)
            ):
                return cluster.leader, [p.name for p in followers]
        await asyncio.sleep(0.1)


async def _kill(
    floor: Floor, cluster: NatsCluster, sims: list[SimTable], node: NatsServer
) -> dict[str, Any]:
    """Kill ``node`` during play; how long until the room was whole again."""
    url = node.url
    on_it = [s for s in sims if s.link is not None and s.link.server == url]
    journaled = {s.table_id: len(s.journal) for s in sims}
    node.kill()
    killed = time.monotonic()

    def ingesting() -> bool:
        """A record journaled after the kill is in the store (the floor ingests again)."""
        last = floor.ingestor.last_seq if floor.ingestor is not None else {}
        return any(last.get(t, 0) > n for t, n in journaled.items())

    # Every moment is taken by one loop that looks at all of them (none waits on another).
    ingest_back: float | None = None
    moved: dict[str, float] = {}
    republished: dict[str, float] = {}
    while ingest_back is None or len(republished) < len(on_it) or len(moved) < len(on_it):
        now = round(time.monotonic() - killed, 2)
        if now > 300:
            raise AssertionError("the room never came back")
        if ingest_back is None and ingesting():
            ingest_back = now
        for sim in on_it:
            link, name = sim.link, sim.table_id
            assert link is not None
            if name not in moved and link.connected and link.server != url:
                moved[name] = now
            # A record journaled after the kill, acknowledged through another node.
            if name not in republished and link.acked > journaled[name]:
                republished[name] = now
        await asyncio.sleep(0.02)
    return {
        "node": url,
        "tables_on_it": sorted(moved),
        "ingest_back_s": ingest_back,
        "tables_reconnected_s": moved,
        "tables_republished_s": republished,
    }


async def play(
    cluster: NatsCluster, conninfo: str, folder: Path, tables: int, pace: float
) -> dict[str, Any]:
    """The whole scenario on running servers; the figures and the checks."""
    urls = cluster.urls
    floor = Floor(conninfo, urls, stream=StreamSettings(replicas=3))
    stop = asyncio.Event()
    await until_reachable(floor.open, stop, lambda text: print(text, flush=True))
    assert floor.ingestor is not None
    ingest = asyncio.create_task(floor.ingest_forever())
    sims = []
    for n in range(tables):
        name = f"C{n + 1}"
        order = urls[n % len(urls) :] + urls[: n % len(urls)]
        sim = SimTable(name, str(folder / name), FloorConfig(",".join(order), name), 6, pace=pace)
        sim.seat(PLAYERS[0])
        sims.append(sim)
        sim.start()
    try:
        ingestor = floor.ingestor
        await _until(lambda: all(ingestor.last_seq.get(s.table_id, 0) > 20 for s in sims))
        leader, _followers = await _peers(floor)
        first = await _kill(floor, cluster, sims, cluster.node(leader))
        first["role"] = f"stream leader ({leader})"
        cluster.node(leader).start()  # it comes back and catches up
        await _until(lambda: floor.ingestor is not None and floor.ingestor.stored > 0)
        new_leader, followers = await _peers(floor)
        await _until(lambda: all(s.link is not None and s.link.connected for s in sims))
        # The follower with the most tables on it (the node just restarted has none).
        follower = max(
            (f for f in followers if f != new_leader),
            key=lambda f: sum(
                1 for s in sims if s.link is not None and s.link.server == cluster.node(f).url
            ),
        )
        second = await _kill(floor, cluster, sims, cluster.node(follower))
        second["role"] = f"stream follower ({follower})"
        cluster.node(follower).start()
        for sim in sims:
            sim.hands_to_play = 0  # the hands under way end; nothing new is dealt

        journaled: dict[str, int] = {}
        stored: dict[str, int] = {}

        def caught_up() -> bool:
            """Every record each table journaled is acknowledged by the stream and stored
            (both counts taken at one moment: the tables' clocks still journal)."""
            assert floor.ingestor is not None
            journaled.update({s.table_id: len(s.journal) for s in sims})
            stored.update({s.table_id: floor.ingestor.last_seq.get(s.table_id, 0) for s in sims})
            return all(
                s.link is not None
                and s.link.acked == journaled[s.table_id]
                and stored[s.table_id] == journaled[s.table_id]
                for s in sims
            )

        await _until(caught_up)
    finally:
        # Whatever happened, the tables, the ingest and the floor's connections end
        # here, in this order (a floor left open on a failure kept the loop from ending).
        for sim in sims:
            sim.stop()
        floor.stopping.set()
        try:
            await ingest
        finally:
            await floor.close()
    return {
        "kills": [first, second],
        "records_journaled": sum(journaled.values()),
        "every_record_stored_in_order_once": all(stored.get(t) == n for t, n in journaled.items()),
        "floor_nats_outages": floor.outages,
    }


async def _main(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    cluster = NatsCluster(folder / "nats").start()
    pg = PostgresServer.temporary().start()
    try:
        result = await play(cluster, pg.conninfo, folder, args.tables, args.pace)
    finally:
        cluster.stop()
        pg.stop()
    result["load_average"] = round(os.getloadavg()[0], 1)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--pace", type=float, default=0.01, help="seconds between bot steps")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as folder:
        os.chmod(folder, 0o755)
        result = asyncio.run(_main(args, Path(folder)))
    for kill in result.pop("kills"):
        for key, value in kill.items():
            print(f"{key:24} {value}")
        print()
    for key, value in result.items():
        print(f"{key:34} {value}")
    return 0 if result["every_record_stored_in_order_once"] else 1


if __name__ == "__main__":
    sys.exit(main())
