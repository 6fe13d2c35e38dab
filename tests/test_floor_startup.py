"""The floor started before its servers: it waits, one sentence per outage, never a traceback.

``pokertable floor --config`` is started with PostgreSQL and NATS both down
(their ports and folders chosen, nothing listening). It says once that it
waits for PostgreSQL, and nothing more while it waits; PostgreSQL is started
and the floor says so, takes the lease and says once that NATS is
unreachable; NATS is started and the floor says it is back, and serves.
Then NATS is killed and started again during service: one sentence when it
goes, one when it is back. No line of
the output is a traceback. A bad configuration exits with 78 (EX_CONFIG),
which the systemd unit does not restart, and the unit restarts the floor on
75 (the lease lost).
"""

from __future__ import annotations

import configparser
import signal
import tempfile
from pathlib import Path

import pytest

from firmware.floor.servers import NatsServer, PostgresServer, free_port
from firmware.floor.store.lease import LOST_EXIT
from tests.floor_kit import wait_until
from tests.test_floor_standby import FloorProcess

pytestmark = [pytest.mark.xdist_group("floor"), pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent


def _said(floor: FloorProcess, words: str) -> int:
    return sum(words in line for line in list(floor.lines))


def test_the_floor_waits_for_postgresql_and_nats_saying_so_once(tmp_path: Path) -> None:
    pg = PostgresServer(Path(tempfile.mkdtemp(prefix="pokertable-pg-")), free_port(), remove=True)
    nats = NatsServer(tmp_path / "nats", port=free_port())
    config = tmp_path / "floor.toml"
    config.write_text(
        f'[nats]\nurl = ["{nats.url}"]\nreplicas = 1\nmax_age = "3d"\n'
        f'[database]\nconninfo = "{pg.conninfo}"\n[web]\nport = 0\n'
    )
    floor = FloorProcess(config)
    try:
        assert wait_until(lambda: floor.said("PostgreSQL is not reachable"), 120), floor.lines
        pg.start()
        assert wait_until(lambda: floor.said("PostgreSQL is reachable"), 120), floor.lines
        assert wait_until(lambda: floor.said("NATS is unreachable"), 120), floor.lines
        nats.start()
        assert wait_until(lambda: floor.said("Floor dashboard at"), 120), floor.lines
        waiting = [line for line in floor.lines if "reachable (" in line]
        assert len(waiting) == 2, waiting  # one sentence for each server, however long
        assert floor.said("NATS is back")
        nats.kill()  # away during service
        assert wait_until(lambda: _said(floor, "NATS is unreachable") == 2, 120), floor.lines
        nats.start()
        assert wait_until(lambda: _said(floor, "NATS is back") == 2, 120), floor.lines
        code = floor.stop(signal.SIGTERM)
    finally:
        if floor.proc.poll() is None:
            floor.stop(signal.SIGKILL)
        nats.stop()
        pg.stop()
    assert code == 0, floor.lines
    assert _said(floor, "NATS is unreachable") == 2, "".join(floor.lines)  # once per outage
    assert not [line for line in floor.lines if "Traceback" in line], "".join(floor.lines)


def test_a_bad_floor_configuration_exits_78_and_is_not_restarted(tmp_path: Path) -> None:
    config = tmp_path / "floor.toml"
    config.write_text('[nats]\nurl = "http://nowhere"\n[database]\nconninfo = "x"\n')
    floor = FloorProcess(config)
    assert floor.stop(signal.SIGCONT) == 78
    assert any("is not a server address" in line for line in floor.lines), floor.lines
    unit = configparser.ConfigParser(strict=False)
    unit.read(ROOT / "systemd" / "pokertable-floor.service")
    service = unit["Service"]
    assert service["RestartPreventExitStatus"] == "78"
    assert service["Restart"] == "on-failure"
    assert service["RestartForceExitStatus"] == str(LOST_EXIT) == "75"
    after = unit["Unit"]["After"].split()
    assert "postgresql.service" in after and "nats-server.service" in after
    assert "Requires" not in unit["Unit"]  # it waits for them itself
