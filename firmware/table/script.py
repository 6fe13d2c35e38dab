"""Table scripts: a plain-text table set-up plus one line per event.

A script replays what happened at a table: cards drawn from the shoe, player
actions, dealer reports, floor rulings, timer ticks. The journal exports the
same format, so an incident on a real table can be replayed on a laptop.
``expect`` lines make a script check its own outcome, so scenario scripts
are tests. The format is documented in ``docs/table-scripts.md``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from firmware.engine.cards import parse_card, parse_cards
from firmware.engine.rules import Structure
from firmware.errors import CardError, ConfigError, PokerTableError
from firmware.table import event_records
from firmware.table import events as te
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.script_expect import (
    AfterEvent,
    ViewExpectation,
    check_expectation,
    run_after,
)
from firmware.table.script_text import (
    ScriptError,
    check_line,
    check_name,
    decode_script,
    seconds,
    split_words,
    strip_comment,
    whole,
)
from firmware.table.script_write import export_script as export_script
from firmware.table.script_write import format_event as format_event
from firmware.table.table import Table
from firmware.table.tournament import LevelSchedule


@dataclass
class Script:
    """A parsed script: the set-up and the event lines."""

    config: TableConfig
    seats: list[tuple[int, str, int]]
    button: int | None
    deck_ready: bool
    lines: list[tuple[int, str]] = field(default_factory=list)
    levels: list[dict[str, Any]] = field(default_factory=list)


MAX_SCRIPT_BYTES = 16 * 1024 * 1024
"""Largest script file read by ``pokertable script`` (a day of a busy table is about 2 MB)."""


def _ints(words: list[str], line: int) -> list[int]:
    if not words:
        raise ScriptError(f"Line {line}: a whole number is missing.")
    return [whole(w, line) for w in words]


def _stakes(words: list[str], line: int) -> Stakes:
    """``stakes NL 1/2 [ante 5] [bb-ante] [unit 1] [big-bet 40] [time 10/30]``."""
    if len(words) < 2 or "/" not in words[1]:
        raise ScriptError(f"Line {line}: write stakes as 'stakes NL 1/2' (NL, PL or FL).")
    try:
        structure = Structure(words[0].upper())
    except ValueError as exc:
        raise ScriptError(f"Line {line}: the structure is NL, PL or FL, not {words[0]!r}.") from exc
    small, big = _blinds(words[1], line)
    kw: dict[str, Any] = {}
    rest = words[2:]
    while rest:
        key = rest.pop(0)
        if key == "bb-ante":
            kw["big_blind_ante"] = True
        elif key in ("ante", "unit", "big-bet") and rest:
            name = {"ante": "ante", "unit": "chip_unit", "big-bet": "big_bet"}[key]
            kw[name] = _ints([rest.pop(0)], line)[0]
        elif key == "time" and rest and rest[0].count("/") == 1:  # HOUSE-TIME: charge/minutes
            kw["time_charge"], kw["time_charge_minutes"] = _ints(rest.pop(0).split("/"), line)
        else:
            raise ScriptError(f"Line {line}: unknown stakes word {key!r}.")
    try:
        return Stakes(structure=structure, small_blind=small, big_blind=big, **kw)
    except (ConfigError, TypeError) as exc:
        raise ScriptError(f"Line {line}: {exc}") from exc


def _blinds(text: str, line: int) -> tuple[int, int]:
    parts = text.split("/")
    if len(parts) != 2:
        raise ScriptError(f"Line {line}: write the blinds as SMALL/BIG, for example 1/2.")
    small, big = _ints(parts, line)
    return small, big


def _option_value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


def parse_script(text: str) -> Script:
    """Parse a script's set-up; event lines are kept for :func:`run_script`."""
    profile = "casino-cash"
    stakes = Stakes()
    options: dict[str, Any] = {}
    seats: list[tuple[int, str, int]] = []
    button: int | None = None
    deck_ready = False
    levels: list[dict[str, Any]] = []
    body: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        check_line(raw, number)
        line = strip_comment(raw)
        if not line:
            continue
        words = split_words(line, number)
        head = words[0].lower()
        header = ("profile", "stakes", "option", "seat", "button", "deck-ready", "level", "break")
        if body or head not in header:
            body.append((number, line))
            continue
        if head == "profile" and len(words) == 2:
            profile = words[1]
        elif head == "stakes":
            stakes = _stakes(words[1:], number)
        elif head == "option" and len(words) == 3:
            options[words[1]] = _option_value(words[2])
        elif head == "seat" and len(words) == 4:
            name = check_name(words[2], number)
            seats.append((_ints([words[1]], number)[0], name, _ints([words[3]], number)[0]))
        elif head == "button" and len(words) == 2:
            button = _ints([words[1]], number)[0]
        elif head == "deck-ready":
            deck_ready = True
        elif head == "level":
            levels.append(_level(words[1:], number))
        elif head == "break" and len(words) == 2:
            levels.append({"break_minutes": _ints(words[1:], number)[0]})
        else:
            raise ScriptError(f"Line {number}: cannot read set-up line {line!r}.")
    try:
        config = TableConfig(profile, profile_options(profile, **options), stakes)
    except ConfigError as exc:
        raise ScriptError(f"Set-up: {exc}") from exc
    return Script(config, seats, button, deck_ready, body, levels)


