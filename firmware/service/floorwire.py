"""What travels between a table and the floor, and how it is checked.

The NATS subjects and the stream's name (the floor's side imports them from
here), the table's ``[floor]`` section (:class:`FloorConfig`), the journal's
records as the floor receives them (the outbox, :func:`read_outbox`) and the
floor's commands turned into table events after every field was checked
(:func:`command_events`). The link that carries them is
:mod:`firmware.service.floorlink`; this module never connects to anything.
"""

from __future__ import annotations

import math
import os
import re
import sqlite3
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack

from firmware.errors import ConfigError, IllegalAction
from firmware.service.natsurls import server_urls
from firmware.table import events as te
from firmware.table.table import Table

STREAM = "FLOOR_EVENTS"
EVENTS = "floor.events"
COMMANDS = "floor.cmd"
NOTICES = "floor.notices"
"""Core NATS subject of a table's alerts (floor calls among them) and device faults."""
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
BATCH = 64
"""Records published before waiting for their acknowledgements."""


@dataclass(frozen=True)
class FloorConfig:
    """The ``[floor]`` section of a table's configuration."""

    url: str
    """One NATS server, or a cluster's nodes separated by commas (the configuration
    may give them as a list): the link tries them in turn."""
    table: str
    user: str = ""
    password: str = ""
    ca: str = ""
    cert: str = ""
    key: str = ""
    seed: str = ""
    """The table's NKey seed file (instead of user and password; see ``natsconf``)."""

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> FloorConfig:
        """Read ``[floor]``; unknown keys, a bad table id or a half TLS set-up are errors."""
        known = {"url", "table", "user", "password", "ca", "cert", "key", "seed"}
        unknown = sorted(set(section) - known)
        if unknown:
            names = ", ".join(sorted(known))
            raise ConfigError(f"Unknown [floor] option(s): {', '.join(unknown)}; known: {names}.")
        section = dict(section)
        if isinstance(section.get("url"), list):  # a NATS cluster's nodes
            section["url"] = ",".join(server_urls(section["url"], "[floor] url"))
        if any(not isinstance(v, str) for v in section.values()):
            raise ConfigError("Every [floor] option is text (url, table, user, password, ...).")
        config = cls(**section)
        if config.url:
            server_urls(config.url, "[floor] url")
        if not config.url or not TABLE_ID.fullmatch(config.table):
            raise ConfigError(
                "[floor] needs url (nats://host:port or tls://host:port) and table, an id of "
                "1 to 32 letters, digits, '-' or '_'."
            )
        if bool(config.cert) != bool(config.key):
            raise ConfigError("[floor] cert and key go together (the table's client certificate).")
        if config.seed and (config.user or config.password):
            raise ConfigError(
                "[floor] seed (an NKey) replaces user and password; give one or the other."
            )
        return config

    @property
    def servers(self) -> tuple[str, ...]:
        """The NATS servers, in the order they are tried."""
        return tuple(u.strip() for u in self.url.split(",") if u.strip())

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context for the connection, or ``None`` without TLS."""
        if not (self.ca or any(u.startswith("tls://") for u in self.servers)):
            return None
        context = ssl.create_default_context(cafile=self.ca or None)
        if self.cert:
            context.load_cert_chain(self.cert, self.key)
        return context


# ------------------------------------------------------------------ the outbox


@dataclass(frozen=True)
class OutboxRecord:
    """One journal record as the floor receives it."""

    seq: int
    time: float
    kind: str
    record: dict[str, Any]
    setup: dict[str, Any] | None

    def message(self, table: str) -> bytes:
        """The message body."""
        body = {"table": table, "seq": self.seq, "time": self.time, "kind": self.kind}
        body.update(record=self.record, setup=self.setup)
        return bytes(msgpack.packb(body))


def read_outbox(journal_path: str, after: int, limit: int = BATCH) -> list[OutboxRecord]:
    """Up to ``limit`` records numbered after ``after``, from the journal's archives
    (rotation) and the journal itself, read-only."""
    folder = os.path.dirname(journal_path) or "."
    stem = os.path.splitext(os.path.basename(journal_path))[0]
    archives = sorted(
        os.path.join(folder, f)
        for f in os.listdir(folder)
        if f.startswith(f"{stem}-to-hand-") and f.endswith(".sqlite")
    )
    out: list[OutboxRecord] = []
    for path in [*archives, journal_path]:
        if len(out) >= limit or not os.path.exists(path):
            continue
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            base = int(msgpack.unpackb(meta["seq_base"])) if "seq_base" in meta else 0
            setup = msgpack.unpackb(meta["table"]) if "table" in meta else None
            rows = db.execute(
                "SELECT id, time, kind, record FROM events WHERE id > ? ORDER BY id LIMIT ?",
                (after - base, limit - len(out)),
            ).fetchall()
        except sqlite3.OperationalError:
            rows = []  # a journal being created: nothing to send yet
        finally:
            db.close()
        for number, stamp, kind, record in rows:
            out.append(
                OutboxRecord(
                    base + number,
                    float(stamp),
                    str(kind),
                    msgpack.unpackb(record),
                    setup if number == 1 else None,
                )
            )
    return out


# ------------------------------------------------------------------ commands


def _int(cmd: dict[str, Any], name: str, low: int, high: int) -> int:
    value = cmd.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise IllegalAction(f"The floor's command needs {name} between {low} and {high}.")
    return value


MAX_AT_DISTANCE = 86_400.0
"""How far (seconds) a floor command's instant may lie from now: a level clock is
started, paused or resumed for the present, not for the year 10^300."""


def command_events(
    cmd: dict[str, Any], table: Table, table_time: Callable[[float], float] | None = None
) -> list[te.TableEvent]:
    """The table events a floor command asks for, after checking every field.

    :param table_time: Converts the floor's wall-clock instant (``at`` of a
        ``levels`` command) to the table's time; without it ``at`` is refused.
    :raises IllegalAction: naming the field that is missing or wrong.
    """
    kind = cmd.get("kind")
    if kind == "seat":
        player = cmd.get("player")
        if not isinstance(player, str) or not 0 < len(player) <= 40:
            raise IllegalAction("The floor's seat command needs the player's name (1-40 letters).")
        seats = table.config.options.max_seats
        return [
            te.SitDown(_int(cmd, "seat", 1, seats), player, _int(cmd, "chips", 1, 10**12)),
        ]
    if kind == "remove":
        return [te.CashOut(_int(cmd, "seat", 1, 10))]
    if kind == "levels":
        action = cmd.get("action")
        if action not in ("start", "pause", "resume"):
            raise IllegalAction("The floor's levels command is start, pause or resume.")
        at = cmd.get("at")
        if at is None:
            return [te.LevelClock(str(action))]
        if (
            not isinstance(at, int | float)
            or isinstance(at, bool)
            or not math.isfinite(at)
            or table_time is None
        ):  # NaN and infinity are floats too: refused, never journaled (issue 27)
            raise IllegalAction("The floor's levels command gives its moment as seconds (at).")
        moment = table_time(float(at))
        if not math.isfinite(moment) or abs(float(at) - time.time()) > MAX_AT_DISTANCE:
            raise IllegalAction("The floor's levels command gives its moment as seconds (at).")
        return [te.LevelClock(str(action), round(moment, 3))]
    if kind == "deal":
        hands = cmd.get("hands")
        if hands is not None and (
            not isinstance(hands, int) or isinstance(hands, bool) or hands < 0
        ):
            raise IllegalAction("The floor's deal command gives a number of hands or none.")
        number = cmd.get("round", 0)
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise IllegalAction("The floor's deal command gives its round as 0 or more.")
        return [te.DealOrder(-1 if hands is None else hands, number)]
    raise IllegalAction(f"The floor sent an unknown command {kind!r}; update the table.")
