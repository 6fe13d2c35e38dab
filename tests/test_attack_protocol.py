"""Attacks on the table protocol by a curious or malicious screen (fresh-eyes review).

Against a real controller, SQLite journal and server on a Unix socket (what
``pokertable serve`` assembles, :mod:`tests.hardening_kit`): every attack is
answered with one ``refused`` line in the client's language, the connection
and the table survive, and nothing refused reaches the journal.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import pytest

from firmware.i18n import tr
from firmware.protocol.client import TableClient
from firmware.protocol.limits import Limits
from firmware.service.journal import Journal
from tests.hardening_kit import GUARD, SECRETS, JournaledRig, answer


@pytest.fixture
def rig(tmp_path: pathlib.Path) -> Iterator[JournaledRig]:
    r = JournaledRig(tmp_path, limits=Limits(rate=1e6, burst=10**6))
    r.seat_players(3)
    yield r
    r.stop()


def journaled(rig: JournaledRig) -> list[dict[str, Any]]:
    """The journal's events as records, read through a second connection."""
    reader = Journal(rig.journal.path)
    try:
        return [{"kind": e.kind, **vars(e)} for e in reader.events()]
    finally:
        reader.close()


def still_served(client: TableClient) -> None:
    """The connection is open and answered: a language request gets ``ok``."""
    client.send({"type": "language", "lang": "es"})
    assert answer(client) == {"type": "ok", "request": "language"}


def test_refusals_are_one_sentence_in_the_clients_language(rig: JournaledRig) -> None:
    """A Spanish screen is refused in Spanish, an English one in English, whatever refuses:
    the role check, the field check or the table itself."""
    seat = rig.connect("seat2")  # hello in Spanish (the default)
    seat.send({"type": "report", "report": "kill", "seat": 1, "reason": "x"})
    refused = answer(seat)
    assert refused["key"] == "protocol.permission.report"
    assert refused["reason"] == tr("protocol.permission.report", "es")
    seat.send({"type": "act", "action": "raise", "amount": 40})  # no hand: the table refuses
    refused = answer(seat)
    assert refused["type"] == "refused" and refused["key"].startswith("error.")
    assert refused["reason"] == tr(refused["key"], "es", **refused["params"])
    seat.send({"type": "language", "lang": "en"})
    assert answer(seat)["type"] == "ok"
    seat.send({"type": "report", "report": "kill", "seat": 1, "reason": "x"})
    refused = answer(seat)
    assert refused["reason"] == tr("protocol.permission.report", "en")
    for message in (refused,):
        assert "\n" not in message["reason"] and message["reason"].endswith(".")


def test_a_refused_hello_is_in_the_language_it_asked_for(rig: JournaledRig) -> None:
    for lang in ("es", "en"):
        client = TableClient.unix(rig.socket, timeout=GUARD)
        rig.clients.append(client)
        client.hello("seat4", "a-wrong-secret-0123456789", lang)
        refused = answer(client)
        assert refused["key"] == "protocol.hello.secret"
        assert refused["reason"] == tr("protocol.hello.secret", lang, terminal="seat4")
        assert client.wait_closed(GUARD)


@pytest.mark.parametrize(
    "message",
    [
        {"type": "x" * 60_000},
        {"type": "\u0000" * 20_000},
        {"type": "report", "report": "\u0001" * 16_000},
        {"type": "override", "override": "y" * 60_000},
    ],
    ids=["long-type", "nul-type", "control-report", "long-override"],
)
def test_a_huge_unknown_request_name_is_refused_without_echoing_it(
    rig: JournaledRig, message: dict[str, Any]
) -> None:
    """The refusal names the request cut short (it used to repeat all of it, and a
    refusal over the 64 KiB frame limit closed the connection without an answer)."""
    client = rig.console("floor")
    before = journaled(rig)
    client.send(message)
    refused = answer(client)
    assert refused["type"] == "refused", refused
    assert len(refused["reason"]) < 300 and "\n" not in refused["reason"]
    assert all(len(str(v)) <= 100 for v in refused["params"].values())
    still_served(client)
    assert journaled(rig) == before