def _level(words: list[str], line: int) -> dict[str, Any]:
    """``level 25/50 [ante 10] [bb-ante] minutes 20``."""
    if not words or "/" not in words[0]:
        raise ScriptError(f"Line {line}: write a level as 'level 25/50 minutes 20'.")
    small, big = _blinds(words[0], line)
    level: dict[str, Any] = {"small_blind": small, "big_blind": big}
    rest = words[1:]
    while rest:
        key = rest.pop(0)
        if key == "bb-ante":
            level["big_blind_ante"] = True
        elif key in ("ante", "minutes") and rest:
            level[key] = _ints([rest.pop(0)], line)[0]
        else:
            raise ScriptError(f"Line {line}: unknown level word {key!r}.")
    return level


def _cards(words: list[str], line: int) -> list[int]:
    try:
        return parse_cards("".join(words))
    except CardError as exc:
        raise ScriptError(f"Line {line}: {exc}") from exc


def _reason(words: list[str], line: int) -> str:
    if not words:
        raise ScriptError(f"Line {line}: give a reason.")
    return " ".join(words)


def parse_event(line: str, number: int, table: Table) -> list[te.TableEvent]:
    """Turn one event line into table events (``draw`` may give several)."""
    if line.startswith("restore "):
        try:
            return [te.Restore(json.loads(line[len("restore ") :]))]
        except ValueError as exc:
            raise ScriptError(f"Line {number}: 'restore' takes the table's state as JSON.") from exc
    if line.startswith("jackpot "):
        try:
            record = json.loads(line[len("jackpot ") :])
            return [event_records.from_record({**record, "kind": te.JackpotAward.kind})]
        except (ValueError, TypeError, PokerTableError) as exc:
            raise ScriptError(
                f"Line {number}: 'jackpot' takes the award's record as JSON."
            ) from exc
    words = split_words(line, number)
    head, rest = words[0].lower(), words[1:]
    simple: dict[str, te.TableEvent] = {"shuffle": te.Shuffle(), "cut": te.Cut()}
    if head in simple and not rest:
        return [simple[head]]
    if head == "draw":
        return [te.CardDrawn(c) for c in _cards(rest, number)]
    if head == "tick" and len(rest) == 1:
        return [te.Tick(seconds(rest[0], number, "tick"))]
    if head == "wallclock" and len(rest) == 1:
        return [te.WallClock(seconds(rest[0], number, "wallclock"))]
    if head == "clock" and not rest:
        return [te.CallClock(table.now)]
    if head.isdigit() and len(rest) == 2 and rest[0].lower() == "rebuy":
        return [te.SeatRebuy(*_ints([head, rest[1]], number))]
    if head.isdigit() and rest:
        seat, action = _ints([head], number)[0], rest[0].lower()
        amount = _ints(rest[1:2], number)[0] if len(rest) > 1 else 0
        return [te.Act(seat, action, amount)]
    if head == "declare" and len(rest) == 1:
        return [te.DeclareRaise(_ints(rest, number)[0])]
    if head == "advance" and len(rest) == 2:
        return [te.Advance(_ints(rest[:1], number)[0], rest[1])]
    if head == "show" and len(rest) >= 2:
        return [te.ShowCards(_ints(rest[:1], number)[0], tuple(_cards(rest[1:], number)))]
    if head == "muck" and len(rest) == 1:
        return [te.MuckCards(_ints(rest, number)[0])]
    if head == "rakezone" and len(rest) in (3, 4):  # HOUSE-RAKE-ZONE
        hand, read, computed = _ints(rest[:3], number)
        return [te.RakeZone(hand, read, computed, "".join(rest[3:]))]
    carded = head in ("sit", "timecharge") and rest and rest[-1].startswith("card:")
    card = rest.pop()[5:] if carded else ""
    if head == "timecharge" and len(rest) == 3:  # HOUSE-TIME
        seat, amount, minutes = _ints(rest, number)
        return [te.TimeCharge(seat, card, amount, minutes)]
    if head == "sit" and len(rest) in (3, 4):
        wait = len(rest) == 4 and rest[3] == "wait"
        owes = len(rest) == 4 and rest[3] == "owes-bb"
        seat, chips = _ints(rest[:1], number)[0], _ints(rest[2:3], number)[0]
        return [te.SitDown(seat, check_name(rest[1], number), chips, wait, owes, card)]
    if head == "drawbutton" and len(rest) >= 2:
        seats = tuple(_ints(rest[0].split(","), number))
        return [te.DrawButton(seats, tuple(_cards(rest[1:], number)))]
    if head == "callfloor" and len(rest) == 1:
        return [te.FloorCall(_ints(rest, number)[0])]
    one_seat = {
        "sitout": lambda s: te.SitOut(s, True),
        "sitin": lambda s: te.SitOut(s, False),
        "away": lambda s: te.Away(s, True),
        "back": lambda s: te.Away(s, False),
        "cashout": te.CashOut,
        "setbutton": te.SetButton,
    }
    if head in one_seat and len(rest) == 1:
        return [one_seat[head](_ints(rest, number)[0])]
    if head == "rebuy" and len(rest) == 2:
        seat, chips = _ints(rest, number)
        return [te.Rebuy(seat, chips)]
    if head == "buybutton" and len(rest) == 1:
        return [te.BuyButton(_ints(rest, number)[0])]
    if head == "straddle" and len(rest) == 1:
        return [te.Straddle(_ints(rest, number)[0])]
    if head == "chiprace" and len(rest) >= 3:
        old, new = _ints(rest[:2], number)
        return [te.ChipRace(old, new, tuple(_cards(rest[2:], number)))]
    if head == "levels" and len(rest) in (1, 3) and rest[1:2] in ([], ["at"]):
        at = seconds(rest[2], number, "levels") if rest[2:] else None
        return [te.LevelClock(rest[0].lower(), at)]
    if head == "penalty" and len(rest) >= 2:
        return [_penalty(rest, number)]
    if head == "dealer" and rest:
        return [_dealer(rest[0].lower(), rest[1:], number)]
    if head == "floor" and rest:
        return [_floor(rest[0].lower(), rest[1:], number)]
    if head == "deck" and rest:
        return [_deck(rest[0].lower(), rest[1:], number)]
    raise ScriptError(f"Line {number}: cannot read event line {line!r}.")


