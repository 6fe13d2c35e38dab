"""A chain of rooms over NATS leaf nodes: a room's stream sourced into head office's.

Usage::

    .venv/bin/python bench/bench_floor_leaf.py [--records 20000] [--cut 5000]

Starts two ``nats-server`` processes on the loopback address, each with its
own JetStream domain: *head office* (``hub``, listening for leaf nodes) and a
*room* (``room1``, a leaf node of head office). The room keeps its own
stream ``FLOOR_EVENTS`` (what its tables publish; its floor ingests it);
head office keeps ``ROOMS_EVENTS``, which *sources* the room's stream over
the leaf connection through the room's JetStream API
(``$JS.room1.API``). It publishes ``--records`` records into the room's
stream the way tables do (subject ``floor.events.<table>``, a message id
each), measures how long head office takes to hold them all, then stops
head office (the room's link to it down), publishes ``--cut`` more into the
room (the room goes on), starts head office again and measures how long it
takes to catch up. At the end head office must hold every record exactly
once.

Nothing of the floor is involved: this measures the transport a chain
would use (``docs/scaling.md``), not a chain of floors, which is not built.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from firmware.floor.servers import NatsServer, free_port


async def _count(js: Any, stream: str) -> int:
    try:
        return int((await js.stream_info(stream)).state.messages)
    except Exception:  # head office still starting, or the leaf link not up yet
        return -1


async def _until(check: Any, guard: float = 600.0) -> float:
    start = time.monotonic()
    while not await check():
        if time.monotonic() - start > guard:
            raise AssertionError("head office never caught up")
        await asyncio.sleep(0.05)
    return time.monotonic() - start


async def _publish(js: Any, first: int, count: int, tables: int = 20) -> None:
    batch = []
    for n in range(first, first + count):
        table = f"T{n % tables}"
        headers = {"Nats-Msg-Id": f"{table}:{n}"}
        batch.append(js.publish(f"floor.events.{table}", b"x" * 200, headers=headers))
        if len(batch) == 500:
            await asyncio.gather(*batch)
            batch = []
    await asyncio.gather(*batch)


async def run(folder: Path, records: int, cut: int) -> dict[str, Any]:
    import nats
    from nats.js.api import ExternalStream, StreamConfig, StreamSource

    leaf_port = free_port()
    hub = NatsServer(
        folder / "hub",
        f"server_name: hub\njetstream {{ domain: hub }}\n"
        f"leafnodes {{ listen: 127.0.0.1:{leaf_port} }}\n",
    ).start()
    room = NatsServer(
        folder / "room1",
        "server_name: room1\njetstream { domain: room1 }\n"
        f'leafnodes {{ remotes: [ {{ url: "nats-leaf://127.0.0.1:{leaf_port}" }} ] }}\n',
    ).start()
    room_nc = await nats.connect(room.url)

    async def quiet(_exc: Exception) -> None:  # head office down on purpose: no traceback
        return None

    hub_nc = await nats.connect(
        hub.url, max_reconnect_attempts=-1, reconnect_time_wait=0.2, error_cb=quiet
    )
    try:
        room_js, hub_js = room_nc.jetstream(), hub_nc.jetstream()
        await room_js.add_stream(StreamConfig(name="FLOOR_EVENTS", subjects=["floor.events.>"]))
        source = StreamSource(name="FLOOR_EVENTS", external=ExternalStream(api="$JS.room1.API"))
        await hub_js.add_stream(StreamConfig(name="ROOMS_EVENTS", sources=[source]))
        t0 = time.monotonic()
        await _publish(room_js, 0, records)
        published = time.monotonic() - t0

        async def all_in(n: int) -> bool:
            return await _count(hub_js, "ROOMS_EVENTS") == n

        copied = await _until(lambda: all_in(records)) + published
        hub.kill()  # head office (and the room's link to it) gone
        t1 = time.monotonic()
        await _publish(room_js, records, cut)  # the room goes on by itself
        room_alone = time.monotonic() - t1
        hub.start()  # same port, same store
        back = time.monotonic()
        caught_up = await _until(lambda: all_in(records + cut))
        total = records + cut
        return {
            "records": records,
            "published_into_the_room_s": round(published, 2),
            "at_head_office_s": round(copied, 2),
            "records_while_head_office_was_down": cut,
            "room_published_alone_s": round(room_alone, 2),
            "head_office_caught_up_s": round(caught_up, 2),
            "caught_up_after_restart_s": round(time.monotonic() - back, 2),
            "head_office_holds_each_once": await _count(hub_js, "ROOMS_EVENTS") == total
            and await _count(room_js, "FLOOR_EVENTS") == total,
            "load_average": round(os.getloadavg()[0], 1),
        }
    finally:
        await room_nc.close()
        await hub_nc.close()
        room.stop()
        hub.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--cut", type=int, default=5000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-leaf-") as folder:
        result = asyncio.run(run(Path(folder), args.records, args.cut))
    for key, value in result.items():
        print(f"{key:36} {value}")
    return 0 if result["head_office_holds_each_once"] else 1


if __name__ == "__main__":
    sys.exit(main())
