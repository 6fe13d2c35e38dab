"""``pokertable config check``: every problem of a table configuration, in the reader's language.

:func:`check_problems` reads a parsed ``table.toml`` the way ``serve`` does
and returns every problem it finds (not only the first) as an error that
carries a catalog key and its values, so ``config check`` prints each one in
Spanish or English (``--lang`` or the locale; see :mod:`firmware.cli.lang`),
and ``serve`` refuses the same configuration with the same sentences
(:func:`config_error`, exit status :data:`~firmware.cli.config.EXIT_CONFIG`).
:func:`check_config` is the same list as English sentences.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from firmware.cli.config import (
    SERVER_KEYS,
    device_display_names,
    player_directory,
    read_config,
    staff_directory,
    terminal_secrets,
    tournament_schedule,
)
from firmware.cli.config_lines import Where, line_of
from firmware.cli.helptext import argv_lang, lang_option, name_commands
from firmware.cli.lang import cli_lang, fail, fail_with, keyed, said_error, say
from firmware.errors import ConfigError, HardwareError, PokerTableError
from firmware.protocol.auth import TerminalSecrets, hash_pin


class ConfigProblems(ConfigError):
    """A configuration refused for its :attr:`problems` (each an error with its key)."""

    def __init__(self, problems: list[PokerTableError], path: str) -> None:
        self.problems = problems
        self.path = path
        super().__init__(self.said_in("en"), "cli.config.refused", path=path, count=len(problems))

    def said_in(self, lang: str) -> str:
        """The whole refusal on one line in ``lang``: how many problems, each, and what to do."""
        return say(
            "cli.config.refused",
            lang,
            path=self.path,
            count=len(self.problems),
            problems=" ".join(said_error(p, lang) for p in self.problems),
        )


def diag_problems(section: object) -> list[PokerTableError]:
    """What is wrong with ``[diag]`` (``export_dir``: an absolute folder for the
    technician's reports, a USB stick's mount point say)."""
    if not isinstance(section, Mapping):
        return [keyed(ConfigError, "config.diag.not_table")]
    problems: list[PokerTableError] = []
    unknown = sorted(set(section) - {"export_dir"})
    if unknown:
        problems.append(keyed(ConfigError, "config.diag.unknown", unknown=", ".join(unknown)))
    folder = section.get("export_dir")
    if folder is not None and (not isinstance(folder, str) or not os.path.isabs(folder)):
        problems.append(keyed(ConfigError, "config.diag.export_dir"))
    return problems


def broadcast_problems(section: object) -> list[PokerTableError]:
    """What is wrong with ``[broadcast]`` (every option named)."""
    from firmware.views.broadcast import BroadcastRules

    if section is None:
        return []
    if not isinstance(section, Mapping):
        return [keyed(ConfigError, "config.broadcast.not_table")]
    problems: list[PokerTableError] = []
    for name, value in section.items():
        try:
            BroadcastRules.from_section({name: value})
        except ConfigError as exc:
            problems.append(exc)
    if not problems:
        try:
            BroadcastRules.from_section(section)  # options that cannot go together
        except ConfigError as exc:
            problems.append(exc)
    return problems


def jackpot_problems(section: object) -> list[PokerTableError]:
    """What is wrong with ``[jackpot]`` (JACKPOT): every option on its own, then the
    shares together (they must sum to 100)."""
    from firmware.table.jackpot import SHARES, parse_jackpot

    if section is None:
        return []
    if not isinstance(section, Mapping):
        return [keyed(ConfigError, "config.jackpot.not_table")]
    problems: list[PokerTableError] = []
    for name, value in section.items():
        # A share alone is checked against the others' defaults: only its type here.
        one = {name: value, **({s: 0 for s in SHARES if s != name} if name in SHARES else {})}
        if name in SHARES and type(value) is int:
            one[name] = 100
        try:
            parse_jackpot(one)
        except ConfigError as exc:
            problems.append(exc)
    if not problems:
        try:
            parse_jackpot(section)
        except ConfigError as exc:
            problems.append(exc)
    return problems


def _server_problems(server: Mapping[str, Any]) -> list[tuple[PokerTableError, str | None]]:
    """What is wrong with ``[server]``'s options, each with the option it is about."""
    problems: list[tuple[PokerTableError, str | None]] = []
    unknown = sorted(set(server) - set(SERVER_KEYS))
    if unknown:
        problem = keyed(
            ConfigError,
            "config.server.unknown",
            unknown=", ".join(unknown),
            known=", ".join(SERVER_KEYS),
        )
        problems.append((problem, unknown[0]))
    if "tcp_port" in server:
        for key in ("cert", "key", "client_ca"):
            if key not in server:
                problems.append((keyed(ConfigError, "config.server.tls", option=key), "tcp_port"))
            elif not Path(str(server[key])).is_file():
                value = repr(server[key])
                problem = keyed(ConfigError, "config.server.no_file", option=key, value=value)
                problems.append((problem, key))
    socket = server.get("socket")
    if socket is not None and (not isinstance(socket, str) or not os.path.isabs(socket)):
        problems.append((keyed(ConfigError, "config.server.socket"), "socket"))
    return problems


