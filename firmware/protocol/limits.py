"""Connection limits of the table server: nobody can hold it down with connections.

* **hello timeout**: a connection that has not said ``hello`` within
  :attr:`Limits.hello_seconds` is closed;
* **caps**: at most :attr:`Limits.pending_per_listener` connections waiting
  for their ``hello`` on each listener, and :attr:`Limits.pending_per_peer`
  from one peer (an IP address over TLS, a user id on the Unix socket), and
  :attr:`Limits.pending_per_certificate` made with one terminal certificate
  over TLS (whatever addresses it comes from: one seat board's certificate
  used from four addresses filled every slot, issue 27); an
  authenticated terminal no longer counts (each terminal connects once, so
  they are at most eleven), so a flood of connections never locks out a
  screen that has said ``hello``;
* **rate**: each connection may send :attr:`Limits.rate` requests a second
  on average, :attr:`Limits.burst` at once (a token bucket); a flooding
  client is told ``refused`` (``protocol.limit.rate``) and disconnected;
* **bounded queue**: at most :attr:`Limits.pending_requests` requests of one
  client waiting for the controller's loop (``protocol.limit.queue``), and
  at most ``MAX_OUTBOX`` answers waiting to be read (the server's outbox).

>>> bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
>>> [bucket.take(0.0) for _ in range(4)]
[True, True, True, False]
>>> bucket.take(0.5)  # half a second later: one more
True
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Limits:
    """The server's limits (``[server]`` options of the same names in the configuration)."""

    hello_seconds: float = 10.0
    pending_per_listener: int = 32
    pending_per_peer: int = 8
    pending_per_certificate: int = 4
    rate: float = 50.0
    burst: int = 200
    pending_requests: int = 64


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved; each request takes one."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now

    def take(self, now: float) -> bool:
        """Take a token at ``now`` (monotonic seconds); ``False`` when there is none."""
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


def peer_of(writer: Any, transport: str) -> str:
    """Who is at the other end: ``ip:ADDRESS`` over TLS, ``uid:N`` on the Unix socket."""
    if transport == "tls":
        address = writer.get_extra_info("peername")
        return f"ip:{address[0]}" if address else "ip:?"
    sock = writer.get_extra_info("socket")
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _, uid, _ = struct.unpack("3i", creds)
    except (OSError, AttributeError, struct.error):
        return "uid:?"
    return f"uid:{uid}"


__all__ = ["Limits", "TokenBucket", "peer_of"]
