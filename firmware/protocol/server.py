"""The controller's side of the table protocol: an asyncio server on its own thread.

Design: the :class:`~firmware.service.controller.Controller` loop thread owns the
table; this server runs an asyncio event loop on a second thread that owns
every socket. The two meet in two places only:

* client requests become table events handed to the loop with
  :meth:`Controller.call_soon` (never applied on the server thread);
* a controller listener, run on the loop thread after every dispatched item,
  computes each audience's view (:mod:`firmware.views.audience`) there, where the
  table is consistent, and hands the encoded bytes to the server thread with
  ``call_soon_threadsafe`` (:mod:`~firmware.protocol.viewfeed`). It never
  blocks: each client keeps only the latest view (a newer view replaces one
  not yet sent) plus a bounded queue of other messages; a client whose queue
  overflows is closed. A view identical to the one a client was last given is
  not sent again.

Listening: a Unix socket (screens on the controller itself; the socket file
is created mode 0600) and TCP with TLS requiring a client certificate signed
by the table's CA whose common name is the terminal named in ``hello``.

A malformed, oversized or out-of-place message closes that client's
connection with a logged reason; the table and the other clients are
unaffected.

The server is split in modules: connection state in
:mod:`~firmware.protocol.clients`, requests to table events in
:mod:`~firmware.protocol.requests` (technician requests in
:mod:`~firmware.protocol.handlers`), views in :mod:`~firmware.protocol.viewfeed`
(encoded by :mod:`~firmware.protocol.viewpack`), TLS helpers in
:mod:`~firmware.protocol.tls`; their public names are importable from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware.errors import PokerTableError
from firmware.i18n import LANGUAGES, tr
from firmware.protocol.auth import AuthError, StaffDirectory, TerminalSecrets
from firmware.protocol.broadcast import DelayLine
from firmware.protocol.cage import CAGE_REQUESTS, CageDesk, cage_request
from firmware.protocol.clients import ClientState, Closing
from firmware.protocol.framing import MAX_MESSAGE, Decoder, FrameError, encode
from firmware.protocol.game import GAME_REQUESTS, game_request
from firmware.protocol.handlers import DIAG_REQUESTS, diag_request
from firmware.protocol.jackpot import confirm_jackpot
from firmware.protocol.limits import Limits, TokenBucket, peer_of
from firmware.protocol.requests import (
    CARD_FIELDS,
    CONTROL_REPORTS,
    OVERRIDES,
    REPORTS,
    SEAT_REQUESTS,
    SERVER_FIELDS,
    Refused,
    TableRequests,
    localized,
    lookup,
    refusal,
)
from firmware.protocol.schema import check_fields
from firmware.protocol.tls import common_name, server_ssl_context
from firmware.protocol.viewfeed import ViewFeed
from firmware.protocol.viewpack import ViewPacker
from firmware.service.controller import Controller
from firmware.service.safety import LogThrottle
from firmware.views.broadcast import BroadcastRules

log = logging.getLogger("firmware.protocol")

MAX_OUTBOX = 64
"""Messages (other than views) waiting for one client before it is closed as too slow."""

READ_SIZE = 16 * 1024


def both_languages(key: str, **params: Any) -> str:
    """The catalog's sentence for ``key`` in every language, on one line (for a
    connection that has not said hello, whose language is not known)."""
    return " / ".join(tr(key, lang, **params) for lang in LANGUAGES)


LIMIT_REFUSAL = {
    "type": "refused",
    "reason": both_languages("protocol.limit.connections"),
    "key": "protocol.limit.connections",
}
"""Sent to a connection turned away by a cap, before it is closed."""


class TableServer(ViewFeed, TableRequests):
    """Serves the table to seat screens and the dealer console.

    :param controller: The controller owning the table (its loop runs elsewhere).
    :param secrets: Each terminal's secret.
    :param staff: Staff accounts for console logins.
    :param unix_path: Where to listen on a Unix socket, or ``None``.
    :param tcp: ``(host, port)`` to listen on with TLS (port 0: any), or ``None``.
    :param ssl_context: The server TLS context (required with ``tcp``); it
        must require client certificates (see :func:`server_ssl_context`).
    :param limits: Hello timeout, connection caps, rate and queue limits
        (:mod:`firmware.protocol.limits`).
    :param badge_grace: Seconds a staff login survives its badge leaving the
        console's reader (0: logged out at once).
    :param broadcast: The ``[broadcast]`` rules: the feed of the ``broadcast``
        terminal, delayed (:mod:`firmware.protocol.broadcast`); ``None``: no feed.
    :param broadcast_clock: The delay line's monotonic clock (tests give their own).
    """

    def __init__(
        self,
        controller: Controller,
        secrets: TerminalSecrets,
        staff: StaffDirectory,
        unix_path: str | None = None,
        tcp: tuple[str, int] | None = None,
        ssl_context: ssl.SSLContext | None = None,
        limits: Limits | None = None,
        badge_grace: float = 5.0,
        broadcast: BroadcastRules | None = None,
        broadcast_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if tcp is not None and (
            ssl_context is None or ssl_context.verify_mode != ssl.CERT_REQUIRED
        ):
            raise PokerTableError(
                "TCP connections need a TLS context that requires client certificates."
            )
        self.controller = controller
        self.secrets = secrets
        self.staff = staff
        self.unix_path = unix_path
        self.tcp = tcp
        self.ssl_context = ssl_context
        self.tcp_port: int | None = None
        self.limits = limits or Limits()
        self.badge_grace = badge_grace
        self.throttle = LogThrottle(log)
        self.clients: dict[int, ClientState] = {}
        self._clients_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._servers: list[asyncio.base_events.Server] = []
        self._ready = threading.Event()
        self._startup_error: BaseException | None = None
        self._stopping: asyncio.Event | None = None
        self._packer = ViewPacker()
        self.cage = CageDesk()
        self.broadcast = broadcast
        self._line = (
            DelayLine(broadcast.delay_seconds, broadcast_clock) if broadcast is not None else None
        )

    # ------------------------------------------------------------ lifecycle

    def start(self, timeout: float = 10.0) -> None:
        """Start listening on the server thread and register the view listener."""
        self._thread = threading.Thread(target=self._run, name="table-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise PokerTableError("The table server did not start listening in time.")
        if self._startup_error is not None:
            raise PokerTableError(
                f"The table server cannot listen: {self._startup_error}."
            ) from self._startup_error
        self.controller.listeners.append(self._on_change)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop listening, close every client and end the server thread."""
        with contextlib.suppress(ValueError):
            self.controller.listeners.remove(self._on_change)
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopping.set)
        if self._thread is not None:
            self._thread.join(timeout)
        if self.unix_path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.unix_path)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop.set_exception_handler(self._loop_error)
        self._stopping = asyncio.Event()
        try:
            if self.unix_path is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.unix_path)
                server = await asyncio.start_unix_server(
                    lambda r, w: self._serve(r, w, "unix"), path=self.unix_path
                )
                os.chmod(self.unix_path, 0o600)
                self._servers.append(server)
            if self.tcp is not None:
                server = await asyncio.start_server(
                    lambda r, w: self._serve(r, w, "tls"),
                    host=self.tcp[0],
                    port=self.tcp[1],
                    ssl=self.ssl_context,
                    # A connection that never completes its handshake is dropped in the
                    # hello's time (the caps count it from its handshake on).
                    ssl_handshake_timeout=self.limits.hello_seconds,
                )
                self.tcp_port = server.sockets[0].getsockname()[1]
                self._servers.append(server)
        except OSError as exc:
            self._startup_error = exc
            self._ready.set()
            return
        self._ready.set()
        release = asyncio.create_task(self._release_broadcast(self._stopping))
        await self._stopping.wait()
        await release
        for server in self._servers:
            server.close()
        with self._clients_lock:
            clients = list(self.clients.values())
        for client in clients:
            client.closed = True
            client.wake.set()
        for server in self._servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2.0)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's errors (an accept failing when file descriptors run out),
        logged a few times a minute per kind instead of once per attempt."""
        exc = context.get("exception")
        kind = type(exc).__name__ if exc is not None else str(context.get("message"))
        self.throttle.log(
            logging.ERROR, f"loop:{kind}", "Table server: %s (%s).", context.get("message"), exc
        )

    def _admit(self, client: ClientState) -> str | None:
        """Count a new connection; the reason to turn it away, if a cap is reached."""
        limits = self.limits
        with self._clients_lock:
            waiting = [c for c in self.clients.values() if c.terminal is None and not c.closed]
            listener = sum(1 for c in waiting if c.transport == client.transport)
            peer = sum(1 for c in waiting if c.peer == client.peer)
            if listener >= limits.pending_per_listener:
                return f"{listener} connections on this listener are waiting for their hello"
            if peer >= limits.pending_per_peer:
                return f"{peer} connections from {client.peer} are waiting for their hello"
            if client.peer_cn is not None:  # over TLS: the certificate, from any address
                same = sum(1 for c in waiting if c.peer_cn == client.peer_cn)
                if same >= limits.pending_per_certificate:
                    return (
                        f"{same} connections with the certificate {client.peer_cn!r} are "
                        "waiting for their hello"
                    )
            self.clients[client.id] = client
        return None

    # ------------------------------------------------------------ one client

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, transport: str
    ) -> None:
        client = ClientState(next(self._ids), transport, peer=peer_of(writer, transport))
        if transport == "tls":
            client.peer_cn = common_name(writer.get_extra_info("peercert"))
        loop = asyncio.get_running_loop()
        client.bucket = TokenBucket(self.limits.rate, self.limits.burst, loop.time())
        turned_away = self._admit(client)
        if turned_away is not None:
            self.throttle.log(logging.WARNING, "cap", "Turning a connection away: %s.", turned_away)
            with contextlib.suppress(Exception):
                writer.write(encode(LIMIT_REFUSAL))
                writer.close()
                await asyncio.wait_for(writer.wait_closed(), 2.0)
            return
        sender = asyncio.create_task(self._send_loop(client, writer))
        decoder = Decoder(MAX_MESSAGE)
        reason = "the client closed the connection"
        hello_by = loop.time() + self.limits.hello_seconds
        try:
            while not client.closed:
                if client.terminal is None:
                    try:
                        data = await asyncio.wait_for(
                            reader.read(READ_SIZE), max(0.0, hello_by - loop.time())
                        )
                    except TimeoutError:
                        seconds = f"{self.limits.hello_seconds:g}"
                        self._tell_before_hello(client, "protocol.hello.timeout", seconds=seconds)
                        raise Closing(
                            f"no hello within {self.limits.hello_seconds:g} seconds"
                        ) from None
                else:
                    data = await reader.read(READ_SIZE)
                if not data:
                    decoder.close()
                    break
                for message in decoder.feed(data):
                    self._check_rate(client, loop.time())
                    await self._handle(client, message)
        except FrameError as exc:
            self._refuse(client, exc)  # told why (protocol.malformed) before the close
            reason = f"malformed message ({exc.reason}): {exc}"
            self.throttle.log(
                logging.WARNING,
                f"frame:{exc.reason}",
                "Closing client %s (%s): %s",
                client.id,
                client.terminal,
                reason,
            )
        except Closing as exc:
            reason = str(exc)
            self.throttle.log(
                logging.WARNING,
                f"closing:{reason[:24]}",
                "Closing client %s (%s): %s",
                client.id,
                client.terminal,
                reason,
            )
        except (ConnectionError, ssl.SSLError, OSError) as exc:
            reason = f"connection error: {exc}"
            self.throttle.log(
                logging.INFO,
                "disconnected",
                "Client %s (%s) disconnected: %s",
                client.id,
                client.terminal,
                reason,
            )
        finally:
            client.closed = True
            client.wake.set()
            with self._clients_lock:
                self.clients.pop(client.id, None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(sender, 2.0)
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 2.0)

    async def _send_loop(self, client: ClientState, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await client.wake.wait()
                client.wake.clear()
                while client.outbox or client.latest_view is not None:
                    data: bytes | None
                    if client.outbox:
                        data = client.outbox.popleft()
                    else:
                        data, client.latest_view = client.latest_view, None
                    assert data is not None
                    writer.write(data)
                    await writer.drain()
                if client.closed:
                    return
        except (ConnectionError, ssl.SSLError, OSError):
            client.closed = True

    def _check_rate(self, client: ClientState, now: float) -> None:
        """Disconnect a client that sends faster than the rate limit or does not wait
        for its answers (told why first)."""
        if not client.bucket.take(now):
            self._refuse(
                client,
                Refused(
                    f"This terminal sent more than {self.limits.burst} requests at once; it is "
                    "disconnected. Restart the screen; call the technician if it repeats.",
                    key="protocol.limit.rate",
                ),
            )
            raise Closing("it sends requests faster than the rate limit")
        if client.pending >= self.limits.pending_requests:
            self._refuse(
                client,
                Refused(
                    f"This terminal has {client.pending} requests waiting; it is disconnected. "
                    "Restart the screen; call the technician if it repeats.",
                    key="protocol.limit.queue",
                ),
            )
            raise Closing("it does not wait for the answers to its requests")

    def _queue(self, client: ClientState, message: dict[str, Any]) -> None:
        """Queue a message to ``client`` (server thread only)."""
        if client.closed:
            return
        if len(client.outbox) >= MAX_OUTBOX:
            self.throttle.log(
                logging.WARNING,
                "outbox",
                "Closing client %s (%s): it does not read its messages.",
                client.id,
                client.terminal,
            )
            client.closed = True
        else:
            # Every sentence in the client's language (its refusals, why it was logged out).
            client.outbox.append(encode(localized(message, client.lang)))
        client.wake.set()

    # ------------------------------------------------------------ badges (server thread)

    def _badge_seen(self, client: ClientState, gone: bool) -> None:
        """The staff member's badge left the console's reader (or is back): after
        ``badge_grace`` seconds without it, the login ends."""
        if client.closed or client.badge is None:
            return
        if not gone:
            if client.badge_timer is not None:
                client.badge_timer.cancel()
                client.badge_timer = None
            return
        if client.badge_timer is None and self._loop is not None:
            client.badge_timer = self._loop.call_later(
                self.badge_grace, self._badge_expired, client
            )

    def _badge_expired(self, client: ClientState) -> None:
        client.badge_timer = None
        if client.closed or client.badge is None:
            return
        if self.controller.state.readers.get("console") == client.badge:
            return  # put back in time
        log.info("%s logged out: the badge left the console's reader.", client.staff)
        self._logout(
            client,
            "Your badge left the reader, so you are logged out; insert it and log in again.",
            "protocol.login.badge_removed",
        )

    # ------------------------------------------------------------ requests (server thread)

    async def _handle(self, client: ClientState, message: dict[str, Any]) -> None:
        kind = message["type"]
        if client.terminal is None:
            if kind != "hello":
                self._refuse(
                    client,
                    Refused(
                        "Send hello with this terminal's name and secret first; the "
                        "connection is closed.",
                        key="protocol.hello.first",
                    ),
                )
                raise Closing(f"a {kind[:40]!r} message arrived before hello")
            await self._hello(client, message)
            return
        if kind == "hello":
            raise Closing("a second hello on an authenticated connection")
        try:
            spec = lookup(client, message)
            values = check_fields(spec, message)
            if spec.name in GAME_REQUESTS:
                game_request(client, spec.name, values, self.run_for, self.controller)
            elif spec.event is not None:
                self._event_request(client, spec, values)
            elif spec.name == "language":
                client.lang = str(values["lang"])
                self._queue(client, {"type": "ok", "request": "language"})
                self._request_view(client)
            elif spec.name == "report:jackpot":
                confirm_jackpot(client, values, self.staff, self.run_for, self.controller)
            elif spec.name == "login":
                await self._login(client, values)
            elif spec.name == "logout":
                self._logout(client)
            elif spec.name in CAGE_REQUESTS:
                cage_request(client, spec.name, values, self.run_for, self.controller, self.cage)
            elif spec.name in DIAG_REQUESTS:
                diag_request(client, spec.name, values, self.run_for, self.controller)
            else:
                self._control_report(client, spec)
        except Refused as exc:
            self._refuse(client, exc)

    def _refuse(self, client: ClientState, exc: PokerTableError) -> None:
        self._queue(client, refusal(exc))

    def _tell_before_hello(self, client: ClientState, key: str, **params: Any) -> None:
        """Queue a ``refused`` for ``client``, which has not said hello (its language is
        not known): the catalog's sentence for ``key`` in every language, on one line."""
        message = {"type": "refused", "reason": both_languages(key, **params), "key": key}
        client.outbox.append(encode({**message, "params": params}))
        client.wake.set()

    async def _hello(self, client: ClientState, message: dict[str, Any]) -> None:
        terminal = message.get("terminal")
        if isinstance(message.get("lang"), str) and message["lang"] in LANGUAGES:
            client.lang = message["lang"]  # a refused hello is told why in its language
        try:
            name = self.secrets.check(terminal, message.get("secret"))
            if client.transport == "tls" and client.peer_cn != name:
                raise AuthError(
                    f"The terminal {name} must use its own certificate; this one is for "
                    f"{client.peer_cn!r}.",
                    key="protocol.hello.certificate",
                )
        except AuthError as exc:
            self._refuse(client, exc)
            raise Closing(f"hello refused for {terminal!r}: {exc}") from None
        with self._clients_lock:
            taken = any(
                c.terminal == name and c.id != client.id and not c.closed
                for c in self.clients.values()
            )
        if taken:
            error = AuthError(
                f"The terminal {name} is already connected.", key="protocol.hello.taken"
            )
            self._refuse(client, error)
            raise Closing(f"hello refused: {name} is already connected")
        client.terminal = name
        client.role = "seat" if client.seat is not None else None
        log.info("Client %s authenticated as %s over %s.", client.id, name, client.transport)
        self._queue(client, {"type": "welcome", "terminal": name, "role": client.role})
        self._request_view(client)

    async def _login(self, client: ClientState, message: dict[str, Any]) -> None:
        """``login {pin, badge?}``, its fields already checked (:mod:`firmware.protocol.schema`)."""
        inserted = self.controller.state.readers.get("console")
        # The badge is the card in the console's reader; a client may name it, and then it
        # must be that card.
        badge, pin = message.get("badge", inserted), str(message["pin"])
        if inserted is None or inserted != badge:
            raise Refused(
                "Insert your staff card in the console's reader, then log in.",
                key="protocol.login.card",
            )
        try:
            account = await asyncio.to_thread(self.staff.login, inserted, pin)
        except AuthError as exc:
            log.warning("Failed staff login on the console for badge %r: %s", badge, exc)
            raise Refused(str(exc), key=exc.key, **exc.params) from None
        client.role, client.staff, client.badge = account.role, account.name, account.badge
        log.info("%s logged in on the console as %s.", account.name, account.role)
        self._queue(
            client,
            {"type": "welcome", "terminal": "console", "role": account.role, "staff": account.name},
        )
        self._request_view(client)

    def _logout(self, client: ClientState, reason: str = "", key: str = "") -> None:
        """End the staff login on ``client``; ``reason`` and ``key`` say why when it was
        not asked for (the badge left the reader)."""
        client.role = client.staff = client.badge = None
        if client.badge_timer is not None:
            client.badge_timer.cancel()
            client.badge_timer = None
        welcome: dict[str, Any] = {"type": "welcome", "terminal": "console", "role": None}
        if reason:
            welcome.update(reason=reason, key=key)
        self._queue(client, welcome)
        self._request_view(client)


__all__ = [
    "CARD_FIELDS",
    "CONTROL_REPORTS",
    "MAX_OUTBOX",
    "OVERRIDES",
    "READ_SIZE",
    "REPORTS",
    "SEAT_REQUESTS",
    "SERVER_FIELDS",
    "ClientState",
    "Closing",
    "Refused",
    "TableServer",
    "server_ssl_context",
]
