"""The declared schema of every request, and which role may send which.

Nothing a client sends becomes a table event by naming it: each request is
looked up in :data:`REQUESTS` (an explicit allow-list), its fields are
checked against the request's declared :class:`Field` specs (type, range,
allowed values; a field not declared is refused, ``kind`` and every other
class attribute included), and the event is built by calling the one event
class the entry names with the checked values. The role comes from the
connection (a seat's own terminal, or the staff member logged in on the
console), never from the message.

>>> spec = REQUESTS["report:kill"]
>>> sorted(spec.fields), spec.event.__name__, sorted(spec.roles)
(['reason', 'seat'], 'KillSeat', ['dealer', 'floor'])
>>> check_fields(spec, {"type": "report", "report": "kill", "seat": 3, "reason": "dead hand"})
{'seat': 3, 'reason': 'dead hand'}
>>> check_fields(spec, {"type": "report", "report": "kill", "seat": "3", "reason": "x"})
Traceback (most recent call last):
...
firmware.protocol.schema.Refused: The field 'seat' must be a whole number from 1 to 10.
>>> check_fields(spec, {"type": "report", "report": "kill", "seat": 3, "reason": "x",
...                     "kind": "draw"})
Traceback (most recent call last):
...
firmware.protocol.schema.Refused: The report:kill request does not take the field(s) kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware.engine.cards import parse_card
from firmware.errors import PokerTableError
from firmware.table import events as te

MAX_CHIPS = 10**12
"""The largest chip count a request may carry (chips are integers in the smallest unit)."""

MAX_TEXT = 200
"""The longest text field (a reason, a player's name, a PIN)."""


SHOWN = 40
"""The most characters of a name the client sent that a refusal repeats."""


def shown(value: object) -> str:
    """``value`` as the client wrote it, quoted and cut to :data:`SHOWN` characters: a
    refusal never repeats a huge or multi-line name (it must fit one frame and one line)."""
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


class Refused(PokerTableError):
    """A request refused; sent back as ``refused`` with the sentence and key."""


@dataclass(frozen=True)
class Field:
    """One declared field of a request.

    :param kind: ``seat`` (1-10), ``int`` (``low``..``high``), ``text``
        (1..``high`` characters, or 0 with ``low=0``), ``flag`` (true/false),
        ``choice`` (one of ``choices``), ``card`` (``"Ah"`` or 0-51),
        ``cards`` and ``seats`` (lists of ``low``..``high`` items).
    :param required: The request is refused without it; otherwise ``default``.
    """

    kind: str
    required: bool = True
    default: Any = None
    low: int = 0
    high: int = MAX_CHIPS
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Request:
    """One request the protocol takes: its fields, who may send it, the event it becomes."""

    name: str
    roles: frozenset[str]
    fields: Mapping[str, Field] = field(default_factory=dict)
    event: type[te.TableEvent] | None = None
    """The one table event class it becomes (``None``: no table event)."""
    fixed: Mapping[str, Any] = field(default_factory=dict)
    """Event fields the request fixes (``sit_in`` is ``SitOut(out=False)``)."""
    timed: bool = False
    """The event's ``now`` is the table's time when it is applied (``report clock``)."""


SEAT = Field("seat")
CARD = Field("card")
REASON = Field("text", low=1)
NO_FIELDS: dict[str, Field] = {}

SEAT_ROLE = frozenset({"seat"})
DEALER = frozenset({"dealer", "floor"})
FLOOR = frozenset({"floor"})
TECHNICIAN = frozenset({"technician"})
CONSOLE = frozenset({"console"})
"""Any connection of the console terminal, whoever is logged in (or nobody)."""
EVERYONE = frozenset({"seat", "console", "broadcast"})

_SEAT_REQUESTS = [
    Request(
        "act",
        SEAT_ROLE,
        {
            "action": Field("choice", choices=("fold", "check", "call", "bet", "raise", "allin")),
            "amount": Field("int", required=False, default=0),
        },
        te.Act,
    ),
    Request(
        "advance",
        SEAT_ROLE,
        {"action": Field("choice", choices=("fold", "check_fold", "check", "call", "cancel"))},
        te.Advance,
    ),
    Request("declare_raise", SEAT_ROLE, NO_FIELDS, te.DeclareRaise),
    Request("sit_out", SEAT_ROLE, NO_FIELDS, te.SitOut, {"out": True}),
    Request("sit_in", SEAT_ROLE, NO_FIELDS, te.SitOut, {"out": False}),
    Request("rebuy", SEAT_ROLE, {"chips": Field("int", low=1)}, te.SeatRebuy),
    Request("show", SEAT_ROLE, {"cards": Field("cards", low=1, high=2)}, te.ShowCards),
    Request("muck", SEAT_ROLE, NO_FIELDS, te.MuckCards),
    # A seat calls the floor: journaled, open on the console until a staff member answers.
    Request("call_floor", SEAT_ROLE, NO_FIELDS, te.FloorCall),
]

_REPORTS = [
    Request("report:exposed", DEALER, {"card": CARD}, te.ExposedCard),
    Request("report:misdeal", DEALER, {"reason": REASON}, te.Misdeal),
    Request("report:face_up", DEALER, {"card": CARD}, te.FaceUpInDeck),
    Request("report:premature", DEALER, NO_FIELDS, te.PrematureCard),
    Request(
        "report:burn_error",
        DEALER,
        {"case": Field("choice", choices=("a", "b", "c"))},
        te.BurnError,
    ),
    Request("report:empty_seat", DEALER, {"seat": SEAT}, te.EmptySeatDealt),
    Request("report:empty_seat_dealt", DEALER, {"seat": SEAT}, te.EmptySeatDealt),
    Request("report:marked", DEALER, {"card": CARD}, te.MarkedCard),
    Request("report:kill", DEALER, {"seat": SEAT, "reason": REASON}, te.KillSeat),
    Request("report:shuffle", DEALER, NO_FIELDS, te.Shuffle),
    Request("report:cut", DEALER, NO_FIELDS, te.Cut),
    Request(
        "report:deck_step",
        DEALER,
        # ``show`` comes from the shoe's deck scan, never from the console (PE-1).
        {"step": Field("choice", choices=("face_down", "scramble", "shuffle", "cut"))},
        te.DeckStep,
    ),
    Request(
        "report:deck_change",
        DEALER,
        {
            "by": Field("choice", choices=("dealer", "floor", "schedule", "seat")),
            "seat": Field("int", required=False, default=0, low=0, high=10),
            "reason": Field("text", required=False, default="", low=0),
        },
        te.DeckChange,
    ),
    Request("report:repair_card", DEALER, {"card": CARD}, te.RepairCard),
    Request("report:withdraw_card", DEALER, {"card": CARD}, te.WithdrawCard),
    Request(
        "report:sit",
        DEALER,
        {
            "seat": SEAT,
            "player": Field("text", low=1, high=40),
            "chips": Field("int", low=1),
            "wait_for_big_blind": Field("flag", required=False, default=False),
            "owes_big_blind": Field("flag", required=False, default=False),
        },
        te.SitDown,
    ),
    Request(
        "report:away",
        DEALER,
        {"seat": SEAT, "away": Field("flag", required=False, default=True)},
        te.Away,
    ),
    Request("report:cash_out", DEALER, {"seat": SEAT}, te.CashOut),
    # The console's game page (issue 12): a rebuy or add-on, sitting out and coming back.
    Request("report:rebuy", DEALER, {"seat": SEAT, "chips": Field("int", low=1)}, te.Rebuy),
    Request(
        "report:sit_out",
        DEALER,
        {"seat": SEAT, "out": Field("flag", required=False, default=True)},
        te.SitOut,
    ),
    Request("report:set_button", DEALER, {"seat": SEAT}, te.SetButton),
    # Issue 12, second round (firmware/protocol/game.py): the draw for the button's cards
    # come from the controller's random source, never from the console; a player seated by
    # card is the one whose card is on the reader now, named from the player directory.
    Request("report:draw_button", DEALER, NO_FIELDS, te.DrawButton),
    Request(
        "report:sit_card",
        DEALER,
        {
            "seat": SEAT,
            "reader": Field("text", low=1, high=16),
            "chips": Field("int", low=1),
        },
        te.SitDown,
    ),
    Request("report:answer_floor", DEALER, {"seat": SEAT}, te.FloorAnswer),
    # A floor badge in the console's reader confirms a jackpot the table decided (JACKPOT);
    # the award's shares come from the table, never from the request.
    Request(
        "report:jackpot",
        DEALER,
        {
            "jackpot": Field("choice", choices=("bad_beat", "high_hand")),
            "hand": Field("int", low=1),
            "badge": Field("text", required=False, low=1, high=MAX_TEXT),
        },
    ),
    # A dealer dismisses an alert on the console (the controller's memory, no table event).
    Request("report:dismiss_alert", DEALER, {"id": Field("int", low=1)}),
    # A rake-zone difference (HOUSE-RAKE-ZONE): the dealer recounts or confirms with a badge.
    Request(
        "report:rake_zone",
        DEALER,
        {"answer": Field("choice", choices=("recount", "confirm"))},
    ),
    Request("report:deck_empty", DEALER, NO_FIELDS, te.DeckEmpty),
    Request(
        "report:chip_race",
        DEALER,
        {
            "old": Field("int", low=1),
            "new": Field("int", low=1),
            "cards": Field("cards", low=0, high=52),
        },
        te.ChipRace,
    ),
    # The clock is called at the table's time; pause and resume set the dealer's pause
    # (no table event of their own).
    Request("report:clock", DEALER, NO_FIELDS, te.CallClock, timed=True),
    Request("report:pause", DEALER),
    Request("report:resume", DEALER),
]

_OVERRIDES = [
    Request(
        "override:adjust_stack",
        FLOOR,
        {"seat": SEAT, "chips": Field("int"), "reason": REASON},
        te.AdjustStack,
    ),
    Request(
        "override:award_pot",
        FLOOR,
        {"seats": Field("seats", low=1, high=10), "reason": REASON},
        te.AwardPot,
    ),
    Request("override:void", FLOOR, {"reason": REASON}, te.VoidByFloor),
    Request("override:undo", FLOOR, {"reason": REASON}, te.UndoLast),
    Request(
        "override:penalty",
        FLOOR,
        {
            "seat": SEAT,
            "penalty": Field("choice", choices=("warning", "rounds", "disqualification")),
            "reason": REASON,
            "rounds": Field("int", required=False, default=0, low=0, high=4),
            "next_hand": Field("flag", required=False, default=False),
        },
        te.GivePenalty,
    ),
    Request(
        "override:levels",
        FLOOR,
        {"action": Field("choice", choices=("start", "pause", "resume"))},
        te.LevelClock,
    ),
]

_OTHERS = [
    Request("language", EVERYONE, {"lang": Field("choice", choices=("es", "en"))}),
    Request(
        "login",
        CONSOLE,
        {
            "pin": Field("text", low=1, high=64),
            "badge": Field("text", required=False, low=1, high=MAX_TEXT),
        },
    ),
    Request("logout", CONSOLE),
    # The table's bank (firmware/protocol/cage.py): one badge proposes, a second confirms.
    Request(
        "bank",
        DEALER,
        {
            "action": Field("choice", choices=("open", "fill", "credit", "count")),
            "amount": Field("int", low=0),
        },
    ),
    Request("bank_confirm", DEALER),
    Request("bank_cancel", DEALER),
    Request("diag_start", TECHNICIAN, {"device": Field("text", required=False, low=1, high=64)}),
    Request("diag_answer", TECHNICIAN, {"yes": Field("flag")}),
    Request("diag_cancel", TECHNICIAN),
    Request("diag_export", TECHNICIAN),
]

REQUESTS: dict[str, Request] = {
    r.name: r for r in (*_SEAT_REQUESTS, *_REPORTS, *_OVERRIDES, *_OTHERS)
}
"""Every request the protocol takes, by name (``act``, ``report:kill``, ``override:void``)."""

STAFF_FIELD = "staff"
"""Filled from the console's login for the events that record who decided (TDA-1)."""


def request_name(message: Mapping[str, Any]) -> str:
    """The request a message makes: its ``type``, with the report or override it names."""
    kind = str(message.get("type"))
    if kind in ("report", "override"):
        sub = message.get(kind)
        return f"{kind}:{sub}" if isinstance(sub, str) else f"{kind}:?"
    return kind


def allowed_events(role: str) -> set[str]:
    """The table event kinds a role's requests can become (for the docs and the tests)."""
    return {r.event.kind for r in REQUESTS.values() if r.event is not None and role in r.roles}


def check_fields(spec: Request, message: Mapping[str, Any]) -> dict[str, Any]:
    """The message's fields checked against ``spec``, with defaults filled in.

    :raises Refused: (``protocol.fields``) naming the first field that is
        unknown, missing, of the wrong type or out of range.
    """
    envelope = {"type", spec.name.split(":", 1)[0]} if ":" in spec.name else {"type"}
    unknown = sorted(str(k) for k in message if k not in spec.fields and k not in envelope)
    if unknown:
        # Named briefly: the client's names may be huge, many, or hold line breaks.
        names = ", ".join(
            n if n.isidentifier() and len(n) <= SHOWN else shown(n) for n in unknown[:3]
        )
        more = f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
        raise Refused(
            f"The {spec.name} request does not take the field(s) {names}{more}.",
            key="protocol.fields",
        )
    values: dict[str, Any] = {}
    for name, declared in spec.fields.items():
        if name not in message:
            if declared.required:
                raise Refused(
                    f"The {spec.name} request needs the field {name!r}.", key="protocol.fields"
                )
            if declared.default is not None:
                values[name] = declared.default
            continue
        values[name] = _check(name, declared, message[name])
    return values


def build_event(
    spec: Request,
    values: Mapping[str, Any],
    seat: int | None,
    staff: str | None,
    now: float | None = None,
) -> te.TableEvent:
    """The one event ``spec`` names, from checked ``values`` (and the connection's seat,
    staff, and for a timed request the table's time)."""
    assert spec.event is not None
    args = dict(values)
    if spec.timed:
        args["now"] = now
    args.update(spec.fixed)
    names = set(spec.event.__dataclass_fields__)
    if "seat" in names and spec.roles == SEAT_ROLE:
        args["seat"] = seat  # a seat acts for its own seat only
    if STAFF_FIELD in names:
        args[STAFF_FIELD] = staff or "floor"
    for name in ("cards", "seats"):
        if name in args:
            args[name] = tuple(args[name])
    return spec.event(**args)


def _int_ok(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _check(name: str, spec: Field, value: object) -> Any:
    if spec.kind == "seat":
        if not _int_ok(value, 1, 10):
            raise Refused(
                f"The field {name!r} must be a whole number from 1 to 10.",
                key="protocol.fields",
                field=name,
            )
        return value
    if spec.kind == "int":
        if not _int_ok(value, spec.low, spec.high):
            raise Refused(
                f"The field {name!r} must be a whole number from {spec.low} to {spec.high}.",
                key="protocol.fields",
                field=name,
            )
        return value
    if spec.kind == "flag":
        if not isinstance(value, bool):
            raise Refused(
                f"The field {name!r} must be true or false.", key="protocol.fields", field=name
            )
        return value
    if spec.kind == "text":
        high = spec.high if spec.high != MAX_CHIPS else MAX_TEXT
        # Surrounding spaces are dropped (" P1" is P1, PE-4); no control or invisible
        # characters (a line break, a right-to-left override, a zero-width space): a name
        # or a reason is shown on screens and written one line per entry in the records.
        text = value.strip() if isinstance(value, str) else None
        if text is None or not spec.low <= len(text) <= high or not text.isprintable():
            raise Refused(
                f"The field {name!r} must be text of {spec.low} to {high} printable characters.",
                key="protocol.fields",
                field=name,
            )
        return text
    if spec.kind == "choice":
        if not isinstance(value, str) or value not in spec.choices:
            raise Refused(
                f"The field {name!r} must be one of {', '.join(spec.choices)}.",
                key="protocol.fields",
                field=name,
            )
        return value
    if spec.kind == "card":
        return _card(name, value)
    # lists: cards or seats
    if not isinstance(value, list) or not spec.low <= len(value) <= spec.high:
        raise Refused(
            f"The field {name!r} must be a list of {spec.low} to {spec.high} {spec.kind}.",
            key="protocol.fields",
            field=name,
        )
    if spec.kind == "cards":
        return [_card(name, item) for item in value]
    if not all(_int_ok(item, 1, 10) for item in value):
        raise Refused(
            f"The field {name!r} must list seat numbers from 1 to 10.",
            key="protocol.fields",
            field=name,
        )
    return list(value)


def _card(name: str, value: object) -> int:
    """A card given as ``"Ah"`` or as its number 0-51."""
    if _int_ok(value, 0, 51):
        assert isinstance(value, int)
        return value
    if isinstance(value, str) and len(value) <= 3:
        try:
            return parse_card(value)
        except PokerTableError:
            pass
    raise Refused(
        f"The field {name!r} must be a card such as 'Ah' or a number from 0 to 51.",
        key="protocol.fields",
        field=name,
    )


__all__ = [
    "MAX_CHIPS",
    "MAX_TEXT",
    "REQUESTS",
    "Field",
    "Refused",
    "Request",
    "allowed_events",
    "build_event",
    "check_fields",
    "request_name",
    "shown",
]