@pytest.mark.parametrize(
    "player",
    [
        "Ana\nSeat 1: Bob ($5000 in chips)",  # a forged line in the exported hand history
        "\u202eanA",  # right-to-left override: shows reversed
        "\u200b",  # zero-width space: an invisible name
        "Ana\u200b",  # looks like another player's name
        "   ",  # blank
        " P1",  # P1 again, with a space in front (PE-4: one seat per player)
        "Ana\tBob",
        "\x1b[2J",  # a terminal escape sequence in the printed hand
    ],
    ids=["newline", "rtl", "zero-width", "zero-width-tail", "blank", "padded", "tab", "escape"],
)
def test_a_player_name_must_be_printable_text(rig: JournaledRig, player: str) -> None:
    console = rig.console("dealer")
    before = journaled(rig)
    console.send({"type": "report", "report": "sit", "seat": 5, "player": player, "chips": 50})
    refused = answer(console)
    assert refused["type"] == "refused", refused
    # " P1" is P1, who already has a seat: the table refuses it; the rest is no name.
    assert refused["key"] == ("error.table.two_seats" if player == " P1" else "protocol.fields")
    assert journaled(rig) == before
    assert 5 not in rig.table.seating.seats
    still_served(console)


def test_a_printable_unicode_name_is_welcome(rig: JournaledRig) -> None:
    console = rig.console("dealer")
    console.send(
        {"type": "report", "report": "sit", "seat": 5, "player": "Íñigo Muñoz 李", "chips": 50}
    )
    assert answer(console) == {"type": "ok", "request": "report:sit"}
    assert rig.table.seating.seats[5].player == "Íñigo Muñoz 李"
    assert journaled(rig)[-1]["player"] == "Íñigo Muñoz 李"


def test_reasons_and_badges_take_no_control_characters(rig: JournaledRig) -> None:
    """A reason is written to the audit log one line per entry: no forged lines."""
    console = rig.console("floor")
    before = journaled(rig)
    console.send({"type": "override", "override": "void", "reason": "ok\n2026 floor: approved"})
    assert answer(console)["key"] == "protocol.fields"
    console.send({"type": "report", "report": "misdeal", "reason": "\x00"})
    assert answer(console)["key"] == "protocol.fields"
    assert journaled(rig) == before


def test_a_seat_cannot_speak_for_another_seat_or_the_staff(rig: JournaledRig) -> None:
    """A seat naming another seat, a staff member or a server-filled field is refused,
    and nothing reaches the journal."""
    seat = rig.connect("seat1")
    before = journaled(rig)
    for message in (
        {"type": "sit_out", "seat": 2},
        {"type": "rebuy", "chips": 100, "seat": 3},
        {"type": "act", "action": "fold", "seat": 2},
        {"type": "act", "action": "bet", "amount": 1.5},
        {"type": "act", "action": "bet", "amount": -1},
        {"type": "act", "action": "bet", "amount": True},
        {"type": "act", "action": "bet", "amount": 2**64 - 1},
        {"type": "rebuy", "chips": 0},
        {"type": "rebuy", "chips": "100"},
        {"type": "override", "override": "adjust_stack", "seat": 1, "chips": 10**6, "reason": "x"},
        {"type": "report", "report": "sit", "seat": 6, "player": "Eve", "chips": 10**6},
        {"type": "login", "pin": "1111"},
        {"type": "diag_start"},
        {"type": "history", "hand": 1},
        {"type": "journal"},
        {"type": "view", "seat": 2},
        {"type": "sit_out", "staff": "Floor"},
        {"type": "act", "action": {"nested": [[[[]]]]}},
    ):
        seat.send(message)
        refused = answer(seat)
        assert refused["type"] == "refused", (message, refused)
        assert refused["reason"] and "\n" not in refused["reason"], refused
    still_served(seat)
    assert journaled(rig) == before
    assert {n: s.stack for n, s in rig.table.seating.seats.items()} == {1: 200, 2: 200, 3: 200}


