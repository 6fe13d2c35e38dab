"""The screens' connection to the controller over the table protocol.

:class:`ClientLink` adapts a :class:`~firmware.protocol.client.TableClient`
to the :class:`ui.app.Link` the screens' run loop uses: a reader thread
receives messages into a queue, so :meth:`receive` never blocks the frame
loop.
"""

from __future__ import annotations

import contextlib
import queue
import ssl
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from firmware.i18n import CATALOG, argv_language, language_of, tr
from firmware.protocol.client import ClientClosed, TableClient

RETRY_FIRST = 0.5
"""Seconds before the first attempt to reach a controller that went away."""
RETRY_MOST = 10.0
"""The longest wait between attempts (the wait doubles from :data:`RETRY_FIRST`)."""


class Refused(Exception):
    """The controller answered a reconnecting screen's ``hello`` with a refusal."""

    def __init__(self, answer: dict[str, Any]) -> None:
        super().__init__(str(answer.get("reason")))
        self.answer = answer


def retry_delays(first: float = RETRY_FIRST, most: float = RETRY_MOST) -> Iterator[float]:
    """The waits between attempts to reconnect: doubling from ``first`` up to ``most``.

    >>> from itertools import islice
    >>> list(islice(retry_delays(), 7))
    [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    """
    delay = first
    while True:
        yield delay
        delay = min(most, delay * 2)


