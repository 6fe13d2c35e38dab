"""``pokertable history list|show``: query the hand history and export a hand.

``list`` prints one line per hand (newest first), with the time it started in
the table's time zone (``[table] timezone``); ``show N`` prints a hand as
JSON, PHH, PokerStars-style text or a table script. The lines and errors are
in the reader's language (``--lang`` or the locale); the exports are data and
keep their own format.
"""

from __future__ import annotations

import argparse
import json
import sqlite3

import msgpack

from firmware.cli.helptext import argv_lang, lang_option, name_commands
from firmware.cli.lang import cli_lang, fail, fail_with, say
from firmware.errors import HandHistoryError
from firmware.service.history import HandHistory
from firmware.service.storage import DamagedDatabase
from firmware.table.walltime import local_text

DEFAULT_DB = "/var/lib/pokertable/history.sqlite"


def main_history(argv: list[str] | None = None, lang: str | None = None) -> int:
    """``pokertable history list|show``; ``lang`` (else ``--lang``, else the locale) is
    the language of its sentences."""
    said = lang or argv_lang(argv)  # the help's language, known before parsing
    parser = argparse.ArgumentParser(
        prog="pokertable history", description=say("cli.help.history.about", said)
    )
    parser.add_argument(
        "--db",
        default=DEFAULT_DB,
        metavar=say("cli.help.metavar.file", said),
        help=say("cli.help.history.db", said),
    )
    lang_option(parser, said)
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help=say("cli.help.history.list", said))
    listing.add_argument("--seat", type=int, metavar="N", help=say("cli.help.history.seat", said))
    listing.add_argument(
        "--player",
        metavar=say("cli.help.metavar.name", said),
        help=say("cli.help.history.player", said),
    )
    listing.add_argument(
        "--since", type=float, metavar="N", help=say("cli.help.history.since", said)
    )
    listing.add_argument(
        "--until", type=float, metavar="N", help=say("cli.help.history.until", said)
    )
    listing.add_argument(
        "--limit", type=int, metavar="N", default=20, help=say("cli.help.history.limit", said)
    )
    show = sub.add_parser("show", help=say("cli.help.history.show", said))
    show.add_argument("number", type=int, metavar="N", help=say("cli.help.history.number", said))
    show.add_argument(
        "--format",
        choices=("json", "phh", "pokerstars", "script"),
        default="json",
        help=say("cli.help.history.format", said),
    )
    show.add_argument(
        "--unit",
        default="0.01",
        metavar=say("cli.help.metavar.money", said),
        help=say("cli.help.history.unit", said),
    )
    show.add_argument(
        "--currency",
        default="USD",
        metavar=say("cli.help.metavar.code", said),
        help=say("cli.help.history.currency", said),
    )
    show.add_argument(
        "--table-name",
        default="Mesa 1",
        metavar=say("cli.help.metavar.name", said),
        help=say("cli.help.history.table_name", said),
    )
    show.add_argument("--hero", type=int, metavar="N", help=say("cli.help.history.hero", said))
    for each in (listing, show):
        lang_option(each, said, sub=True)
    name_commands(sub)
    args = parser.parse_args(argv)
    lang = lang or cli_lang(args.lang)
    try:
        history = HandHistory(args.db)
    except DamagedDatabase as exc:
        return fail_with("history", exc, lang)
    except (OSError, sqlite3.Error) as exc:
        return fail("history", "cli.history.unreadable", lang, path=args.db, error=str(exc))
    try:
        if args.command == "list":
            records = list(history.find(args.seat, args.player, args.since, args.until, args.limit))
            if not records:
                print(say("cli.history.none", lang))
            zone = history.zone
            for record in records:
                winners = sorted({w for pot in record["pots"] for w in pot["winners"]})
                started = history.started_wall(int(record["hand"]), record)
                line = say(
                    "cli.history.line",
                    lang,
                    hand=f"{record['hand']:>6}",
                    time=local_text(started, zone),  # the table's zone, its abbreviation
                    seats=",".join(map(str, record["seats"])),
                    winners=winners or "-",
                )
                if record.get("rake"):  # the house's rake (HOUSE-RAKE)
                    line += "  " + say("cli.history.rake", lang, rake=record["rake"])
                if record.get("jackpot_drop"):  # the jackpot drop (JACKPOT)
                    line += "  " + say("cli.history.jackpot", lang, drop=record["jackpot_drop"])
                charged = sum(c["amount"] for c in record.get("time_charges", ()))
                if charged:  # the time charge taken before the hand (HOUSE-TIME)
                    line += "  " + say("cli.history.time_charge", lang, amount=charged)
                void = record["void"]
                print(line + "  " + (say("cli.history.void", lang, reason=void) if void else ""))
            return 0
        if args.format == "json":
            found = history.get(args.number)
            if found is None:
                return fail("history", "cli.history.no_hand", lang, number=args.number)
            print(json.dumps(found, ensure_ascii=False, indent=2))
        elif args.format == "phh":
            print(history.to_phh(args.number), end="")
        elif args.format == "pokerstars":
            from firmware.engine.histories.amounts import parse_unit

            unit = None if args.unit == "chips" else parse_unit(args.unit)
            text = history.to_pokerstars(
                args.number, args.table_name, unit, args.currency.upper(), hero=args.hero
            )
            print(text, end="")
        else:
            print(history.to_script(args.number), end="")
    except KeyError as exc:
        if args.command == "show" and not _stored(history, args.number):
            return fail("history", "cli.history.no_hand", lang, number=args.number)
        return damaged(args.db, exc, lang)
    except HandHistoryError as exc:
        return fail_with("history", exc, lang)
    except READ_ERRORS as exc:  # a history file edited or damaged
        return damaged(args.db, exc, lang)
    finally:
        history.close()
    return 0


READ_ERRORS: tuple[type[Exception], ...] = (
    sqlite3.Error,
    ValueError,  # msgpack's ExtraData, FormatError and StackError are ValueErrors too
    TypeError,
    IndexError,
    AttributeError,
    ArithmeticError,
    RecursionError,
    AssertionError,
    msgpack.UnpackException,
)
"""What reading a hand whose stored record was edited or damaged can raise: the
command says so in a sentence instead of a traceback (issue 27, item 11)."""


def _stored(history: HandHistory, number: int) -> bool:
    """Whether hand ``number`` has a row (``True`` when that cannot be told: then the
    file, not the number, is what is wrong)."""
    try:
        return history.get_row_exists(number)
    except sqlite3.Error:
        return True


def damaged(path: str, exc: BaseException, lang: str) -> int:
    """One sentence for a history file that holds something it cannot have written."""
    error = f"{type(exc).__name__}: {exc}"[:200]
    return fail("history", "cli.history.damaged", lang, path=path, error=error)


__all__ = ["main_history"]
