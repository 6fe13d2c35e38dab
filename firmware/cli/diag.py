"""``pokertable diag``: test every device (or one) from the command line.

The same tests as the console's test mode (:mod:`firmware.service.diag`):
the steps are told on the terminal and the yes/no questions asked there. The
report lists each device (health, identity, where each part is wired, link
counters) and each tested item with PASS/FAIL, in the language of ``--lang``
or the locale (:mod:`firmware.cli.lang`); ``--json`` prints it as JSON and
``--export [DIR]`` also writes it, timestamped, to a folder a technician can
take away (``[diag] export_dir``, a USB stick's mount point, or ``reports/`` in
the data folder).

Nothing is created but the exported report: the tag registry is read if it
exists (read-only), so a ``sudo pokertable diag`` before the service ever ran
leaves no root-owned file behind. A virtual shoe's fixed tags are known
without it.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
import tomllib
from typing import Any, TextIO

from firmware.cli.config import device_display_names
from firmware.cli.helptext import argv_lang, lang_option
from firmware.cli.lang import cli_lang, said_error, say
from firmware.errors import ConfigError, HardwareError
from firmware.hal import Device
from firmware.hal.backends import build_devices
from firmware.hal.deck import new_deck_order
from firmware.i18n import CATALOG
from firmware.service.diag import Diagnostics, Technician, write_report
from firmware.service.registry import TagRegistry
from firmware.views.devices import device_rows
from firmware.views.diag import report_data, report_text


def main_diag(argv: list[str] | None = None) -> int:
    """Run the diagnostics; exit 0 when every item passed, 1 when one failed, 2 when the
    devices cannot be built (a sentence on standard error says why)."""
    lang = argv_lang(argv)
    parser = argparse.ArgumentParser(
        prog="pokertable diag", description=say("cli.help.diag.about", lang)
    )
    file, folder = say("cli.help.metavar.file", lang), say("cli.help.metavar.dir", lang)
    parser.add_argument(
        "--config",
        default="/etc/pokertable/table.toml",
        metavar=file,
        help=say("cli.help.config", lang),
    )
    parser.add_argument(
        "--data", default="/var/lib/pokertable", metavar=folder, help=say("cli.help.data", lang)
    )
    parser.add_argument(
        "--device",
        metavar=say("cli.help.metavar.name", lang),
        help=say("cli.help.diag.device", lang),
    )
    parser.add_argument("--json", action="store_true", help=say("cli.help.diag.json", lang))
    parser.add_argument(
        "--export", nargs="?", const="", metavar=folder, help=say("cli.help.diag.export", lang)
    )
    lang_option(parser, lang)
    args = parser.parse_args(argv)
    lang = cli_lang(args.lang)

    def fail(key: str, **params: Any) -> int:
        print("pokertable diag: " + say(key, lang, **params), file=sys.stderr)
        return 2

    try:
        with open(args.config, "rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
    except FileNotFoundError:
        return fail("cli.diag.no_config", path=args.config)
    except PermissionError:
        return fail("cli.diag.no_permission", path=args.config)
    except tomllib.TOMLDecodeError as exc:
        return fail("cli.diag.bad_toml", path=args.config, error=str(exc))
    except UnicodeDecodeError as exc:
        return fail("cli.diag.bad_toml", path=args.config, error=str(exc))
    try:
        section, names = device_display_names(dict(data.get("devices", {})))
    except (ConfigError, TypeError, ValueError) as exc:
        return fail("cli.diag.error", error=said_error(exc, lang))
    if args.device:
        if args.device not in section:
            return fail("cli.diag.no_device", device=args.device, path=args.config)
        section = {args.device: section[args.device]}
    try:
        devices = build_devices(section)
    except (ConfigError, HardwareError) as exc:
        return fail("cli.diag.error", error=said_error(exc, lang))
    path = os.path.join(args.data, "tags.sqlite")
    try:
        registry = TagRegistry(path, read_only=True)
    except sqlite3.Error:
        # Never created here: until the service has run, cards are judged without it.
        registry = TagRegistry(":memory:")
    for device in devices.values():
        tags = getattr(device, "tags", None)
        if getattr(device, "automatic", False) and callable(tags):
            fixed = list(tags())
            if registry.card_for(fixed[0]) is None:
                registry.learn_deck(fixed, deck="virtual", order=new_deck_order())
    # With --json, stdout is the report alone (for a program); the steps go to stderr.
    technician = PromptTechnician(lang, sys.stderr if args.json else sys.stdout)
    report = Diagnostics(devices, registry, technician, data_dir=args.data).run()
    stamp = time.time()
    rows = device_rows(devices, lang, names=names, detail=True)
    zone = str(dict(data.get("table", {})).get("timezone") or "")  # config check knows it
    text = report_text(rows, report, lang, stamp, zone)
    print(report.to_json() if args.json else text)
    if args.export is not None:
        folder = args.export or str(dict(data.get("diag", {})).get("export_dir") or "")
        folder = folder or os.path.join(args.data, "reports")
        try:
            written = write_report(
                folder, stamp, text, report_data(rows, report, lang, stamp, zone)
            )
        except OSError as exc:
            return fail("tech.export.failed", folder=folder, error=exc.strerror or str(exc))
        print(say("cli.diag.exported", lang, path=written), flush=True)
    return 0 if report.passed else 1


class PromptTechnician(Technician):
    """Tells the steps on the terminal and asks the yes/no questions, in ``lang``."""

    def __init__(self, lang: str = "en", out: TextIO | None = None) -> None:
        self.lang = lang
        self.out = out if out is not None else sys.stdout
        self._target = ""

    def ask(self, device: Device, step: str, target: str) -> None:
        """Print the step (what to press, look at, place, present or scan)."""
        self._target = target
        key = f"diag.step.{step}"
        words = say(key, self.lang, target=target) if key in CATALOG else f"{step} {target}"
        print(f"[{device.name}] {words}", file=self.out, flush=True)

    def confirm(self, device: Device, question: str) -> bool:
        """Ask on the terminal; no answer (no keyboard) counts as no."""
        yes = say("cli.diag.yes_no", self.lang)
        if self._target:  # the question in the technician's language (an LED lit?)
            question = say("diag.question.look", self.lang, target=self._target)
        print(f"[{device.name}] {question} {yes} ", end="", file=self.out, flush=True)
        try:
            answer = input()
        except EOFError:
            print(say("cli.diag.no_answer", self.lang), file=self.out, flush=True)
            return False
        return answer.strip().lower().startswith(("y", "s"))


__all__ = ["PromptTechnician", "main_diag"]
