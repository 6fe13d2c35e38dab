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
import grp
import logging
import os
import signal
import time
from typing import Any

from firmware.cli.config import (
    EXIT_CONFIG,
    device_display_names,
    player_directory,
    read_config,
    staff_directory,
    terminal_secrets,
    tournament_schedule,
)
from firmware.cli.config_check import check_problems, config_error
from firmware.cli.helptext import argv_lang, lang_option
from firmware.cli.lang import cli_lang, fail_with, keyed, say
from firmware.cli.logs import LEVELS, setup_logging
from firmware.cli.seal import open_sealed, seal_key_path
from firmware.cli.serve_lock import STATUS_NAME, ServeLock
from firmware.cli.status import DEFAULT_STATUS, StatusFile, table_status
from firmware.errors import ConfigError, HardwareError, PokerTableError
from firmware.hal.backends import build_devices
from firmware.protocol.auth import TerminalSecrets
from firmware.protocol.limits import Limits
from firmware.protocol.server import TableServer, server_ssl_context
from firmware.service.controller import Alert, Controller
from firmware.service.controller_gc import collect_between_hands
from firmware.service.history import HandHistory
from firmware.service.journal import Journal, JournalError
from firmware.service.meters import Meters
from firmware.service.notify import Notifier
from firmware.service.recovery import (
    check_in_background,
    restore,
    schedule_entries,
    store_table_setup,
)
from firmware.service.registry import TagRegistry
from firmware.service.retention import Retention, after_hand, prune_history
from firmware.service.storage import storage_has_room
from firmware.service.virtual_dealer import attach_virtual_dealers
from firmware.table import events as te
from firmware.table.options import load_table_config
from firmware.table.table import Table
from firmware.table.tournament import LevelSchedule
from firmware.views.broadcast import BroadcastRules

log = logging.getLogger("pokertable.serve")

__all__ = ["build", "main_serve", "staff_directory"]

MAX_RECOVERY_ALERTS = 10
"""Journal records skipped by recovery shown one by one; the rest are counted."""


def build(
    config_path: str, data_dir: str, key_file: str | None = None
) -> tuple[Controller, dict[str, Journal], bool]:
    """Build the controller from a configuration file; return it, a holder of its
    current journal (rotation replaces it) and whether the table was restored."""
    text, data = read_config(config_path)
    refused = check_problems(data, text, config_path)
    if refused:
        raise config_error(refused, config_path)
    config = load_table_config(text, source=config_path)
    section, display_names = device_display_names(data.get("devices", {}))
    devices = build_devices(section)
    levels = data.get("levels")
    os.makedirs(data_dir, mode=0o700, exist_ok=True)
    # The journal's head is signed with a key kept outside the data folder when the
    # unit hands it over (LoadCredential); a key is made only for an empty journal,
    # never over one with records (firmware.cli.seal). Opened without SQLite's page
    # check: the whole journal is checked on a thread once the table is back in play
    # (check_in_background below).
    key_path, may_create = seal_key_path(key_file, data_dir)
    journal = open_sealed(os.path.join(data_dir, "journal.sqlite"), key_path, may_create)
    registry = TagRegistry(os.path.join(data_dir, "tags.sqlite"))
    restored = len(journal) > 0
    # An electronic table's virtual deck needs no new-deck checklist.
    virtual = any(getattr(d, "automatic", False) for d in devices.values())
    problems: list[str] = []
    if restored:
        table = restore(journal, problems)
    else:
        # The blind structure: inline [[levels]] (as `pokertable init` writes it) or
        # a file named by [tournament] levels = "levels.toml" (config check refuses both).
        schedule: LevelSchedule | None
        if levels:
            schedule = LevelSchedule.from_dicts(levels, structure=config.stakes.structure)
        else:
            schedule = tournament_schedule(data.get("tournament"), config_path)
        store_table_setup(journal, config, virtual, schedule_entries(schedule), schedule)
        table = Table(config, deck_ready=virtual, schedule=schedule)
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

    # Each event's signed head is written once its views are out (never more than one
    # record behind the chain; a rotated journal does the same).
    journal.defer_head = True
    controller = Controller(
        table,
        devices,
        registry,
        journal=journal_and_count,
        storage_ok=lambda: storage_has_room(data_dir),
        journal_sync=lambda: current["journal"].sync_head(),
    )
    controller.data_dir = data_dir
    controller.zone = config.timezone  # real times are shown in the table's zone
    diag_section = data.get("diag", {})
    if isinstance(diag_section, dict) and isinstance(diag_section.get("export_dir"), str):
        controller.export_dir = diag_section["export_dir"]
    controller.display_names = display_names
    if restored:
        check_in_background(
            journal.path,
            lambda problem: controller.call_soon(lambda: controller.journal_damaged(problem)),
        )
    controller.players = player_directory(data.get("players", []))
    for text in problems[:MAX_RECOVERY_ALERTS]:
        key, params = getattr(text, "key", None), getattr(text, "params", {})
        controller.alerts.append(Alert(controller.table_time(), text, key=key, params=params))
    if len(problems) > MAX_RECOVERY_ALERTS:
        more = len(problems) - MAX_RECOVERY_ALERTS
        controller.alerts.append(
            Alert(
                controller.table_time(),
                f"Recovery skipped {more} more journal record(s).",
                key="alert.recovery.more",
                params={"more": more},
            )
        )
    if "floor" in data:
        # A table with a floor: its journal goes to NATS; without [floor] nothing changes
        # (not even an import).
        from firmware.service.floorlink import FloorLink
        from firmware.service.floorwire import FloorConfig

        link = FloorLink(
            FloorConfig.from_config(dict(data["floor"])),
            journal.path,
            data_dir,
            table,
            controller.submit,
            controller.call_soon,
            controller.table_time,
        )
        links.append(link)
        link.watch(controller.alerts, controller.state.faults)  # floor calls, device faults
        controller.listeners.append(link.after_event)
        controller.services.append(link)
    history = HandHistory(os.path.join(data_dir, "history.sqlite"))
    history.set_zone(config.timezone)  # `history list` and the exports show it
    table.hand_listeners.append(history.listener(time.time))
    policy = Retention.from_config(dict(data.get("retention", {})))
    since_rotation = {"hands": 0}

    def retain(record: dict[str, Any], hand: object) -> None:
        # Between hands (the listener runs after the hand ended): never the open hand.
        since_rotation["hands"] += 1
        journal = after_hand(current["journal"], table, policy, since_rotation["hands"])
        if journal is not current["journal"]:  # rotated
            journal.defer_head = True
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
    # Unknown [server] options were named by check_config above.
    tcp = None
    context = None
    if "tcp_port" in server_section:
        # Screens on their own boards: TCP with TLS and a client certificate per terminal.
        missing = [k for k in ("cert", "key", "client_ca") if k not in server_section]
        if missing:
            raise keyed(ConfigError, "config.server.tls_all", missing=", ".join(missing))
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
            TerminalSecrets(terminal_secrets(data.get("terminals", {}))),
            staff_directory(data.get("staff", [])),
            unix_path=str(socket_path) if socket_path else None,
            tcp=tcp,
            ssl_context=context,
            limits=Limits(**{k: v for k, v in server_section.items() if k in limit_names}),
            badge_grace=float(server_section.get("badge_grace_seconds", 5.0)),
            broadcast=broadcast_rules(data),
        )
        controller.services.append(server)
    return controller, current, restored


