"""Two floors for one room on real servers: a standby takes over when the leader is killed.

Two ``pokertable floor --config`` processes share the room's NATS and
PostgreSQL. The first takes the lease (a PostgreSQL advisory lock) and
ingests; the second stands by and ingests nothing. ``kill -9`` of the leader
frees the lease with its connection; the standby takes over and goes on from
the durable consumer. At the end every record of the table is stored exactly
once, and its hands too.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

import psycopg
import pytest

from firmware.floor.servers import NatsServer
from firmware.floor.simroom import SimTable
from firmware.service.floorwire import FloorConfig
from tests.floor_kit import wait_until

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]


class FloorProcess:
    """``pokertable floor`` as a child process, its output collected line by line."""

    def __init__(self, config: Path) -> None:
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "firmware.cli.main", "floor", "--config", str(config)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def said(self, words: str) -> bool:
        return any(words in line for line in list(self.lines))

    def stop(self, sig: int) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(120)
        self._reader.join(30)
        return code


def _count(conninfo: str, sql: str) -> int:
    """The count, or 0 while the leader is still migrating the store's schema."""
    with psycopg.connect(conninfo) as conn:
        try:
            row = conn.execute(sql).fetchone()
        except psycopg.errors.UndefinedTable:
            return 0
    return int(row[0]) if row and row[0] is not None else 0


def test_a_standby_floor_takes_over_without_double_ingesting(
    tmp_path: Path, nats_server: NatsServer, pg_conninfo: str
) -> None:
    config = tmp_path / "floor.toml"
    config.write_text(
        f'[nats]\nurl = "{nats_server.url}"\n[database]\nconninfo = "{pg_conninfo}"\n'
        "[web]\nport = 0\n"
    )
    sim = SimTable("T1", str(tmp_path / "T1"), FloorConfig(nats_server.url, "T1"), seats=6,
                   seed=11, pace=0.002)  # fmt: skip
    sim.seat({1: ("ana", 10**6), 2: ("beto", 10**6), 3: ("carla", 10**6)})  # deep: play goes on
    sim.start()
    first = second = None
    try:
        first = FloorProcess(config)
        assert wait_until(lambda: first.said("Leader:"), 120), first.lines
        second = FloorProcess(config)
        assert wait_until(lambda: second.said("Standby:"), 120), second.lines
        stored = "SELECT count(*) FROM events"
        assert wait_until(lambda: _count(pg_conninfo, stored) >= 200, 300)
        # One lease, held by one session; the standby has not ingested.
        held = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
        assert _count(pg_conninfo, held) == 1
        assert not second.said("Leader:")
        before = _count(pg_conninfo, stored)
        assert first.stop(signal.SIGKILL) == -signal.SIGKILL
        assert wait_until(lambda: second.said("Leader:"), 120), second.lines
        assert wait_until(lambda: _count(pg_conninfo, stored) >= before + 200, 300)
        sim.hands_to_play = 0  # the table finishes its hand and stops dealing
        assert sim.link is not None
        assert wait_until(lambda: sim.table.hand is None and sim.link.acked == len(sim.journal))
        total = len(sim.journal)
        last = "SELECT last_seq FROM tables WHERE id = 'T1'"
        assert wait_until(lambda: _count(pg_conninfo, last) == total, 300)
        hands = len(sim.table.records)
    finally:
        sim.stop()
        code = second.stop(signal.SIGTERM) if second is not None else 0
        if first is not None:
            first.stop(signal.SIGKILL)
    assert code == 0, second.lines if second else ""
    assert _count(pg_conninfo, stored) == total
    assert _count(pg_conninfo, "SELECT count(DISTINCT seq) FROM events") == total
    assert _count(pg_conninfo, "SELECT max(seq) FROM events") == total
    assert _count(pg_conninfo, "SELECT count(*) FROM hands") == hands
