"""A small blocking client of the table protocol, for the screens and the tests.

>>> client = TableClient.unix("/run/pokertable.sock")        # doctest: +SKIP
>>> client.hello("seat3", "the seat's secret")               # doctest: +SKIP
>>> view = client.wait_for(lambda m: m["type"] == "view")    # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from firmware.errors import PokerTableError
from firmware.protocol.framing import Decoder, encode

if TYPE_CHECKING:  # ssl costs 40-80 ms of import; a screen on the Unix socket never needs it
    import ssl


class ClientClosed(PokerTableError, ConnectionError):
    """The controller closed the connection."""


class TableClient:
    """One connection to the controller: send requests, receive messages.

    :param sock: A connected socket (plain Unix or TLS-wrapped TCP).
    """

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.decoder = Decoder()
        self.received: deque[dict[str, Any]] = deque()
        self.closed = False

    @classmethod
    def unix(cls, path: str, timeout: float = 10.0) -> TableClient:
        """Connect to the controller's Unix socket."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        sock.connect(path)
        return cls(sock)

    @classmethod
    def tls(
        cls, host: str, port: int, context: ssl.SSLContext, timeout: float = 10.0
    ) -> TableClient:
        """Connect over TCP with TLS (``context`` holds this terminal's certificate)."""
        raw = socket.create_connection((host, port), timeout=timeout)
        sock = context.wrap_socket(raw, server_hostname=host)
        return cls(sock)

    def send(self, message: Mapping[str, Any]) -> None:
        """Send one message."""
        self.send_raw(encode(message))

    def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (tests of malformed input)."""
        self.sock.sendall(data)

    def hello(self, terminal: str, secret: str, lang: str = "es") -> None:
        """Introduce this terminal with its secret."""
        self.send({"type": "hello", "terminal": terminal, "secret": secret, "lang": lang})

    def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        """Return the next message, waiting up to ``timeout`` seconds.

        :raises ClientClosed: if the controller closed the connection.
        :raises TimeoutError: if nothing arrived in time.
        """
        deadline = time.monotonic() + timeout
        while not self.received:
            if self.closed:
                raise ClientClosed("The controller closed the connection.")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"No message from the controller within {timeout} seconds.")
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:  # ConnectionError and ssl.SSLError are OSErrors too
                data = b""
            if not data:
                self.closed = True
                continue
            self.received.extend(self.decoder.feed(data))
        return self.received.popleft()

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0
    ) -> dict[str, Any]:
        """Return the first message for which ``predicate`` is true, skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.recv(max(0.0, deadline - time.monotonic()))
            if predicate(message):
                return message

    def wait_closed(self, timeout: float = 10.0) -> bool:
        """Read until the controller closes the connection; return whether it did."""
        try:
            while True:
                self.recv(timeout)
        except ClientClosed:
            return True
        except TimeoutError:
            return False

    def close(self) -> None:
        """Close the connection."""
        self.closed = True
        with contextlib.suppress(OSError):
            self.sock.close()
