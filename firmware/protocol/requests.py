"""Client requests to table events (split from :mod:`firmware.protocol.server`).

:class:`TableRequests` is the part of
:class:`~firmware.protocol.server.TableServer` that turns a seat's requests,
a dealer's reports and the floor's overrides into table events. Each request
is looked up in the declared allow-list :data:`~firmware.protocol.schema.REQUESTS`,
checked against the client's role (from the connection, never the message)
and its declared fields, and only then built into the one event class the
entry names and handed to the controller's loop thread. A request refused at
once raises :class:`Refused` (sent back as ``refused``); one the table
refuses on the loop thread is sent back to that client only; one the table
accepts is answered ``ok {request}``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from firmware.errors import PokerTableError
from firmware.hal import ButtonPressed
from firmware.i18n import CATALOG, tr
from firmware.protocol.clients import ClientState
from firmware.protocol.schema import REQUESTS, Refused, Request, build_event, shown
from firmware.service.controller import Controller
from firmware.table import events as te

REPORTS: dict[str, type[te.TableEvent]] = {
    name.split(":", 1)[1]: spec.event
    for name, spec in REQUESTS.items()
    if name.startswith("report:") and spec.event is not None
}
"""Dealer reports (dealer or floor role) and the table events they become.
``clock`` (call the clock), ``pause`` and ``resume`` are handled apart."""

CONTROL_REPORTS = ("clock", "pause", "resume")
"""Reports that are no table event of their own: the clock is called at the
table's time; pause and resume set the dealer's pause (idempotent)."""

SERVER_FIELDS = frozenset({"staff", "scan", "now"})
"""Event fields a client never gives: the staff name comes from the login, a
deck scan from the shoe, a time from the controller's clock."""

OVERRIDES: dict[str, type[te.TableEvent]] = {
    name.split(":", 1)[1]: spec.event
    for name, spec in REQUESTS.items()
    if name.startswith("override:") and spec.event is not None
}
"""Floor overrides (floor role only); each carries the staff member's name for the audit."""

CARD_FIELDS = ("card",)
SEAT_REQUESTS = ("act", "advance", "declare_raise", "sit_out", "sit_in", "rebuy", "show", "muck")

PERMISSION = {
    "seat": (
        "Only a seat's own screen acts for that seat.",
        "protocol.permission.seat",
    ),
    "dealer": (
        "Only a dealer or the floor, logged in on the console, reports incidents.",
        "protocol.permission.report",
    ),
    "floor": (
        "Only the floor, logged in on the console, can override (TDA-1).",
        "protocol.permission.floor",
    ),
    "technician": (
        "Only a technician, logged in on the console, runs the diagnostics.",
        "protocol.permission.technician",
    ),
    "console": ("Staff log in on the dealer console.", "protocol.login.console"),
}
"""The refusal for a request whose role the client does not have, by the request's first role."""


def client_roles(client: ClientState) -> frozenset[str]:
    """What a connection may do: a seat terminal is ``seat``; the console is
    ``console`` plus the role of whoever is logged in on it."""
    if client.seat is not None:
        return frozenset({"seat"})
    if client.terminal == "console":
        return frozenset({"console", client.role}) if client.role else frozenset({"console"})
    if client.terminal == "broadcast":
        return frozenset({"broadcast"})  # the delayed feed: it chooses its language only
    return frozenset()


def lookup(client: ClientState, message: dict[str, Any]) -> Request:
    """The declared request a message makes, checked against the client's role.

    :raises Refused: for a request not in the protocol or one the client's role may not make.
    """
    kind = message["type"]
    if kind in ("report", "override"):
        sub = message.get(kind)
        spec = REQUESTS.get(f"{kind}:{sub}") if isinstance(sub, str) else None
        if spec is None:
            if kind == "report":
                raise Refused(
                    f"{shown(sub)} is not a report the console can make.",
                    key="protocol.report.unknown",
                )
            raise Refused(f"{shown(sub)} is not a floor override.", key="protocol.override.unknown")
    else:
        spec = REQUESTS.get(kind)
        if spec is None:
            raise Refused(
                f"The request {shown(kind)} is not part of the table protocol.",
                key="protocol.unknown",
                kind=shown(kind),
            )
    if not spec.roles & client_roles(client):
        first = "dealer" if "dealer" in spec.roles else min(spec.roles)
        sentence, key = PERMISSION[first]
        raise Refused(sentence, key=key)
    return spec