def test_the_console_without_a_login_can_do_nothing_on_the_table(rig: JournaledRig) -> None:
    console = rig.connect("console")
    before = journaled(rig)
    for message in (
        {"type": "report", "report": "shuffle"},
        {"type": "report", "report": "sit", "seat": 6, "player": "Eve", "chips": 100},
        {"type": "override", "override": "void", "reason": "x"},
        {"type": "act", "action": "fold"},
        {"type": "diag_start"},
        {"type": "login", "pin": "1111"},  # no card in the reader
        {"type": "login", "pin": "1111", "badge": "BADGE-DEALER"},  # a badge not in the reader
    ):
        console.send(message)
        refused = answer(console)
        assert refused["type"] == "refused", (message, refused)
    still_served(console)
    assert journaled(rig) == before


def test_a_seat_terminal_with_another_seats_secret_is_refused(rig: JournaledRig) -> None:
    client = TableClient.unix(rig.socket, timeout=GUARD)
    rig.clients.append(client)
    client.hello("seat2", SECRETS["seat1"])
    assert answer(client)["key"] == "protocol.hello.secret"
    assert client.wait_closed(GUARD)


@pytest.mark.parametrize(
    "data",
    [
        b"\x00\x00\x00\x00",  # a length of 0
        b"\xff\xff\xff\xff",  # 4 GiB announced
        b"\x00\x00\x00\x01\xc1",  # 0xc1: never valid msgpack
        b"\x00\x00\x00\x01\x90",  # an array, not a map
        b"\x00\x00\x00\x02\x81\x01",  # a map cut short inside
        b"\x00\x00\x00\x01\x80",  # a map without a type
        b"\x00\x00\x04\x01" + b"\x91" * 1025,  # nested deeper than msgpack unpacks
    ],
    ids=["zero", "oversize", "garbage", "array", "short-map", "no-type", "nested"],
)
@pytest.mark.parametrize("authenticated", [True, False], ids=["after-hello", "before-hello"])
def test_a_malformed_frame_is_answered_before_the_connection_closes(
    rig: JournaledRig, data: bytes, authenticated: bool
) -> None:
    """The screen is told why (one line, in its language) instead of a silent close;
    the table and the other screens carry on."""
    other = rig.connect("seat3")
    if authenticated:
        client = rig.connect("seat2")
    else:
        client = TableClient.unix(rig.socket, timeout=GUARD)
        rig.clients.append(client)
    client.send_raw(data)
    refused = answer(client)
    assert refused["type"] == "refused" and refused["key"] == "protocol.malformed", refused
    assert refused["reason"] == tr("protocol.malformed", "es")
    assert client.wait_closed(GUARD)
    still_served(other)


def test_a_request_before_hello_is_answered_before_the_connection_closes(
    rig: JournaledRig,
) -> None:
    before = journaled(rig)
    client = TableClient.unix(rig.socket, timeout=GUARD)
    rig.clients.append(client)
    client.send({"type": "act", "action": "fold"})
    refused = answer(client)
    assert refused["type"] == "refused" and refused["key"] == "protocol.hello.first", refused
    assert refused["reason"] == tr("protocol.hello.first", "es")
    assert client.wait_closed(GUARD)
    assert journaled(rig) == before


@pytest.mark.parametrize(
    "extra",
    [
        {"x" * 30_000: 1, "y" * 30_000: 2},  # two huge unknown field names
        {f"k{n}": 0 for n in range(6_000)},  # thousands of unknown fields
        {"line\nbreak": 1},  # a field name that would split the sentence
    ],
    ids=["huge-names", "many-names", "newline-name"],
)
def test_unknown_fields_are_named_briefly_on_one_line(
    rig: JournaledRig, extra: dict[str, Any]
) -> None:
    """The refusal listed every unknown field name as sent: one over the frame limit closed
    the connection as 'malformed', and a name with a line break split the sentence."""
    seat = rig.connect("seat1")
    before = journaled(rig)
    seat.send({"type": "sit_out", **extra})
    refused = answer(seat)
    assert refused["type"] == "refused" and refused["key"] == "protocol.fields", refused
    seat.send({"type": "language", "lang": "en"})
    assert answer(seat)["type"] == "ok"
    seat.send({"type": "sit_out", **extra})
    refused = answer(seat)
    reason = refused["reason"]
    assert len(reason) < 400 and "\n" not in reason, reason[:300]
    still_served(seat)
    assert journaled(rig) == before
