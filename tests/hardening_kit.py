"""A real table behind a real server, with a real journal, for the hardening tests.

:class:`JournaledRig` is what ``pokertable serve`` assembles, minus the
devices: a :class:`~firmware.table.table.Table` restored from (or set up in)
an SQLite journal in a data directory, the :class:`Controller` loop on its
thread journaling every event, and the :class:`TableServer` on a Unix socket.
:meth:`JournaledRig.restart` stops it and builds it again from the journal,
as a restart of the service does.
"""

from __future__ import annotations

import os
import pathlib
import threading
from typing import Any

from firmware.hal import IdCardInserted
from firmware.protocol.auth import StaffDirectory, TerminalSecrets
from firmware.protocol.client import TableClient
from firmware.protocol.server import TableServer
from firmware.service.controller import Controller
from firmware.service.journal import Journal
from firmware.service.recovery import restore, store_table_setup
from firmware.service.registry import TagRegistry
from firmware.table import event_records
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table

GUARD = 300.0
"""A bound on every wait so a broken server fails the test instead of hanging it;
nothing here asserts how long anything took. Generous on purpose: on a machine
busy with other work a wait of 30 s was reached by a healthy server (issue 26),
so only a real hang may reach this one."""

SECRETS = {f"seat{n}": f"seat{n}-secret-0123456789" for n in range(1, 11)}
SECRETS["console"] = "console-secret-0123456"

BADGES = {"dealer": ("BADGE-DEALER", "1111"), "floor": ("BADGE-FLOOR", "2222"),
          "technician": ("BADGE-TECH", "3333")}  # fmt: skip


def table_config() -> TableConfig:
    """A cash table with blinds 1/2."""
    return TableConfig(
        "casino-cash", profile_options("casino-cash"), Stakes(small_blind=1, big_blind=2)
    )


def table_fingerprint(table: Table) -> dict[str, Any]:
    """What two tables must share to be the same table: every event applied,
    every stack, the hand in progress and the finished hands' records."""
    return {
        "log": [event_records.to_record(e) for e in table.log],
        "stacks": {n: (s.player, s.stack) for n, s in table.seating.seats.items()},
        "hand_number": table.hand_number,
        "hand_log": [event_records.to_record(e) for e in table.hand.log]
        if table.hand is not None
        else None,
        "records": table.records,
        "now": table.now,
    }


class JournaledRig:
    """Controller, journal and server in ``data``, as ``pokertable serve`` builds them.

    :param data: The data directory (journal, tag registry, socket).
    :param config: The table's configuration (default: :func:`table_config`).
    :param server_options: Extra keyword arguments for :class:`TableServer`.
    """

    def __init__(
        self,
        data: pathlib.Path,
        tick_seconds: float = 3600.0,
        config: TableConfig | None = None,
        **server_options: Any,
    ) -> None:
        self.data = data
        self.config = config or table_config()
        self.tick_seconds = tick_seconds
        self.server_options = server_options
        self.clients: list[TableClient] = []
        self.problems: list[str] = []
        self._start()

    def _start(self) -> None:
        path = str(self.data / "journal.sqlite")
        self.journal = Journal(path)
        if len(self.journal) == 0:
            store_table_setup(self.journal, self.config, deck_ready=True)
            self.table = Table(self.config, deck_ready=True)
        else:
            self.problems = []
            self.table = restore(self.journal, self.problems)
        self.registry = TagRegistry(str(self.data / "tags.sqlite"))
        self.controller = Controller(
            self.table,
            {},
            self.registry,
            journal=self.journal.append,
            tick_seconds=self.tick_seconds,
        )
        self.staff = StaffDirectory()
        for role, (badge, pin) in BADGES.items():
            self.staff.add(badge, role.title(), role, pin)
        self.socket = str(self.data / "table.sock")
        self.server = TableServer(
            self.controller,
            TerminalSecrets(SECRETS),
            self.staff,
            unix_path=self.socket,
            **self.server_options,
        )
        self.server.start()
        self.thread = threading.Thread(target=self.controller.run, daemon=True)
        self.thread.start()

    def on_loop(self, fn: Any) -> Any:
        """Run ``fn`` on the controller loop, wait for it and return its result."""
        done = threading.Event()
        result: list[Any] = []

        def run() -> None:
            try:
                result.append(fn())
            finally:
                done.set()

        self.controller.call_soon(run)
        assert done.wait(GUARD), "the controller loop did not run the call"
        return result[0] if result else None

    def seat_players(self, count: int = 3, chips: int = 200) -> None:
        """Seat ``count`` players through the journal, as the dealer's reports would."""
        for seat in range(1, count + 1):
            self.on_loop(lambda s=seat: self.controller.submit(te.SitDown(s, f"P{s}", chips)))

    def connect(self, terminal: str) -> TableClient:
        """A client authenticated as ``terminal`` (its welcome read)."""
        client = TableClient.unix(self.socket, timeout=GUARD)
        self.clients.append(client)
        client.hello(terminal, SECRETS[terminal])
        welcome = client.wait_for(lambda m: m["type"] in ("welcome", "refused"), GUARD)
        assert welcome["type"] == "welcome", welcome
        return client

    def console(self, role: str | None) -> TableClient:
        """The console, with ``role`` logged in (its badge in the reader), or nobody."""
        client = self.connect("console")
        if role is not None:
            badge, pin = BADGES[role]
            self.controller.post(IdCardInserted("console-reader", 0.0, "console", badge))
            self.on_loop(lambda: None)
            client.send({"type": "login", "pin": pin})
            reply = client.wait_for(lambda m: m["type"] in ("welcome", "refused"), GUARD)
            assert reply.get("role") == role, reply
        return client

    def stop(self) -> None:
        """Close the clients, stop the server and the loop, close the journal."""
        for client in self.clients:
            client.close()
        self.clients = []
        self.server.stop()
        self.controller.stop()
        self.thread.join(GUARD)
        assert not self.thread.is_alive(), "the controller loop did not stop"
        self.journal.close()
        self.registry.close()

    def restart(self) -> dict[str, Any]:
        """Stop, then build everything again from the journal (a service restart); return
        the stopped table's :func:`table_fingerprint`."""
        self.stop()
        before = table_fingerprint(self.table)
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        self._start()
        return before


def answer(client: TableClient) -> dict[str, Any]:
    """The next message that is not a view: a request's answer."""
    return client.wait_for(lambda m: m["type"] != "view", GUARD)


__all__ = [
    "BADGES",
    "GUARD",
    "SECRETS",
    "JournaledRig",
    "answer",
    "table_config",
    "table_fingerprint",
]
