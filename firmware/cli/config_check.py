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


def _server_problems(server: Mapping[str, Any]) -> list[PokerTableError]:
    """What is wrong with ``[server]``'s options."""
    problems: list[PokerTableError] = []
    unknown = sorted(set(server) - set(SERVER_KEYS))
    if unknown:
        problems.append(
            keyed(
                ConfigError,
                "config.server.unknown",
                unknown=", ".join(unknown),
                known=", ".join(SERVER_KEYS),
            )
        )
    if "tcp_port" in server:
        for key in ("cert", "key", "client_ca"):
            if key not in server:
                problems.append(keyed(ConfigError, "config.server.tls", option=key))
            elif not Path(str(server[key])).is_file():
                problems.append(
                    keyed(ConfigError, "config.server.no_file", option=key, value=repr(server[key]))
                )
    socket = server.get("socket")
    if socket is not None and (not isinstance(socket, str) or not os.path.isabs(socket)):
        problems.append(keyed(ConfigError, "config.server.socket"))
    return problems


def check_problems(data: Mapping[str, Any], text: str, path: str) -> list[PokerTableError]:
    """Every problem of a parsed configuration, each an error with its catalog key
    (empty: it is usable).

    Devices are created (their options checked) but not opened, so this runs
    on any machine; a backend whose library is missing is a problem too.
    """
    from firmware.hal.backends import build_devices
    from firmware.service.retention import Retention
    from firmware.table.options import load_table_config, profile_options, table_config_from
    from firmware.table.tournament import LevelSchedule

    problems: list[PokerTableError] = []

    def attempt(step: Callable[[], object]) -> object:
        try:
            return step()
        except (ConfigError, HardwareError) as exc:
            problems.append(exc)
        except (TypeError, ValueError) as exc:
            problems.append(keyed(ConfigError, "config.wrong_type", path=path, error=str(exc)))
        return None

    config = attempt(lambda: load_table_config(text, source=path))
    table_section, options = data.get("table", {}), data.get("options", {})
    if config is None and isinstance(table_section, Mapping) and isinstance(options, Mapping):
        # The first problem stops the table's own reading: each stake and each
        # option is tried again on its own, so that every one is named.
        profile = table_section.get("profile")
        for key, value in table_section.items():
            if key != "profile":
                one = {"table": {"profile": profile, key: value}}
                attempt(functools.partial(table_config_from, one, path))
        before = len(problems)
        for key, value in options.items():
            attempt(functools.partial(profile_options, str(profile), **{key: value}))
        if len(problems) == before:  # options that cannot work together
            attempt(lambda: profile_options(str(profile), **options))
    devices = data.get("devices", {})
    if isinstance(devices, Mapping):
        # A device's display_name is for the screens, not for its driver.
        plain = attempt(lambda: device_display_names(dict(devices))[0])
        for name, section in (plain if isinstance(plain, dict) else {}).items():
            attempt(functools.partial(build_devices, {name: section}))
    else:
        problems.append(keyed(ConfigError, "config.devices.not_table"))
    attempt(lambda: Retention.from_config(dict(data.get("retention", {}))))
    staff = data.get("staff", [])
    if isinstance(staff, list):
        for number, entry in enumerate(staff, 1):
            try:
                staff_directory([entry])
            except ConfigError as exc:
                if exc.params.get("number") == 1:  # the entry's own number, not 1
                    exc = keyed(ConfigError, str(exc.key), **{**exc.params, "number": number})
                problems.append(exc)
        attempt(lambda: staff_directory(staff))  # shared badges and names
    else:
        problems.append(keyed(ConfigError, "config.staff.not_list"))
    players = data.get("players", [])
    if isinstance(players, list):
        for number, entry in enumerate(players, 1):  # each entry on its own: every one named
            try:
                player_directory([entry])
            except ConfigError as exc:
                if exc.params.get("number") == 1:
                    exc = keyed(ConfigError, str(exc.key), **{**exc.params, "number": number})
                problems.append(exc)
    attempt(lambda: player_directory(players))  # shared cards and names
    server = data.get("server", {})
    if not isinstance(server, Mapping):
        problems.append(keyed(ConfigError, "config.server.not_table"))
        server = {}
    problems += _server_problems(server)
    socket = server.get("socket")
    problems += diag_problems(data.get("diag", {}))
    floor = data.get("floor")
    if floor is not None:  # the floor's NATS: one address or a cluster's list
        from firmware.service.floorlink import FloorConfig

        attempt(lambda: FloorConfig.from_config(dict(floor)))
    problems += broadcast_problems(data.get("broadcast"))
    terminals = data.get("terminals", {})
    secrets: dict[str, str] | None = None
    if isinstance(terminals, Mapping):
        secrets = {}
        for name, entry in terminals.items():  # each entry on its own: every problem named
            found = attempt(functools.partial(terminal_secrets, {name: entry}))
            if isinstance(found, dict):
                secrets.update(found)
    else:
        attempt(lambda: terminal_secrets(terminals))
    if secrets is not None:
        for name, secret in secrets.items():
            attempt(functools.partial(TerminalSecrets, {name: secret}))
        attempt(lambda: TerminalSecrets(secrets))  # shared secrets
        if secrets and socket is None and "tcp_port" not in server:
            problems.append(keyed(ConfigError, "config.terminals.nowhere"))
        if config is not None:
            max_seats = config.options.max_seats  # type: ignore[attr-defined]
            for name in secrets:
                if name.startswith("seat") and name[4:].isdigit() and int(name[4:]) > max_seats:
                    problems.append(
                        keyed(ConfigError, "config.terminals.seat", name=name, seats=max_seats)
                    )
    levels = data.get("levels")
    if levels is not None:
        if not isinstance(levels, list) or not all(isinstance(e, Mapping) for e in levels):
            problems.append(keyed(ConfigError, "config.levels.not_list"))
        else:
            structure = config.stakes.structure if config is not None else None  # type: ignore[attr-defined]
            if structure is not None:
                attempt(lambda: LevelSchedule.from_dicts(levels, structure=structure))
    if levels is not None and data.get("tournament") is not None:
        problems.append(keyed(ConfigError, "config.levels.twice"))
    elif data.get("tournament") is not None:
        attempt(lambda: tournament_schedule(data.get("tournament"), path))
    elif levels is None and config is not None and config.options.game == "tournament":  # type: ignore[attr-defined]
        problems.append(keyed(ConfigError, "config.levels.missing"))
    unique: dict[str, PokerTableError] = {}
    for problem in problems:
        unique.setdefault(str(problem), problem)  # each problem once, in order
    return list(unique.values())


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
    problems = check_problems(data, text, args.file)
    for note in config_notes(data):
        print(say("cli.config.note", lang, file=args.file, note=say(note, lang)))
    if not problems:
        print(say("cli.config.ok", lang, file=args.file))
        return 0
    print(say("cli.config.problems", lang, file=args.file, count=len(problems)))
    for problem in problems:
        print(f"  - {said_error(problem, lang)}")
    return 1


__all__ = [
    "ConfigProblems",
    "check_config",
    "check_problems",
    "config_error",
    "config_notes",
    "diag_problems",
    "main_config",
]
