"""The floor's commands to a table: a request on ``floor.cmd.<table>``, answered by the table.

Every command carries an id; the table keeps each reply under its id, so a
command repeated after a timeout (the reply lost, or the table busy) is
answered again without acting twice, and a repeat of a command the table is
still carrying out (a move waiting for the hand to end) waits for the same
answer.

:class:`CommandQueue` keeps the order where it matters and only there: the
commands for one seat of one table (take the player off, then seat another)
run one after the other, in the order the floor decided them; everything
else runs at once, so a command waiting for a hand's end at one table holds
nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeVar

import msgpack

from firmware.errors import IllegalAction
from firmware.service.floorwire import COMMANDS

log = logging.getLogger(__name__)

R = TypeVar("R")


class TableUnreachable(IllegalAction):
    """The table did not answer; it may be offline. The floor retries later."""


async def send_command(
    nc: Any, table: str, command: dict[str, Any], timeout: float = 5.0, attempts: int | None = 3
) -> dict[str, Any]:
    """Send ``command`` to ``table`` and return its reply (``ok``, ``error``, ``chips``).

    :param attempts: Requests before giving up (``None``: until answered; the
        same id each time, so the table acts once).
    :raises TableUnreachable: after ``attempts`` requests without an answer.
    """
    import nats.errors

    body = dict(command)
    body.setdefault("id", uuid.uuid4().hex)
    data = msgpack.packb(body)
    tried = 0
    while attempts is None or tried < attempts:
        tried += 1
        try:
            msg = await nc.request(f"{COMMANDS}.{table}", data, timeout=timeout)
        except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
            await asyncio.sleep(0.2)
            continue
        except (nats.errors.OutboundBufferLimitError, nats.errors.ConnectionReconnectingError):
            # The floor's own link to NATS is down: ask again once it is back.
            await asyncio.sleep(0.5)
            continue
        reply = msgpack.unpackb(msg.data)
        if not isinstance(reply, dict):
            break
        return reply
    raise TableUnreachable(
        f"Table {table} did not answer the floor's {command.get('kind')} command; check that "
        "it is on and connected, then repeat it."
    )


class CommandQueue:
    """Runs the floor's commands as tasks: in order per key (a table's seat), at once
    otherwise.

    :param on_error: Told the exception of a task that failed (the director stops
        the tournament and shows why).
    """

    def __init__(self, on_error: Callable[[BaseException], None]) -> None:
        self.on_error = on_error
        self.tasks: set[asyncio.Task[Any]] = set()
        self._last: dict[Hashable, asyncio.Task[Any]] = {}

    def after(self, key: Hashable, work: Callable[[], Awaitable[R]]) -> asyncio.Task[R]:
        """Run ``work()`` once every earlier task of ``key`` has finished."""
        previous = self._last.get(key)

        async def run() -> R:
            if previous is not None:
                await asyncio.wait([previous])  # its failure is reported on its own
            return await work()

        task = asyncio.create_task(run())
        self._last[key] = task
        self.tasks.add(task)

        def done(finished: asyncio.Task[Any]) -> None:
            self.tasks.discard(finished)
            if self._last.get(key) is finished:
                del self._last[key]
            if not finished.cancelled() and finished.exception() is not None:
                self.on_error(finished.exception())  # type: ignore[arg-type]

        task.add_done_callback(done)
        return task

    async def settle(self) -> None:
        """Wait until no task is left (new tasks started meanwhile included)."""
        while self.tasks:
            await asyncio.wait(set(self.tasks))

    async def cancel(self) -> None:
        """Cancel every task (the tournament is over or stopped)."""
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            with contextlib.suppress(BaseException):
                await task
