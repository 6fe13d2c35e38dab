"""NATS security of the card room on a real nats-server: per-table NKeys over TLS.

A table proves who it is by signing the server's challenge with its own
Ed25519 seed; the server's configuration holds only public keys. Each key
may publish only its own table's events and notices and receive only its
own table's commands, so one table's credentials can neither forge another
table's records nor read the floor's commands to another table.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import stat
from pathlib import Path
from typing import Any

import msgpack
import nats
import pytest

from firmware.errors import ConfigError
from firmware.floor.messaging.natsconf import (
    ServerTls,
    TableKey,
    new_table_key,
    room_config,
    write_seed,
)
from firmware.floor.servers import NatsServer
from firmware.floor.simroom import SimTable
from firmware.floor.store.ingest import ensure_stream
from firmware.service.floorwire import NOTICES, STREAM, FloorConfig
from tests.floor_kit import run, wait_until
from tests.test_protocol import make_ca, make_cert

pytestmark = pytest.mark.xdist_group("floor")


def _pki(tmp_path: Path) -> tuple[Path, ServerTls]:
    pki = tmp_path / "pki"
    pki.mkdir()
    make_ca(pki, "ca")
    make_cert(pki, "nats", "ca", server=True)
    for name in ("floor", "T1", "T2"):
        make_cert(pki, name, "ca")
    return pki, ServerTls(str(pki / "nats.pem"), str(pki / "nats.key"), str(pki / "ca.pem"))


def _tls(pki: Path, name: str) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    context.load_cert_chain(str(pki / f"{name}.pem"), str(pki / f"{name}.key"))
    return context


async def _floor_side(url: str, pki: Path, seen: dict[str, Any], setup: bool = False) -> None:
    """The floor: create the stream (``setup``), or collect every stored record."""
    nc = await nats.connect(url, user="floor", password="pw-floor", tls=_tls(pki, "floor"))
    js = nc.jetstream()
    if setup:
        await ensure_stream(js)
        await nc.close()
        return
    info = await js.stream_info(STREAM)
    records = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        records.append(msgpack.unpackb((await js.get_msg(STREAM, seq)).data))
    seen["records"] = records
    await nc.close()


async def _intruder(url: str, pki: Path, seed: str) -> dict[str, Any]:
    """Table T1's key and certificate trying to act as T2 or read T2's commands."""
    errors: list[str] = []

    async def on_error(exc: Exception) -> None:
        errors.append(str(exc).lower())

    nc = await nats.connect(
        url,
        nkeys_seed=seed,
        tls=_tls(pki, "T1"),
        error_cb=on_error,
        inbox_prefix=b"_INBOX_T1",
        allow_reconnect=False,
    )
    js = nc.jetstream(timeout=1)
    forged = True
    try:
        await js.publish("floor.events.T2", b"forged", headers={"Nats-Msg-Id": "T2:1"})
    except Exception:
        forged = False
    stolen: list[bytes] = []

    async def steal(msg: Any) -> None:
        stolen.append(msg.data)

    await nc.subscribe("floor.cmd.T2", cb=steal)
    await nc.subscribe(f"{NOTICES}.T2", cb=steal)
    await nc.flush()
    # The floor now sends T2 a command and T2 a notice goes by: T1 must see neither.
    floor = await nats.connect(url, user="floor", password="pw-floor", tls=_tls(pki, "floor"))
    await floor.publish("floor.cmd.T2", msgpack.packb({"id": "x", "kind": "deal", "hands": 0}))
    await floor.publish(f"{NOTICES}.T2", b"notice")
    await floor.flush()
    await floor.close()
    await nc.flush()
    await asyncio.sleep(0.3)  # let the server's -ERR lines and any delivery arrive
    await nc.close()
    return {"errors": errors, "forged": forged, "stolen": stolen}


async def _connects(url: str, pki: Path, **auth: Any) -> bool:
    try:
        nc = await nats.connect(
            url,
            tls=_tls(pki, "T1"),
            allow_reconnect=False,
            max_reconnect_attempts=0,
            connect_timeout=3,
            **auth,
        )
    except Exception:
        return False
    await nc.close()
    return True


def test_a_table_key_publishes_only_as_itself_over_tls(tmp_path: Path) -> None:
    pki, tls = _pki(tmp_path)
    keys = {"T1": new_table_key(), "T2": new_table_key()}
    config = room_config({}, "pw-floor", tls, nkeys={t: k.public for t, k in keys.items()})
    # The server's configuration holds public keys only.
    assert keys["T1"].public in config and keys["T1"].seed not in config
    seed_file = str(tmp_path / "t1.seed")
    write_seed(seed_file, keys["T1"])
    assert stat.S_IMODE(os.stat(seed_file).st_mode) == 0o600
    server = NatsServer(tmp_path / "nats", config).start()
    url = f"tls://127.0.0.1:{server.port}"
    seen: dict[str, Any] = {}
    try:
        run(_floor_side(url, pki, seen, setup=True))
        floor = FloorConfig(
            url, "T1", ca=str(pki / "ca.pem"), cert=str(pki / "T1.pem"), key=str(pki / "T1.key"),
            seed=seed_file,
        )  # fmt: skip
        sim = SimTable("T1", str(tmp_path / "T1"), floor, seats=6, seed=3, pace=0.002)
        sim.seat({1: ("ana", 200), 2: ("beto", 200)})
        sim.hands_to_play = 1
        sim.start()
        assert sim.link is not None
        assert wait_until(lambda: len(sim.table.records) == 1)
        assert sim.link.wait_for(lambda k: k.acked == len(sim.journal))
        sim.stop()
        attempt = run(_intruder(url, pki, seed_file))
        run(_floor_side(url, pki, seen))
        wrong = tmp_path / "stranger.seed"
        write_seed(str(wrong), new_table_key())
        stranger = run(_connects(url, pki, nkeys_seed=str(wrong)))
        rightful = run(_connects(url, pki, nkeys_seed=seed_file))
        no_key = run(_connects(url, pki))
    finally:
        server.stop()
    assert {r["table"] for r in seen["records"]} == {"T1"}
    assert len(seen["records"]) == len(sim.journal)
    assert attempt["forged"] is False
    assert attempt["stolen"] == []
    violations = [e for e in attempt["errors"] if "permissions violation" in e]
    assert any("floor.cmd.t2" in e for e in violations), attempt["errors"]
    assert any(f"{NOTICES}.t2" in e for e in violations), attempt["errors"]
    assert rightful and not stranger and not no_key


def test_room_config_refuses_a_seed_or_a_table_with_two_credentials() -> None:
    key = new_table_key()
    with pytest.raises(ConfigError, match="public user key"):
        room_config({}, "pw", nkeys={"T1": key.seed})
    with pytest.raises(ConfigError, match="both a password and an NKey"):
        room_config({"T1": "pw-T1"}, "pw", nkeys={"T1": key.public})
    with pytest.raises(ConfigError, match="seed \\(an NKey\\) replaces user and password"):
        FloorConfig.from_config(
            {"url": "nats://127.0.0.1:4222", "table": "T1", "seed": "/s", "user": "u"}
        )
    assert isinstance(key, TableKey) and key.public.startswith("U") and key.seed.startswith("SU")
