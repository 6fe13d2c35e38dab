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

import os
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from firmware.cli.lang import keyed
from firmware.errors import ConfigError
from firmware.i18n import tr
from firmware.protocol.auth import TERMINALS, StaffDirectory
from firmware.protocol.limits import Limits
from firmware.table.seating import same_player
from firmware.table.tournament import LevelSchedule

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
    """A file that is no small text file; the message says what it is instead, and
    :attr:`why` is the same as a translatable value (``config.why.*``)."""

    def __init__(self, why: str, **params: Any) -> None:
        self.why = {"key": f"config.why.{why}", "params": params, "text": ""}
        self.why["text"] = tr(f"config.why.{why}", "en", **params)
        super().__init__(self.why["text"])


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
            raise NotSmallText("special")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise NotSmallText("large", limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotSmallText("encoding") from None


def read_config(path: str) -> tuple[str, dict[str, Any]]:
    """Read a table configuration file; return its text and its parsed TOML.

    :raises ConfigError: as a sentence, for a missing or unreadable file or bad TOML.
    """
    try:
        text = read_small_text(path, MAX_FILE)
    except FileNotFoundError:
        raise keyed(ConfigError, "config.file.missing", path=path) from None
    except PermissionError:
        raise keyed(ConfigError, "config.file.permission", path=path) from None
    except IsADirectoryError:
        raise keyed(ConfigError, "config.file.folder", path=path) from None
    except NotSmallText as exc:
        raise keyed(ConfigError, "config.file.not_text", path=path, why=exc.why) from None
    except OSError as exc:  # a socket, a broken disk...
        raise keyed(ConfigError, "config.file.unreadable", path=path, error=exc.strerror) from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise keyed(ConfigError, "config.file.toml", path=path, error=str(exc)) from None


def read_secret_file(path: str) -> str:
    """The secret held in a credential file (surrounding blank space removed).

    :raises ConfigError: for a missing, unreadable or empty file.
    """
    try:
        secret = read_small_text(path, MAX_SECRET_FILE).strip()
    except FileNotFoundError:
        raise keyed(ConfigError, "config.secret.missing", path=path) from None
    except PermissionError:
        raise keyed(ConfigError, "config.secret.permission", path=path) from None
    except IsADirectoryError:
        raise keyed(ConfigError, "config.secret.folder", path=path) from None
    except NotSmallText as exc:
        raise keyed(ConfigError, "config.secret.not_text", path=path, why=exc.why) from None
    except OSError as exc:
        raise keyed(
            ConfigError, "config.secret.unreadable", path=path, error=exc.strerror
        ) from None
    if not secret:
        raise keyed(ConfigError, "config.secret.empty", path=path)
    return secret


def terminal_secrets(section: object) -> dict[str, str]:
    """Each terminal's secret from ``[terminals]``, credential files read.

    :raises ConfigError: for a malformed entry or a credential file that cannot be read.
    """
    if not isinstance(section, Mapping):
        raise keyed(ConfigError, "config.terminals.not_table")
    secrets: dict[str, str] = {}
    for name, entry in section.items():
        if isinstance(entry, str):
            secrets[name] = entry
        elif isinstance(entry, Mapping) and set(entry) == {"secret_file"}:
            secrets[name] = read_secret_file(str(entry["secret_file"]))
        else:
            raise keyed(ConfigError, "config.terminals.entry", name=name)
    return secrets


def staff_directory(entries: object) -> StaffDirectory:
    """Staff accounts from the configuration's ``[[staff]]`` entries.

    Each entry has ``badge``, ``name``, ``role`` (``dealer``, ``floor``,
    ``technician``) and ``pin_hash``, the text printed by ``pokertable config
    pin`` - never the PIN itself.

    :raises ConfigError: for a malformed entry, a plain PIN, a shared badge or name.
    """
    if not isinstance(entries, list):
        raise keyed(ConfigError, "config.staff.not_list")
    staff = StaffDirectory()
    for number, entry in enumerate(entries, 1):
        fields = ("badge", "name", "role", "pin_hash")
        if not isinstance(entry, dict) or any(not isinstance(entry.get(f), str) for f in fields):
            raise keyed(ConfigError, "config.staff.fields", number=number)
        if "pin" in entry:
            raise keyed(ConfigError, "config.staff.plain_pin", number=number, name=entry["name"])
        unknown = sorted(set(entry) - set(fields))
        if unknown:
            raise keyed(
                ConfigError, "config.staff.unknown", number=number, unknown=", ".join(unknown)
            )
        staff.add_hashed(entry["badge"], entry["name"], entry["role"], entry["pin_hash"])
    return staff


def player_directory(entries: object) -> dict[str, str]:
    """The player directory from the configuration's ``[[players]]`` entries: each has
    ``card`` (the id on the player's card, ``P-000123``) and ``name``.

    :raises ConfigError: for a malformed entry or a card or name listed twice.
    """
    if not isinstance(entries, list):
        raise keyed(ConfigError, "config.players.not_list")
    players: dict[str, str] = {}
    for number, entry in enumerate(entries, 1):
        if (
            not isinstance(entry, dict)
            or set(entry) != {"card", "name"}
            or not all(isinstance(entry[f], str) and entry[f].strip() for f in ("card", "name"))
            or len(entry["name"]) > 40
        ):
            raise keyed(ConfigError, "config.players.fields", number=number)
        card, name = entry["card"], entry["name"].strip()
        # A name reaches every screen, record and export as one line; a card id is
        # what the reader sends, one word: a line break, a right-to-left mark or a
        # space inside would show something else than what is stored.
        if not name.isprintable() or not card.isprintable() or any(c.isspace() for c in card):
            raise keyed(ConfigError, "config.players.printable", number=number)
        who = same_player(name)
        if card in players or any(same_player(n) == who for n in players.values()):
            raise keyed(ConfigError, "config.players.twice", number=number, card=card, name=name)
        players[card] = name
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
        raise keyed(ConfigError, "config.tournament.keys")
    path = Path(str(section["levels"]))
    if not path.is_absolute():
        path = Path(config_path).resolve().parent / path
    try:
        text = read_small_text(path, MAX_FILE)
    except (OSError, NotSmallText) as exc:
        why = exc.strerror if isinstance(exc, OSError) else exc.why
        raise keyed(ConfigError, "config.tournament.unreadable", path=str(path), why=why) from None
    return LevelSchedule.from_toml(text)


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
            raise keyed(ConfigError, "config.device.display_name", name=name)
        options[name] = rest
    return options, names


__all__ = [
    "EXIT_CONFIG",
    "MAX_FILE",
    "SERVER_KEYS",
    "TERMINALS",
    "NotSmallText",
    "device_display_names",
    "player_directory",
    "read_config",
    "read_secret_file",
    "read_small_text",
    "staff_directory",
    "terminal_secrets",
    "tournament_schedule",
]
