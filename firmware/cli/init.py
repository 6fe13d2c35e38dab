"""``pokertable init``: write a complete, commented ``table.toml``.

The file is built from a rules profile (``firmware/table/profiles/*.toml``,
copied with its comments), the number of seats with a screen, and a device
set: ``electronic`` (the virtual shoe: no card or chip hardware), ``hardware``
(the RFID shoe and chip trays on USB serial, buttons and LEDs on the GPIO
header, smart-card readers) or ``sim`` (simulated devices, for a laptop). It
declares the socket the screens connect to, one credential file per terminal
(written with a fresh random secret), commented staff entries, the retention
policy and, for a tournament, the blind levels. ``pokertable config check``
accepts the result as written; docs/configuration.md explains every line.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import secrets
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from firmware.cli.config import read_config
from firmware.cli.config_check import check_problems
from firmware.cli.helptext import argv_lang, lang_option
from firmware.cli.lang import cli_lang, fail, fail_with, keyed, said_error, say
from firmware.errors import ConfigError
from firmware.i18n import tr
from firmware.protocol.auth import hash_pin

PROFILES = ("casino-cash", "home", "tda-tournament")

GPIO_FREE = (4, 17, 27, 22, 5, 6, 13, 19, 26, 16, 20, 21, 12, 18, 23, 24, 25, 7, 8, 9, 10, 11)
"""BCM pins free for buttons and LEDs, in header order of convenience: not 0-1
(HAT EEPROM), 2-3 (I2C, kept for an I/O expander) or 14-15 (the serial console)."""

DEALER_PINS = ("dealer.next", "dealer.pause", "dealer.misdeal", "dealer.attention")

TOURNAMENT_LEVELS = (
    (25, 50, 50),
    (50, 100, 100),
    (75, 150, 150),
    (100, 200, 200),
    None,  # a break
    (150, 300, 300),
    (200, 400, 400),
    (300, 600, 600),
    (400, 800, 800),
    None,
    (500, 1000, 1000),
    (700, 1400, 1400),
    (1000, 2000, 2000),
)
"""The opening blind structure written for ``tda-tournament``: (small, big, big-blind ante);
``None`` is a 10-minute break. Levels last 20 minutes."""


def comment(key: str, lang: str, **params: object) -> str:
    """Catalog text ``key`` in ``lang`` as TOML comment lines (``# ...``), each ended."""
    return "".join(f"# {line}".rstrip() + "\n" for line in tr(key, lang, **params).split("\n"))


def note(key: str, lang: str, **params: object) -> str:
    """Catalog text ``key`` in ``lang`` as a comment after a value (``  # ...``)."""
    return "    # " + tr(key, lang, **params)


def section(name: str, lang: str) -> str:
    """A section's dashed title line, its name in ``lang``."""
    return "# " + "-" * 60 + " " + tr(f"init.section.{name}", lang) + "\n"


PROFILE_NOTES = {
    "max_buy_in_multiple = 100    # house maximum: 100 big blinds": "init.profile.max_buy_in",
    "reentry_wait_minutes = 0     # friends may sit again at once": "init.profile.reentry",
}
"""The profiles' comments after a value, by their English line (the files are English)."""


def profile_text(profile: str, seats: int, lang: str = "en") -> str:
    """The profile's file (its ``[table]`` and ``[options]``) with ``max_seats`` set and its
    comments in ``lang``."""
    if profile not in PROFILES:
        raise keyed(
            ConfigError, "cli.init.profile", profile=repr(profile), known=", ".join(PROFILES)
        )
    text = (resources.files("firmware.table") / "profiles" / f"{profile}.toml").read_text("utf-8")
    body = "\n".join(line for line in text.split("\n") if not line.startswith("#"))
    text = comment(f"init.profile.{profile}", lang) + body
    for line, key in PROFILE_NOTES.items():
        code = line.split("#")[0].rstrip()
        text = text.replace(line, code + note(key, lang))
    if seats >= 2:
        line = f"max_seats = {seats}" + note("init.max_seats", lang)
        if re.search(r"(?m)^max_seats\s*=.*$", text):
            text = re.sub(r"(?m)^max_seats\s*=.*$", line, text)
        else:
            text = text.replace("[options]\n", f"[options]\n{line}\n", 1)
    return text


def gpio_section(seats: int, factory: str, lang: str = "en") -> str:
    """``[devices.buttons]`` on the GPIO header: one action button and one turn LED per seat."""
    names = [*DEALER_PINS]
    for seat in range(1, seats + 1):
        names += [f"seat{seat}.action", f"seat{seat}.turn"]
    if len(names) > len(GPIO_FREE):
        raise keyed(
            ConfigError, "cli.init.gpio", seats=seats, lines=len(names), free=len(GPIO_FREE)
        )
    pins = dict(zip(names, GPIO_FREE, strict=False))
    buttons = ", ".join(f'"{n}" = {p}' for n, p in pins.items() if not _is_led(n))
    leds = ", ".join(f'"{n}" = {p}' for n, p in pins.items() if _is_led(n))
    return (
        comment("init.gpio", lang) + "[devices.buttons]\n"
        'kind = "buttons"\n'
        'backend = "gpio"\n'
        f'pin_factory = "{factory}"' + note("init.pin_factory", lang) + "\n"
        "bounce_ms = 20\n"
        "pull_up = true" + note("init.pull_up", lang) + "\n"
        f"buttons = {{ {buttons} }}\n"
        f"leds = {{ {leds} }}\n"
    )


SEAT_LINES = (
    ("action", 0, False),
    ("raise", 1, False),
    ("time", 2, False),
    ("sitout", 3, False),
    ("turn", 4, True),
    ("button", 5, True),
)
"""Each seat's lines on an expander port: name, bit, LED?"""


def expander_sections(seats: int, lang: str = "en") -> str:
    """The dealer's buttons on the GPIO header, the seats on MCP23017 chips (two per chip:
    the odd seat on port A, the even seat on port B; bits 6-7 spare)."""
    dealer = (
        comment("init.dealer_gpio", lang) + "[devices.dealer]\n"
        'kind = "buttons"\n'
        'backend = "gpio"\n'
        'pin_factory = "{factory}"\n'
        'buttons = { "dealer.next" = 4, "dealer.pause" = 17, "dealer.misdeal" = 27, '
        '"dealer.exposed" = 22 }\n'
        'leds = { "dealer.attention" = 5 }\n'
    )
    parts = [dealer]
    for chip in range((seats + 1) // 2):
        address = 0x20 + chip
        buttons: list[str] = []
        leds: list[str] = []
        for port, seat in (("A", 2 * chip + 1), ("B", 2 * chip + 2)):
            if seat > seats:
                continue
            for line, bit, is_led in SEAT_LINES:
                (leds if is_led else buttons).append(f'"seat{seat}.{line}" = "{port}{bit}"')
        first, last = 2 * chip + 1, min(2 * chip + 2, seats)
        parts.append(
            "\n"
            + comment("init.expander", lang, first=first, last=last, address=f"0x{address:02x}")
            + f"[devices.seats{chip + 1}]\n"
            'kind = "buttons"\n'
            'backend = "mcp23017"\n'
            "bus = 1\n"
            f"address = 0x{address:02x}\n"
            f"buttons = {{ {', '.join(buttons)} }}\n"
            f"leds = {{ {', '.join(leds)} }}\n"
        )
    return "".join(parts)


def _is_led(name: str) -> bool:
    return name.endswith((".turn", ".button", ".attention"))


def devices_text(
    kind: str, seats: int, factory: str, expander: bool = False, lang: str = "en"
) -> str:
    """The ``[devices]`` sections of a device set, commented in ``lang``."""
    head = section("devices", lang)
    if kind == "sim":
        seat_names = [f"seat{s}" for s in range(1, seats + 1)]
        zones = ", ".join(f'"{z}"' for z in ["bank", "pot", *(f"{n}.bet" for n in seat_names)])
        buttons = ", ".join(
            f'"{b}"'
            for b in ["dealer.next", "dealer.misdeal", "dealer.pause"]
            + [f"{n}.action" for n in seat_names]
        )
        leds = ", ".join(f'"{n}.turn"' for n in seat_names) or '"dealer.attention"'
        readers = ", ".join(f'"{r}"' for r in ["console", *seat_names])
        return head + (
            comment("init.sim", lang) + '[devices.shoe]\nkind = "shoe"\nbackend = "sim"\n\n'
            f'[devices.trays]\nkind = "trays"\nbackend = "sim"\nzones = [{zones}]\n\n'
            f'[devices.buttons]\nkind = "buttons"\nbackend = "sim"\nbuttons = [{buttons}]\n'
            f"leds = [{leds}]\n\n"
            f'[devices.readers]\nkind = "readers"\nbackend = "sim"\nreaders = [{readers}]\n'
        )
    if kind == "electronic":
        return head + (
            comment("init.electronic", lang)
            + '[devices.shoe]\nkind = "shoe"\nbackend = "virtual"\n\n'
            + comment("init.electronic_optional", lang)
        )
    readers = ", ".join(
        [f'console = "ACS ACR122U {0:02d} 00"']
        + [f'seat{s} = "ACS ACR122U {s:02d} 00"' for s in range(1, seats + 1)]
    )
    return head + (
        comment("init.serial", lang)
        + '[devices.shoe]\nkind = "shoe"\nbackend = "serial"\nport = "/dev/pokertable-shoe"\n\n'
        '[devices.trays]\nkind = "trays"\nbackend = "serial"\nport = "/dev/pokertable-trays"\n\n'
        + (
            expander_sections(seats, lang).replace("{factory}", factory)
            if expander
            else gpio_section(seats, factory, lang)
        )
        + "\n"
        + comment("init.readers", lang)
        + '[devices.readers]\nkind = "readers"\nbackend = "pcsc"\n'
        f"readers = {{ {readers} }}\n"
    )


def levels_text(lang: str = "en") -> str:
    """``[[levels]]`` entries of the opening tournament structure."""
    parts = [section("levels", lang) + comment("init.levels", lang)]
    for entry in TOURNAMENT_LEVELS:
        if entry is None:
            parts.append("[[levels]]\nbreak_minutes = 10\n\n")
        else:
            small, big, ante = entry
            parts.append(
                f"[[levels]]\nsmall_blind = {small}\nbig_blind = {big}\nante = {ante}\n"
                "big_blind_ante = true\nminutes = 20\n\n"
            )
    return "".join(parts)


BOARD_MODEL = "/proc/device-tree/model"
"""Where the Raspberry Pi names its model (install.sh reads the same)."""


def board_pin_factory(model_path: str = BOARD_MODEL) -> str:
    """The GPIO pin factory install.sh installs for this board: ``rpigpio`` (RPi.GPIO)
    on a Raspberry Pi 4 or older, ``lgpio`` on a Pi 5 and anywhere else."""
    try:
        with open(model_path, "rb") as handle:
            model = handle.read().replace(b"\0", b"").decode("utf-8", "replace")
    except OSError:
        return "lgpio"
    if "Raspberry Pi" in model and not ("Raspberry Pi 5" in model or "Compute Module 5" in model):
        return "rpigpio"
    return "lgpio"


def render(
    profile: str,
    seats: int,
    devices: str,
    socket: str,
    socket_group: str | None,
    secrets_dir: str,
    factory: str = "lgpio",
    staff: list[tuple[str, str, str, str]] | None = None,
    expander: bool = False,
    lang: str = "en",
) -> str:
    """The whole ``table.toml`` text (see the module docstring), commented in ``lang``."""
    today = datetime.date.today().isoformat()
    terminals = ["console", *(f"seat{s}" for s in range(1, seats + 1))]
    head = comment("init.head", lang, today=today, profile=profile, seats=seats, devices=devices)
    out = [
        head + "\n",
        profile_text(profile, seats, lang),
        "\n" + section("screens", lang) + comment("init.socket", lang) + "[server]\n"
        f'socket = "{socket}"\n',
    ]
    if socket_group:
        out.append(f'socket_group = "{socket_group}"' + note("init.socket_group", lang) + "\n")
    out.append(
        comment("init.tcp", lang) + '# tcp_host = "0.0.0.0"\n# tcp_port = 7700\n'
        '# cert = "/etc/pokertable/tls/server.pem"\n'
        '# key = "/etc/pokertable/tls/server.key"\n'
        '# client_ca = "/etc/pokertable/tls/terminals-ca.pem"\n\n'
        + comment("init.secrets", lang)
        + "[terminals]\n"
    )
    for name in terminals:
        out.append(f'{name} = {{ secret_file = "{secrets_dir}/{name}.secret" }}\n')
    out.append("\n" + section("staff", lang) + comment("init.staff", lang))
    for badge, name, role, pin_hash in staff or []:
        out.append(
            f'[[staff]]\nbadge = "{badge}"\nname = "{name}"\nrole = "{role}"\n'
            f'pin_hash = "{pin_hash}"\n\n'
        )
    if not staff:
        out.append(
            "# [[staff]]\n"
            '# badge = "04A1B2C3D4"' + note("init.staff.badge", lang) + "\n"
            '# name = "Ana"\n# role = "floor"'
            + note("init.staff.role", lang, roles="dealer, floor, technician")
            + "\n"
            '# pin_hash = "scrypt$..."\n\n'
        )
    out.append(devices_text(devices, seats, factory, expander, lang))
    out.append(
        "\n" + section("retention", lang) + comment("init.retention", lang) + "[retention]\n"
        "rotate_every_hands = 5000\n"
        "keep_journals = 4\n"
        "keep_hands = 200000\n"
        "keep_days = 0" + note("init.keep_days", lang) + "\n"
    )
    if profile == "tda-tournament":
        out.append("\n" + levels_text(lang))
    else:  # a cash game may run a bad-beat jackpot and a high hand (JACKPOT), off here
        out.append(
            "\n" + section("jackpot", lang) + comment("init.jackpot", lang) + "# [jackpot]\n"
            '# qualifying_hand = "AAATT"' + note("init.jackpot.hand", lang) + "\n"
            "# min_players_dealt = 4\n"
            "# drop_percent = 1" + note("init.jackpot.drop", lang) + "\n"
            "# drop_cap = 100\n"
            "# fund = 0" + note("init.jackpot.fund", lang) + "\n"
            "# loser_percent = 50\n# winner_percent = 25\n# table_percent = 15\n"
            "# reserve_percent = 10\n"
        )
    return "".join(out)


def write_secret(path: Path) -> None:
    """Write a fresh random secret to ``path`` (mode 0640; never overwrites one)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        os.fchmod(handle.fileno(), 0o640)
        handle.write(secrets.token_urlsafe(24) + "\n")


def _staff_in(lang: str) -> Callable[[str], tuple[str, str, str, str]]:
    """``--staff BADGE,NAME,ROLE,PIN`` read as (badge, name, role, the PIN's hash), its
    problems said in ``lang`` (argparse checks it before ``--lang`` is parsed)."""

    def staff(value: str) -> tuple[str, str, str, str]:
        parts = value.split(",")
        if len(parts) != 4:
            raise argparse.ArgumentTypeError(say("cli.init.staff", lang))
        badge, name, role, pin = parts
        try:
            return badge, name, role, hash_pin(pin)
        except ConfigError:  # hash_pin's one refusal
            raise argparse.ArgumentTypeError(say("cli.config.pin_digits", lang)) from None

    return staff


def main_init(argv: list[str] | None = None) -> int:
    """Entry point of ``pokertable init``."""
    lang = argv_lang(argv)
    parser = argparse.ArgumentParser(
        prog="pokertable init", description=say("cli.help.init.about", lang)
    )
    folder = say("cli.help.metavar.dir", lang)
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default="casino-cash",
        help=say("cli.help.init.profile", lang),
    )
    parser.add_argument(
        "--seats", type=int, metavar="N", default=9, help=say("cli.help.init.seats", lang)
    )
    parser.add_argument(
        "--devices",
        choices=("electronic", "hardware", "sim"),
        default="electronic",
        help=say("cli.help.init.devices", lang),
    )
    parser.add_argument(
        "--pin-factory",
        choices=("lgpio", "rpigpio"),
        default=board_pin_factory(),
        help=say("cli.help.init.pin_factory", lang),
    )
    parser.add_argument("--expander", action="store_true", help=say("cli.help.init.expander", lang))
    parser.add_argument(
        "--socket",
        default="/run/pokertable/table.sock",
        metavar=say("cli.help.metavar.path", lang),
        help=say("cli.help.init.socket", lang),
    )
    parser.add_argument(
        "--socket-group",
        default="pokertable-screens",
        metavar=say("cli.help.metavar.group", lang),
        help=say("cli.help.init.socket_group", lang),
    )
    parser.add_argument(
        "--secrets-dir",
        default="/etc/pokertable-terminals",
        metavar=folder,
        help=say("cli.help.init.secrets_dir", lang),
    )
    parser.add_argument(
        "--write-secrets", metavar=folder, help=say("cli.help.init.write_secrets", lang)
    )
    parser.add_argument(
        "--staff",
        type=_staff_in(lang),
        action="append",
        metavar=say("cli.help.init.staff_metavar", lang),
        help=say("cli.help.init.staff", lang),
    )
    parser.add_argument(
        "--output",
        "-o",
        default="-",
        metavar=say("cli.help.metavar.file", lang),
        help=say("cli.help.init.output", lang),
    )
    parser.add_argument("--force", action="store_true", help=say("cli.help.init.force", lang))
    lang_option(parser, lang)
    args = parser.parse_args(argv)
    lang = cli_lang(args.lang)
    if not 0 <= args.seats <= 10:
        parser.error(say("cli.init.seats", lang))
    try:
        text = render(
            args.profile,
            args.seats,
            args.devices,
            args.socket,
            args.socket_group or None,
            args.secrets_dir.rstrip("/"),
            args.pin_factory,
            args.staff,
            args.expander,
            lang,  # the file's comments in the command's language (issue 23)
        )
    except ConfigError as exc:
        return fail_with("init", exc, lang)
    target = Path(args.write_secrets or args.secrets_dir)
    written = 0
    if args.output != "-" or args.write_secrets:
        try:
            target.mkdir(parents=True, exist_ok=True)
            for name in ["console", *(f"seat{s}" for s in range(1, args.seats + 1))]:
                path = target / f"{name}.secret"
                if not path.exists():
                    write_secret(path)
                    written += 1
        except OSError as exc:
            return fail("init", "cli.init.secrets", lang, folder=target, error=exc.strerror)
    if args.output == "-":
        print(text, end="")
        return 0
    output = Path(args.output)
    if output.exists() and not args.force:
        return fail("init", "cli.init.exists", lang, path=output)
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        return fail("init", "cli.init.write", lang, path=output, error=exc.strerror)
    print(say("cli.init.wrote", lang, path=output, count=written, folder=target))
    if args.write_secrets is None or Path(args.write_secrets) == Path(args.secrets_dir):
        _, data = read_config(str(output))
        for problem in check_problems(data, text, str(output)):
            print(f"  - {said_error(problem, lang)}")
    return 0