def _penalty(rest: list[str], number: int) -> te.TableEvent:
    """``penalty SEAT warning|rounds N|disqualification [next] REASON``."""
    seat = _ints(rest[:1], number)[0]
    kind, words = rest[1].lower(), rest[2:]
    rounds = 0
    if kind == "rounds":
        if not words:
            raise ScriptError(f"Line {number}: say how many rounds.")
        rounds = _ints(words[:1], number)[0]
        words = words[1:]
    next_hand = bool(words) and words[0] == "next"
    if next_hand:
        words = words[1:]
    return te.GivePenalty(seat, kind, " ".join(words), rounds, next_hand)


def _dealer(what: str, rest: list[str], number: int) -> te.TableEvent:
    if what == "exposed":
        return te.ExposedCard(_cards(rest, number)[0])
    if what == "misdeal":
        return te.Misdeal(_reason(rest, number))
    if what == "face-up":
        return te.FaceUpInDeck(_cards(rest, number)[0])
    if what == "premature" and not rest:
        return te.PrematureCard()
    if what == "burn-error" and len(rest) == 1:
        return te.BurnError(rest[0].lower())
    if what == "empty-seat" and len(rest) == 1:
        return te.EmptySeatDealt(_ints(rest, number)[0])
    if what == "marked":
        return te.MarkedCard(_cards(rest, number)[0])
    if what == "kill" and len(rest) >= 2:
        return te.KillSeat(_ints(rest[:1], number)[0], _reason(rest[1:], number))
    if what == "deck-empty":
        return te.DeckEmpty()
    if what == "change":
        return te.DeckChange("dealer", 0, " ".join(rest))
    raise ScriptError(f"Line {number}: unknown dealer report {what!r}.")


