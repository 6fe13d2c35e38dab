"""Throw-away servers: a NATS server with JetStream and a PostgreSQL cluster in a folder.

The tests, ``pokertable floor --demo`` and the benchmarks start their own
servers from Debian's packages (``nats-server``; PostgreSQL 15 in
``/usr/lib/postgresql/15/bin``), each in a temporary folder, reachable only
on the loopback address (NATS) or a Unix socket in that folder
(PostgreSQL). PostgreSQL refuses to run as root, so as root it runs as
``nobody`` on a folder that user owns. The servers are our own children and
are stopped by their process id.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from firmware.errors import ConfigError

PG_BIN = Path(os.environ.get("POKERTABLE_PG_BIN", "/usr/lib/postgresql/15/bin"))
_READY = re.compile(r"Listening for client connections on [0-9.]+:(\d+)")


def free_port() -> int:
    """A TCP port free on the loopback address now, drawn below the system's range of
    ephemeral ports.

    A server restarted on the port it had (a NATS node killed and started again, its
    clients knowing only that address) must find it free: a port from the ephemeral
    range could meanwhile be given to any process's outgoing connection as its local
    port, and the server would not start. Below that range only a process that binds
    the port on purpose can take it, and each process draws its own ports at random.
    """
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random()  # a fresh draw per process: two runs pick apart
    for _ in range(200):
        port = rng.randrange(max(1024, low - 12000), max(1025, low - 1))
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise ConfigError("No free TCP port below the ephemeral range on 127.0.0.1; free some.")


def _wait(what: str, ready: object, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until ``ready()`` is true; fail with the server's log if it exits."""
    assert callable(ready)
    deadline = time.monotonic() + 60
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            text = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise ConfigError(f"The {what} did not start; its log ends with:\n{text}")
        time.sleep(0.02)


@dataclass
class NatsServer:
    """``nats-server -js`` in ``folder``; :meth:`start` sets :attr:`port`.

    :param config: Optional server configuration text (accounts, users,
        permissions, TLS); written to ``folder/nats.conf``.
    """

    folder: Path
    config: str | None = None
    port: int = 0
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The client URL."""
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> NatsServer:
        """Start the server (again, after :meth:`kill`: same store, same port if it was set)."""
        binary = shutil.which("nats-server")
        if binary is None:
            raise ConfigError("nats-server is not installed; run 'apt-get install nats-server'.")
        self.folder.mkdir(parents=True, exist_ok=True)
        log = self.folder / "nats.log"
        log.unlink(missing_ok=True)
        args = [binary, "-js", "-sd", str(self.folder / "js"), "-a", "127.0.0.1"]
        args += ["-p", str(self.port or -1), "-l", str(log)]
        if self.config is not None:
            conf = self.folder / "nats.conf"
            conf.write_text(self.config, encoding="utf-8")
            args += ["-c", str(conf)]
        # Its own session: a terminal's Ctrl-C reaches the floor alone, which stops the
        # server after its last use instead of losing it mid-way.
        self.proc = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )

        def ready() -> bool:
            text = log.read_text(errors="replace") if log.exists() else ""
            found = _READY.search(text)
            if found and "Server is ready" in text:
                self.port = int(found.group(1))
                return True
            return False

        _wait("NATS server", ready, self.proc, log)
        return self

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Stop the server with ``sig`` (SIGKILL by default: a crash) and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(30)
        self.proc = None

    def stop(self) -> None:
        """Stop the server cleanly."""
        self.kill(signal.SIGTERM)


@dataclass
class NatsCluster:
    """A NATS cluster of ``size`` JetStream nodes on the loopback address, each with its
    own client port, route port, configuration and store under ``folder/nN``; every
    node lists the others as routes. For tests and benchmarks of a room's cluster."""

    folder: Path
    size: int = 3
    name: str = "room"
    nodes: list[NatsServer] = field(default_factory=list)

    @property
    def urls(self) -> list[str]:
        """Every node's client URL, in node order."""
        return [node.url for node in self.nodes]

    def start(self) -> NatsCluster:
        """Start every node (their ports chosen now, kept for restarts).

        A port drawn free can still be bound by another process before its node
        listens on it; the node then exits saying so, and the cluster starts again
        on newly drawn ports (a few times, then the node's log is the error).
        """
        for attempt in range(5):
            ports: set[int] = set()
            while len(ports) < 2 * self.size:  # six different ports for three nodes
                ports.add(free_port())
            drawn = list(ports)
            routes, clients = drawn[: self.size], drawn[self.size :]
            self.nodes = []
            for n in range(self.size):
                others = ", ".join(
                    f'"nats-route://127.0.0.1:{routes[m]}"' for m in range(self.size) if m != n
                )
                folder = self.folder / f"n{n + 1}"
                config = (
                    f"server_name: n{n + 1}\n"
                    f"cluster {{\n  name: {self.name}\n  listen: 127.0.0.1:{routes[n]}\n"
                    f"  routes: [{others}]\n}}\n"
                )
                self.nodes.append(NatsServer(folder, config, clients[n]))
            try:
                for node in self.nodes:
                    node.start()
            except ConfigError as exc:
                self.stop()
                if attempt == 4 or "address already in use" not in str(exc).lower():
                    raise
                for node in self.nodes:  # no trace of the other ports in the next try
                    shutil.rmtree(node.folder, ignore_errors=True)
                continue
            break
        return self

    def node(self, server_name: str) -> NatsServer:
        """The node called ``server_name`` (``n1`` ...), as JetStream names it."""
        return self.nodes[int(server_name.lstrip("n")) - 1]

    def stop(self) -> None:
        """Stop every node still running."""
        for node in self.nodes:
            node.stop()