class ClientLink:
    """A non-blocking link to the controller for one screen.

    :param client: A connected client that has already said ``hello``.
    :param connect: Makes a new connection that has said ``hello`` and been welcomed
        (its welcome left to read), or raises; with it, a controller that goes away
        (restarted, Ctrl-C) is waited for: :attr:`reconnecting` is set, the screen
        says so, and attempts follow with backoff (:func:`retry_delays`) until it is
        back, when the controller's next view returns the screen to its page. Without
        it, or when the controller refuses this terminal, the link closes.
    """

    def __init__(
        self,
        client: TableClient,
        connect: Callable[[], TableClient] | None = None,
        delays: Callable[[], Iterator[float]] = retry_delays,
        on_state: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self.on_state = on_state or (lambda state: None)
        """Told ``"reconnecting"`` and ``"back"`` (the screen command logs them)."""
        self.connect = connect
        self.delays = delays
        self._inbox: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self.closed = threading.Event()
        self.reconnecting = threading.Event()
        """Set while the controller is away and the link tries to reach it again."""
        self.refusal: dict[str, Any] | None = None
        """The controller's refusal of a reconnecting ``hello`` (the link then closed)."""
        self.reconnects = 0
        self.lang: str | None = None
        """The language the screen last asked for (said again to a controller that came
        back: its hello carries the command line's)."""
        self._thread = threading.Thread(target=self._read, name="screen-link", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self.closed.is_set():
            try:
                message = self.client.recv(timeout=0.5)
            except TimeoutError:
                continue
            except (ClientClosed, OSError):
                if self.connect is None or self.closed.is_set() or not self._reconnect():
                    self.closed.set()
                    self._inbox.put(
                        {"type": "alert", "text": "The controller closed the connection."}
                    )
                    return
                continue
            self._inbox.put(message)

    def _reconnect(self) -> bool:
        """Reach the controller again; ``False`` if it refused this terminal or the
        link was closed meanwhile."""
        assert self.connect is not None
        with contextlib.suppress(OSError):
            self.client.sock.close()
        self.reconnecting.set()
        self._inbox.put({"type": "link", "state": "reconnecting"})
        self.on_state("reconnecting")
        for delay in self.delays():
            if self.closed.wait(delay):
                return False
            try:
                client = self.connect()
            except Refused as refused:
                self.refusal = refused.answer
                return False
            except (ClientClosed, TimeoutError, OSError, ssl.SSLError):
                continue
            if self.lang is not None:  # the player's choice, not the hello's language
                try:
                    client.send({"type": "language", "lang": self.lang})
                except OSError:
                    with contextlib.suppress(OSError):
                        client.sock.close()
                    continue
            self.client = client
            self.reconnects += 1
            self.reconnecting.clear()
            self._inbox.put({"type": "link", "state": "back"})
            self.on_state("back")
            return True
        return False

    def send(self, message: dict[str, Any]) -> None:
        """Send one request to the controller (dropped while it is away or once closed;
        a language asked for is kept and said again when it comes back)."""
        if message.get("type") == "language" and isinstance(message.get("lang"), str):
            self.lang = message["lang"]
        if not self.closed.is_set() and not self.reconnecting.is_set():
            # A send that fails: the reader finds the connection gone and reconnects.
            with contextlib.suppress(OSError):
                self.client.send(message)

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


EXIT_REFUSED = 78
"""Exit status when the controller refuses this terminal (its units do not restart on it)."""


Problem = tuple[str, dict[str, Any]]
"""A catalog key and its values: what the screen's command says is wrong."""


def _terminal(args: Any) -> str:
    """The terminal the options name: ``seatN``, ``console`` or ``broadcast``."""
    if args.broadcast:
        return "broadcast"
    return "console" if args.console else f"seat{args.seat}"


def _screen_settings(args: Any) -> tuple[str | None, str | None, Problem | None]:
    """The socket and secret from the options, the credential file or the configuration;
    the third value says what is missing or unreadable, if anything."""
    import os
    import tomllib

    terminal = _terminal(args)
    socket_path, secret = args.socket, args.secret
    secret_file = args.secret_file
    if secret is None and secret_file is None and os.environ.get("CREDENTIALS_DIRECTORY"):
        # A unit may also hand the secret over as a systemd credential named "secret".
        secret_file = os.path.join(os.environ["CREDENTIALS_DIRECTORY"], "secret")
    if args.host:
        socket_path = socket_path or "-"  # not used: the screen connects over TLS
    if secret is None and secret_file is not None:
        try:
            with open(secret_file, encoding="utf-8") as handle:
                secret = handle.read().strip()
        except OSError as exc:
            return None, None, ("cli.screen.secret", {"path": secret_file, "error": exc.strerror})
    if socket_path is None or secret is None:
        try:
            with open(args.config, "rb") as handle:
                config = tomllib.load(handle)
        except FileNotFoundError:
            return None, None, ("cli.screen.no_config", {"path": args.config})
        except PermissionError:
            return None, None, ("cli.screen.permission", {"path": args.config})
        except (OSError, tomllib.TOMLDecodeError) as exc:
            return None, None, ("cli.screen.unreadable", {"path": args.config, "error": str(exc)})
        socket_path = socket_path or config.get("server", {}).get("socket")
        if secret is None:
            entry = config.get("terminals", {}).get(terminal)
            if isinstance(entry, dict) and "secret_file" in entry:
                try:
                    with open(str(entry["secret_file"]), encoding="utf-8") as handle:
                        secret = handle.read().strip()
                except OSError as exc:
                    path = str(entry["secret_file"])
                    return None, None, ("cli.screen.secret", {"path": path, "error": exc.strerror})
            elif isinstance(entry, str):
                secret = entry
    if not socket_path or not secret:
        return None, None, ("cli.screen.missing", {"terminal": terminal, "path": args.config})
    return socket_path, secret, None


def main_screen(argv: list[str] | None = None) -> int:
    """``pokertable screen --seat N | --console | --broadcast``: a screen connected to the
    controller.

    Exit status: 0 when the window is closed, 1 when the controller cannot be reached at
    start (systemd restarts the screen; once running, a controller that goes away is
    waited for: the screen says "Reconectando…" and comes back with it), 2 for bad
    options, a display that cannot open or the screens' font missing,
    :data:`EXIT_REFUSED` when the controller refuses this terminal's secret (no restart:
    the secret must be fixed).
    """
    import argparse

    said = argv_language(sys.argv[1:] if argv is None else argv)  # the help's language
    parser = argparse.ArgumentParser(
        prog="pokertable screen", description=tr("cli.help.screen.about", said)
    )
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--seat", type=int, metavar="N", help=tr("cli.help.screen.seat", said))
    who.add_argument("--console", action="store_true", help=tr("cli.help.screen.console", said))
    who.add_argument("--broadcast", action="store_true", help=tr("cli.help.screen.broadcast", said))
    parser.add_argument(
        "--config",
        default="/etc/pokertable/table.toml",
        metavar=tr("cli.help.metavar.file", said),
        help=tr("cli.help.config", said),
    )
    parser.add_argument(
        "--socket",
        metavar=tr("cli.help.metavar.path", said),
        help=tr("cli.help.screen.socket", said),
    )
    parser.add_argument(
        "--secret",
        metavar=tr("cli.help.metavar.secret", said),
        help=tr("cli.help.screen.secret", said),
    )
    parser.add_argument(
        "--secret-file",
        metavar=tr("cli.help.metavar.file", said),
        help=tr("cli.help.screen.secret_file", said),
    )
    parser.add_argument(
        "--host",
        metavar=tr("cli.help.metavar.address", said),
        help=tr("cli.help.screen.host", said),
    )
    parser.add_argument(
        "--port", type=int, metavar="N", default=7700, help=tr("cli.help.screen.port", said)
    )
    parser.add_argument(
        "--cert", metavar=tr("cli.help.metavar.file", said), help=tr("cli.help.screen.cert", said)
    )
    parser.add_argument(
        "--key", metavar=tr("cli.help.metavar.file", said), help=tr("cli.help.screen.key", said)
    )
    parser.add_argument(
        "--ca", metavar=tr("cli.help.metavar.file", said), help=tr("cli.help.screen.ca", said)
    )
    parser.add_argument("--lang", choices=("es", "en"), help=tr("cli.help.screen.lang", said))
    parser.add_argument(
        "--size",
        default="800x480",
        metavar=tr("cli.help.metavar.size", said),
        help=tr("cli.help.screen.size", said),
    )
    parser.add_argument(
        "--fullscreen", action="store_true", help=tr("cli.help.screen.fullscreen", said)
    )
    parser.add_argument(
        "--hold-to-peek", action="store_true", help=tr("cli.help.screen.hold_to_peek", said)
    )
    args = parser.parse_args(argv)
    lang = language_of(args.lang)

    def say(key: str, **params: Any) -> int:
        print("pokertable screen: " + tr(key, lang, **params), file=sys.stderr)
        return 1

    from ui.fonts import FontMissing, font_file

    try:
        font_file()  # a broken installation is said before anything opens
    except FontMissing as missing:
        say("cli.screen.font", path=missing.path, error=missing.error)
        return 2

    terminal = _terminal(args)
    try:
        width, height = (int(x) for x in args.size.lower().split("x"))
    except ValueError:
        parser.error(tr("cli.screen.size", lang))
    socket_path, secret, problem = _screen_settings(args)
    if problem is not None or socket_path is None or secret is None:
        key, params = problem or ("cli.screen.missing", {"terminal": terminal, "path": args.config})
        say(key, **params)
        return 2
    where = f"{args.host}:{args.port}" if args.host else socket_path

    def connect() -> TableClient:
        """A connection that has said hello; the welcome is left for the screen to read.

        :raises Refused: if the controller refuses this terminal.
        """
        if args.host:
            context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=args.ca)
            context.load_cert_chain(args.cert, args.key)
            client = TableClient.tls(args.host, args.port, context)
        else:
            client = TableClient.unix(socket_path)
        try:
            client.hello(terminal, secret, args.lang or "es")
            answer = client.recv(timeout=10.0)
        except BaseException:
            client.sock.close()
            raise
        if answer.get("type") == "refused":
            client.sock.close()
            raise Refused(answer)
        client.received.appendleft(answer)  # the welcome is the screen's to read too
        return client

    if args.host and not (args.cert and args.key and args.ca):
        parser.error(tr("cli.screen.tls", lang))
    try:
        client = connect()
    except Refused as refused:
        say("cli.screen.refused", terminal=terminal, reason=refusal_reason(refused.answer, lang))
        return EXIT_REFUSED
    except (ClientClosed, TimeoutError) as exc:
        return say("cli.screen.no_hello", error=exc)
    except (OSError, ssl.SSLError) as exc:
        return say(
            "cli.screen.unreachable", where=where, error=getattr(exc, "strerror", None) or exc
        )

    def told(state: str) -> None:
        print("pokertable screen: " + tr(f"cli.screen.{state}", lang), file=sys.stderr, flush=True)

    link = ClientLink(client, connect, on_state=told)
    import pygame

    from ui.app import run

    lost = False
    try:
        seat = not (args.console or args.broadcast)
        options = {"hold_to_peek": True} if args.hold_to_peek and seat else {}
        run(link, size=(width, height), fullscreen=args.fullscreen, **options)
        lost = link.closed.is_set()  # the controller went away (not the window closed)
    except pygame.error as exc:
        say("cli.screen.display", error=exc)
        return 2
    finally:
        link.close()
    if link.refusal is not None:  # refused when it came back: the secret must be fixed
        say("cli.screen.refused", terminal=terminal, reason=refusal_reason(link.refusal, lang))
        return EXIT_REFUSED
    if lost:
        return say("cli.screen.closed")
    return 0


def refusal_reason(answer: dict[str, Any], lang: str) -> str:
    """A refusal's reason in ``lang`` when it carries a catalog key."""
    reason = str(answer.get("reason"))
    if answer.get("key") in CATALOG:
        with contextlib.suppress(KeyError, IndexError, ValueError, TypeError):
            reason = tr(str(answer["key"]), lang, **dict(answer.get("params") or {}))
    return reason
