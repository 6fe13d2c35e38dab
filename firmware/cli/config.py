"""The table configuration file: reading it, checking all of it, and terminal credentials.

``pokertable config check FILE`` reads a ``table.toml`` the way ``serve``
does and names every problem it finds (not only the first), one sentence per
problem. ``serve`` calls the same :func:`check_config` before it starts, so a
configuration that ``config check`` accepts is one the service accepts; a
configuration it refuses makes ``serve`` exit with :data:`EXIT_CONFIG`, which
the units name in ``RestartPreventExitStatus=``: systemd stops instead of
restarting forever, and the reason is in the system journal.

Terminal credentials: each entry of ``[terminals]`` is either the secret
itself (tests, a laptop) or a table naming a credential file that holds it::

    [terminals]
    console = { secret_file = "/etc/pokertable-terminals/console.secret" }
    seat1 = { secret_file = "/etc/pokertable-terminals/seat1.secret" }

The controller reads every file; each screen's user reads only its own
(``systemd/install.sh`` gives each file to that terminal's group, of which the
controller is a member), so a seat screen never sees another terminal's secret.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import os
import stat
import sys
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from firmware.cli.lang import cli_lang, say
from firmware.errors import ConfigError, HardwareError, PokerTableError
from firmware.protocol.auth import TERMINALS, StaffDirectory, TerminalSecrets, hash_pin
from firmware.protocol.limits import Limits
from firmware.table.tournament import LevelSchedule
from firmware.views.alerts import said

EXIT_CONFIG = 78
"""Exit status for a configuration that cannot work (``EX_CONFIG`` of sysexits.h)."""

SERVER_KEYS = (
    "socket",
    "socket_group",
    "tcp_host",
    "tcp_port",
    "cert",
    "key",
    "client_ca",
    "badge_grace_seconds",
    *Limits.__dataclass_fields__,
)
"""The options of ``[server]`` (with the connection limits of :class:`Limits`)."""


MAX_FILE = 1 << 20
"""The largest configuration or blind-structure file read, in bytes (1 MiB)."""

MAX_SECRET_FILE = 4096
"""The largest credential file read, in bytes."""


class NotSmallText(ValueError):
    """A file that is no small text file; the message says what it is instead."""


def read_small_text(path: str | Path, limit: int) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes.

    A path to ``/dev/zero``, a FIFO or a huge file is refused without reading it
    all (or waiting for a writer).

    :raises OSError: as :func:`open` (``FileNotFoundError``, ``PermissionError``,
        ``IsADirectoryError``).
    :raises NotSmallText: for a device, a FIFO, a file above ``limit`` or bytes that
        are not UTF-8.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens without a writer
    with os.fdopen(fd, "rb") as file:
        mode = os.fstat(file.fileno()).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise NotSmallText("is not a regular file (a device or a pipe)")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise NotSmallText(f"is larger than {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotSmallText("is not UTF-8 text") from None


def read_config(path: str) -> tuple[str, dict[str, Any]]:
    """Read a table configuration file; return its text and its parsed TOML.

    :raises ConfigError: as a sentence, for a missing or unreadable file or bad TOML.
    """
    try:
        text = read_small_text(path, MAX_FILE)
    except FileNotFoundError:
        raise ConfigError(
            f"The configuration file {path} does not exist; write one with "
            f"'pokertable init --output {path}' or pass --config."
        ) from None
    except PermissionError:
        raise ConfigError(
            f"The configuration file {path} cannot be read by this user; run the command as "
            "the table's user (sudo -u pokertable ...) or as root."
        ) from None
    except IsADirectoryError:
        raise ConfigError(f"{path} is a folder, not a configuration file.") from None
    except NotSmallText as exc:
        raise ConfigError(f"The configuration file {path} {exc}.") from None
    except OSError as exc:  # a socket, a broken disk...
        raise ConfigError(
            f"The configuration file {path} cannot be read ({exc.strerror})."
        ) from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"The configuration file {path} is not valid TOML: {exc}.") from None


def read_secret_file(path: str) -> str:
    """The secret held in a credential file (surrounding blank space removed).

    :raises ConfigError: for a missing, unreadable or empty file.
    """
    try:
        secret = read_small_text(path, MAX_SECRET_FILE).strip()
    except FileNotFoundError:
        raise ConfigError(f"The credential file {path} does not exist.") from None
    except PermissionError:
        raise ConfigError(f"The credential file {path} cannot be read by this user.") from None
    except IsADirectoryError:
        raise ConfigError(f"The credential file {path} is not a text file.") from None
    except NotSmallText as exc:
        raise ConfigError(
            f"The credential file {path} {exc}; it holds one line, the terminal's secret."
        ) from None
    except OSError as exc:
        raise ConfigError(f"The credential file {path} cannot be read ({exc.strerror}).") from None
    if not secret:
        raise ConfigError(f"The credential file {path} is empty.")
    return secret


def terminal_secrets(section: object) -> dict[str, str]:
    """Each terminal's secret from ``[terminals]``, credential files read.

    :raises ConfigError: for a malformed entry or a credential file that cannot be read.
    """
    if not isinstance(section, Mapping):
        raise ConfigError("[terminals] must be a table: terminal = secret or { secret_file }.")
    secrets: dict[str, str] = {}
    for name, entry in section.items():
        if isinstance(entry, str):
            secrets[name] = entry
        elif isinstance(entry, Mapping) and set(entry) == {"secret_file"}:
            secrets[name] = read_secret_file(str(entry["secret_file"]))
        else:
            raise ConfigError(
                f'[terminals] {name} must be its secret or {{ secret_file = "/path" }}.'
            )
    return secrets


def staff_directory(entries: object) -> StaffDirectory:
    """Staff accounts from the configuration's ``[[staff]]`` entries.

    Each entry has ``badge``, ``name``, ``role`` (``dealer``, ``floor``,
    ``technician``) and ``pin_hash``, the text printed by ``pokertable config
    pin`` - never the PIN itself.

    :raises ConfigError: for a malformed entry, a plain PIN, a shared badge or name.
    """
    if not isinstance(entries, list):
        raise ConfigError("[[staff]] must be a list of tables (badge, name, role, pin_hash).")
    staff = StaffDirectory()
    for number, entry in enumerate(entries, 1):
        fields = ("badge", "name", "role", "pin_hash")
        if not isinstance(entry, dict) or any(not isinstance(entry.get(f), str) for f in fields):
            raise ConfigError(
                f"Staff entry {number} needs badge, name, role and pin_hash, all text."
            )
        if "pin" in entry:
            raise ConfigError(
                f"Staff entry {number} ({entry['name']}) has a plain pin; store only pin_hash."
            )
        unknown = sorted(set(entry) - set(fields))
        if unknown:
            raise ConfigError(f"Staff entry {number} has unknown fields: {', '.join(unknown)}.")
        staff.add_hashed(entry["badge"], entry["name"], entry["role"], entry["pin_hash"])
    return staff


def player_directory(entries: object) -> dict[str, str]:
    """The player directory from the configuration's ``[[players]]`` entries: each has
    ``card`` (the id on the player's card, ``P-000123``) and ``name``.

    :raises ConfigError: for a malformed entry or a card or name listed twice.
    """
    if not isinstance(entries, list):
        raise ConfigError("[[players]] must be a list of tables (card, name).")
    players: dict[str, str] = {}
    for number, entry in enumerate(entries, 1):
        if (
            not isinstance(entry, dict)
            or set(entry) != {"card", "name"}
            or not all(isinstance(entry[f], str) and entry[f].strip() for f in ("card", "name"))
            or len(entry["name"]) > 40
        ):
            raise ConfigError(
                f"Player entry {number} needs exactly card and name, both text (a name of "
                "at most 40 characters)."
            )
        if entry["card"] in players or entry["name"] in players.values():
            raise ConfigError(
                f"Player entry {number}: the card {entry['card']} or the name {entry['name']} "
                "is listed twice; each player has one card."
            )
        players[entry["card"]] = entry["name"].strip()
    return players


def tournament_schedule(section: object, config_path: str) -> LevelSchedule | None:
    """The blind structure named by the configuration's ``[tournament]`` section, or ``None``.

    ``[tournament] levels = "levels.toml"`` names a blind-structure file
    (read by :meth:`LevelSchedule.from_toml`; a relative path is relative to
    the configuration file's folder).

    :raises ConfigError: for an unknown key, a missing file or a bad structure.
    """
    if section is None:
        return None
    if not isinstance(section, dict) or set(section) != {"levels"}:
        raise ConfigError(
            '[tournament] takes one key, levels = "levels.toml" (the blind-structure file).'
        )
    path = Path(str(section["levels"]))
    if not path.is_absolute():
        path = Path(config_path).resolve().parent / path
    try:
        text = read_small_text(path, MAX_FILE)
    except (OSError, NotSmallText) as exc:
        why = exc.strerror if isinstance(exc, OSError) else str(exc)
        raise ConfigError(
            f"The blind-structure file {path} cannot be read ({why}); "
            "fix [tournament] levels in the configuration."
        ) from None
    return LevelSchedule.from_toml(text)


def diag_problems(section: object) -> list[str]:
    """What is wrong with ``[diag]`` (``export_dir``: an absolute folder for the
    technician's reports, a USB stick's mount point say), as sentences."""
    if not isinstance(section, Mapping):
        return ['[diag] must be a table: [diag] export_dir = "/media/usb".']
    problems = []
    unknown = sorted(set(section) - {"export_dir"})
    if unknown:
        problems.append(f"Unknown [diag] option(s): {', '.join(unknown)}; known: export_dir.")
    folder = section.get("export_dir")
    if folder is not None and (not isinstance(folder, str) or not os.path.isabs(folder)):
        problems.append(
            "[diag] export_dir must be an absolute folder such as /media/usb (where the "
            "technician's reports are written)."
        )
    return problems


def device_display_names(
    section: object,
) -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
    """Split each ``[devices.NAME] display_name`` off the device options.

    ``display_name`` is one text, or a table by language (``{ es = "Zapato",
    en = "Card shoe" }``); screens show it instead of the configuration key.

    :raises ConfigError: for a display name that is neither.
    """
    if not isinstance(section, dict):
        return {}, {}
    options: dict[str, Any] = {}
    names: dict[str, dict[str, str]] = {}
    for name, raw in section.items():
        if not isinstance(raw, dict) or "display_name" not in raw:
            options[name] = raw
            continue
        rest = dict(raw)
        shown = rest.pop("display_name")
        if isinstance(shown, str) and shown.strip():
            names[name] = {"es": shown, "en": shown}
        elif (
            isinstance(shown, dict)
            and shown
            and set(shown) <= {"es", "en"}
            and all(isinstance(v, str) and v.strip() for v in shown.values())
        ):
            names[name] = dict(shown)
        else:
            raise ConfigError(
                f"[devices.{name}] display_name must be a text or a table of es and en texts, "
                'for example display_name = { es = "Zapato", en = "Card shoe" }.'
            )
        options[name] = rest
    return options, names


def check_config(data: Mapping[str, Any], text: str, path: str) -> list[str]:
    """Every problem of a parsed configuration, one sentence each (empty: it is usable).

    Devices are created (their options checked) but not opened, so this runs
    on any machine; a backend whose library is missing is a problem too.
    """
    from firmware.hal.backends import build_devices
    from firmware.service.retention import Retention
    from firmware.table.options import load_table_config, profile_options
    from firmware.table.tournament import LevelSchedule

    problems: list[str] = []

    def attempt(step: Callable[[], object]) -> object:
        try:
            return step()
        except (ConfigError, HardwareError) as exc:
            problems.append(str(exc))
        except (TypeError, ValueError) as exc:
            problems.append(f"A value in {path} has the wrong type: {exc}.")
        return None

    config = attempt(lambda: load_table_config(text, source=f"configuration {path}"))
    table_section, options = data.get("table", {}), data.get("options", {})
    if config is None and isinstance(table_section, Mapping) and isinstance(options, Mapping):
        # The stakes and the profile's options fail separately: report both.
        attempt(lambda: profile_options(str(table_section.get("profile")), **options))
    devices = data.get("devices", {})
    if isinstance(devices, Mapping):
        # A device's display_name is for the screens, not for its driver.
        plain = attempt(lambda: device_display_names(dict(devices))[0])
        for name, section in (plain if isinstance(plain, dict) else {}).items():
            attempt(functools.partial(build_devices, {name: section}))
    else:
        problems.append("[devices] must be a table of devices ([devices.shoe], ...).")
    attempt(lambda: Retention.from_config(dict(data.get("retention", {}))))
    staff = data.get("staff", [])
    if isinstance(staff, list):
        for number, entry in enumerate(staff, 1):
            try:
                staff_directory([entry])
            except ConfigError as exc:
                problems.append(str(exc).replace("Staff entry 1", f"Staff entry {number}"))
        attempt(lambda: staff_directory(staff))  # shared badges and names
    else:
        problems.append("[[staff]] must be a list of tables (badge, name, role, pin_hash).")
    attempt(lambda: player_directory(data.get("players", [])))
    server = data.get("server", {})
    if not isinstance(server, Mapping):
        problems.append("[server] must be a table of options.")
        server = {}
    unknown = sorted(set(server) - set(SERVER_KEYS))
    if unknown:
        problems.append(
            f"Unknown [server] option(s): {', '.join(unknown)}; known: {', '.join(SERVER_KEYS)}."
        )
    if "tcp_port" in server:
        for key in ("cert", "key", "client_ca"):
            if key not in server:
                problems.append(f"[server] tcp_port needs TLS: set {key}.")
            elif not Path(str(server[key])).is_file():
                problems.append(f"[server] {key} = {server[key]!r} is not a file.")
    socket = server.get("socket")
    if socket is not None and (not isinstance(socket, str) or not os.path.isabs(socket)):
        problems.append(
            "[server] socket must be an absolute path such as /run/pokertable/table.sock."
        )
    problems += diag_problems(data.get("diag", {}))
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
            problems.append(
                "[terminals] are declared but the controller listens nowhere; set [server] "
                'socket = "/run/pokertable/table.sock" (or tcp_port for screens on their own '
                "boards)."
            )
        if config is not None:
            max_seats = config.options.max_seats  # type: ignore[attr-defined]
            for name in secrets:
                if name.startswith("seat") and name[4:].isdigit() and int(name[4:]) > max_seats:
                    problems.append(
                        f"[terminals] {name} is beyond the table's {max_seats} seats (max_seats)."
                    )
    levels = data.get("levels")
    if levels is not None:
        if not isinstance(levels, list) or not all(isinstance(e, Mapping) for e in levels):
            problems.append("[[levels]] must be a list of levels and breaks.")
        else:
            structure = config.stakes.structure if config is not None else None  # type: ignore[attr-defined]
            if structure is not None:
                attempt(lambda: LevelSchedule.from_dicts(levels, structure=structure))
    if levels is not None and data.get("tournament") is not None:
        problems.append(
            "Give the blind levels once: either [[levels]] entries or [tournament] levels = "
            '"FILE", not both.'
        )
    elif data.get("tournament") is not None:
        attempt(lambda: tournament_schedule(data.get("tournament"), path))
    elif levels is None and config is not None and config.options.game == "tournament":  # type: ignore[attr-defined]
        problems.append(
            "A tournament table needs its blind levels: add [[levels]] entries "
            "(small_blind, big_blind, ante, minutes) as 'pokertable init --profile "
            "tda-tournament' writes them, or name a blind-structure file with "
            '[tournament] levels = "levels.toml".'
        )
    return list(dict.fromkeys(problems))  # each problem once, in order


def config_notes(data: Mapping[str, Any]) -> list[str]:
    """Things worth knowing that do not stop the table (``config check`` prints them)."""
    notes = []
    devices = data.get("devices", {})
    if isinstance(devices, Mapping) and not any(
        isinstance(s, Mapping) and s.get("kind") == "shoe" for s in devices.values()
    ):
        notes.append(
            "No shoe is configured: cards can only be entered by hand. Add [devices.shoe] with "
            'backend = "serial" (the RFID shoe) or backend = "virtual" (an electronic table).'
        )
    server = data.get("server", {})
    if isinstance(server, Mapping) and not server.get("socket") and "tcp_port" not in server:
        notes.append("No [server] socket: no screen or console can connect to this table.")
    return notes


def main_config(argv: list[str] | None = None) -> int:
    """``pokertable config check FILE`` / ``pokertable config pin``."""
    parser = argparse.ArgumentParser(
        prog="pokertable config",
        description="Check a table configuration, or make a staff PIN's hash for it.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="name every problem of a table.toml")
    check.add_argument("file", nargs="?", default="/etc/pokertable/table.toml")
    check.add_argument("--lang", choices=("es", "en"), help="language (default: the locale)")
    sub.add_parser("pin", help="read a PIN (not echoed) and print its pin_hash for [[staff]]")
    args = parser.parse_args(argv)
    if args.command == "pin":
        try:
            print(hash_pin(getpass.getpass("PIN (4 to 12 digits): ")))
        except ConfigError as exc:
            print(f"pokertable config: {exc}", file=sys.stderr)
            return 1
        except (EOFError, KeyboardInterrupt):
            print("pokertable config: no PIN given.", file=sys.stderr)
            return 1
        return 0
    lang = cli_lang(args.lang)
    try:
        text, data = read_config(args.file)
    except ConfigError as exc:
        print(f"pokertable config: {said_error(exc, lang)}", file=sys.stderr)
        return 1
    problems = check_config(data, text, args.file)
    for note in config_notes(data):
        print(say("cli.config.note", lang, file=args.file, note=note))
    if not problems:
        print(say("cli.config.ok", lang, file=args.file))
        return 0
    print(say("cli.config.problems", lang, file=args.file, count=len(problems)))
    for problem in problems:
        print(f"  - {problem}")
    return 1


def said_error(exc: PokerTableError, lang: str) -> str:
    """An error's sentence in ``lang`` when it has a catalog key, else as written."""
    return said(exc.key, exc.params, str(exc), lang)


def config_error(problems: list[str], path: str) -> PokerTableError:
    """One error naming every problem of a configuration (for ``serve``)."""
    return ConfigError(
        f"The configuration {path} has {len(problems)} problem(s): "
        + " ".join(problems)
        + f" Fix them and check with 'pokertable config check {path}'."
    )


__all__ = [
    "EXIT_CONFIG",
    "TERMINALS",
    "check_config",
    "main_config",
    "player_directory",
    "read_config",
    "staff_directory",
    "terminal_secrets",
]