@dataclass
class PostgresServer:
    """A PostgreSQL cluster in ``folder``, listening only on a socket there."""

    folder: Path
    port: int = 0
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    remove: bool = False
    """Delete :attr:`folder` when the server stops (a :meth:`temporary` one)."""

    @classmethod
    def temporary(cls) -> PostgresServer:
        """A server in a new folder of the system's temporary directory, removed on
        :meth:`stop`. (As root the server runs as ``nobody``, who must reach the folder:
        a folder under pytest's private temporary directory would not do.)"""
        return cls(Path(tempfile.mkdtemp(prefix="pokertable-pg-")), remove=True)

    @property
    def conninfo(self) -> str:
        """The psycopg connection string."""
        return f"host={self.folder} port={self.port} user=postgres dbname=postgres"

    def _user(self) -> str | None:
        return "nobody" if os.geteuid() == 0 else None

    def start(self) -> PostgresServer:
        """Create the cluster on first use and start the server."""
        if not (PG_BIN / "postgres").exists():
            raise ConfigError(
                f"PostgreSQL is not installed in {PG_BIN}; run 'apt-get install postgresql' "
                "or set POKERTABLE_PG_BIN."
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        user = self._user()
        if user is not None:
            os.chmod(self.folder, 0o755)
            shutil.chown(self.folder, user)
        data = self.folder / "data"
        if not data.exists():
            done = subprocess.run(
                [
                    str(PG_BIN / "initdb"),
                    "-D",
                    str(data),
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "--no-sync",
                    "-E",
                    "UTF8",
                    "--locale",
                    "C",
                ],
                user=user,
                check=False,
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise ConfigError(f"initdb failed in {data}: {done.stderr.strip()[-800:]}")
        self.port = self.port or free_port()
        log = self.folder / "postgres.log"
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(
                [
                    str(PG_BIN / "postgres"),
                    "-D",
                    str(data),
                    "-k",
                    str(self.folder),
                    "-p",
                    str(self.port),
                    "-c",
                    "listen_addresses=",
                    # Durable like a card room's server (fsync on, the default): the
                    # benches' figures include every commit's flush.
                ],
                user=user,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches the floor alone (as NATS above)
            )
        sock = self.folder / f".s.PGSQL.{self.port}"

        def ready() -> bool:
            if not sock.exists():
                return False
            import psycopg

            try:
                psycopg.connect(self.conninfo, connect_timeout=2).close()
            except psycopg.OperationalError:
                return False
            return True

        _wait("PostgreSQL server", ready, self.proc, log)
        return self

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Stop the postmaster with ``sig`` (SIGKILL: a crash; SIGINT: fast shutdown)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(60)
        self.proc = None
        if sig == signal.SIGKILL:
            # Children of a killed postmaster exit on their own; the lock file stays.
            (self.folder / "data" / "postmaster.pid").unlink(missing_ok=True)

    def stop(self) -> None:
        """Fast shutdown (and the folder removed, for a :meth:`temporary` server)."""
        self.kill(signal.SIGINT)
        if self.remove:
            shutil.rmtree(self.folder, ignore_errors=True)
