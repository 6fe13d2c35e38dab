"""The floor's HTTP server, hardened against slow and abundant clients.

The standard library's :class:`~http.server.ThreadingHTTPServer` gives every
connection a thread and waits for ever for its request: 1,018 half-sent
POSTs took a floor to all its file descriptors and a thousand threads, and
each aborted request printed a traceback (issue 27, "slowloris").
:class:`GuardedServer` keeps the same handler model (a thread per connection,
one request per connection) with four bounds:

* **a connection cap** (:data:`MAX_CONNECTIONS`): a connection beyond it is
  answered ``503`` at once and closed, without a thread;
* **a per-address cap** (:data:`PER_ADDRESS`): one address cannot take every
  slot, so the room's TV and the staff still get in while one machine floods;
  a configured reverse proxy (``trusted``) is held to the overall cap only;
* **a request deadline** (:data:`REQUEST_SECONDS`): the request line, the
  headers and the body must all arrive within it, however slowly each byte
  comes (each read waits only for the time left), then the connection is
  closed;
* **a write timeout** (:data:`WRITE_SECONDS`) for every answer, so a reader
  that stops reading frees its slot.

A request that ends early (a timeout, a reset, a closed socket) is logged as
one line at ``debug``, never as a traceback.
"""

from __future__ import annotations

import io
import logging
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 128
"""Connections served at once (each has a thread)."""
PER_ADDRESS = 24
"""Connections one client address may hold at once (not a trusted proxy)."""
REQUEST_SECONDS = 10.0
"""Time a client has to send its whole request (line, headers and body)."""
WRITE_SECONDS = 10.0
"""Time an answer's write may wait for a client that does not read."""
BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class DeadlineReader(io.RawIOBase):
    """A socket's reading side that ends at a deadline, however the bytes trickle in."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self.sock = sock
        self.deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request was not sent in time")
        self.sock.settimeout(left)
        return self.sock.recv_into(buffer)


class GuardedHandler(BaseHTTPRequestHandler):
    """A request handler whose request must arrive before the server's deadline."""

    server: GuardedServer

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the socket's own reader: closed, or the socket outlives the request
        deadline = time.monotonic() + self.server.request_seconds
        self.rfile = io.BufferedReader(DeadlineReader(self.connection, deadline))

    def answer_mode(self) -> None:
        """Switch the socket to the write timeout (call once the request is read)."""
        self.connection.settimeout(self.server.write_seconds)

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged (staff actions are recorded); errors only at debug."""
        log.debug("%s: %s", self.client_address[0], format % args)


class GuardedServer(ThreadingHTTPServer):
    """A threading HTTP server with a connection cap, a per-address cap and deadlines.

    :param address: Where to listen.
    :param handler: The request handler (a :class:`GuardedHandler`).
    :param trusted: Reverse proxies' addresses: held to the overall cap only.
    """

    daemon_threads = True
    request_queue_size = 64

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[GuardedHandler],
        trusted: frozenset[str] = frozenset(),
        max_connections: int = MAX_CONNECTIONS,
        per_address: int = PER_ADDRESS,
        request_seconds: float = REQUEST_SECONDS,
        write_seconds: float = WRITE_SECONDS,
    ) -> None:
        self.trusted = trusted
        self.max_connections = max_connections
        self.per_address = per_address
        self.request_seconds = request_seconds
        self.write_seconds = write_seconds
        self.refused = 0
        """Connections turned away by a cap."""
        self.ended_early = 0
        """Requests that ended with an error (timeout, reset), each logged as one line."""
        self._active: dict[str, int] = {}
        self._count = 0
        self._guard = threading.Lock()
        super().__init__(address, handler)

    @property
    def active(self) -> int:
        """Connections being served now."""
        with self._guard:
            return self._count

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection on a thread, or turn it away when a cap is reached."""
        address = str(client_address[0])
        limit = self.max_connections if address in self.trusted else self.per_address
        with self._guard:
            full = self._count >= self.max_connections or self._active.get(address, 0) >= limit
            if not full:
                self._count += 1
                self._active[address] = self._active.get(address, 0) + 1
        if full:
            self.refused += 1
            try:
                request.setblocking(False)
                request.send(BUSY)
            except OSError:
                pass  # the client is gone or not reading: it only loses the 503
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._release(address)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release(str(client_address[0]))

    def _release(self, address: str) -> None:
        with self._guard:
            self._count -= 1
            left = self._active.get(address, 1) - 1
            if left > 0:
                self._active[address] = left
            else:
                self._active.pop(address, None)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line per request that ended early, never a traceback."""
        self.ended_early += 1
        exc = sys.exc_info()[1]
        if isinstance(exc, (OSError, ValueError)):  # timeouts, resets, a closed socket
            log.debug("A request from %s ended early: %s", client_address[0], exc)
        else:
            log.warning(
                "A request from %s failed: %s: %s", client_address[0], type(exc).__name__, exc
            )


class StreamSlots:
    """Long answers (live pages' event streams) served at once: at most ``total``, and
    at most ``per_client`` for one client, so one machine cannot take every slot and
    leave the room's TVs without their clock (thread-safe)."""

    def __init__(self, total: int, per_client: int) -> None:
        self.total = total
        self.per_client = per_client
        self._held: dict[str, int] = {}
        self._guard = threading.Lock()

    def take(self, client: str) -> bool:
        """Take a slot for ``client``; ``False`` when none is free for it."""
        with self._guard:
            mine = self._held.get(client, 0)
            if mine >= self.per_client or sum(self._held.values()) >= self.total:
                return False
            self._held[client] = mine + 1
            return True

    def give(self, client: str) -> None:
        """Give back a slot ``client`` took."""
        with self._guard:
            left = self._held.get(client, 1) - 1
            if left > 0:
                self._held[client] = left
            else:
                self._held.pop(client, None)