def broadcast_rules(data: dict[str, Any]) -> BroadcastRules | None:
    """The ``[broadcast]`` rules (checked by ``config check`` first), or ``None``: no feed."""
    section = data.get("broadcast")
    return BroadcastRules.from_section(section) if isinstance(section, dict) else None


def share_socket(path: str, group: str | None) -> None:
    """Let the screens' group connect to the Unix socket (mode 0660, that group)."""
    if group is None:
        return
    try:
        gid = grp.getgrnam(group).gr_gid
    except KeyError:
        raise keyed(ConfigError, "config.server.group", group=repr(group)) from None
    os.chown(path, -1, gid)
    os.chmod(path, 0o660)


def start_line(controller: Controller, restored: bool, config_path: str) -> str:
    """What was loaded, for the log: profile, devices, listeners, journal, engine."""
    table = controller.table
    devices = ", ".join(
        f"{name} ({type(device).__name__})" for name, device in controller.devices.items()
    )
    listeners = []
    for service in controller.services:
        if getattr(service, "unix_path", None):
            listeners.append(f"unix socket {service.unix_path}")
        if getattr(service, "tcp", None):
            listeners.append(f"TLS on port {service.tcp_port}")
    import firmware.engine.hand as engine_hand

    engine = "compiled" if engine_hand.__file__.endswith(".so") else "pure Python"
    return (
        f"Table {'restored from its journal' if restored else 'started'}: configuration "
        f"{config_path}, profile {table.config.profile}, devices: {devices or 'none'}; "
        f"listening on {', '.join(listeners) or 'nothing (no [server] socket)'}; "
        f"{engine} engine."
    )


