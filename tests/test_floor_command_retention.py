"""Floor command replies are not kept for ever (issue 27, finding 12): the table keeps
its newest replies only, the floor deletes settled commands after the retention and
keeps only the fields of a reply it reads. Real nats-server, SQLite and PostgreSQL.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import nats
import psycopg
import pytest

from firmware.floor.messaging.commands import send_command
from firmware.floor.servers import NatsServer
from firmware.floor.simroom import SimTable
from firmware.floor.store import central, outbox
from firmware.service import floorlink
from firmware.service.floorwire import FloorConfig
from tests.floor_kit import nats_server, pg_conninfo, pg_server, run

__all__ = ["nats_server", "pg_conninfo", "pg_server"]

pytestmark = pytest.mark.xdist_group("floor")


async def _send(url: str, ids: list[str]) -> list[dict[str, Any]]:
    nc = await nats.connect(url)
    replies = [await send_command(nc, "T1", {"id": i, "kind": "explode"}) for i in ids]
    await nc.close()
    return replies


def test_the_table_keeps_only_its_newest_command_replies(
    nats_server: NatsServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(floorlink, "KEEP_REPLIES", 3)
    sim = SimTable("T1", str(tmp_path / "T1"), FloorConfig(nats_server.url, "T1"), seats=6)
    sim.dealing.clear()
    sim.start()
    assert sim.link is not None and sim.link.wait_for(lambda k: k.connected)
    ids = [f"c{n}" for n in range(1, 8)]
    replies = run(_send(nats_server.url, ids))
    again = run(_send(nats_server.url, ["c7"]))
    sim.stop()
    assert all(not r["ok"] for r in replies) and again == replies[-1:]
    with sqlite3.connect(tmp_path / "T1" / "floor.sqlite") as db:
        kept = [r[0] for r in db.execute("SELECT id FROM commands ORDER BY rowid")]
    assert kept == ["c5", "c6", "c7"]


async def _outbox(conninfo: str) -> list[tuple[Any, ...]]:
    conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    await conn.execute("INSERT INTO tournaments (id, name, buy_in, starting_chips) "
                       "VALUES ('m1', 'M', 100, 5000)")  # fmt: skip
    box = outbox.Outbox("m1")
    entries = {name: box.add("T1", "T1:1", {"kind": "seat"}, command_id=name)
               for name in ("old-settled", "old-open", "new-settled", "now")}  # fmt: skip
    _, statements = box.take()
    await outbox.run_transaction(conn, statements)
    await conn.execute(
        "UPDATE floor_commands SET at = now() - interval '40 days', settled = (id = 'old-settled') "
        "WHERE id LIKE 'old-%'"
    )
    await conn.execute("UPDATE floor_commands SET settled = true WHERE id = 'new-settled'")
    huge = {"id": "now", "ok": False, "error": "x" * 100_000, "extra": ["y"] * 10_000}
    await outbox.answered(conn, entries["now"], huge)
    box.settle("now")
    _, statements = box.take()
    await outbox.run_transaction(conn, statements)
    cur = await conn.execute(
        "SELECT id, settled, length(reply::text) FROM floor_commands ORDER BY id"
    )
    rows = list(await cur.fetchall())
    await conn.close()
    return rows


def test_the_floor_deletes_settled_commands_after_the_retention_and_bounds_replies(
    pg_conninfo: str,
) -> None:
    central.migrate(pg_conninfo)
    rows = run(_outbox(pg_conninfo))
    ids = [r[0] for r in rows]
    assert ids == ["new-settled", "now", "old-open"]  # only the old settled one is gone
    reply_size = {r[0]: r[2] for r in rows}["now"]
    assert reply_size is not None and reply_size < outbox.MAX_ERROR + 100
