"""The table's link to the floor on a real nats-server with JetStream.

The journal is the outbox: every record reaches the stream once, in order,
with the journal's sequence as its message id; the table plays on while
NATS is down and catches up when it is back; the floor's commands are
validated, journaled and answered once per id; each table may publish only
as itself.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path
from typing import Any

import msgpack
import nats
import pytest

from firmware.floor.messaging.commands import send_command
from firmware.floor.messaging.natsconf import room_config
from firmware.floor.servers import NatsServer
from firmware.floor.simroom import SimTable
from firmware.floor.store.ingest import ensure_stream
from firmware.service.floorlink import FloorLink
from firmware.service.floorwire import STREAM, FloorConfig
from firmware.service.journal import Journal
from tests.floor_kit import run, wait_until

pytestmark = pytest.mark.xdist_group("floor")


async def _setup_stream(url: str, **auth: Any) -> None:
    nc = await nats.connect(url, **auth)
    await ensure_stream(nc.jetstream())
    await nc.close()


async def _stream_records(url: str, **auth: Any) -> list[dict[str, Any]]:
    """Every message in the stream, in stream order, decoded."""
    nc = await nats.connect(url, **auth)
    js = nc.jetstream()
    info = await js.stream_info(STREAM)
    out = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        msg = await js.get_msg(STREAM, seq)
        body = msgpack.unpackb(msg.data)
        body["msg_id"] = msg.headers["Nats-Msg-Id"] if msg.headers else None
        out.append(body)
    await nc.close()
    return out


def _table(tmp_path: Path, url: str, name: str = "T1", **kw: Any) -> SimTable:
    sim = SimTable(
        name, str(tmp_path / name), FloorConfig(url, name, **kw), seats=6, seed=7, pace=0.002
    )
    sim.seat({1: ("ana", 200), 2: ("beto", 200), 3: ("carla", 200)})
    return sim


def test_every_journal_record_reaches_the_stream_once_in_order(
    nats_server: NatsServer, tmp_path: Path
) -> None:
    run(_setup_stream(nats_server.url))
    sim = _table(tmp_path, nats_server.url)
    sim.hands_to_play = 3
    sim.start()
    assert wait_until(lambda: len(sim.table.records) == 3)
    link = sim.link
    assert link is not None
    assert link.wait_for(lambda k: k.acked == len(sim.journal))
    sim.stop()  # (the loop's ticks are journaled too: the count is read from the stream)
    records = run(_stream_records(nats_server.url))
    total = len(records)
    assert total >= link.acked
    assert [r["seq"] for r in records] == list(range(1, total + 1))
    token = link.msg_token  # the table's secret part of its ids (docs/security.md)
    assert [r["msg_id"] for r in records] == [f"T1:{n}:{token}" for n in range(1, total + 1)]
    assert records[0]["setup"]["profile"] == "home"  # the floor can rebuild the table
    assert all(r["setup"] is None for r in records[1:])
    first_sit = next(r for r in records if r["kind"] == "sit")
    assert first_sit["record"]["player"] == "ana"

    # A crash before the cursor was saved: a new link publishes everything again;
    # JetStream drops every copy by its message id (the table's token is kept).
    with sqlite3.connect(tmp_path / "floor.sqlite") as db:
        db.execute("CREATE TABLE cursor (k TEXT PRIMARY KEY, v INTEGER NOT NULL)")
        db.execute("INSERT INTO cursor VALUES ('msg_token', ?)", (int(token, 16),))
    again = FloorLink(
        FloorConfig(nats_server.url, "T1"),
        str(tmp_path / "T1" / "journal.sqlite"),
        str(tmp_path),  # no cursor here: starts from record 1
        sim.table,
        lambda event: None,
        lambda fn: None,
    )
    journal = Journal(str(tmp_path / "T1" / "journal.sqlite"))
    journaled = len(journal)  # every chained record, settings included
    journal.close()
    again.start()
    assert again.wait_for(lambda k: k.acked == journaled)
    again.stop()
    assert again.published == journaled
    assert len(run(_stream_records(nats_server.url))) == journaled


def test_table_plays_on_without_nats_and_catches_up(
    nats_server: NatsServer, tmp_path: Path
) -> None:
    run(_setup_stream(nats_server.url))
    sim = _table(tmp_path, nats_server.url)
    sim.start()
    link = sim.link
    assert link is not None
    assert link.wait_for(lambda k: k.acked > 10)
    nats_server.kill()  # kill -9 of the messaging server
    assert link.wait_for(lambda k: not k.connected)
    played = len(sim.table.records)
    assert wait_until(lambda: len(sim.table.records) >= played + 3)  # the table plays on
    assert link.acked < len(sim.journal)
    sim.hands_to_play = 0  # finish the hand in play, then stop dealing
    assert wait_until(lambda: sim.table.hand is None)
    nats_server.start()  # same store, same port
    assert link.wait_for(lambda k: k.connected and k.acked == len(sim.journal))
    caught_up = link.acked
    sim.stop()
    records = run(_stream_records(nats_server.url))
    assert len(records) >= caught_up
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))


async def _commands(url: str, sim: SimTable) -> dict[str, Any]:
    nc = await nats.connect(url)
    out: dict[str, Any] = {}
    out["seat"] = await send_command(
        nc, "T1", {"id": "c1", "kind": "seat", "seat": 5, "player": "dora", "chips": 300}
    )
    out["again"] = await send_command(
        nc, "T1", {"id": "c1", "kind": "seat", "seat": 5, "player": "dora", "chips": 300}
    )
    out["bad_seat"] = await send_command(
        nc, "T1", {"id": "c2", "kind": "seat", "seat": 42, "player": "eva", "chips": 300}
    )
    out["bad_kind"] = await send_command(nc, "T1", {"id": "c3", "kind": "explode"})
    sim.dealing.set()
    out["remove"] = await send_command(
        nc, "T1", {"id": "c4", "kind": "remove", "seat": 5, "player": "dora"}, timeout=60
    )
    out["hand_after_remove"] = sim.table.hand
    await nc.close()
    return out


def test_floor_commands_are_checked_journaled_and_answered_once(
    nats_server: NatsServer, tmp_path: Path
) -> None:
    sim = _table(tmp_path, nats_server.url)
    sim.dealing.clear()  # nothing dealt until the command test lets it
    sim.start()
    assert sim.link is not None and sim.link.wait_for(lambda k: k.connected)
    out = run(_commands(nats_server.url, sim))
    sim.stop()
    assert out["seat"]["ok"] and out["again"] == out["seat"]
    assert not out["bad_seat"]["ok"] and "seat between 1 and 6" in out["bad_seat"]["error"]
    assert not out["bad_kind"]["ok"] and "unknown command" in out["bad_kind"]["error"]
    assert out["remove"]["ok"] and out["remove"]["player"] == "dora"
    kinds = [(e.kind, getattr(e, "player", None)) for e in sim_events(tmp_path)]
    assert kinds.count(("sit", "dora")) == 1  # the repeated command did not act twice
    assert ("cash_out", None) in kinds
    # The player left with exactly the chips the table had for her.
    assert out["remove"]["chips"] == 300 or out["remove"]["chips"] >= 0
    assert "dora" not in [s.player for s in sim.table.seating.seats.values()]


def sim_events(tmp_path: Path) -> list[Any]:
    from firmware.service.journal import Journal

    journal = Journal(str(tmp_path / "T1" / "journal.sqlite"))
    try:
        return list(journal.events())
    finally:
        journal.close()


async def _intruder(url: str) -> tuple[list[str], bool]:
    errors: list[str] = []

    async def on_error(exc: Exception) -> None:
        errors.append(str(exc))

    nc = await nats.connect(
        url, user="table-T1", password="pw-T1", error_cb=on_error, inbox_prefix=b"_INBOX_T1"
    )
    js = nc.jetstream(timeout=1)
    refused = False
    try:
        await js.publish("floor.events.T2", b"forged", headers={"Nats-Msg-Id": "T2:1"})
    except Exception:
        refused = True
    await nc.subscribe("floor.cmd.T2")
    await nc.flush()
    await asyncio.sleep(0.2)  # let the server's -ERR for the subscription arrive
    await nc.close()
    return errors, refused


def test_each_table_publishes_only_as_itself(tmp_path: Path) -> None:
    """Per-table NATS users: table T1 may publish its own events, not T2's, and may
    not listen to T2's commands."""
    config = room_config({"T1": "pw-T1", "T2": "pw-T2"}, floor_password="pw-floor")
    server = NatsServer(tmp_path / "nats", config=config).start()
    try:
        floor_auth = {"user": "floor", "password": "pw-floor"}
        run(_setup_stream(server.url, **floor_auth))
        sim = _table(tmp_path, server.url, user="table-T1", password="pw-T1")
        sim.hands_to_play = 1
        sim.start()
        assert sim.link is not None
        assert wait_until(lambda: len(sim.table.records) == 1)
        assert sim.link.wait_for(lambda k: k.acked == len(sim.journal))
        sim.stop()
        errors, refused = run(_intruder(server.url))
        records = run(_stream_records(server.url, **floor_auth))
    finally:
        server.stop()
    assert refused
    assert any("permissions violation" in e.lower() for e in errors), errors
    assert {r["table"] for r in records} == {"T1"}
    assert os.path.exists(tmp_path / "T1" / "floor.sqlite")