def main_serve(argv: list[str] | None = None) -> int:
    """Entry point of ``pokertable serve``.

    Exit status: 0 after a clean stop, :data:`~firmware.cli.config.EXIT_CONFIG` (78) for a
    configuration that cannot work (the units do not restart on it), 1 for anything else
    that stops startup (a device that cannot open, a damaged journal).
    """
    lang = argv_lang(argv)
    parser = argparse.ArgumentParser(
        prog="pokertable serve", description=say("cli.help.serve.about", lang)
    )
    parser.add_argument(
        "--config",
        default="/etc/pokertable/table.toml",
        metavar=say("cli.help.metavar.file", lang),
        help=say("cli.help.config", lang),
    )
    parser.add_argument(
        "--data",
        default="/var/lib/pokertable",
        metavar=say("cli.help.metavar.dir", lang),
        help=say("cli.help.data", lang),
    )
    parser.add_argument(
        "--key",
        default=None,
        metavar=say("cli.help.metavar.file", lang),
        help=say("cli.help.serve.key", lang),
    )
    parser.add_argument(
        "--log-level", choices=LEVELS, default="info", help=say("cli.help.serve.log_level", lang)
    )
    parser.add_argument(
        "--status",
        default=None,
        metavar=say("cli.help.metavar.file", lang),
        help=say("cli.help.serve.status", lang, path=DEFAULT_STATUS),
    )
    lang_option(parser, lang)
    args = parser.parse_args(argv)
    setup_logging(args.log_level)
    notifier = Notifier()
    status_path = status_file_path(args.status, args.data)
    try:  # a configuration that cannot work touches nothing, not even the lock
        text, data = read_config(args.config)
        refused = check_problems(data, text, args.config)
        if refused:
            raise config_error(refused, args.config)
    except ConfigError as exc:
        log.error("%s", exc)
        return fail_with("serve", exc, cli_lang(args.lang), EXIT_CONFIG)
    # The data folder's lock comes before anything else touches the folder: a second
    # controller is refused here, having opened no journal and bound no socket.
    lock = ServeLock(args.data)
    try:
        lock.acquire(args.config, status_path, time.time())
    except OSError as exc:
        log.error("%s", exc)
        return fail_with("serve", exc, cli_lang(args.lang))
    try:
        return run_locked(args, notifier, status_path)
    finally:
        lock.release()


def status_file_path(given: str | None, data_dir: str) -> str:
    """Where the status goes: ``--status``, else /run/pokertable's file when that folder
    can be written, else ``status.json`` in the data folder (a controller started by
    hand; ``pokertable status`` finds it through the folder's lock)."""
    if given:
        return given
    folder = os.path.dirname(DEFAULT_STATUS)
    if os.path.isdir(folder) and os.access(folder, os.W_OK):
        return DEFAULT_STATUS
    return os.path.join(data_dir, STATUS_NAME)


def run_locked(args: argparse.Namespace, notifier: Notifier, status_path: str) -> int:
    """Build and run the controller (the data folder's lock is held)."""
    try:
        controller, journals, restored = build(args.config, args.data, args.key)
        controller.start()
        for service in controller.services:
            service.start()
            if getattr(service, "unix_path", None):
                _, data = read_config(args.config)
                share_socket(service.unix_path, data.get("server", {}).get("socket_group"))
    except ConfigError as exc:
        log.error("%s", exc)
        return fail_with("serve", exc, cli_lang(args.lang), EXIT_CONFIG)
    except (OSError, HardwareError, JournalError, PokerTableError) as exc:
        log.error("%s", exc)
        return fail_with("serve", exc, cli_lang(args.lang))
    # Before the start line: whoever waits for that line may stop the table at once.
    signal.signal(signal.SIGTERM, lambda *_: controller.stop())
    signal.signal(signal.SIGINT, lambda *_: controller.stop())
    log.info("%s", start_line(controller, restored, args.config))
    if restored:
        controller.alerts.append(
            Alert(
                controller.table_time(),
                "Recovered after a restart: the table resumes where it stopped.",
                key="alert.recovered",
            )
        )
    hang = os.environ.get("POKERTABLE_FAULT") == "hang"
    server = next((s for s in controller.services if hasattr(s, "clients")), None)
    status = (
        StatusFile(status_path, lambda: table_status(controller, server))
        if os.access(os.path.dirname(os.path.abspath(status_path)), os.W_OK)
        else None
    )
    alerts_logged = {"count": 0}

    def each_turn(now: float) -> None:
        notifier.ping(now)  # from the main loop itself: a stuck loop stops the pings
        # Controller alerts go to the system journal as well as to the console.
        for alert in controller.alerts[alerts_logged["count"] :]:
            where = f" [{alert.device}]" if alert.device else ""
            log.warning("Alert%s: %s", where, alert.text)
        alerts_logged["count"] = len(controller.alerts)
        if status is not None:
            try:
                status.update(now)
            except OSError as exc:
                log.warning("The status file %s cannot be written: %s.", status.path, exc)
        if hang:
            time.sleep(3600)  # test hook: simulate a stuck main loop

    controller.loop_hooks.append(each_turn)
    collect_between_hands(controller)  # no full garbage collection in the middle of a hand
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
        if status is not None:
            status.remove()
        log.info("The table stopped cleanly.")
    return 0
