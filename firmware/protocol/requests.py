"""Client requests to table events (split from :mod:`firmware.protocol.server`).

:class:`TableRequests` is the part of
:class:`~firmware.protocol.server.TableServer` that turns a seat's requests,
a dealer's reports and the floor's overrides into table events, after
checking the client's role and the message's fields, and hands them to the
controller's loop thread. A request refused at once raises :class:`Refused`
(sent back as ``refused``); one the table refuses on the loop thread is sent
back to that client only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from firmware.engine.cards import parse_card
from firmware.errors import IllegalAction, PokerTableError
from firmware.hal import ButtonPressed
from firmware.protocol.clients import ClientState
from firmware.service.controller import Controller
from firmware.table import events as te

REPORTS: dict[str, type[te.TableEvent]] = {
    "exposed": te.ExposedCard,
    "misdeal": te.Misdeal,
    "face_up": te.FaceUpInDeck,
    "premature": te.PrematureCard,
    "burn_error": te.BurnError,
    "empty_seat": te.EmptySeatDealt,
    "empty_seat_dealt": te.EmptySeatDealt,
    "marked": te.MarkedCard,
    "kill": te.KillSeat,
    "shuffle": te.Shuffle,
    "cut": te.Cut,
    "deck_step": te.DeckStep,
    "deck_change": te.DeckChange,
    "repair_card": te.RepairCard,
    "withdraw_card": te.WithdrawCard,
    "sit": te.SitDown,
    "away": te.Away,
    "cash_out": te.CashOut,
    "set_button": te.SetButton,
    "deck_empty": te.DeckEmpty,
    "chip_race": te.ChipRace,
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
    "adjust_stack": te.AdjustStack,
    "award_pot": te.AwardPot,
    "void": te.VoidByFloor,
    "undo": te.UndoLast,
    "penalty": te.GivePenalty,
    "levels": te.LevelClock,
}
"""Floor overrides (floor role only); each carries the staff member's name for the audit."""

CARD_FIELDS = ("card",)
SEAT_REQUESTS = ("act", "advance", "declare_raise", "sit_out", "sit_in", "rebuy", "show", "muck")


class Refused(PokerTableError):
    """A request refused; sent back as ``refused`` with the sentence and key."""


