"""``pokertable floor``: the floor service, or with ``--demo`` a whole card room in one command.

``pokertable floor --config floor.toml`` runs the floor against configured
servers: ``[nats]`` (``url``, ``user``, ``password``), ``[database]``
(``conninfo``), ``[room]`` (``timezone``: the IANA zone the accountant's views count
days in; the system's when left out), ``[web]`` (``host``, ``port``, ``lang`` of the
pages when the browser names none, ``trusted_proxies``: the reverse proxies'
addresses) and ``[[staff]]`` accounts as in a table's configuration (badge, name,
role, pin_hash). It resumes the
tournament the store says was running, or starts the one a ``[tournament]``
section describes (:mod:`firmware.floor.tournament.run`). Two floors may
run with one configuration: the one holding the room's lease
(:mod:`firmware.floor.store.lease`) ingests and serves, the other stands by and
takes over when the first stops; a floor that loses its lease exits with 75.

``pokertable floor --demo`` starts its own throw-away NATS server and
PostgreSQL in a temporary folder, a few simulated tables (real controllers,
journals and floor links; virtual decks and bots) and a tournament over
them, and serves the dashboard and the clock. Staff login for the demo:
badge ``floor1`` (technician: ``tech1``), PIN ``1234``. With
``--start-from-dashboard`` the floor person starts the tournament; with
``--confirm-moves`` seat moves wait for a confirmation on the dashboard.
Ctrl-C stops everything and removes the folder; with ``--data DIR`` the
servers' stores and the tables' journals stay in ``DIR``, and a demo started
again on it picks its tournament up where it was (the tables rebuilt from their
journals, the director from the store).
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import random
import shutil
import signal
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from firmware.cli.config import EXIT_CONFIG
from firmware.cli.helptext import argv_lang, lang_option
from firmware.cli.lang import cli_lang, fail, fail_with, say
from firmware.errors import ConfigError, PokerTableError
from firmware.floor.messaging.stream import StreamSettings
from firmware.floor.servers import NatsServer, PostgresServer
from firmware.floor.service import Floor
from firmware.floor.simroom import DEMO_LEVELS, SimTable
from firmware.floor.startup import reach_postgres, until_reachable
from firmware.floor.store import books
from firmware.floor.store.dashboard import NoticeListener
from firmware.floor.store.lease import LOST_EXIT, Lease
from firmware.floor.tournament import director_state
from firmware.floor.tournament.control import StaffDirector, TournamentControl
from firmware.floor.tournament.run import open_director, spec_from_config
from firmware.floor.tournament.spec import TournamentSpec
from firmware.floor.web.app import FloorWeb
from firmware.floor.web.texts import stored_text
from firmware.protocol.auth import StaffDirectory
from firmware.service.floorwire import FloorConfig
from firmware.service.natsurls import server_urls

DEMO_BADGE = "floor1"
DEMO_PIN = "1234"
DEMO_TECH_BADGE = "tech1"


PACES = {"watch": 1.0, "fast": 0.05}
"""Named demo paces, seconds per dealer or bot step: ``watch`` (one step a second: a
person follows every action on the dashboard; a hand takes about half a minute) and
``fast`` (the table at machine speed, the tournament over in a few minutes)."""


def pace_value(text: str) -> float:
    """``--pace``: seconds per step (0 or more), or ``watch`` or ``fast``."""
    if text in PACES:
        return PACES[text]
    value = float(text)  # argparse says "invalid pace_value value" for anything else
    if not 0 <= value <= 60:
        raise ValueError(text)
    return value


def _staff(entries: object) -> StaffDirectory:
    from firmware.cli.serve import staff_directory

    return staff_directory(entries)


async def _demo(args: argparse.Namespace, folder: Path, stop: asyncio.Event) -> int:
    lang = cli_lang(args.lang)

    def out(key: str, **params: Any) -> None:
        print(say(key, lang, **params), flush=True)

    nats = NatsServer(folder / "nats").start()
    # A demo on kept data keeps its PostgreSQL there too; otherwise a throw-away one.
    pg = (PostgresServer(folder / "pg") if args.data else PostgresServer.temporary()).start()
    out("cli.floor.demo.servers", url=nats.url, folder=pg.folder)
    names = [f"T{n}" for n in range(1, args.tables + 1)]
    sims = [
        SimTable(
            n, str(folder / n), FloorConfig(nats.url, n), args.seats, DEMO_LEVELS, pace=args.pace
        )
        for n in names
    ]
    for sim in sims:
        sim.hands_to_play = 0  # the floor tells them when to deal
        sim.start()
    floor = Floor(pg.conninfo, nats.url)
    web: FloorWeb | None = None
    notices = NoticeListener(pg.conninfo)
    try:
        await floor.open()
        assert floor.conn is not None and floor.ingestor is not None
        books.set_room_zone(pg.conninfo, books.room_zone(None))
        staff = StaffDirectory()
        staff.add(DEMO_BADGE, "Demo Floor", "floor", DEMO_PIN)
        staff.add(DEMO_TECH_BADGE, "Demo Technician", "technician", DEMO_PIN)
        spec = TournamentSpec(
            "demo",
            "Demo tournament",
            buy_in=100,
            starting_chips=5000,
            tables=tuple(names),
            seats_per_table=args.seats,
            levels=tuple(DEMO_LEVELS),
            late_until_level=2,  # late registration and one re-entry from the dashboard
            max_entries=2,
        )
        resumed = await open_director(floor, None, lambda line: None) if args.data else None
        if resumed is None and args.data and await director_state.load(floor.conn, spec.id):
            out("cli.floor.demo.done_before", folder=folder)
            return 0
        if resumed is not None:  # started again on its data: the tournament goes on
            director = resumed
            director.confirm_moves = args.confirm_moves
            st = director.standings
            out(
                "cli.floor.demo.resumed",
                left=st.left if st is not None else args.players,
                entries=st.entries if st is not None else args.players,
            )
        else:
            director = StaffDirector(
                spec,
                floor.conn,
                floor.command,
                random.SystemRandom(),
                confirm_moves=args.confirm_moves,
            )
        control = TournamentControl(director, asyncio.get_running_loop())
        web = FloorWeb(
            pg.conninfo, staff, port=args.port, control=control, lang=cli_lang(args.lang)
        )
        web.start()
        await notices.start(floor.nc)
        out("cli.floor.demo.dashboard", url=web.url, badge=DEMO_BADGE, pin=DEMO_PIN)
        out("cli.floor.demo.clock", url=web.url)
        if resumed is None:
            floor.ingestor.listeners.append(director.on_ingested)
            await director.create()
            for number in range(1, args.players + 1):
                await director.register(f"Player {number:02d}")
        ingest = asyncio.create_task(floor.ingest_forever())
        if resumed is not None:
            pass  # drawn and playing already (or waiting for the dashboard's start)
        elif args.start_from_dashboard:
            out("cli.floor.demo.registered", players=args.players)
            while director.standings is None and not stop.is_set():
                await asyncio.sleep(0.2)
        else:
            await director.start_now()
        running = asyncio.create_task(director.run())
        if director.standings is not None and resumed is None:
            out("cli.floor.demo.drawn", players=args.players, tables=len(names))
        finished = asyncio.create_task(director.finished.wait())
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait({finished, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if director.finished.is_set():
            # The director stores the end (finished, the winner) right after it says so:
            # let it, or a demo started again on its data would resume a tournament over
            # (Ctrl-C still stops a director that waits for a table).
            await asyncio.wait({running, stopped}, return_when=asyncio.FIRST_COMPLETED)
            for line in director.decisions[-3:]:
                print(stored_text(line, lang), flush=True)
            st = director.standings
            if st is not None:
                paid = sorted(st.won.items(), key=lambda item: st.places[item[0]])
                out("cli.floor.demo.payouts", paid=", ".join(f"{p} {a}" for p, a in paid))
            if director.error:
                out("cli.floor.demo.stopped", error=director.error)
            if not args.exit_when_done:
                out("cli.floor.demo.over")
                await stop.wait()
        running.cancel()
        floor.stopping.set()
        await ingest
        return 1 if director.error else 0
    finally:
        if web is not None:
            web.stop()
        await notices.stop()
        await floor.close()
        for sim in sims:
            sim.stop()
        nats.stop()
        pg.stop()


async def _serve(config: dict[str, Any], stop: asyncio.Event) -> int:
    known = {"nats", "database", "web", "staff", "tournament", "room"}
    unknown = sorted(set(config) - known)
    if unknown:
        raise ConfigError(f"Unknown floor configuration section(s): {', '.join(unknown)}.")
    nats = dict(config.get("nats", {}))
    database = dict(config.get("database", {}))
    web_section = dict(config.get("web", {}))
    if "url" not in nats or "conninfo" not in database:
        raise ConfigError("The floor needs [nats] url and [database] conninfo.")
    unknown = sorted(set(nats) - {"url", "user", "password"} - StreamSettings.KEYS)
    if unknown:
        raise ConfigError(f"Unknown [nats] option(s): {', '.join(unknown)}.")
    urls = server_urls(nats["url"], "[nats] url")
    stream = StreamSettings.from_section(nats)
    conninfo = str(database["conninfo"])
    proxies = web_section.get("trusted_proxies", [])
    if (
        web_section.get("lang", "es") not in ("en", "es")
        or not isinstance(proxies, list)
        or not all(_is_address(p) for p in proxies)
    ):
        raise ConfigError(
            '[web] lang is "es" or "en", and trusted_proxies a list of the reverse proxies\' '
            "IP addresses; correct the floor's configuration.",
            key="cli.floor.web_section",
        )
    staff = _staff(config.get("staff", []))
    room = dict(config.get("room", {}))
    if sorted(set(room) - {"timezone"}):
        raise ConfigError(
            'The [room] section knows one option: timezone (an IANA name such as "America/Lima"); '
            "correct the floor's configuration.",
            key="cli.floor.room_section",
        )
    zone = books.room_zone(room.get("timezone"))  # the day the accountant's views count in
    section = config.get("tournament")
    if section is not None:
        if not isinstance(section, dict):
            raise ConfigError("[tournament] must be a table of keys.")
        spec_from_config(section)  # a wrong section fails before the lease is taken

    def say(text: str) -> None:
        print(text, flush=True)

    # Started before PostgreSQL or NATS (at boot, after an outage): wait, one sentence each.
    if not await until_reachable(lambda: reach_postgres(conninfo), stop, say):
        return 0
    # Two floors may run for one room: the one holding the lease ingests (lease.py).
    lease = Lease(conninfo)
    if await _standby(lease) and not await lease.acquire(stop):
        return 0  # stopped while standing by
    print("Leader: this floor holds the room's lease and ingests.", flush=True)
    floor = Floor(
        conninfo,
        list(urls),
        str(nats.get("user", "")),
        str(nats.get("password", "")),
        stream,
    )
    if not await until_reachable(floor.open, stop, say):
        await floor.close()
        await lease.release()
        return 0
    await asyncio.to_thread(books.set_room_zone, conninfo, zone)
    notices = NoticeListener(conninfo)
    ingest = asyncio.create_task(floor.ingest_forever())
    director = await open_director(floor, section, lambda text: print(text, flush=True))
    control = None
    running: asyncio.Task[None] | None = None
    if director is not None:
        control = TournamentControl(director, asyncio.get_running_loop())
        running = asyncio.create_task(director.run())
    web = FloorWeb(
        conninfo,
        staff,
        str(web_section.get("host", "127.0.0.1")),
        int(web_section.get("port", 8080)),
        control=control,
        lang=str(web_section.get("lang", "es")),
        trusted_proxies=frozenset(str(a) for a in web_section.get("trusted_proxies", [])),
    )
    web.start()
    await notices.start(floor.nc)
    print(f"Floor dashboard at {web.url}/, clock at {web.url}/clock", flush=True)
    stopped = asyncio.create_task(stop.wait())
    lost = asyncio.create_task(lease.lost.wait())
    waits: set[asyncio.Task[Any]] = {stopped, lost}
    if director is not None:
        waits.add(asyncio.create_task(_announce_end(director)))
    while not (stop.is_set() or lease.lost.is_set()):
        _done, waits = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    if running is not None:
        running.cancel()
    floor.stopping.set()
    await ingest
    web.stop()
    await notices.stop()
    await floor.close()
    await lease.release()
    if lease.lost.is_set():
        print("The floor lost its lease; it stops so that it restarts as a standby.", flush=True)
        return LOST_EXIT
    return 0


def _is_address(value: object) -> bool:
    """Whether ``value`` is an IP address (a reverse proxy in ``[web] trusted_proxies``)."""
    try:
        ipaddress.ip_address(str(value))
    except ValueError:
        return False
    return isinstance(value, str)


async def _announce_end(director: StaffDirector) -> None:
    await director.finished.wait()
    st = director.standings
    if director.error:
        print(f"The tournament stopped: {director.error}", flush=True)
    elif st is not None:
        print(f"Tournament {director.spec.id} is over: {st.champion} wins.", flush=True)


async def _standby(lease: Lease) -> bool:
    """Take the lease now if free (False); else say this floor stands by (True)."""
    if await lease.try_acquire():
        lease.start_watch()
        return False
    text = "Standby: another floor holds the room's lease; this one takes over when it stops."
    print(text, flush=True)
    return True


def main_floor(argv: list[str] | None = None) -> int:
    """Entry point of ``pokertable floor``."""
    lang = argv_lang(argv)
    parser = argparse.ArgumentParser(
        prog="pokertable floor", description=say("cli.help.floor.about", lang)
    )
    parser.add_argument("--demo", action="store_true", help=say("cli.help.floor.demo", lang))
    parser.add_argument(
        "--config",
        metavar=say("cli.help.metavar.file", lang),
        help=say("cli.help.floor.config", lang),
    )
    parser.add_argument(
        "--tables", type=int, metavar="N", default=3, help=say("cli.help.floor.tables", lang)
    )
    parser.add_argument(
        "--players", type=int, metavar="N", default=20, help=say("cli.help.floor.players", lang)
    )
    parser.add_argument(
        "--seats", type=int, metavar="N", default=9, help=say("cli.help.floor.seats", lang)
    )
    parser.add_argument(
        "--port", type=int, metavar="N", default=8080, help=say("cli.help.floor.port", lang)
    )
    parser.add_argument(
        "--pace",
        type=pace_value,
        metavar="N",
        default="watch",
        help=say("cli.help.floor.pace", lang),
    )
    parser.add_argument(
        "--start-from-dashboard",
        action="store_true",
        help=say("cli.help.floor.start_from_dashboard", lang),
    )
    parser.add_argument(
        "--confirm-moves", action="store_true", help=say("cli.help.floor.confirm_moves", lang)
    )
    parser.add_argument(
        "--exit-when-done", action="store_true", help=say("cli.help.floor.exit_when_done", lang)
    )
    parser.add_argument(
        "--data",
        metavar=say("cli.help.metavar.dir", lang),
        help=say("cli.help.floor.data", lang),
    )
    lang_option(parser, lang)
    args = parser.parse_args(argv)
    lang = cli_lang(args.lang)
    if not args.demo and not args.config:
        parser.error(say("cli.floor.config_or_demo", lang))
    if args.demo and not 2 <= args.players <= args.tables * args.seats:
        parser.error(say("cli.floor.players", lang))

    async def main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        if args.demo and args.data:  # kept: a demo started again on it resumes
            folder = Path(args.data).resolve()
            folder.mkdir(parents=True, exist_ok=True)
            return await _demo(args, folder, stop)
        if args.demo:
            folder = Path(tempfile.mkdtemp(prefix="pokertable-floor-"))
            try:
                return await _demo(args, folder, stop)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
        config = tomllib.loads(Path(args.config).read_text(encoding="utf-8"))
        from firmware.cli.logs import setup_logging

        setup_logging("info")  # one line per event with its time, no tracebacks of servers
        return await _serve(config, stop)

    try:
        return asyncio.run(main())
    except FileNotFoundError as exc:
        code = EXIT_CONFIG  # a configuration that cannot work: systemd does not restart it
        return fail("floor", "cli.main.not_found", lang, code, path=exc.filename or args.config)
    except tomllib.TOMLDecodeError as exc:
        return fail("floor", "cli.floor.toml", lang, EXIT_CONFIG, path=args.config, error=str(exc))
    except ConfigError as exc:
        return fail_with("floor", exc, lang, EXIT_CONFIG)
    except (OSError, PokerTableError) as exc:
        return fail_with("floor", exc, lang)
    except KeyboardInterrupt:
        return 130
