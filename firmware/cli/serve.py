"""``pokertable serve``: the table controller as a service.

Reads the table configuration (TOML: ``[table]``, ``[options]``, ``[devices]``),
opens the journal in the data directory (restoring the table from it after
a restart), opens every configured device (a device that cannot open stops
startup with a sentence naming it), tells systemd it is ready, then runs the
controller's loop, pinging the watchdog from that loop. SIGTERM stops it
cleanly: every output goes to its safe state and every device is closed.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from firmware.errors import ConfigError, HardwareError, PokerTableError
from firmware.hal.backends import build_devices
from firmware.protocol.auth import StaffDirectory, TerminalSecrets
from firmware.protocol.limits import Limits
from firmware.protocol.server import TableServer, server_ssl_context
from firmware.service.controller import Alert, Controller
from firmware.service.history import HandHistory
from firmware.service.journal import Journal, JournalError, load_or_create_key
from firmware.service.meters import Meters
from firmware.service.notify import Notifier
from firmware.service.recovery import restore, store_table_setup
from firmware.service.registry import TagRegistry
from firmware.service.retention import Retention, after_hand, prune_history
from firmware.service.storage import storage_has_room
from firmware.service.virtual_dealer import attach_virtual_dealers
from firmware.table import events as te
from firmware.table.options import load_table_config
from firmware.table.table import Table

MAX_RECOVERY_ALERTS = 10
"""Journal records skipped by recovery shown one by one; the rest are counted."""


def staff_directory(entries: object) -> StaffDirectory:
    """Staff accounts from the configuration's ``[[staff]]`` entries.

    Each entry has ``badge``, ``name``, ``role`` (``dealer``, ``floor``,
    ``technician``) and ``pin_hash``, the text printed by
    :func:`firmware.protocol.auth.hash_pin` - never the PIN itself.

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