ENTRY_KEYS = {"config.staff.pin_hash": "pin_hash", "config.staff.role": "role"}
"""The key a problem of a ``[[staff]]`` entry is about (else the entry's header line)."""

RELATIONAL = frozenset({"config.stakes.small_above_big"})
"""Problems between two stakes (the small blind above the big blind): named only when
both values are usable, never against a default standing in for a bad value."""


def check_problems(data: Mapping[str, Any], text: str, path: str) -> list[PokerTableError]:
    """Every problem of a parsed configuration, each an error with its catalog key
    (empty: it is usable).

    Devices are created (their options checked) but not opened, so this runs
    on any machine; a backend whose library is missing is a problem too.
    """
    return [problem for problem, _ in located_problems(data, text, path)]


def located_problems(
    data: Mapping[str, Any], text: str, path: str
) -> list[tuple[PokerTableError, int | None]]:
    """:func:`check_problems` with the file's line of each problem (``None``: a problem
    of something the file does not write, or of the whole file)."""
    return [
        (problem, line_of(text, where) if where is not None else None)
        for problem, where in _problems(data, text, path)
    ]


def _problems(
    data: Mapping[str, Any], text: str, path: str
) -> list[tuple[PokerTableError, Where | None]]:
    """Every problem with where it is (see :func:`check_problems`)."""
    from firmware.hal.backends import build_devices
    from firmware.service.retention import Retention
    from firmware.table.options import load_table_config, profile_options
    from firmware.table.tournament import LevelSchedule

    problems: list[tuple[PokerTableError, Where | None]] = []

    def attempt(step: Callable[[], object], where: Where | None = None) -> object:
        try:
            return step()
        except (ConfigError, HardwareError) as exc:
            problems.append((exc, where))
        except (TypeError, ValueError) as exc:
            error = keyed(ConfigError, "config.wrong_type", path=path, error=str(exc))
            problems.append((error, where))
        return None

    def add(problem: PokerTableError, where: Where | None) -> None:
        problems.append((problem, where))

    config = attempt(lambda: load_table_config(text, source=path))
    first_read = len(problems)  # that one problem, if any, is named again with its line
    table_section, options = data.get("table", {}), data.get("options", {})
    if config is None and isinstance(table_section, Mapping) and isinstance(options, Mapping):
        _each_table_key(table_section, path, attempt)
        before = len(problems)
        for key, value in options.items():
            step = functools.partial(
                profile_options, str(table_section.get("profile")), **{key: value}
            )
            attempt(step, Where("options", key))
        if len(problems) == before:  # options that cannot work together
            profile = str(table_section.get("profile"))
            attempt(lambda: profile_options(profile, **options), Where("options"))
    devices = data.get("devices", {})
    if isinstance(devices, Mapping):
        # A device's display_name is for the screens, not for its driver.
        plain = attempt(lambda: device_display_names(dict(devices))[0], Where("devices"))
        for name, section in (plain if isinstance(plain, dict) else {}).items():
            attempt(functools.partial(build_devices, {name: section}), Where("devices", name))
    else:
        add(keyed(ConfigError, "config.devices.not_table"), Where("devices"))
    retention = dict(data.get("retention", {}))
    attempt(lambda: Retention.from_config(retention), Where("retention"))
    staff = data.get("staff", [])
    if isinstance(staff, list):
        for number, entry in enumerate(staff, 1):
            try:
                staff_directory([entry])
            except ConfigError as exc:
                if exc.params.get("number") == 1:  # the entry's own number, not 1
                    exc = keyed(ConfigError, str(exc.key), **{**exc.params, "number": number})
                add(exc, Where("staff", ENTRY_KEYS.get(str(exc.key)), number))
        attempt(lambda: staff_directory(staff), Where("staff", None, 1))  # shared badges, names
    else:
        add(keyed(ConfigError, "config.staff.not_list"), Where("staff"))
    players = data.get("players", [])
    if isinstance(players, list):
        for number, entry in enumerate(players, 1):  # each entry on its own: every one named
            try:
                player_directory([entry])
            except ConfigError as exc:
                if exc.params.get("number") == 1:
                    exc = keyed(ConfigError, str(exc.key), **{**exc.params, "number": number})
                add(exc, Where("players", None, number))
    attempt(lambda: player_directory(players), Where("players", None, 1))  # shared cards, names
    server = data.get("server", {})
    if not isinstance(server, Mapping):
        add(keyed(ConfigError, "config.server.not_table"), Where("server"))
        server = {}
    for problem, key in _server_problems(server):
        add(problem, Where("server", key))
    socket = server.get("socket")
    for problem in diag_problems(data.get("diag", {})):
        add(
            problem,
            Where("diag", "export_dir" if problem.key == "config.diag.export_dir" else None),
        )
    for problem in broadcast_problems(data.get("broadcast")):
        add(problem, Where("broadcast", problem.params.get("option")))
    jackpot = data.get("jackpot")
    for problem in jackpot_problems(jackpot):
        option = str(problem.params.get("option", "")).strip("'\"")  # an unknown one is quoted
        if problem.key == "config.jackpot.hand" and isinstance(jackpot, Mapping):
            option = "qualifying_hand" if "qualifying_hand" in jackpot else "high_hand"
        written = option if isinstance(jackpot, Mapping) and option in jackpot else None
        add(problem, Where("jackpot", written))
    for problem, _where in list(problems[:first_read]):
        if problem.key == "config.jackpot.not_cash":  # a tournament with a jackpot
            add(problem, Where("jackpot"))
    floor = data.get("floor")
    if floor is not None:  # the floor's NATS: one address or a cluster's list
        from firmware.service.floorwire import FloorConfig

        attempt(lambda: FloorConfig.from_config(dict(floor)), Where("floor"))
    terminals = data.get("terminals", {})
    secrets: dict[str, str] | None = None
    if isinstance(terminals, Mapping):
        secrets = {}
        for name, entry in terminals.items():  # each entry on its own: every problem named
            found = attempt(
                functools.partial(terminal_secrets, {name: entry}), Where("terminals", name)
            )
            if isinstance(found, dict):
                secrets.update(found)
    else:
        attempt(lambda: terminal_secrets(terminals), Where("terminals"))
    if secrets is not None:
        for name, secret in secrets.items():
            attempt(functools.partial(TerminalSecrets, {name: secret}), Where("terminals", name))
        attempt(lambda: TerminalSecrets(secrets), Where("terminals"))  # shared secrets
        if secrets and socket is None and "tcp_port" not in server:
            add(keyed(ConfigError, "config.terminals.nowhere"), Where("terminals"))
        if config is not None:
            max_seats = config.options.max_seats  # type: ignore[attr-defined]
            for name in secrets:
                if name.startswith("seat") and name[4:].isdigit() and int(name[4:]) > max_seats:
                    problem = keyed(
                        ConfigError, "config.terminals.seat", name=name, seats=max_seats
                    )
                    add(problem, Where("terminals", name))
    levels = data.get("levels")
    if levels is not None:
        if not isinstance(levels, list) or not all(isinstance(e, Mapping) for e in levels):
            add(keyed(ConfigError, "config.levels.not_list"), Where("levels"))
        else:
            structure = config.stakes.structure if config is not None else None  # type: ignore[attr-defined]
            if structure is not None:
                before = len(problems)
                attempt(lambda: LevelSchedule.from_dicts(levels, structure=structure))
                for i in range(before, len(problems)):
                    problem = problems[i][0]
                    given = problem.params.get("number") or problem.params.get("level")
                    index = given if isinstance(given, int) and given >= 1 else 1
                    problems[i] = (problem, Where("levels", None, index))
    if levels is not None and data.get("tournament") is not None:
        add(keyed(ConfigError, "config.levels.twice"), Where("tournament"))
    elif data.get("tournament") is not None:
        attempt(
            lambda: tournament_schedule(data.get("tournament"), path), Where("tournament", "levels")
        )
    elif levels is None and config is not None and config.options.game == "tournament":  # type: ignore[attr-defined]
        add(keyed(ConfigError, "config.levels.missing"), Where("options", "game"))
    unique: dict[str, tuple[PokerTableError, Where | None]] = {}
    for n, (problem, where) in enumerate(problems):
        said = str(problem)
        if said not in unique or (n >= first_read and unique[said][1] is None):
            # Each problem once, in order; the first reading's has no place: the same
            # problem found again with its section and key gives its line.
            unique[said] = (unique[said][0] if said in unique else problem, where)
    return list(unique.values())


