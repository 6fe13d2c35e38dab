"""The NATS server configuration of a card room: one identity per table, limited to itself.

Each table connects as its own user and may publish only its own events
(``floor.events.<table>``) and notices (``floor.notices.<table>``: its
alerts, floor calls and device faults), receive only its own commands
(``floor.cmd.<table>``), reply to the requests it receives, and use only
its own reply inbox (``_INBOX_<table>``, see
:class:`firmware.service.floorlink.FloorLink`) and the JetStream API calls a
publisher needs. The floor's user may do everything. With ``tls`` the
server requires TLS and checks each client's certificate against the room's
authority.

A table proves who it is with a password or, better, with an **NKey**: an
Ed25519 key pair whose private seed stays on the table (a file readable by
the controller only) while the server's configuration holds only the public
key, so the configuration file keeps no secret of any table. The server
sends a random challenge at each connection and the table signs it
(``nats-py``'s ``nkeys_seed``). :func:`new_table_key` makes a key pair and
:func:`write_seed` stores the seed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass

from firmware.errors import ConfigError
from firmware.service.floorwire import COMMANDS, EVENTS, NOTICES, TABLE_ID


@dataclass(frozen=True)
class ServerTls:
    """The server's certificate and key, and the authority of the clients' certificates."""

    cert: str
    key: str
    ca: str


@dataclass(frozen=True)
class TableKey:
    """A table's NKey: the private ``seed`` (keep it on the table) and its ``public`` key
    (the only part the server's configuration holds)."""

    seed: str
    public: str


def new_table_key() -> TableKey:
    """A fresh user NKey from the system's random source."""
    import nkeys  # the 'floor' extra

    seed = nkeys.encode_seed(os.urandom(32), nkeys.PREFIX_BYTE_USER)
    public = nkeys.from_seed(bytearray(seed)).public_key
    return TableKey(seed.decode(), public.decode())


def write_seed(path: str, key: TableKey) -> None:
    """Write the seed to ``path`` readable by its owner only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(key.seed + "\n")
    os.chmod(path, 0o600)


def table_permissions(table: str) -> dict[str, object]:
    """What a table's user may publish and subscribe to."""
    return {
        "publish": {"allow": [f"{EVENTS}.{table}", f"{NOTICES}.{table}", "$JS.API.INFO"]},
        "subscribe": {"allow": [f"{COMMANDS}.{table}", f"_INBOX_{table}.>"]},
        "allow_responses": True,
    }


def _check_public(table: str, public: str) -> None:
    if not (len(public) == 56 and public.startswith("U") and public.isalnum()):
        raise ConfigError(
            f"The NKey of table {table} must be a public user key (56 characters starting "
            "with 'U'), never the seed; make one with new_table_key()."
        )


def room_config(
    tables: Mapping[str, str],
    floor_password: str,
    tls: ServerTls | None = None,
    nkeys: Mapping[str, str] | None = None,
) -> str:
    """The server configuration text.

    :param tables: Table id → password, for tables that log in with a password.
    :param floor_password: The floor's password (user ``floor``).
    :param tls: Require TLS and client certificates.
    :param nkeys: Table id → public NKey, for tables that log in with a key
        (a table is in one mapping or the other).

    Passwords are written as given: keep the file readable by the server only.
    """
    keyed = dict(nkeys or {})
    both = sorted(set(tables) & set(keyed))
    if both:
        raise ConfigError(f"Table(s) {', '.join(both)} have both a password and an NKey; pick one.")
    for table in [*tables, *keyed]:
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
    for table, public in sorted(keyed.items()):
        _check_public(table, public)
        users.append({"nkey": public, "permissions": table_permissions(table)})
    # The NATS configuration format accepts JSON values.
    text = "authorization: " + json.dumps({"users": users}, indent=2) + "\n"
    if tls is not None:
        block = {"cert_file": tls.cert, "key_file": tls.key, "ca_file": tls.ca, "verify": True}
        text += "tls: " + json.dumps(block, indent=2) + "\n"
    return text
