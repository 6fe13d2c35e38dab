"""Every client's view after each change (split from :mod:`firmware.protocol.server`).

The controller calls :meth:`ViewFeed._on_change` on its loop thread after every
dispatched item. Each client's view is computed there, where the table is
consistent, encoded once per audience (seat, language, who is logged in) with
a :class:`~firmware.protocol.viewpack.ViewPacker`, and handed to the server
thread with ``call_soon_threadsafe``; it never blocks. A client whose view is
byte for byte the one it was last given is not sent it again (most items a
loop dispatches, a refused request, a badge check, a tick that only moves the
clock, change nothing a screen shows).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import Any

from firmware.protocol.broadcast import RELEASE_SECONDS, DelayLine
from firmware.protocol.cage import CageDesk
from firmware.protocol.clients import ClientState
from firmware.protocol.framing import FrameError
from firmware.protocol.viewpack import ViewPacker
from firmware.service.controller import Controller
from firmware.service.safety import LogThrottle
from firmware.views.audience import console_view, seat_view, technician_view
from firmware.views.broadcast import BroadcastRules, broadcast_view
from firmware.views.share import ViewShare

log = logging.getLogger("firmware.protocol")


class ViewFeed:
    """The views part of :class:`~firmware.protocol.server.TableServer`."""

    controller: Controller
    clients: dict[int, ClientState]
    _clients_lock: threading.Lock
    _loop: asyncio.AbstractEventLoop | None
    _packer: ViewPacker
    """Encodes the views (loop thread only)."""
    cage: CageDesk
    """The bank movement waiting for its second badge (:mod:`firmware.protocol.cage`)."""
    throttle: LogThrottle
    """Logs a repeated error a few times a minute, not once per change."""
    broadcast: BroadcastRules | None = None
    """The ``[broadcast]`` rules, or ``None``: no broadcast feed (a broadcast terminal
    that connects gets no view)."""
    _line: DelayLine | None = None
    """The broadcast views waiting for their delay (:mod:`firmware.protocol.broadcast`)."""

    def _badge_seen(self, client: ClientState, gone: bool) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------ server thread

    def _offer_view(self, client_id: int, data: bytes) -> None:
        """Give a client its newest view (server thread; replaces one not yet sent)."""
        client = self.clients.get(client_id)
        if client is None or client.closed:
            return
        client.latest_view = data
        client.wake.set()

    async def _release_broadcast(self, stopping: asyncio.Event) -> None:
        """Give the broadcast terminals the views whose delay has passed (server thread)."""
        line = self._line
        while line is not None and not stopping.is_set():
            released = line.due()
            if released:
                with self._clients_lock:
                    watching = [c for c in self.clients.values() if c.audience == "broadcast"]
                for client in watching:
                    data = released.get(client.lang)
                    if data is not None:
                        self._offer_view(client.id, data)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), RELEASE_SECONDS)

    def _offer_latest_broadcast(self, client: ClientState) -> None:
        """A broadcast terminal's view on hello or a language change: the newest whose
        delay has passed, never a live one (server thread)."""
        data = self._line.latest(client.lang) if self._line is not None else None
        if data is not None:
            self._offer_view(client.id, data)

    # ------------------------------------------------------------ loop thread

    def _queue_broadcast(self, controller: Controller, share: ViewShare) -> None:
        """This change's broadcast view in each language, into the delay line."""
        rules, line = self.broadcast, self._line
        if rules is None or line is None:
            return
        for lang in ("es", "en"):
            try:
                view = broadcast_view(controller.table, lang, rules, controller, share)
                line.set_level(view["level"])  # public: never delayed (issue 23)
                line.put(lang, self._packer.encode(view, share))
            except Exception as exc:  # the optional feed skips a view; the table goes on
                self.throttle.log(
                    logging.ERROR, "broadcast", "The broadcast view cannot be made: %r", exc
                )

    def _on_change(self, controller: Controller) -> None:
        """Controller listener: compute every client's view and hand it over, never blocking."""
        with self._clients_lock:
            clients = [c for c in self.clients.values() if c.audience is not None]
        inserted = controller.state.readers.get("console")
        loop = self._loop
        # One change, one share: what the views have in common is computed once, and
        # clients of the same audience (seat, language, who is logged in) get the same
        # bytes, encoded once.
        share = ViewShare()
        encoded: dict[tuple[Any, ...], bytes | None] = {}
        for client in clients:
            if client.badge is not None and loop is not None and not loop.is_closed():
                gone = inserted != client.badge
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._badge_seen, client, gone)
            if client.audience != "broadcast":  # the broadcast feed is delayed: below
                self._push_view(client, share, encoded)
        self._queue_broadcast(controller, share)

    def view_for(
        self, client: ClientState, share: ViewShare | None = None
    ) -> dict[str, Any] | None:
        """``client``'s view of the table now (loop thread only); ``None`` before hello.

        :param share: What the views of this change have in common (``_on_change``).
        """
        table = self.controller.table
        audience = client.audience
        view: dict[str, Any]
        if audience == "seat":
            assert client.seat is not None
            view = seat_view(table, client.seat, client.lang, self.controller, share)
        elif audience == "console":
            view = console_view(table, client.lang, self.controller, share)
            view["bank"] = self.cage.view(self.controller)  # TABLE-BANK
        elif audience == "technician":
            view = technician_view(self.controller, client.lang)
        else:  # a broadcast terminal gets the delayed feed only, never the table now
            return None
        if audience != "seat":
            # Per connection, not per table: who is logged in on this console.
            view["staff"] = (
                {"name": client.staff, "role": client.role} if client.staff is not None else None
            )
        return view

    def _push_view(
        self,
        client: ClientState,
        share: ViewShare | None = None,
        encoded: dict[tuple[Any, ...], bytes | None] | None = None,
        again: bool = False,
    ) -> None:
        """Compute ``client``'s view on the loop thread and hand it to the server thread.

        :param encoded: The views of this change already encoded, by audience.
        :param again: Send it even if it is the one the client was last given.
        """
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        audience = client.audience
        key = (audience, client.seat, client.lang, client.staff, client.role)
        if encoded is not None and key in encoded:
            data = encoded[key]
        else:
            view = self.view_for(client, share)
            if view is None:
                return
            try:
                data = self._packer.encode(view, share)
            except FrameError as exc:
                log.error("The %s view for client %s cannot be sent: %s", audience, client.id, exc)
                data = None
            if encoded is not None:
                encoded[key] = data
        if data is None or (data == client.offered_view and not again):
            return
        client.offered_view = data
        with contextlib.suppress(RuntimeError):  # the server loop is closing
            loop.call_soon_threadsafe(self._offer_view, client.id, data)

    def _request_view(self, client: ClientState) -> None:
        if client.audience == "broadcast":
            self._offer_latest_broadcast(client)
            return
        self.controller.call_soon(lambda: self._push_view(client, again=True))


__all__ = ["ViewFeed"]