def _each_table_key(
    section: Mapping[str, Any],
    path: str,
    attempt: Callable[[Callable[[], object], Where | None], object],
) -> None:
    """The first problem stops the table's own reading: each stake is tried again on its
    own so that every one is named, then the usable ones together (the small blind above
    the big blind). A problem between two stakes is not named against the default that
    stands in for a bad value (issue 23: "the small blind (50) cannot exceed the big
    blind (2)" when the big blind written was not a number)."""
    from firmware.table.options import table_config_from

    profile = section.get("profile")
    bad: set[str] = set()
    for key, value in section.items():
        if key == "profile":
            continue
        one = {"table": {"profile": profile, key: value}}
        try:
            table_config_from(one, path)
        except ConfigError as exc:
            if exc.key in RELATIONAL:
                continue  # against a default: tried below with the real values
            bad.add(key)
            attempt(functools.partial(table_config_from, one, path), Where("table", key))
        except (TypeError, ValueError):
            bad.add(key)
            attempt(functools.partial(table_config_from, one, path), Where("table", key))
    usable = {k: v for k, v in section.items() if k not in bad}
    try:
        table_config_from({"table": usable}, path)
    except ConfigError as exc:
        if exc.key in RELATIONAL and not bad & {"small_blind", "big_blind"}:
            keys = [k for k in ("small_blind", "big_blind") if k in usable]
            where = Where("table", keys[0] if keys else None)
            attempt(functools.partial(table_config_from, {"table": usable}, path), where)
    except (TypeError, ValueError):
        pass  # named above, key by key


