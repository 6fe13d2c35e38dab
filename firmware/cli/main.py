"""The ``pokertable`` command.

Subcommands:

* ``run``: play hands at a simulated table and print them.
* ``replay``: replay PHH hand histories through the engine (JSON per hand).
* ``script``: run table scripts (set-up plus events) and print hand records.
* ``floor``: the card room's floor service (``--demo``: a whole simulated room).
* ``verify-evaluator``: check the evaluator on all 133,784,560 seven-card hands.
* ``init`` / ``config check``: write a table configuration, name its problems.
* ``status``: the running table's state, devices, terminals and last alerts.
* ``shift report``: a table's shift report (bank, drop, rake, count) as CSV and PDF.

Every failure a person can cause (a missing file or database, a folder they
may not read, a wrong secret) ends with one sentence on standard error and a
non-zero status, never a traceback: :func:`main` turns the errors that escape
a command into such a sentence as a last resort.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sqlite3
import sys

from firmware import __version__
from firmware.cli.helptext import argparse_speaks, argv_lang
from firmware.cli.lang import fail, fail_with, say
from firmware.errors import PokerTableError


def _run(argv: list[str]) -> int:
    lang = argv_lang(argv)
    parser = argparse.ArgumentParser(
        prog="pokertable run", description=say("cli.help.run.about", lang)
    )
    parser.add_argument(
        "--hands", type=int, metavar="N", default=10, help=say("cli.help.run.hands", lang)
    )
    parser.add_argument(
        "--lang", choices=("es", "en"), default="es", help=say("cli.help.run.lang", lang)
    )
    parser.add_argument(
        "--seed", type=int, metavar="N", default=None, help=say("cli.help.run.seed", lang)
    )
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error(say("cli.run.hands", lang))
    # The simulated table is a backend chosen by name, like any device backend:
    # firmware/ does not import hal_sim.
    run_sim = importlib.import_module("hal_sim.sim_table").run_sim
    return int(run_sim(args.hands, lang=args.lang, seed=args.seed))


def _replay(argv: list[str]) -> int:
    from firmware.cli.replay import main_replay

    return main_replay(argv)


def _script(argv: list[str]) -> int:
    from firmware.table.script import main_script
    from firmware.views.expect import check_view_expectation

    return main_script(argv, check_view_expectation)


def _serve(argv: list[str]) -> int:
    from firmware.cli.serve import main_serve

    return main_serve(argv)


def _screen(argv: list[str]) -> int:
    # The screens live in the ui package; loaded by name like the simulated table.
    main_screen = importlib.import_module("ui.link").main_screen
    return int(main_screen(argv))


def _floor(argv: list[str]) -> int:
    # The floor sits above the table's firmware (an extra: NATS and PostgreSQL
    # clients); loaded by name like the screens, so no table module imports it.
    main_floor = importlib.import_module("firmware.floor.cli").main_floor
    return int(main_floor(argv))


def _diag(argv: list[str]) -> int:
    from firmware.cli.diag import main_diag

    return main_diag(argv)


def missing_database(command: str, path: str, lang: str = "en") -> str | None:
    """A sentence (in ``lang``) if the database a read-only command would open is not there.

    SQLite creates a missing file on open; a read-only command must not, so the
    path is checked first (a mistyped path is an error, not an empty history).
    """
    if os.path.isfile(path):
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(folder) and not os.access(folder, os.R_OK | os.X_OK):
        said = say("cli.db.permission", lang, folder=folder)
    elif os.path.isdir(path):
        said = say("cli.db.folder", lang, path=path)
    else:
        said = say("cli.db.missing", lang, path=path)
    return f"pokertable {command}: {said}"


def _option(argv: list[str], name: str) -> str | None:
    """The value given to ``--name`` (``--name VALUE`` or ``--name=VALUE``), if any."""
    value = None
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
    return value


def _history(argv: list[str]) -> int:
    from firmware.cli.history import DEFAULT_DB, main_history

    db = _option(argv, "--db") or DEFAULT_DB
    helping = any(a in ("-h", "--help") for a in argv)
    problem = None if helping else missing_database("history", db, argv_lang(argv))
    if problem is not None:
        print(problem, file=sys.stderr)
        return 1
    return main_history(argv)


def _audit(argv: list[str]) -> int:
    from firmware.cli.audit import main_audit

    return main_audit(argv)  # it refuses a missing journal itself (never creates one)


def _shift(argv: list[str]) -> int:
    from firmware.cli.shift import main_shift

    return main_shift(argv)  # it refuses a folder without a journal itself


def _verify(argv: list[str]) -> int:
    try:
        main_verify = importlib.import_module("firmware.odds.verify").main_verify
    except ImportError:
        return fail("verify-evaluator", "cli.verify.numpy", argv_lang(argv))
    return int(main_verify(argv))


def _init(argv: list[str]) -> int:
    from firmware.cli.init import main_init

    return main_init(argv)


def _config(argv: list[str]) -> int:
    from firmware.cli.config_check import main_config

    return main_config(argv)


def _status(argv: list[str]) -> int:
    from firmware.cli.status import main_status

    return main_status(argv)


COMMANDS = {
    "run": _run,
    "replay": _replay,
    "script": _script,
    "serve": _serve,
    "screen": _screen,
    "floor": _floor,
    "diag": _diag,
    "history": _history,
    "audit": _audit,
    "shift": _shift,
    "verify-evaluator": _verify,
    "init": _init,
    "config": _config,
    "status": _status,
}
"""Each subcommand; what it does is the catalog's ``cli.command.NAME``."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pokertable`` console command."""
    args = list(sys.argv[1:] if argv is None else argv)
    lang = argv_lang(args)  # --lang after the subcommand, else the locale
    if not args or args[0] in ("-h", "--help"):
        print(say("cli.main.title", lang, version=__version__) + "\n")
        print(say("cli.main.usage", lang) + "\n")
        for name in COMMANDS:
            print(f"  {name:18} {say('cli.command.' + name.replace('-', '_'), lang)}")
        print("\n" + say("cli.main.more", lang))
        return 0 if args else 2
    if args[0] == "--version":
        print(__version__)
        return 0
    command = COMMANDS.get(args[0])
    if command is None:
        said = say("cli.main.unknown", lang, command=args[0], known=", ".join(COMMANDS))
        print(f"pokertable: {said}", file=sys.stderr)
        return 2
    try:
        with argparse_speaks(lang):  # usage:, options:, error: ... in the same language
            return command(args[1:])
    except KeyboardInterrupt:
        return 130
    except PermissionError as exc:
        if exc.filename:
            return fail(args[0], "cli.main.permission", lang, path=exc.filename)
        return fail(args[0], "cli.main.permission_any", lang)
    except FileNotFoundError as exc:
        if exc.filename:
            return fail(args[0], "cli.main.not_found", lang, path=exc.filename)
        return fail(args[0], "cli.main.not_found_any", lang)
    except (OSError, PokerTableError, sqlite3.Error) as exc:
        return fail_with(args[0], exc, lang)


if __name__ == "__main__":
    sys.exit(main())
