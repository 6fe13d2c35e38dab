"""``pokertable audit verify DB`` / ``pokertable audit salvage DB NEW``: the journal's chain.

``verify`` checks that no record of a table journal was edited, added or
removed (and, with the controller's key, that the signed head matches);
``salvage`` copies the valid records of a damaged journal into a new one;
``seal`` signs, with a new key, a journal written before keys existed (the
only way a key is made for a journal that has records).
The command's sentences are in the reader's language (``--lang`` or the
locale); the journal's own findings (which record, what is wrong) come from
:mod:`firmware.service.journal` as written.
"""

from __future__ import annotations

import argparse
import os
import sqlite3

from firmware.cli.helptext import argv_lang, lang_option, name_commands
from firmware.cli.lang import cli_lang, fail, fail_with, say
from firmware.cli.seal import KEY_NAME, SEAL_KEY
from firmware.service.journal import (
    Journal,
    JournalError,
    load_or_create_key,
    read_key,
    salvage,
)


def main_audit(argv: list[str] | None = None) -> int:
    """``pokertable audit verify DB [--key FILE]`` / ``pokertable audit salvage DB NEW``."""
    lang = argv_lang(argv)
    parser = argparse.ArgumentParser(
        prog="pokertable audit", description=say("cli.help.audit.about", lang)
    )
    lang_option(parser, lang)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("verify", help=say("cli.help.audit.verify", lang))
    file = say("cli.help.metavar.file", lang)
    check.add_argument("journal", metavar=file, help=say("cli.help.audit.journal", lang))
    check.add_argument("--key", metavar=file, help=say("cli.help.audit.key", lang))
    sealing = sub.add_parser("seal", help=say("cli.help.audit.seal", lang))
    sealing.add_argument("journal", metavar=file, help=say("cli.help.audit.journal", lang))
    sealing.add_argument(
        "--key", metavar=file, required=True, help=say("cli.help.audit.seal_key", lang)
    )
    rescue = sub.add_parser("salvage", help=say("cli.help.audit.salvage", lang))
    rescue.add_argument("journal", metavar=file, help=say("cli.help.audit.journal", lang))
    rescue.add_argument(
        "new", metavar=say("cli.help.metavar.new", lang), help=say("cli.help.audit.new", lang)
    )
    for each in (check, sealing, rescue):
        lang_option(each, lang, sub=True)
    name_commands(sub)
    args = parser.parse_args(argv)
    lang = cli_lang(args.lang)
    if not os.path.isfile(args.journal):  # never created here
        return fail("audit", "cli.audit.no_journal", lang, path=args.journal)
    keyed = False
    try:
        if args.command == "verify":
            key_path = args.key or default_key(args.journal)
            key = read_key(key_path) if args.key or os.path.exists(key_path) else None
            keyed = key is not None
            journal = Journal(args.journal, key=key, read_only=True)
            report = journal.verify()
            journal.close()
        elif args.command == "seal":
            return seal(args.journal, args.key, lang)
        else:
            report = salvage(args.journal, args.new)
    except JournalError as exc:
        return fail_with("audit", exc, lang)
    except sqlite3.Error as exc:  # not a journal, or one missing its tables
        return fail("audit", "cli.audit.unreadable", lang, path=args.journal, error=str(exc))
    if args.command == "salvage":
        print(
            say(
                "cli.audit.salvaged",
                lang,
                count=report.records,
                path=args.new,
                problem=report.problem,
            )
        )
        return 0
    if report.ok:
        head = say("cli.audit.head_signed" if keyed else "cli.audit.head_unchecked", lang)
        print(say("cli.audit.intact", lang, path=args.journal, count=report.records, head=head))
        return 0
    where = say("cli.audit.breaks_at", lang, record=report.first_bad) if report.first_bad else ""
    print(say("cli.audit.broken", lang, path=args.journal, where=where, problem=report.problem))
    return 1


def default_key(journal: str) -> str:
    """The key ``verify`` uses without ``--key``: the installed seal key when this user
    can read it (root), else ``journal.key`` beside the journal (a table run by hand)."""
    if os.access(SEAL_KEY, os.R_OK):
        return SEAL_KEY
    return os.path.join(os.path.dirname(os.path.abspath(journal)), KEY_NAME)


def seal(path: str, key_path: str, lang: str) -> int:
    """Seal a journal written before keys existed: a new key (never over an existing
    one) signs its head, once its whole chain verifies."""
    if os.path.exists(key_path):
        return fail("audit", "cli.audit.seal_exists", lang, seal=key_path)
    journal = Journal(path)
    try:
        if journal.verify(check_head=False).ok is False:
            return fail("audit", "cli.audit.seal_broken", lang, path=path)
        journal.key = load_or_create_key(key_path)
        journal.sign_head()
    finally:
        journal.close()
    print(say("cli.audit.sealed", lang, path=path, seal=key_path, count=len(journal)))
    return 0


__all__ = ["main_audit"]
