"""The NATS server configuration of a card room: one user per table, limited to itself.

Each table connects as its own user and may publish only its own events
(``floor.events.<table>``), receive only its own commands
(``floor.cmd.<table>``), reply to the requests it receives, and use only
its own reply inbox (``_INBOX_<table>``, see
:class:`firmware.service.floorlink.FloorLink`) and the JetStream API calls a
publisher needs. The floor's user may do everything. With ``tls`` the
server requires TLS and checks each client's certificate against the room's
authority.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from firmware.errors import ConfigError
from firmware.service.floorlink import COMMANDS, EVENTS, TABLE_ID


@dataclass(frozen=True)
class ServerTls:
    """The server's certificate and key, and the authority of the clients' certificates."""

    cert: str
    key: str
    ca: str


def table_permissions(table: str) -> dict[str, object]:
    """What a table's user may publish and subscribe to."""
    return {
        "publish": {"allow": [f"{EVENTS}.{table}", "$JS.API.INFO"]},
        "subscribe": {"allow": [f"{COMMANDS}.{table}", f"_INBOX_{table}.>"]},
        "allow_responses": True,
    }


def room_config(
    tables: Mapping[str, str], floor_password: str, tls: ServerTls | None = None
) -> str:
    """The server configuration text: ``tables`` maps each table id to its password.

    Passwords are written as given: keep the file readable by the server only.
    """
    for table in tables:
        if not TABLE_ID.fullmatch(table):
            raise ConfigError(f"The table id {table!r} must be 1-32 letters, digits, '-' or '_'.")
    users: list[dict[str, object]] = [{"user": "floor", "password": floor_password}]
    for table, password in sorted(tables.items()):
        users.append(
            {
                "user": f"table-{table}",
                "password": password,
                "permissions": table_permissions(table),
            }
        )
    # The NATS configuration format accepts JSON values.
    text = "authorization: " + json.dumps({"users": users}, indent=2) + "\n"
    if tls is not None:
        block = {"cert_file": tls.cert, "key_file": tls.key, "ca_file": tls.ca, "verify": True}
        text += "tls: " + json.dumps(block, indent=2) + "\n"
    return text