def _floor(what: str, rest: list[str], number: int) -> te.TableEvent:
    # A missing reason is refused by the table itself (TDA-1), not by the reader.
    if what == "adjust" and len(rest) >= 2:
        seat, chips = _ints(rest[:2], number)
        return te.AdjustStack(seat, chips, " ".join(rest[2:]))
    if what == "award" and rest:
        seats = tuple(_ints(rest[0].split(","), number))
        return te.AwardPot(seats, " ".join(rest[1:]))
    if what == "void":
        return te.VoidByFloor(" ".join(rest))
    if what == "undo":
        return te.UndoLast(" ".join(rest))
    if what == "deal" and len(rest) in (1, 3) and rest[1:2] in ([], ["round"]):
        hands = -1 if rest[0] == "any" else _ints(rest[:1], number)[0]
        return te.DealOrder(hands, _ints(rest[2:], number)[0] if rest[2:] else 0)
    if what == "deck-change":
        return te.DeckChange("floor", 0, " ".join(rest))
    bank = {"bank-open": te.BankOpen, "fill": te.BankFill, "credit": te.BankCredit}
    if what in ("bank-open", "fill", "credit") and rest:
        return bank[what](_ints(rest[:1], number)[0], tuple(rest[1:]))
    if what == "count" and len(rest) >= 2:
        counted, expected = _ints(rest[:2], number)
        return te.ShiftCount(counted, expected, tuple(rest[2:]))
    if what == "answer" and rest:
        return te.FloorAnswer(_ints(rest[:1], number)[0], " ".join(rest[1:]) or "floor")
    raise ScriptError(f"Line {number}: unknown floor ruling {what!r}.")


def _deck(what: str, rest: list[str], number: int) -> te.TableEvent:
    if what == "show":
        if rest == ["all"]:
            return te.DeckStep("show", tuple(range(52)))
        scan: list[int | None] = []
        for word in rest:
            for i in range(0, len(word), 2):
                chunk = word[i : i + 2]
                scan.append(None if chunk == "??" else _card(chunk, number))
        return te.DeckStep("show", tuple(scan))
    if what in ("face_down", "scramble", "shuffle", "cut") and not rest:
        return te.DeckStep(what)
    if what == "change" and rest:
        return te.DeckChange(rest[0].lower(), 0, " ".join(rest[1:]))
    if what == "request" and len(rest) == 1:
        return te.DeckChange("seat", _ints(rest, number)[0])
    if what == "repair" and len(rest) == 1:
        return te.RepairCard(_card(rest[0], number))
    if what == "withdraw" and len(rest) == 1:
        return te.WithdrawCard(_card(rest[0], number))
    raise ScriptError(f"Line {number}: unknown deck step {what!r}.")


def _card(text: str, number: int) -> int:
    try:
        return parse_card(text)
    except CardError as exc:
        raise ScriptError(f"Line {number}: {exc}") from exc


def build_table(script: Script) -> Table:
    """A table set up as the script's header says."""
    schedule = None
    if script.levels:
        schedule = LevelSchedule.from_dicts(script.levels, structure=script.config.stakes.structure)
    table = Table(script.config, deck_ready=script.deck_ready, schedule=schedule)
    for seat, player, chips in script.seats:
        table.apply(te.SitDown(seat, player, chips))
    if script.button is not None:
        table.apply(te.SetButton(script.button))
    return table


def _apply(table: Table, event: te.TableEvent, number: int) -> None:
    """Apply one event; a ``restore`` state of the wrong shape is a line error."""
    if not isinstance(event, te.Restore):
        table.apply(event)
        return
    try:
        table.apply(event)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        if isinstance(exc, PokerTableError):
            raise
        raise ScriptError(
            f"Line {number}: the 'restore' state is not a table state this firmware writes "
            f"({type(exc).__name__}: {str(exc)[:60]}); restore a state exported by the table."
        ) from exc


