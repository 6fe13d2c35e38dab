"""The configured floor's tournament: resumed from the store, or started from ``[tournament]``.

``pokertable floor --config`` looks in the store for a tournament a director
was running (recorded, not finished, not stopped by a refusal) and resumes it
(:mod:`firmware.floor.tournament.resume`): a floor killed mid-tournament and started
again carries on where the store says it was. With no such tournament and a
``[tournament]`` section, it records that tournament, registers its players
and starts it (the seat draw over all tables and the level clocks). The
director is the dashboard's (:class:`~firmware.floor.tournament.control.StaffDirector`):
start, pause and resume from the dashboard; seat moves are carried out at
once unless ``confirm_moves = true``.

``[tournament]`` keys: ``id``, ``name``, ``buy_in``, ``starting_chips``,
``tables`` (the table ids), ``seats_per_table`` (default 9), ``players`` (the
names, or a count for ``Player 01`` ...), ``levels`` (as a table's
``[[tournament.levels]]``), ``method`` (``tda`` or ``hg``),
``late_until_level``, ``max_entries``, ``confirm_moves``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from firmware.errors import ConfigError
from firmware.floor.service import Floor
from firmware.floor.tournament import director_state
from firmware.floor.tournament.control import StaffDirector
from firmware.floor.tournament.resume import recover, resume
from firmware.floor.tournament.spec import TournamentSpec
from firmware.table.tournament import LevelSchedule

KEYS = {
    "id",
    "name",
    "buy_in",
    "starting_chips",
    "tables",
    "seats_per_table",
    "players",
    "levels",
    "method",
    "late_until_level",
    "max_entries",
    "confirm_moves",
}


def _int(section: dict[str, Any], key: str, default: int | None, low: int) -> int:
    value = section.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ConfigError(f"[tournament] {key} must be a whole number of at least {low}.")
    return value


def spec_from_config(section: dict[str, Any]) -> tuple[TournamentSpec, list[str], bool]:
    """The tournament of a ``[tournament]`` section, its players and ``confirm_moves``.

    :raises ConfigError: naming the key that is missing or wrong.
    """
    unknown = sorted(set(section) - KEYS)
    if unknown:
        raise ConfigError(f"Unknown [tournament] key(s): {', '.join(unknown)}.")
    tid = section.get("id")
    if not isinstance(tid, str) or not tid:
        raise ConfigError("[tournament] needs an id (text).")
    tables = section.get("tables")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, str) for t in tables):
        raise ConfigError("[tournament] tables must list the table ids.")
    seats = _int(section, "seats_per_table", 9, 2)
    players = section.get("players")
    if isinstance(players, int) and not isinstance(players, bool):
        players = [f"Player {n:02d}" for n in range(1, players + 1)]
    if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
        raise ConfigError("[tournament] players must list the names, or give their number.")
    if not 2 <= len(players) <= len(tables) * seats or len(set(players)) != len(players):
        raise ConfigError("[tournament] needs 2 to tables x seats players, each named once.")
    levels = section.get("levels", [])
    if not isinstance(levels, list) or not all(isinstance(x, dict) for x in levels):
        raise ConfigError("[tournament] levels must be [[tournament.levels]] tables.")
    if levels:
        LevelSchedule.from_dicts(levels)  # refuses a wrong level, saying which
    method = section.get("method", "tda")
    if method not in ("tda", "hg"):
        raise ConfigError("[tournament] method is tda or hg.")
    confirm = section.get("confirm_moves", False)
    if not isinstance(confirm, bool):
        raise ConfigError("[tournament] confirm_moves is true or false.")
    spec = TournamentSpec(
        tid,
        str(section.get("name", tid)),
        _int(section, "buy_in", None, 0),
        _int(section, "starting_chips", None, 1),
        tuple(tables),
        seats_per_table=seats,
        method=str(method),
        levels=tuple(levels),
        late_until_level=_int(section, "late_until_level", 0, 0),
        max_entries=_int(section, "max_entries", 1, 1),
    )
    return spec, list(players), confirm


async def open_director(
    floor: Floor, section: dict[str, Any] | None, say: Callable[[str], None]
) -> StaffDirector | None:
    """Resume the tournament the store says was running, or start the configured one;
    ``None`` if there is neither. The director listens to the floor's ingest; run it
    with :meth:`~firmware.floor.tournament.director.Director.run`."""
    assert floor.conn is not None and floor.ingestor is not None
    conn = floor.conn
    wanted = spec_from_config(section) if section is not None else None
    running = await director_state.running(conn)
    if wanted is not None and wanted[0].id in running:
        running.remove(wanted[0].id)
        running.insert(0, wanted[0].id)
    if running:
        if len(running) > 1:
            say(f"Tournaments {', '.join(running[1:])} wait: a floor runs one tournament.")
        confirm = wanted[2] if wanted is not None else False
        director = await resume(
            conn, floor.command, running[0], kind=StaffDirector, confirm_moves=confirm
        )
        assert director is not None
        floor.ingestor.listeners.append(director.on_ingested)
        await recover(director)
        if director.standings is None and wanted is not None and wanted[0].id == running[0]:
            for player in wanted[1]:  # stopped while registering: finish and start
                if player not in director.players:
                    await director.register(player)
            await director.start_now()
        st = director.standings
        left = f"{st.left} of {st.entries} entries left" if st else "not started"
        say(
            f"Tournament {director.spec.id}: resumed from the store ({left}; "
            f"{len(director.replay)} hands to catch up, {len(director.orders.tasks)} "
            "commands sent again)."
        )
        return director
    if wanted is None:
        return None
    spec, players, confirm = wanted
    if await director_state.load(conn, spec.id) is not None:
        say(f"Tournament {spec.id} is over or stopped; give a new id to play another.")
        return None
    rng = random.SystemRandom()
    director = StaffDirector(spec, conn, floor.command, rng, confirm_moves=confirm)
    floor.ingestor.listeners.append(director.on_ingested)
    await director.create()
    for player in players:
        await director.register(player)
    await director.start_now()
    say(f"Tournament {spec.id}: {len(players)} players drawn over {len(spec.tables)} tables.")
    return director