class TableRequests:
    """Requests to table events, for :class:`~firmware.protocol.server.TableServer`."""

    controller: Controller
    _loop: asyncio.AbstractEventLoop | None

    def _queue(self, client: ClientState, message: dict[str, Any]) -> None:
        """Queue a message to ``client`` (the server's outbox; server thread only)."""
        raise NotImplementedError

    def _seat_request(self, client: ClientState, kind: str, message: dict[str, Any]) -> None:
        seat = client.seat
        if seat is None:
            raise Refused(
                "Only a seat's own screen acts for that seat.", key="protocol.permission.seat"
            )
        event: te.TableEvent
        if kind == "act":
            event = te.Act(seat, _text(message, "action"), _int(message, "amount", 0))
        elif kind == "advance":
            event = te.Advance(seat, _text(message, "action"))
        elif kind in ("sit_out", "sit_in"):
            event = te.SitOut(seat, kind == "sit_out")
        elif kind == "rebuy":
            event = te.Rebuy(seat, _int(message, "chips"))
        elif kind == "show":
            event = te.ShowCards(seat, tuple(_card(c) for c in _list(message, "cards")))
        elif kind == "muck":
            event = te.MuckCards(seat)
        else:  # declare_raise (TDA-11, TDA-32)
            event = te.DeclareRaise(seat)
        self._submit(client, event)

    def _staff_event(
        self, client: ClientState, message: dict[str, Any], kind: str, cls: type[te.TableEvent]
    ) -> te.TableEvent:
        fields: dict[str, Any] = {"kind": cls.kind}
        allowed = set(cls.__dataclass_fields__) - SERVER_FIELDS
        unknown = sorted(set(message) - allowed - {"type", "report", "override"})
        if unknown:
            raise Refused(
                f"The {kind} request has fields it does not take: {', '.join(unknown)}.",
                key="protocol.fields",
            )
        for name, value in message.items():
            if name in ("type", "report", "override"):
                continue
            if name in CARD_FIELDS:
                value = _card(value)
            elif name == "cards":
                value = [_card(c) for c in value] if isinstance(value, list) else value
            elif name == "seats" and isinstance(value, list):
                value = [int(v) for v in value if isinstance(v, int)]
            fields[name] = value
        if "staff" in [f for f in cls.__dataclass_fields__]:
            fields["staff"] = client.staff
        try:
            return te.from_record(fields)
        except (IllegalAction, TypeError, ValueError) as exc:
            raise Refused(
                f"The {kind} request is incomplete or has wrong fields: {exc}",
                key="protocol.fields",
            ) from None

    def _report(self, client: ClientState, message: dict[str, Any]) -> None:
        if client.role not in ("dealer", "floor"):
            raise Refused(
                "Only a dealer or the floor, logged in on the console, reports incidents.",
                key="protocol.permission.report",
            )
        kind = message.get("report")
        if kind in CONTROL_REPORTS:
            extra = sorted(set(message) - {"type", "report"})
            if extra:
                raise Refused(
                    f"The {kind} report takes no fields, not {', '.join(extra)}.",
                    key="protocol.fields",
                )
        controller = self.controller
        if kind in ("pause", "resume"):
            want = kind == "pause"

            def pause() -> None:
                # The dealer's pause button toggles; press it only to change the state.
                if controller.state.manual_pause != want:
                    controller.handle(
                        ButtonPressed("console", controller.table_time(), "dealer.pause")
                    )

            controller.call_soon(pause)
            return
        if kind == "clock":
            self._submit(client, None, lambda: te.CallClock(controller.table_time()))
            return
        if not isinstance(kind, str) or kind not in REPORTS:
            raise Refused(
                f"{kind!r} is not a report the console can make.", key="protocol.report.unknown"
            )
        self._submit(client, self._staff_event(client, message, kind, REPORTS[kind]))

    def _override(self, client: ClientState, message: dict[str, Any]) -> None:
        if client.role != "floor":
            raise Refused(
                "Only the floor, logged in on the console, can override (TDA-1).",
                key="protocol.permission.floor",
            )
        kind = message.get("override")
        if not isinstance(kind, str) or kind not in OVERRIDES:
            raise Refused(f"{kind!r} is not a floor override.", key="protocol.override.unknown")
        self._submit(client, self._staff_event(client, message, kind, OVERRIDES[kind]))

    def _submit(self, client: ClientState, event: te.TableEvent | None, build: Any = None) -> None:
        """Apply ``event`` on the loop thread; a refusal goes back to ``client`` only."""
        controller = self.controller

        def run() -> None:
            nonlocal event
            if event is None:
                event = build()
            assert event is not None
            controller.submit(event)

        self.run_for(client, run)

    def run_for(self, client: ClientState, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the loop thread; a refusal it raises goes back to ``client`` only."""
        loop = self._loop

        def run() -> None:
            try:
                fn()
            except PokerTableError as exc:  # IllegalAction, CardError: the table refused
                refused = {"type": "refused", "reason": str(exc), "key": exc.key}
                if loop is not None and not loop.is_closed():
                    with contextlib.suppress(RuntimeError):
                        loop.call_soon_threadsafe(self._queue, client, refused)

        self.controller.call_soon(run)


# ---------------------------------------------------------------- helpers


def _text(message: dict[str, Any], name: str) -> str:
    value = message.get(name)
    if not isinstance(value, str):
        raise Refused(f"The field {name!r} must be text.", key="protocol.fields")
    return value


def _int(message: dict[str, Any], name: str, default: int | None = None) -> int:
    value = message.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise Refused(f"The field {name!r} must be a whole number.", key="protocol.fields")
    return value


def _list(message: dict[str, Any], name: str) -> list[Any]:
    value = message.get(name)
    if not isinstance(value, list):
        raise Refused(f"The field {name!r} must be a list.", key="protocol.fields")
    return value


def _card(value: object) -> int:
    """A card given as ``"Ah"`` or as its number."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 52:
        return value
    if isinstance(value, str):
        try:
            return parse_card(value)
        except PokerTableError:
            pass
    raise Refused(f"{value!r} is not a card.", key="protocol.fields")


__all__ = [
    "CARD_FIELDS",
    "CONTROL_REPORTS",
    "OVERRIDES",
    "REPORTS",
    "SEAT_REQUESTS",
    "SERVER_FIELDS",
    "Refused",
    "TableRequests",
]
