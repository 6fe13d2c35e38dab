"""One connection to the table server (split from :mod:`firmware.protocol.server`).

:class:`ClientState` is what the server knows of a connection (who it is once
authenticated, its language, its outbox); :class:`Closing` ends one.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import Any


class Closing(Exception):
    """The client must be disconnected; the message is the logged reason."""


@dataclass
class ClientState:
    """One connection: who it is once authenticated, its language and its outbox."""

    id: int
    transport: str
    peer_cn: str | None = None
    terminal: str | None = None
    role: str | None = None
    staff: str | None = None
    badge: str | None = None
    lang: str = "es"
    outbox: deque[bytes] = field(default_factory=deque)
    latest_view: bytes | None = None
    """The newest view not yet written to the connection (server thread)."""
    offered_view: bytes | None = None
    """The last view handed to the server thread for this client (loop thread)."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    peer: str = ""
    """Who is at the other end (``ip:...`` or ``uid:...``), for the per-peer cap."""
    pending: int = 0
    """Requests handed to the controller's loop and not yet answered."""
    bucket: Any = None
    badge_timer: Any = None
    """The pending logout after the staff badge left the reader (an asyncio handle)."""
    """The client's request rate (a :class:`~firmware.protocol.limits.TokenBucket`)."""

    @property
    def seat(self) -> int | None:
        """The seat number of a seat terminal."""
        if self.terminal is not None and self.terminal.startswith("seat"):
            return int(self.terminal[4:])
        return None

    @property
    def audience(self) -> str | None:
        """Which view this client gets, or ``None`` before authentication."""
        if self.terminal is None:
            return None
        if self.seat is not None:
            return "seat"
        if self.terminal == "broadcast":
            return "broadcast"
        return "technician" if self.role == "technician" else "console"


__all__ = ["ClientState", "Closing"]
