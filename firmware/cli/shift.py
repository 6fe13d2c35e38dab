"""``pokertable shift report``: a table's shift report from its journal (TABLE-BANK).

``pokertable shift report --data DIR [--csv FILE] [--pdf FILE] [--zone ZONE]
[--table NAME] [--lang es|en]``

Reads the journal in the table's data folder (``journal.sqlite``, after the
archives rotation left beside it, oldest first) without writing to it, replays
it (:func:`firmware.table.shiftreport.shift_report`) and writes every shift's
drop, rake, jackpot drop, promotions paid, buy-ins, cash-outs, fills, credits,
expected and counted chips and their difference as CSV (standard output
without ``--csv``) and, with ``--pdf``, as a printable PDF. Labels are in the
reader's language, times in the table's zone (``--zone``, else the one the
hand history keeps, else the system's).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Iterator

from firmware.cli.helptext import argv_lang, lang_option, name_commands
from firmware.cli.lang import cli_lang, fail, fail_with, say
from firmware.errors import PokerTableError
from firmware.service.journal import Journal
from firmware.service.recovery import table_from_setup
from firmware.table import events as te
from firmware.table.shiftreport import ShiftReport, shift_report
from firmware.table.walltime import check_zone
from firmware.views.shiftreport import shift_csv, shift_pdf

JOURNAL = "journal.sqlite"


def journal_files(data: str) -> list[str]:
    """The journal files of a data folder, oldest first (rotated archives, then the
    current journal)."""
    archives = sorted(
        f for f in os.listdir(data) if f.startswith("journal-to-hand-") and f.endswith(".sqlite")
    )
    return [os.path.join(data, f) for f in (*archives, JOURNAL)]


def _events(journals: list[Journal]) -> Iterator[te.TableEvent]:
    for number, journal in enumerate(journals):
        for event in journal.events():
            # A rotated journal starts with the table as the previous file left it.
            if number and isinstance(event, te.Restore):
                continue
            yield event


def read_report(data: str) -> ShiftReport:
    """The shift report of the table whose data folder is ``data``.

    :raises PokerTableError: (a sentence) for a folder without a journal, or a
        journal that cannot be read.
    """
    paths = journal_files(data)
    journals = [Journal(p, read_only=True, check=False) for p in paths]
    try:
        setup = journals[0].meta("table")
        if setup is None:
            raise PokerTableError(
                f"The journal {paths[0]} has no table set-up; it was not written by a table.",
                key="cli.shift.no_setup",
                path=paths[0],
            )
        return shift_report(table_from_setup(setup), _events(journals))
    finally:
        for journal in journals:
            journal.close()


def history_zone(data: str) -> str:
    """The table's time zone the hand history in ``data`` keeps ("": the system's)."""
    path = os.path.join(data, "history.sqlite")
    if not os.path.isfile(path):
        return ""
    try:
        db = sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT v FROM meta WHERE k = 'timezone'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return ""
    return str(row[0]) if row else ""


def main_shift(argv: list[str] | None = None, lang: str | None = None) -> int:
    """``pokertable shift report``; ``lang`` (else ``--lang``, else the locale) is the
    language of its sentences and of the report."""
    said = lang or argv_lang(argv)
    parser = argparse.ArgumentParser(
        prog="pokertable shift", description=say("cli.help.shift.about", said)
    )
    lang_option(parser, said)
    sub = parser.add_subparsers(dest="command", required=True)
    report = sub.add_parser("report", help=say("cli.help.shift.report", said))
    name_commands(sub)
    report.add_argument(
        "--data",
        required=True,
        metavar=say("cli.help.metavar.dir", said),
        help=say("cli.help.shift.data", said),
    )
    report.add_argument(
        "--csv", metavar=say("cli.help.metavar.file", said), help=say("cli.help.shift.csv", said)
    )
    report.add_argument(
        "--pdf", metavar=say("cli.help.metavar.file", said), help=say("cli.help.shift.pdf", said)
    )
    report.add_argument(
        "--zone", metavar=say("cli.help.metavar.zone", said), help=say("cli.help.shift.zone", said)
    )
    report.add_argument(
        "--table",
        default="",
        metavar=say("cli.help.metavar.name", said),
        help=say("cli.help.shift.table", said),
    )
    lang_option(report, said, sub=True)
    args = parser.parse_args(argv)
    lang = lang or cli_lang(args.lang)
    if not os.path.isfile(os.path.join(args.data, JOURNAL)):
        return fail("shift", "cli.shift.no_journal", lang, path=args.data)
    try:
        zone = check_zone(args.zone if args.zone is not None else history_zone(args.data))
        result = read_report(args.data)
        table = args.table or os.path.basename(os.path.abspath(args.data))
        text = shift_csv(result, lang, zone)
        if args.csv:
            with open(args.csv, "w", encoding="utf-8", newline="") as out:
                out.write(text)
        else:
            sys.stdout.write(text)
        if args.pdf:
            with open(args.pdf, "wb") as pdf:
                pdf.write(shift_pdf(result, lang, zone, table))
    except (PokerTableError, OSError) as exc:
        return fail_with("shift", exc, lang)
    return 0


__all__ = ["journal_files", "main_shift", "read_report"]
