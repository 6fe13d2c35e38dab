"""The running table's status: written by ``serve``, shown by ``pokertable status``.

``serve`` keeps a small JSON file in its runtime folder (``/run/pokertable/
status.json``, memory, not the SD card) up to date: the table's state, each
device's health, the terminals connected and the last alerts. It is rewritten
only when something in it changed, at most once a second, so an idle table
writes nothing. ``pokertable status`` prints it, or says that the controller is
not running.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_STATUS = "/run/pokertable/status.json"
KEEP_ALERTS = 10


def table_status(controller: Any, server: Any | None) -> dict[str, Any]:
    """The status as plain data (no clock in it: it changes only when the table does)."""
    table = controller.table
    if controller.testing:
        state = "testing devices"
    elif controller.paused:
        state = "paused"
    elif table.hand is not None:
        state = f"hand {table.hand_number} in play"
    else:
        state = "between hands"
    devices = {
        name: {
            "kind": type(device).__name__,
            "health": device.health().value,
            "fault": controller.state.faults.get(name),
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
        {"time": a.time, "text": a.text, "device": a.device}
        for a in controller.alerts[-KEEP_ALERTS:]
    ]
    return {
        "pid": os.getpid(),
        "profile": table.config.profile,
        "state": state,
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


def render(status: dict[str, Any]) -> str:
    """The status as lines for a person."""
    lines = [
        f"Table ({status['profile']}): {status['state']}; {status['hands']} hand(s) since the "
        "journal began.",
        "Devices:" if status["devices"] else "Devices: none configured.",
    ]
    for name, device in sorted(status["devices"].items()):
        fault = f" - {device['fault']}" if device.get("fault") else ""
        lines.append(f"  {name:10} {device['kind']:14} {device['health']}{fault}")
    terminals = status["terminals"]
    lines.append(f"Terminals connected: {', '.join(terminals) if terminals else 'none'}.")
    lines.append("Last alerts:" if status["alerts"] else "Last alerts: none.")
    for alert in status["alerts"]:
        device = f" [{alert['device']}]" if alert.get("device") else ""
        lines.append(f"  {alert['time']:>10.1f} s{device} {alert['text']}")
    return "\n".join(lines)


def main_status(argv: list[str] | None = None) -> int:
    """``pokertable status [--file PATH] [--json]``."""
    parser = argparse.ArgumentParser(prog="pokertable status", description=__doc__)
    parser.add_argument("--file", default=DEFAULT_STATUS, help="the status file serve writes")
    parser.add_argument("--json", action="store_true", help="print the status as JSON")
    args = parser.parse_args(argv)
    path = Path(args.file)
    try:
        status = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        print(
            f"pokertable status: the controller is not running (no status in {path}); start it "
            "with 'systemctl start pokertable' and see 'journalctl -u pokertable'.",
            file=sys.stderr,
        )
        return 3
    except PermissionError:
        print(
            f"pokertable status: this user may not read {path}; run it with sudo.",
            file=sys.stderr,
        )
        return 4
    except (OSError, ValueError) as exc:
        print(f"pokertable status: {path} cannot be read ({exc}).", file=sys.stderr)
        return 4
    pid = status.get("pid")
    if isinstance(pid, int) and not Path(f"/proc/{pid}").exists():
        print(
            f"pokertable status: the controller that wrote {path} (process {pid}) is gone; "
            "see 'journalctl -u pokertable' for why.",
            file=sys.stderr,
        )
        return 3
    print(json.dumps(status, ensure_ascii=False, indent=2) if args.json else render(status))
    return 0


__all__ = ["DEFAULT_STATUS", "StatusFile", "main_status", "render", "table_status"]