def build(config_path: str, data_dir: str) -> tuple[Controller, dict[str, Journal], bool]:
    """Build the controller from a configuration file; return it, a holder of its
    current journal (rotation replaces it) and whether the table was restored."""
    text = Path(config_path).read_text(encoding="utf-8")
    config = load_table_config(text, source=config_path)
    data = tomllib.loads(text)
    devices = build_devices(data.get("devices", {}))
    os.makedirs(data_dir, exist_ok=True)
    # The journal's head is signed with a key only the controller holds (created on
    # the first start); a journal written before there was a key is signed as it is.
    key_path = os.path.join(data_dir, "journal.key")
    first_key = not os.path.exists(key_path)
    journal = Journal(os.path.join(data_dir, "journal.sqlite"), key=load_or_create_key(key_path))
    if first_key and len(journal) > 0:
        journal.sign_head()
    registry = TagRegistry(os.path.join(data_dir, "tags.sqlite"))
    restored = len(journal) > 0
    # An electronic table's virtual deck needs no new-deck checklist.
    virtual = any(getattr(d, "automatic", False) for d in devices.values())
    problems: list[str] = []
    if restored:
        table = restore(journal, problems)
    else:
        store_table_setup(journal, config, deck_ready=virtual)
        table = Table(config, deck_ready=virtual)
    meters = Meters(os.path.join(data_dir, "meters.sqlite"))
    meters.bump("power_ups")

    current: dict[str, Journal] = {"journal": journal}  # replaced when the journal rotates
    links: list[Any] = []  # the floor link, only with [floor]

    def journal_and_count(event: te.TableEvent) -> None:
        current["journal"].append(event)  # committed before it takes effect
        for link in links:
            link.wake()  # the journal is the floor's outbox
        if isinstance(event, te.AdjustStack | te.AwardPot | te.VoidByFloor | te.UndoLast):
            meters.bump("overrides")

    controller = Controller(
        table,
        devices,
        registry,
        journal=journal_and_count,
        storage_ok=lambda: storage_has_room(data_dir),
    )
    controller.data_dir = data_dir
    for text in problems[:MAX_RECOVERY_ALERTS]:
        controller.alerts.append(Alert(controller.table_time(), text))
    if len(problems) > MAX_RECOVERY_ALERTS:
        more = len(problems) - MAX_RECOVERY_ALERTS
        controller.alerts.append(
            Alert(controller.table_time(), f"Recovery skipped {more} more journal record(s).")
        )
    if "floor" in data:
        # A table with a floor: its journal goes to NATS; without [floor] nothing changes
        # (not even an import).
        from firmware.service.floorlink import FloorConfig, FloorLink

        link = FloorLink(
            FloorConfig.from_config(dict(data["floor"])),
            journal.path,
            data_dir,
            table,
            controller.submit,
            controller.call_soon,
        )
        links.append(link)
        controller.listeners.append(link.after_event)
        controller.services.append(link)
    history = HandHistory(os.path.join(data_dir, "history.sqlite"))
    table.hand_listeners.append(history.listener(time.time))
    policy = Retention.from_config(dict(data.get("retention", {})))
    since_rotation = {"hands": 0}

    def retain(record: dict[str, Any], hand: object) -> None:
        # Between hands (the listener runs after the hand ended): never the open hand.
        since_rotation["hands"] += 1
        journal = after_hand(current["journal"], table, policy, since_rotation["hands"])
        if journal is not current["journal"]:  # rotated
            current["journal"] = journal
            since_rotation["hands"] = 0
            prune_history(history, policy)

    table.hand_listeners.append(retain)

    def count_hand(record: dict[str, Any], hand: object) -> None:
        meters.bump("hands_void" if record["void"] else "hands_played")
        if record["incidents"]:
            meters.bump("incidents", len(record["incidents"]))

    table.hand_listeners.append(count_hand)
    controller.fault_listeners.append(lambda event: meters.bump("device_faults"))
    attach_virtual_dealers(controller)  # an electronic table deals from its virtual shoe
    server_section = dict(data.get("server", {}))
    limit_names = set(Limits.__dataclass_fields__)
    known = {"socket", "tcp_host", "tcp_port", "cert", "key", "client_ca", "badge_grace_seconds"}
    known |= limit_names
    unknown = sorted(set(server_section) - known)
    if unknown:
        raise ConfigError(
            f"Unknown [server] option(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}."
        )
    tcp = None
    context = None
    if "tcp_port" in server_section:
        # Screens on their own boards: TCP with TLS and a client certificate per terminal.
        missing = [k for k in ("cert", "key", "client_ca") if k not in server_section]
        if missing:
            raise ConfigError(
                f"[server] tcp_port needs TLS: set {', '.join(missing)} (the server's certificate "
                "and key, and the authority that signs each terminal's certificate)."
            )
        tcp = (str(server_section.get("tcp_host", "0.0.0.0")), int(server_section["tcp_port"]))
        context = server_ssl_context(
            str(server_section["cert"]),
            str(server_section["key"]),
            str(server_section["client_ca"]),
        )
    if server_section.get("socket") or tcp is not None:
        socket_path = server_section.get("socket")
        server = TableServer(
            controller,
            TerminalSecrets(dict(data.get("terminals", {}))),
            staff_directory(data.get("staff", [])),
            unix_path=str(socket_path) if socket_path else None,
            tcp=tcp,
            ssl_context=context,
            limits=Limits(**{k: v for k, v in server_section.items() if k in limit_names}),
            badge_grace=float(server_section.get("badge_grace_seconds", 5.0)),
        )
        controller.services.append(server)
    return controller, current, restored


def main_serve(argv: list[str] | None = None) -> int:
    """Entry point of ``pokertable serve``."""
    parser = argparse.ArgumentParser(prog="pokertable serve", description=__doc__)
    parser.add_argument("--config", default="/etc/pokertable/table.toml")
    parser.add_argument("--data", default="/var/lib/pokertable")
    args = parser.parse_args(argv)
    notifier = Notifier()
    try:
        controller, journals, restored = build(args.config, args.data)
        controller.start()
        for service in controller.services:
            service.start()
    except (OSError, ConfigError, HardwareError, JournalError, PokerTableError) as exc:
        print(f"pokertable serve: {exc}", file=sys.stderr)
        return 1
    if restored:
        controller.alerts.append(
            Alert(
                controller.table_time(),
                "Recovered after a restart: the table resumes where it stopped.",
            )
        )
    signal.signal(signal.SIGTERM, lambda *_: controller.stop())
    signal.signal(signal.SIGINT, lambda *_: controller.stop())
    hang = os.environ.get("POKERTABLE_FAULT") == "hang"

    def each_turn(now: float) -> None:
        notifier.ping(now)  # from the main loop itself: a stuck loop stops the pings
        if hang:
            time.sleep(3600)  # test hook: simulate a stuck main loop

    controller.loop_hooks.append(each_turn)
    if notifier.watchdog_interval is not None:
        controller.tick_seconds = min(controller.tick_seconds, notifier.watchdog_interval / 2)
    notifier.ready(f"table {'restored' if restored else 'started'}")
    try:
        controller.run()
    finally:
        notifier.stopping()
        for service in controller.services:
            service.stop()
        controller.shutdown()
        journals["journal"].close()
    return 0
