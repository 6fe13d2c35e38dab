"""``pokertable serve`` with a ``[floor]`` section: the real table service publishes its
journal to a NATS server that requires TLS with client certificates and per-table users."""

from __future__ import annotations

import signal
import ssl
import subprocess
import sys
from pathlib import Path

import nats
import pytest

from firmware.floor.messaging.natsconf import ServerTls, room_config
from firmware.floor.servers import NatsServer
from firmware.floor.store.ingest import ensure_stream
from firmware.service.floorwire import STREAM
from tests.floor_kit import run, wait_until
from tests.test_protocol import make_ca, make_cert

pytestmark = pytest.mark.xdist_group("floor")
POKERTABLE = Path(sys.executable).parent / "pokertable"


def _context(pki: Path, name: str | None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    if name is not None:
        context.load_cert_chain(str(pki / f"{name}.pem"), str(pki / f"{name}.key"))
    return context


async def _floor(url: str, pki: Path, setup: bool = False) -> int:
    nc = await nats.connect(
        url, user="floor", password="pw-floor", tls=_context(pki, "floor"), allow_reconnect=False
    )
    js = nc.jetstream()
    if setup:
        await ensure_stream(js)
    info = await js.stream_info(STREAM)
    await nc.close()
    return int(info.state.messages)


async def _without_certificate(url: str, pki: Path) -> str:
    try:
        nc = await nats.connect(
            url,
            user="table-S1",
            password="pw-S1",
            tls=_context(pki, None),
            allow_reconnect=False,
            max_reconnect_attempts=0,
            connect_timeout=3,
        )
    except Exception as exc:
        return type(exc).__name__ or "refused"
    await nc.close()
    return ""


def test_serve_publishes_its_journal_over_tls_as_its_own_user(tmp_path: Path) -> None:
    pki = tmp_path / "pki"
    pki.mkdir()
    make_ca(pki, "ca")
    make_cert(pki, "nats", "ca", server=True)
    make_cert(pki, "floor", "ca")
    make_cert(pki, "S1", "ca")
    tls = ServerTls(str(pki / "nats.pem"), str(pki / "nats.key"), str(pki / "ca.pem"))
    server = NatsServer(tmp_path / "nats", room_config({"S1": "pw-S1"}, "pw-floor", tls)).start()
    url = f"tls://127.0.0.1:{server.port}"
    proc = None
    try:
        assert run(_floor(url, pki, setup=True)) == 0
        config = tmp_path / "table.toml"
        config.write_text(
            '[table]\nprofile = "home"\n'
            f'[floor]\nurl = "{url}"\ntable = "S1"\nuser = "table-S1"\npassword = "pw-S1"\n'
            f'ca = "{pki / "ca.pem"}"\ncert = "{pki / "S1.pem"}"\nkey = "{pki / "S1.key"}"\n'
        )
        proc = subprocess.Popen(
            [str(POKERTABLE), "serve", "--config", str(config), "--data", str(tmp_path / "d")],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        # The journal's first records (the table's set-up, chained as metadata)
        # reach the stream over TLS; an idle table journals nothing more.
        assert wait_until(lambda: run(_floor(url, pki)) >= 1)
        assert run(_without_certificate(url, pki))  # no client certificate: refused
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            out = proc.communicate(timeout=60)[0]
            assert proc.returncode == 0, out
        server.stop()


def test_a_table_without_floor_section_does_not_load_the_nats_client(tmp_path: Path) -> None:
    """A table without a floor runs exactly as before: the NATS client is never imported."""
    code = (
        "import sys; from firmware.cli.serve import build; "
        f"c, j, r = build({str(tmp_path / 't.toml')!r}, {str(tmp_path / 'd')!r}); "
        "print('nats' in sys.modules, 'firmware.service.floorlink' in sys.modules, len(c.services))"
    )
    (tmp_path / "t.toml").write_text('[table]\nprofile = "home"\n')
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out == ["False", "False", "0"]