class TableRequests:
    """Requests to table events, for :class:`~firmware.protocol.server.TableServer`."""

    controller: Controller
    _loop: asyncio.AbstractEventLoop | None

    def _queue(self, client: ClientState, message: dict[str, Any]) -> None:
        """Queue a message to ``client`` (the server's outbox; server thread only)."""
        raise NotImplementedError

    def _answered(self, client: ClientState, message: dict[str, Any]) -> None:
        """A request's answer from the loop thread (server thread): one fewer pending."""
        client.pending -= 1
        self._queue(client, message)

    def _event_request(self, client: ClientState, spec: Request, values: dict[str, Any]) -> None:
        """Build the one event ``spec`` names and apply it on the loop thread."""
        controller = self.controller
        seat, staff = client.seat, client.staff

        def run() -> None:
            now = controller.table_time() if spec.timed else None
            controller.submit(build_event(spec, values, seat, staff, now))

        self.run_for(client, run, spec.name)

    def _control_report(self, client: ClientState, spec: Request) -> None:
        """``report pause`` and ``resume``: the dealer's pause, no table event of its own."""
        controller = self.controller
        want = spec.name == "report:pause"

        def pause() -> None:
            # The dealer's pause button toggles; press it only to change the state.
            if controller.state.manual_pause != want:
                controller.handle(ButtonPressed("console", controller.table_time(), "dealer.pause"))
            if not want:
                controller.resume_after_error()

        self.run_for(client, pause, spec.name)

    def run_for(self, client: ClientState, fn: Callable[[], None], request: str = "") -> None:
        """Run ``fn`` on the loop thread; answer ``client`` alone with ``ok`` or ``refused``."""
        loop = self._loop
        client.pending += 1  # answered by exactly one ok or refused (server thread)

        def answer(message: dict[str, Any]) -> None:
            if loop is not None and not loop.is_closed():
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._answered, client, message)

        def run() -> None:
            try:
                fn()
            except PokerTableError as exc:  # IllegalAction, CardError: the table refused
                # A table refusal without a key of its own still names one the screens
                # can translate.
                answer(refusal(exc, exc.key or "table.refused"))
            except Exception:
                # A fault of the firmware, not of the request: the controller pauses the
                # table with an alert (Controller.dispatch); the client hears it refused.
                answer(
                    {
                        "type": "refused",
                        "reason": "The table could not take this request and is paused; "
                        "call the floor.",
                        "key": "table.internal",
                    }
                )
                raise
            else:
                answer({"type": "ok", "request": request})

        self.controller.call_soon(run)


def refusal(exc: PokerTableError, key: str | None = None) -> dict[str, Any]:
    """The ``refused`` message of ``exc``: its sentence, key and the key's plain params,
    so a screen can show the catalog's text in its own language."""
    params = {k: v for k, v in exc.params.items() if isinstance(v, str | int | float)}
    return {"type": "refused", "reason": str(exc), "key": key or exc.key, "params": params}


def localized(message: dict[str, Any], lang: str) -> dict[str, Any]:
    """``message`` (a ``refused``, or a ``welcome`` saying why) with its ``reason`` in
    ``lang``: the catalog's text of its key and params. English keeps the sentence as
    raised (it names the field or the amount); a key the catalog lacks, or params that
    do not fill it, keep it too."""
    key = message.get("key")
    if lang == "en" or not message.get("reason") or not isinstance(key, str):
        return message
    if key not in CATALOG:
        return message
    try:
        text = tr(key, lang, **dict(message.get("params") or {}))
    except (KeyError, IndexError, ValueError):
        return message
    return {**message, "reason": text}


__all__ = [
    "CARD_FIELDS",
    "CONTROL_REPORTS",
    "OVERRIDES",
    "REPORTS",
    "SEAT_REQUESTS",
    "SERVER_FIELDS",
    "Refused",
    "TableRequests",
    "client_roles",
    "localized",
    "lookup",
    "refusal",
]
