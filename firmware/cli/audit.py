"""``pokertable audit verify DB`` / ``pokertable audit salvage DB NEW``: the journal's chain.

``verify`` checks that no record of a table journal was edited, added or
removed (and, with the controller's key, that the signed head matches);
``salvage`` copies the valid records of a damaged journal into a new one.
The command's sentences are in the reader's language (``--lang`` or the
locale); the journal's own findings (which record, what is wrong) come from
:mod:`firmware.service.journal` as written.
"""

from __future__ import annotations

import argparse
import os

from firmware.cli.lang import cli_lang, fail, fail_with, say
from firmware.service.journal import Journal, JournalError, read_key, salvage


def main_audit(argv: list[str] | None = None) -> int:
    """``pokertable audit verify DB [--key FILE]`` / ``pokertable audit salvage DB NEW``."""
    parser = argparse.ArgumentParser(
        prog="pokertable audit",
        description="Check a table journal's chain of hashes and signed head, or salvage its "
        "valid records.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("verify", help="check that no record was edited, added or removed")
    check.add_argument("journal")
    check.add_argument(
        "--key",
        help="the controller's journal key (default: journal.key beside the journal, if "
        "readable); without it only the chain is checked",
    )
    rescue = sub.add_parser("salvage", help="copy the valid records into a new journal")
    rescue.add_argument("journal")
    rescue.add_argument("new")
    for each in (check, rescue):
        each.add_argument("--lang", choices=("es", "en"), help="language (default: the locale)")
    args = parser.parse_args(argv)
    lang = cli_lang(args.lang)
    if not os.path.isfile(args.journal):  # never created here
        return fail("audit", "cli.audit.no_journal", lang, path=args.journal)
    keyed = False
    try:
        if args.command == "verify":
            key_path = args.key or os.path.join(
                os.path.dirname(os.path.abspath(args.journal)), "journal.key"
            )
            key = read_key(key_path) if args.key or os.path.exists(key_path) else None
            keyed = key is not None
            journal = Journal(args.journal, key=key, read_only=True)
            report = journal.verify()
            journal.close()
        else:
            report = salvage(args.journal, args.new)
    except JournalError as exc:
        return fail_with("audit", exc, lang)
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


__all__ = ["main_audit"]
