"""The ``pokertable replay`` command: replay PHH hand histories through the engine.

``pokertable replay PATH... [--game cash|tournament] [--no-auto-showdown]``

Each PATH is a ``.phh`` file or a folder searched recursively for ``*.phh``
files (sorted by path). Every hand is played through our engine with the
chosen rules (``cash``: no fixed-limit raise cap when two players are in the
hand; ``tournament``, the default: the cap always applies) and printed as ONE
JSON object per line on standard output::

    {"file": "...", "ok": true, "variant": "NT", "players": ["p1", "p2"],
     "finishing_stacks": [...], "pots": [{"amount": 150, "winners": [2]}],
     "auto_showdown": 0, "matches_file": true}

* ``finishing_stacks`` is in the file's player order (``p1`` first).
* ``pots`` lists the main pot then the side pots; ``winners`` are 0-based
  indices in the file's player order (0 is ``p1``); ``players`` gives the
  labels (the file's ``players`` names, or ``p1``, ``p2``...).
* ``auto_showdown`` counts the show/muck decisions we added because the
  file's actions stop exactly at the showdown (the file records no show or
  muck for those players); each was made by
  :func:`~firmware.engine.showdown.auto_showdown_event` (show when the hand can win,
  muck otherwise). Any other early end is an error. ``--no-auto-showdown``
  makes that an error too.
* ``matches_file`` compares with the file's ``finishing_stacks`` (``null``
  when the file has none).

A file that cannot be replayed (bad TOML, unknown action syntax, an illegal
action) prints ``{"file": ..., "ok": false, "error": "..."}`` on standard
output and the error sentence on standard error; the command goes on with
the other files and exits with status 1 at the end. Nothing is repaired
silently: a missing check or fold is an illegal-action error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from firmware.engine.histories.phh import load_phh, play_phh
from firmware.engine.rules import GameKind
from firmware.errors import HandHistoryError


def find_phh_files(paths: list[str]) -> list[Path]:
    """Expand files and folders (recursively, sorted) into ``.phh`` files.

    :raises HandHistoryError: if a path does not exist.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.phh") if p.is_file()))
        elif path.is_file():
            found.append(path)
        else:
            raise HandHistoryError(
                f"The path {raw} is neither a .phh file nor a folder; check the spelling."
            )
    return found


def replay_file(path: Path, game: GameKind, *, auto_showdown: bool = True) -> dict[str, Any]:
    """Replay one PHH file and return its result line (see the module docstring).

    :raises HandHistoryError: if the file cannot be read or replayed.
    """
    phh = load_phh(path)
    played = play_phh(phh, game, finish_showdown=auto_showdown)
    result = played.hand.result
    assert result is not None
    finishing = list(result.finishing_stacks)
    return {
        "file": str(path),
        "ok": True,
        "variant": phh.variant,
        "game": game.value,
        "players": list(phh.players)
        if phh.players
        else [f"p{i + 1}" for i in range(len(finishing))],
        "finishing_stacks": finishing,
        "pots": [{"amount": pot.amount, "winners": list(pot.winners)} for pot in result.pots],
        "auto_showdown": played.auto_showdown,
        "matches_file": (
            None if phh.finishing_stacks is None else list(phh.finishing_stacks) == finishing
        ),
    }


def replay_paths(
    paths: list[str], game: str = "tournament", *, auto_showdown: bool = True
) -> Iterator[dict[str, Any]]:
    """Replay every hand under ``paths`` and yield one result dict per file.

    A file that fails yields ``{"file", "ok": False, "error"}`` and the
    replay goes on. Player positions in the PHH file are our position
    indices, so ``finishing_stacks`` and ``winners`` are in the file's order.

    :param game: ``"cash"`` or ``"tournament"`` (the rules that differ).
    :raises HandHistoryError: if ``game`` is unknown or a path does not exist.
    """
    try:
        kind = GameKind(game)
    except ValueError as exc:
        raise HandHistoryError(
            f"The game {game!r} is not known; use 'cash' or 'tournament'."
        ) from exc
    for path in find_phh_files(paths):
        try:
            yield replay_file(path, kind, auto_showdown=auto_showdown)
        except HandHistoryError as exc:
            yield {"file": str(path), "ok": False, "error": str(exc)}


def main_replay(argv: list[str] | None = None) -> int:
    """Run ``pokertable replay``; return 0 if every hand replayed, 1 otherwise."""
    parser = argparse.ArgumentParser(
        prog="pokertable replay",
        description="Replay PHH hand histories (.phh files or folders of them) through the "
        "engine and print one JSON line per hand.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".phh file or folder")
    parser.add_argument(
        "--game",
        choices=[kind.value for kind in GameKind],
        default=GameKind.TOURNAMENT.value,
        help="rules that differ between cash games and tournaments (default: tournament)",
    )
    parser.add_argument(
        "--no-auto-showdown",
        action="store_true",
        help="treat actions that stop at the showdown as an error instead of finishing it",
    )
    args = parser.parse_args(argv)
    status = 0
    try:
        for line in replay_paths(args.paths, args.game, auto_showdown=not args.no_auto_showdown):
            print(json.dumps(line), flush=True)
            if not line["ok"]:
                status = 1
                print(f"pokertable replay: {line['error']}", file=sys.stderr)
    except HandHistoryError as exc:
        print(f"pokertable replay: {exc}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main_replay())
