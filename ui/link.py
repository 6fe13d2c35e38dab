"""The screens' connection to the controller over the table protocol.

:class:`ClientLink` adapts a :class:`~firmware.protocol.client.TableClient`
to the :class:`ui.app.Link` the screens' run loop uses: a reader thread
receives messages into a queue, so :meth:`receive` never blocks the frame
loop.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from typing import Any

from firmware.protocol.client import ClientClosed, TableClient


class ClientLink:
    """A non-blocking link to the controller for one screen.

    :param client: A connected client that has already said ``hello``.
    """

    def __init__(self, client: TableClient) -> None:
        self.client = client
        self._inbox: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self.closed = threading.Event()
        self._thread = threading.Thread(target=self._read, name="screen-link", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self.closed.is_set():
            try:
                message = self.client.recv(timeout=0.5)
            except TimeoutError:
                continue
            except (ClientClosed, OSError):
                self.closed.set()
                self._inbox.put({"type": "alert", "text": "The controller closed the connection."})
                return
            self._inbox.put(message)

    def send(self, message: dict[str, Any]) -> None:
        """Send one request to the controller (ignored once the link is closed)."""
        if not self.closed.is_set():
            try:
                self.client.send(message)
            except OSError:
                self.closed.set()

    def receive(self) -> list[dict[str, Any]]:
        """Every message received since the last call (never blocks)."""
        messages = []
        while True:
            try:
                messages.append(self._inbox.get_nowait())
            except queue.Empty:
                return messages

    def close(self) -> None:
        """Stop reading and close the connection."""
        self.closed.set()
        with contextlib.suppress(OSError):
            self.client.sock.close()
        self._thread.join(2)


def main_screen(argv: list[str] | None = None) -> int:
    """``pokertable screen --seat N | --console``: a screen connected to the controller."""
    import argparse
    import tomllib

    from ui.app import run

    parser = argparse.ArgumentParser(prog="pokertable screen", description=__doc__)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--seat", type=int)
    who.add_argument("--console", action="store_true")
    parser.add_argument("--config", default="/etc/pokertable/table.toml")
    parser.add_argument("--socket", help="the controller's Unix socket (default from [server])")
    parser.add_argument("--secret", help="this terminal's secret (default from [terminals])")
    parser.add_argument("--lang", default="es", choices=("es", "en"))
    parser.add_argument("--size", default="800x480")
    parser.add_argument("--fullscreen", action="store_true")
    args = parser.parse_args(argv)
    terminal = "console" if args.console else f"seat{args.seat}"
    socket_path, secret = args.socket, args.secret
    if socket_path is None or secret is None:
        with open(args.config, "rb") as handle:
            config = tomllib.load(handle)
        socket_path = socket_path or config.get("server", {}).get("socket")
        secret = secret or config.get("terminals", {}).get(terminal)
    if not socket_path or not secret:
        print(
            f"pokertable screen: no socket or no secret for {terminal}; set [server] socket and "
            f"[terminals] {terminal} in {args.config}, or pass --socket and --secret.",
        )
        return 2
    try:
        client = TableClient.unix(socket_path)
    except OSError as exc:
        print(
            f"pokertable screen: cannot reach the controller at {socket_path} ({exc}); "
            "is pokertable serve running?"
        )
        return 1
    client.hello(terminal, secret, args.lang)
    link = ClientLink(client)
    width, height = (int(x) for x in args.size.lower().split("x"))
    try:
        run(link, size=(width, height), fullscreen=args.fullscreen)
    finally:
        link.close()
    return 0
