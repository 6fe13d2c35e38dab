"""The ``pokertable`` command.

Subcommands:

* ``run``: play hands at a simulated table and print them.
* ``replay``: replay PHH hand histories through the engine (JSON per hand).
* ``script``: run table scripts (set-up plus events) and print hand records.
* ``floor``: the card room's floor service (``--demo``: a whole simulated room).
* ``verify-evaluator``: check the evaluator on all 133,784,560 seven-card hands.
* ``init`` / ``config check``: write a table configuration, name its problems.
* ``status``: the running table's state, devices, terminals and last alerts.

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
from firmware.errors import PokerTableError


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="pokertable run",
        description="Play hands at a simulated table (controller, simulated devices, bots) "
        "and print each hand.",
    )
    parser.add_argument("--hands", type=int, default=10, help="hands to play (default 10)")
    parser.add_argument("--lang", choices=("es", "en"), default="es", help="language (es or en)")
    parser.add_argument("--seed", type=int, default=None, help="seed for a reproducible run")
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1.")
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


def missing_database(command: str, path: str) -> str | None:
    """A sentence if the database a read-only command would open is not there.

    SQLite creates a missing file on open; a read-only command must not, so the
    path is checked first (a mistyped path is an error, not an empty history).
    """
    if os.path.isfile(path):
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(folder) and not os.access(folder, os.R_OK | os.X_OK):
        return (
            f"pokertable {command}: this user may not look into {folder}; run it as the "
            "table's user (sudo -u pokertable pokertable ...)."
        )
    if os.path.isdir(path):
        return f"pokertable {command}: {path} is a folder, not a database."
    return f"pokertable {command}: there is no database {path}; check the path."


def _history(argv: list[str]) -> int:
    from firmware.cli.lang import cli_lang
    from firmware.service.history import main_history

    db = "/var/lib/pokertable/history.sqlite"
    for i, arg in enumerate(argv):
        if arg == "--db" and i + 1 < len(argv):
            db = argv[i + 1]
        elif arg.startswith("--db="):
            db = arg.split("=", 1)[1]
    problem = None if any(a in ("-h", "--help") for a in argv) else missing_database("history", db)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 1
    return main_history(argv, cli_lang())


def _audit(argv: list[str]) -> int:
    from firmware.service.journal import main_audit

    return main_audit(argv)  # it refuses a missing journal itself (never creates one)


def _verify(argv: list[str]) -> int:
    try:
        main_verify = importlib.import_module("firmware.odds.verify").main_verify
    except ImportError:
        print(
            "pokertable verify-evaluator: this check needs numpy, an optional extra; install it "
            "with pip install 'pokertable[odds]'.",
            file=sys.stderr,
        )
        return 1
    return int(main_verify(argv))


def _init(argv: list[str]) -> int:
    from firmware.cli.init import main_init

    return main_init(argv)


def _config(argv: list[str]) -> int:
    from firmware.cli.config import main_config

    return main_config(argv)


def _status(argv: list[str]) -> int:
    from firmware.cli.status import main_status

    return main_status(argv)


COMMANDS = {
    "run": (_run, "play hands at a simulated table and print them"),
    "replay": (_replay, "replay PHH hand histories; one JSON object per hand"),
    "script": (_script, "run table scripts; one JSON record per hand"),
    "serve": (_serve, "run the table controller as a service (systemd)"),
    "screen": (_screen, "a seat screen or the dealer console, connected to the controller"),
    "floor": (_floor, "the floor service of a card room; --demo runs a simulated room"),
    "diag": (_diag, "technician diagnostics of every device (or one), pass/fail report"),
    "history": (_history, "list hands and export one as JSON, PHH, PokerStars text or a script"),
    "audit": (_audit, "verify a table journal's hash chain, or salvage it"),
    "verify-evaluator": (_verify, "check the evaluator on every seven-card hand"),
    "init": (_init, "write a complete, commented table.toml for a profile and seat count"),
    "config": (_config, "check a table.toml and name every problem; hash a staff PIN"),
    "status": (_status, "the running table: state, devices, terminals, last alerts"),
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pokertable`` console command."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(f"pokertable {__version__}: firmware of an automated Texas Hold'em table.\n")
        print("usage: pokertable COMMAND [options]\n\ncommands:")
        for name, (_, text) in COMMANDS.items():
            print(f"  {name:18} {text}")
        print("\nRun 'pokertable COMMAND --help' for a command's options.")
        return 0 if args else 2
    if args[0] == "--version":
        print(__version__)
        return 0
    command = COMMANDS.get(args[0])
    if command is None:
        print(
            f"pokertable: '{args[0]}' is not a command; choose one of {', '.join(COMMANDS)}.",
            file=sys.stderr,
        )
        return 2
    try:
        return command[0](args[1:])
    except KeyboardInterrupt:
        return 130
    except PermissionError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        print(
            f"pokertable {args[0]}: this user may not open{where}; run it as the table's user "
            "(sudo -u pokertable pokertable ...) or point it at your own files.",
            file=sys.stderr,
        )
    except FileNotFoundError as exc:
        print(
            f"pokertable {args[0]}: {exc.filename or 'a file'} does not exist; check the path.",
            file=sys.stderr,
        )
    except (OSError, PokerTableError, sqlite3.Error) as exc:
        print(f"pokertable {args[0]}: {exc}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
