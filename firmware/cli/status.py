"""The running table's status: written by ``serve``, shown by ``pokertable status``.

``serve`` keeps a small JSON file in its runtime folder (``/run/pokertable/
status.json``, memory, not the SD card) up to date: the table's state, each
device's health, the terminals connected and the last alerts. It is rewritten
only when something in it changed, at most once a second, so an idle table
writes nothing. ``pokertable status`` prints it, or says that the controller is
not running. A controller started by hand (no /run/pokertable) keeps the file in
its data folder, and ``pokertable status`` finds it through the folder's lock
(:mod:`firmware.cli.serve_lock`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware.cli.helptext import argv_lang, lang_option
from firmware.cli.lang import cli_lang, say
from firmware.cli.serve_lock import (
    LOCK_NAME,
    STATUS_NAME,
    lock_held,
    read_lock,
    running_controllers,
)
from firmware.i18n import tr_count
from firmware.views.alerts import said

DEFAULT_STATUS = "/run/pokertable/status.json"
KEEP_ALERTS = 10


def table_status(controller: Any, server: Any | None) -> dict[str, Any]:
    """The status as plain data (no clock in it: it changes only when the table does)."""
    table = controller.table
    if controller.testing:
        state, code = "testing devices", "testing"
    elif controller.paused:
        state, code = "paused", "paused"
    elif table.hand is not None:
        state, code = f"hand {table.hand_number} in play", "hand"
    else:
        state, code = "between hands", "idle"
    devices = {
        name: {
            "kind": type(device).__name__,
            "health": device.health().value,
            "fault": controller.state.faults.get(name),
            "fault_key": _plain(controller.state.fault_keys.get(name, (None, {}))),
        }
        for name, device in controller.devices.items()
    }
    terminals: list[str] = []
    if server is not None:
        with server._clients_lock:
            terminals = sorted(
                str(c.terminal) for c in server.clients.values() if c.terminal and not c.closed
            )
    alerts = [
        {
            "time": a.time,
            "text": a.text,
            "device": a.device,
            "key": a.key,
            "params": _plain(a.params),
        }
        for a in controller.alerts[-KEEP_ALERTS:]
    ]
    return {
        "pid": os.getpid(),
        "profile": table.config.profile,
        "state": state,
        "state_code": code,
        "hands": table.hand_number,
        "devices": devices,
        "terminals": terminals,
        "alerts": alerts,
    }


class StatusFile:
    """Rewrites the status file when the status changes, at most every ``interval`` s."""

    def __init__(
        self,
        path: str,
        snapshot: Callable[[], dict[str, Any]],
        interval: float = 1.0,
    ) -> None:
        self.path = Path(path)
        self.snapshot = snapshot
        self.interval = interval
        self.writes = 0
        self._last: dict[str, Any] | None = None
        self._written_at = -1e9

    def update(self, now: float) -> None:
        """Write the status if it changed and ``interval`` passed since the last write."""
        if now - self._written_at < self.interval:
            return
        status = self.snapshot()
        if status == self._last:
            return
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(status, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, self.path)
        self._last = status
        self._written_at = now
        self.writes += 1

    def remove(self) -> None:
        """Remove the file (the controller stops)."""
        self.path.unlink(missing_ok=True)


def _plain(value: Any) -> Any:
    """``value`` as JSON can hold it (an alert's values may be any type)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def render(status: dict[str, Any], lang: str = "en") -> str:
    """The status as lines for a person, in ``lang`` (alerts and faults too when the
    controller gave them a catalog key)."""
    code = status.get("state_code")
    state = (
        say(f"cli.status.state.{code}", lang, hand=status["hands"])
        if code in ("testing", "paused", "hand", "idle")
        else str(status["state"])
    )
    lines = [
        tr_count(  # "1 mano", "3 manos"
            "cli.status.table",
            int(status["hands"]),
            lang,
            profile=status["profile"],
            state=state,
            hands=status["hands"],
        ),
        say("cli.status.devices" if status["devices"] else "cli.status.no_devices", lang),
    ]
    for name, device in sorted(status["devices"].items()):
        text = device.get("fault")
        key, params = (device.get("fault_key") or [None, {}])[:2]
        fault = f" - {said(key, params or {}, text, lang)}" if text else ""
        health = say(f"ui.health.{device['health']}", lang)
        lines.append(f"  {name:10} {device['kind']:14} {health}{fault}")
    terminals = status["terminals"]
    shown = ", ".join(terminals) if terminals else say("cli.status.none", lang)
    lines.append(say("cli.status.terminals", lang, terminals=shown))
    lines.append(say("cli.status.alerts" if status["alerts"] else "cli.status.no_alerts", lang))
    for alert in status["alerts"]:
        device = f" [{alert['device']}]" if alert.get("device") else ""
        text = said(alert.get("key"), alert.get("params") or {}, alert["text"], lang)
        lines.append(f"  {alert['time']:>10.1f} s{device} {text}")
    return "\n".join(lines)


def main_status(argv: list[str] | None = None) -> int:
    """``pokertable status [--file PATH] [--json]``."""
    lang = argv_lang(argv)
    parser = argparse.ArgumentParser(
        prog="pokertable status", description=say("cli.help.status.about", lang)
    )
    parser.add_argument(
        "--file",
        default=None,
        metavar=say("cli.help.metavar.file", lang),
        help=say("cli.help.status.file", lang),
    )
    parser.add_argument(
        "--data",
        default=None,
        metavar=say("cli.help.metavar.dir", lang),
        help=say("cli.help.status.data", lang),
    )
    parser.add_argument("--json", action="store_true", help=say("cli.help.status.json", lang))
    lang_option(parser, lang)
    args = parser.parse_args(argv)
    lang = cli_lang(args.lang)
    found = status_path(args.file, args.data)
    if isinstance(found, list):  # several controllers started by hand: which one?
        listed = "; ".join(f"{h.get('data')} (pid {h.get('pid')})" for h in found)
        print("pokertable status: " + say("cli.status.choose", lang, found=listed), file=sys.stderr)
        return 2
    path = found

    def fail(key: str, code: int, **params: Any) -> int:
        print("pokertable status: " + say(key, lang, path=path, **params), file=sys.stderr)
        return code

    try:
        status = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return fail("cli.status.not_running", 3)
    except PermissionError:
        return fail("cli.status.no_permission", 4)
    except (OSError, ValueError) as exc:
        return fail("cli.status.unreadable", 4, error=str(exc))
    pid = status.get("pid") if isinstance(status, dict) else None
    if isinstance(pid, int) and not Path(f"/proc/{pid}").exists():
        return fail("cli.status.gone", 3, pid=pid)
    if isinstance(pid, int) and args.data and lock_held(args.data) is False:
        # A file left by a controller that ended without removing it (a power cut): its
        # process id may belong to another process since, but nobody holds the lock.
        return fail("cli.status.gone", 3, pid=pid)
    try:
        if args.json:
            shown = json.dumps(status, ensure_ascii=False, indent=2)
        else:
            shown = render(status, lang)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        return fail("cli.status.unreadable", 4, error=f"{type(exc).__name__}: {exc}")
    print(shown)
    return 0


def status_path(given: str | None, data_dir: str | None) -> Path | list[dict[str, Any]]:
    """The status file to read: ``--file``; else the one named by the lock of the data
    folder ``--data``; else /run/pokertable's when it exists; else the one of the only
    controller this user started by hand (a list of them when there are several)."""
    if given:
        return Path(given)
    if data_dir:
        holder = read_lock(Path(data_dir) / LOCK_NAME)
        named = holder.get("status")
        return Path(named) if isinstance(named, str) else Path(data_dir) / STATUS_NAME
    if os.path.exists(DEFAULT_STATUS):
        return Path(DEFAULT_STATUS)
    running = [h for h in running_controllers() if isinstance(h.get("status"), str)]
    if len(running) == 1:
        return Path(running[0]["status"])
    if len(running) > 1:
        return running
    return Path(DEFAULT_STATUS)


__all__ = [
    "DEFAULT_STATUS",
    "StatusFile",
    "main_status",
    "render",
    "status_path",
    "table_status",
]
