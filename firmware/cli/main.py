"""The ``pokertable`` command.

Subcommands:

* ``run``: play hands at a simulated table and print them.
* ``replay``: replay PHH hand histories through the engine (JSON per hand).
* ``script``: run table scripts (set-up plus events) and print hand records.
* ``floor``: the card room's floor service (``--demo``: a whole simulated room).
* ``verify-evaluator``: check the evaluator on all 133,784,560 seven-card hands.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from firmware import __version__


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

    return main_script(argv)


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
    from firmware.service.diag import main_diag

    return main_diag(argv)


def _history(argv: list[str]) -> int:
    from firmware.service.history import main_history

    return main_history(argv)


def _audit(argv: list[str]) -> int:
    from firmware.service.journal import main_audit

    return main_audit(argv)


def _verify(argv: list[str]) -> int:
    from firmware.odds.verify import main_verify

    return main_verify(argv)


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
    return command[0](args[1:])


if __name__ == "__main__":
    sys.exit(main())
