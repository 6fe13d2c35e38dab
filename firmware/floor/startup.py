"""The floor waits for its servers at start: one sentence per outage, never a traceback.

A floor started by systemd at boot may come up before PostgreSQL or NATS
does, and a restarted PostgreSQL (the floor exits 75 when it loses its lease
with it) may take a while to accept connections. :func:`until_reachable`
keeps trying one step (reaching PostgreSQL, opening the floor) until it
works or the floor is told to stop, and says once, in one sentence, which
server it waits for and why; when the server answers it says so once more.
A problem that waiting cannot solve (a configuration the stream refuses, a
wrong password) is raised at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import psycopg

from firmware.errors import ConfigError

RETRY_SECONDS = 1.0


def server_of(exc: BaseException) -> str:
    """Which server a failure to start is about."""
    return "PostgreSQL" if isinstance(exc, psycopg.Error) else "NATS"


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _permanent(exc: BaseException) -> bool:
    """A failure that waiting does not cure (bad password, unknown database)."""
    if isinstance(exc, psycopg.OperationalError):
        text = str(exc).lower()
        return "password authentication failed" in text or "does not exist" in text
    return "authorization violation" in str(exc).lower()


async def until_reachable(
    step: Callable[[], Awaitable[object]],
    stop: asyncio.Event,
    say: Callable[[str], None],
    retry: float = RETRY_SECONDS,
) -> bool:
    """Run ``step`` until it works (True) or ``stop`` is set (False).

    :raises ConfigError: for a failure that waiting cannot cure.
    """
    away = ""
    while not stop.is_set():
        attempt = asyncio.ensure_future(step())
        stopped = asyncio.ensure_future(stop.wait())
        await asyncio.wait({attempt, stopped}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if not attempt.done():
            attempt.cancel()
            with contextlib.suppress(BaseException):
                await attempt
            return False
        exc = attempt.exception()
        if exc is None:
            if away:
                say(f"{away} is reachable; the floor starts.")
            return True
        if isinstance(exc, ConfigError) or not isinstance(exc, Exception):
            raise exc
        what = server_of(exc)
        if _permanent(exc):
            raise ConfigError(f"{what} refused the floor: {_short(exc)}; check the configuration.")
        if what != away:
            say(
                f"{what} is not reachable ({_short(exc)}); the floor waits for it and starts "
                "when it answers."
            )
            away = what
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), retry)
    return False


async def reach_postgres(conninfo: str) -> None:
    """Connect to PostgreSQL once and leave (it answers)."""
    conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True, connect_timeout=5)
    await conn.close()