def run_script(
    text: str,
    views: ViewExpectation | None = None,
    after_event: AfterEvent | None = None,
) -> tuple[Table, list[dict[str, Any]]]:
    """Run a script; return the table and the records of the hands it played.

    ``expect`` lines check the outcome; ``expect error TEXT`` says the next
    line must be refused with a message containing TEXT. ``views`` checks
    the ``expect`` forms about what an audience sees (the views are a layer
    above the table: pass :func:`firmware.views.expect.check_view_expectation`);
    ``after_event`` runs after every event the table accepted.

    :raises ScriptError: naming the line, for unreadable lines, refused
        events and failed expectations.
    """
    script = parse_script(text)
    try:
        table = build_table(script)
    except PokerTableError as exc:
        raise ScriptError(f"Set-up: {exc}") from exc
    expected_error: str | None = None
    for number, line in script.lines:
        words = split_words(line, number)
        if words[0].lower() == "expect":
            if len(words) >= 3 and words[1] == "error":
                expected_error = " ".join(words[2:])
                continue
            try:
                if views is None or not views(table, words[1:], number):
                    check_expectation(table, words[1:], number)
            except ScriptError:
                raise
            except PokerTableError as exc:
                raise ScriptError(f"Line {number} ({line}): {exc}") from exc
            continue
        try:
            for event in parse_event(line, number, table):
                _apply(table, event, number)
                if after_event is not None:
                    run_after(after_event, table, number, line)
        except ScriptError:
            raise
        except PokerTableError as exc:
            if expected_error is not None and expected_error.lower() in str(exc).lower():
                expected_error = None
                continue
            raise ScriptError(f"Line {number} ({line}): {exc}") from exc
        if expected_error is not None:
            raise ScriptError(
                f"Line {number} ({line}) was accepted, but the script expected it to be refused "
                f"with '{expected_error}'."
            )
    return table, table.records


def iter_script_records(
    path: str, views: ViewExpectation | None = None
) -> Iterator[dict[str, Any]]:
    """Run the script file at ``path`` and yield its hand records.

    A file must play at least one whole hand and must not stop in the middle
    of one; either is a :class:`ScriptError` (a script cut off, or not a
    script at all, never passes silently).
    """
    with open(path, "rb") as handle:
        data = handle.read(MAX_SCRIPT_BYTES + 1)
    if len(data) > MAX_SCRIPT_BYTES:
        raise ScriptError(
            f"The file is larger than {MAX_SCRIPT_BYTES} bytes; split it into several scripts."
        )
    text = decode_script(data)
    table, records = run_script(text, views)
    check_script_end(text, table, records)
    yield from records


def check_script_end(text: str, table: Table, records: list[dict[str, Any]]) -> None:
    """The ending rule of every script (``pokertable script`` and the scenario tests).

    A script must play at least one whole hand and must not stop in the middle
    of one, unless its last line says so (``expect unfinished``, ``expect hands
    0``): a script cut off, or not a script at all, never passes silently.

    :raises ScriptError: saying what to add.
    """
    last = _last_line(text)
    if table.hand is not None and last != "expect unfinished":
        raise ScriptError(
            f"The script ends in the middle of hand {table.hand_number} (the table waits for: "
            f"{table.prompt()}); add the rest of the hand, or end the script with "
            "'expect unfinished' if it stops there on purpose."
        )
    if not records and table.hand is None and last != "expect hands 0":
        raise ScriptError(
            "The script plays no hand; add at least one whole hand, or end the script with "
            "'expect hands 0' if it plays none on purpose."
        )


def _last_line(text: str) -> str:
    """The last line of a script that is not blank or a comment, words single-spaced."""
    for raw in reversed(text.splitlines()):
        line = strip_comment(raw)
        if line:
            return " ".join(line.split())
    return ""


def main_script(argv: list[str] | None = None, views: ViewExpectation | None = None) -> int:
    """``pokertable script FILE...``: run table scripts, print hand records as JSON lines."""
    import argparse
    import json
    import sys

    from firmware.i18n import argv_language, tr

    lang = argv_language(sys.argv[1:] if argv is None else argv)  # of the help, before parsing
    parser = argparse.ArgumentParser(
        prog="pokertable script", description=tr("cli.help.script.about", lang)
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar=tr("cli.help.metavar.file", lang),
        help=tr("cli.help.script.files", lang),
    )
    parser.add_argument("--lang", choices=("es", "en"), help=tr("cli.help.script.lang", lang))
    args = parser.parse_args(argv)
    status = 0
    for path in args.files:
        try:
            for record in iter_script_records(path, views):
                print(json.dumps({"file": path, **record}, ensure_ascii=False))
        except (OSError, ScriptError) as exc:
            print(f"pokertable script: {path}: {exc}", file=sys.stderr)
            status = 1
    return status