def check_config(data: Mapping[str, Any], text: str, path: str) -> list[str]:
    """Every problem of a parsed configuration, one English sentence each (empty: usable)."""
    return [str(problem) for problem in check_problems(data, text, path)]


def config_notes(data: Mapping[str, Any]) -> list[str]:
    """Keys of the things worth knowing that do not stop the table (``config check``
    prints them)."""
    notes = []
    devices = data.get("devices", {})
    if isinstance(devices, Mapping) and not any(
        isinstance(s, Mapping) and s.get("kind") == "shoe" for s in devices.values()
    ):
        notes.append("config.note.no_shoe")
    server = data.get("server", {})
    if isinstance(server, Mapping) and not server.get("socket") and "tcp_port" not in server:
        notes.append("config.note.no_socket")
    terminals = data.get("terminals", {})
    if isinstance(terminals, Mapping) and "broadcast" in terminals and "broadcast" not in data:
        notes.append("config.note.broadcast_off")
    return notes


def config_error(problems: list[PokerTableError], path: str) -> ConfigProblems:
    """One error naming every problem of a configuration (for ``serve``)."""
    return ConfigProblems(problems, path)


def _pin(lang: str) -> int:
    """``config pin``: read a PIN without echo (or one line from a pipe) and print its
    ``pin_hash``."""
    try:
        if sys.stdin.isatty():
            pin = getpass.getpass(say("cli.config.pin_prompt", lang))
        else:  # piped: no terminal to hide it from, nor a prompt to show
            pin = sys.stdin.readline()
            if not pin:
                raise EOFError
        print(hash_pin(pin.strip()))
    except ConfigError:  # hash_pin's one refusal
        return fail("config", "cli.config.pin_digits", lang)
    except (EOFError, KeyboardInterrupt):
        return fail("config", "cli.config.no_pin", lang)
    return 0


def main_config(argv: list[str] | None = None) -> int:
    """``pokertable config check FILE`` / ``pokertable config pin``."""
    lang = argv_lang(argv)
    parser = argparse.ArgumentParser(
        prog="pokertable config", description=say("cli.help.config.about", lang)
    )
    lang_option(parser, lang)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help=say("cli.help.config.check", lang))
    check.add_argument(
        "file",
        nargs="?",
        default="/etc/pokertable/table.toml",
        metavar=say("cli.help.metavar.file", lang),
        help=say("cli.help.config.file", lang),
    )
    lang_option(check, lang, sub=True)
    pin = sub.add_parser("pin", help=say("cli.help.config.pin", lang))
    lang_option(pin, lang, sub=True)
    name_commands(sub)
    args = parser.parse_args(argv)
    lang = cli_lang(args.lang)
    if args.command == "pin":
        return _pin(lang)
    try:
        text, data = read_config(args.file)
    except ConfigError as exc:
        return fail_with("config", exc, lang)
    problems = located_problems(data, text, args.file)
    for note in config_notes(data):
        print(say("cli.config.note", lang, file=args.file, note=say(note, lang)))
    if not problems:
        print(say("cli.config.ok", lang, file=args.file))
        return 0
    print(say("cli.config.problems", lang, file=args.file, count=len(problems)))
    for problem, line in problems:
        said = said_error(problem, lang)
        if line is not None:  # the line of the key (or of its section) in the file
            said = say("cli.config.at_line", lang, file=args.file, line=line, problem=said)
        print(f"  - {said}")
    return 1


__all__ = [
    "ConfigProblems",
    "check_config",
    "check_problems",
    "config_error",
    "config_notes",
    "diag_problems",
    "located_problems",
    "main_config",
]
