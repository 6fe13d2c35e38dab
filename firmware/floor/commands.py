"""The floor's commands to a table: a request on ``floor.cmd.<table>``, answered by the table.

Every command carries an id; the table keeps each reply under its id, so a
command repeated after a timeout (the reply lost, or the table busy) is
answered again without acting twice.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import msgpack

from firmware.errors import IllegalAction
from firmware.service.floorlink import COMMANDS


class TableUnreachable(IllegalAction):
    """The table did not answer; it may be offline. The floor retries later."""


async def send_command(
    nc: Any, table: str, command: dict[str, Any], timeout: float = 5.0, attempts: int = 3
) -> dict[str, Any]:
    """Send ``command`` to ``table`` and return its reply (``ok``, ``error``, ``chips``).

    :raises TableUnreachable: after ``attempts`` requests without an answer.
    """
    import nats.errors

    body = dict(command)
    body.setdefault("id", uuid.uuid4().hex)
    data = msgpack.packb(body)
    for _ in range(attempts):
        try:
            msg = await nc.request(f"{COMMANDS}.{table}", data, timeout=timeout)
        except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
            await asyncio.sleep(0.2)
            continue
        reply = msgpack.unpackb(msg.data)
        if not isinstance(reply, dict):
            break
        return reply
    raise TableUnreachable(
        f"Table {table} did not answer the floor's {command.get('kind')} command; check that "
        "it is on and connected, then repeat it."
    )
