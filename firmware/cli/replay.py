"""The ``pokertable replay`` command: replay hand histories through the engine.

``pokertable replay PATH... [--game cash|tournament] [--no-auto-showdown]
[--unit 0.01] [--rake PERCENT [--rake-cap AMOUNT] [--rake-preflop]]``

Each PATH is a ``.phh`` hand, a ``.phhs`` collection (``[1]``, ``[2]``...
sections), a PokerStars-style text file, or a folder searched recursively for
them (see :mod:`firmware.cli.history_files`). Every hand is played through our
engine with the chosen rules (``cash``: no fixed-limit raise cap when two
players are in the hand; ``tournament``, the default: the cap always applies)
and printed as ONE JSON object per line on standard output::

    {"file": "...", "hand": "3", "ok": true, "decided": true, "variant": "NT",
     "unit": "0.01", "players": ["p1", "p2"], "finishing_stacks": [...],
     "winnings": [...], "pots": [{"amount": 150, "winners": [1]}], "rake": 7,
     "auto_showdown": 0, "matches_file": false,
     "difference": {"winnings": [0, -7]}}

* ``hand`` is the section of a ``.phhs`` file (``null`` for a ``.phh`` file)
  or the hand number of a PokerStars hand.
* Amounts are whole chip units; ``unit`` is the money one unit is worth
  (``null``: the file's amounts are whole chips). The unit comes from
  ``--unit`` or from the hand's own amounts (``0.25`` and ``200.3`` give
  ``0.01``); decimal amounts are read exactly, never as floats.
* ``finishing_stacks`` and ``winnings`` are in the file's player order
  (``p1`` first), after the rake; ``pots`` lists the main pot then the side
  pots, ``winners`` are 0-based indices in that order.
* ``auto_showdown`` counts the show/muck decisions we added because the
  file's actions stop exactly at the showdown (made by
  :func:`~firmware.engine.showdown.auto_showdown_event`); ``--no-auto-showdown``
  makes such a hand an error.
* ``matches_file`` compares our ``finishing_stacks`` and ``winnings`` with the
  file's (``null`` when the file records neither); ``difference`` gives, per
  field that differs, the file's value minus ours for each player. A
  difference never makes a playable hand an error.
* ``--rake 5 --rake-cap 3`` takes 5 % of each pot, at most 3 (in the file's
  money), and nothing when no flop was dealt unless ``--rake-preflop``: the
  table's own :class:`~firmware.engine.rules.RakePolicy` (HOUSE-RAKE), taken
  from the hand's total and shared by the pots in proportion to their size;
  see :mod:`firmware.engine.histories.rake`.
* A hand whose shown cards nobody recorded (``sm ????``) and whose result
  depends on them is ``"decided": false`` with ``undecidable``, a sentence;
  see :mod:`firmware.engine.histories.unknown`.

A hand or path that cannot be replayed prints ``{"file": ..., "ok": false,
"error": "..."}`` and the error sentence on standard error; the command goes
on with the other hands and paths and exits with status 1 at the end.
Nothing is repaired silently: a missing check or fold is an error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from decimal import ROUND_FLOOR, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from firmware.cli.helptext import argparse_speaks, argv_lang, lang_option
from firmware.cli.history_files import find_history_files, looks_like_pokerstars
from firmware.cli.lang import cli_lang, keyed, said_error, say
from firmware.engine.histories.amounts import parse_unit
from firmware.engine.histories.phh import PHHHand, read_text_file
from firmware.engine.histories.phhs import loads_phhs
from firmware.engine.histories.pokerstars_import import loads_pokerstars
from firmware.engine.histories.rake import rake_from_percent, take_rake, winnings
from firmware.engine.histories.unknown import decide_phh
from firmware.engine.rules import BASIS_POINTS, GameKind, RakePolicy
from firmware.errors import HandHistoryError, PokerTableError
from firmware.views.alerts import said


def replay_hand(
    phh: PHHHand,
    game: GameKind,
    *,
    auto_showdown: bool = True,
    rake: RakePolicy | None = None,
    rake_cap: Decimal | None = None,
) -> dict[str, Any]:
    """Replay one hand and return its result line (without ``file`` and ``hand``).

    :param rake_cap: The rake cap in the file's money (converted with the hand's unit).
    :raises HandHistoryError: if the hand cannot be replayed.
    """
    decision = decide_phh(phh, game, finish_showdown=auto_showdown)
    n = phh.player_count
    line: dict[str, Any] = {
        "ok": True,
        "decided": decision.decided,
        "variant": phh.variant,
        "game": game.value,
        "unit": None if phh.unit is None else str(phh.unit),
        "players": list(phh.players) if phh.players else [f"p{i + 1}" for i in range(n)],
    }
    if decision.replay is None:
        line.update(undecidable=decision.reason, stopped_at=decision.stopped_at)
        line.update(finishing_stacks=None, winnings=None, pots=None, matches_file=None)
        return line
    played = decision.replay
    result = played.hand.result
    assert result is not None
    won = list(winnings(result, n))
    finishing = list(result.finishing_stacks)
    raked = result.rake  # a hand our table raked replays with its policy (HOUSE-RAKE)
    file_rake = phh.ignored.get("_rake")
    if raked or played.hand.config.rake is not None:
        rake = None  # the engine took the file's own rake: it is checked below
    elif rake is None and isinstance(file_rake, int) and file_rake > 0:
        rake = RakePolicy(BASIS_POINTS, file_rake, no_flop_no_drop=False)  # the file's rake
        rake_cap = None
    if rake is not None:
        if rake_cap is not None:
            cap = int((rake_cap / (phh.unit or Decimal(1))).to_integral_value(ROUND_FLOOR))
            # A cap of nothing takes nothing (the policy's cap 0 means "no cap").
            rake = replace(rake, cap=cap) if cap else replace(rake, basis_points=0)
        raked, taken = take_rake(result, len(played.hand.board), rake)
        won = [w - t for w, t in zip(won, taken, strict=True)]
        finishing = [f - t for f, t in zip(finishing, taken, strict=True)]
    difference: dict[str, list[int]] = {}
    for key, ours, theirs in (
        ("finishing_stacks", finishing, phh.finishing_stacks),
        ("winnings", won, phh.winnings),
    ):
        if theirs is not None and list(theirs) != ours:
            difference[key] = [t - o for t, o in zip(theirs, ours, strict=True)]
    stated = phh.ignored.get("rake")
    if played.hand.config.rake is not None and stated != raked:
        difference["rake"] = [stated - raked if isinstance(stated, int) else -raked]
    dropped, stated_drop = result.jackpot_drop, phh.ignored.get("_jackpot_drop")
    if played.hand.config.jackpot_drop is not None and stated_drop != dropped:
        given = stated_drop if isinstance(stated_drop, int) else 0
        difference["jackpot_drop"] = [given - dropped]
    recorded = phh.finishing_stacks is not None or phh.winnings is not None
    line.update(
        finishing_stacks=finishing,
        winnings=won,
        pots=[{"amount": pot.amount, "winners": list(pot.winners)} for pot in result.pots],
        rake=raked,
        auto_showdown=played.auto_showdown,
        matches_file=(not difference) if recorded else None,
    )
    if played.hand.config.jackpot_drop is not None:
        line["jackpot_drop"] = dropped
    if difference:
        line["difference"] = difference
    return line


def replay_file(
    path: Path,
    game: GameKind,
    *,
    auto_showdown: bool = True,
    unit: Decimal | None = None,
    rake: RakePolicy | None = None,
    rake_cap: Decimal | None = None,
) -> Iterator[dict[str, Any]]:
    """Replay every hand of one file; yield a result line per hand.

    :raises HandHistoryError: if the file cannot be read or holds no hand.
    """
    text = read_text_file(path, str(path))
    if looks_like_pokerstars(path):
        entries = loads_pokerstars(text, name=str(path), unit=unit)
    else:
        entries = loads_phhs(text, name=str(path), unit=unit)
    for entry in entries:
        head: dict[str, Any] = {"file": str(path), "hand": entry.label}
        if entry.hand is None:
            yield {**head, "ok": False, "error": entry.error}
            continue
        try:
            yield {
                **head,
                **replay_hand(
                    entry.hand, game, auto_showdown=auto_showdown, rake=rake, rake_cap=rake_cap
                ),
            }
        except HandHistoryError as exc:
            yield {**head, "ok": False, "error": str(exc)}  # the engine's detailed sentence


def replay_paths(
    paths: list[str],
    game: str = "tournament",
    *,
    auto_showdown: bool = True,
    unit: Decimal | None = None,
    rake: RakePolicy | None = None,
    rake_cap: Decimal | None = None,
) -> Iterator[dict[str, Any]]:
    """Replay every hand under ``paths`` and yield one result dict per hand.

    A hand, file or path that fails yields ``{"file", "ok": False, "error"}``
    and the replay goes on.

    :param game: ``"cash"`` or ``"tournament"`` (the rules that differ).
    :raises HandHistoryError: if ``game`` is unknown.
    """
    try:
        kind = GameKind(game)
    except ValueError as exc:
        raise keyed(HandHistoryError, "cli.replay.game", game=repr(game)) from exc
    for found in find_history_files(paths):
        if found.error is not None:
            said = (found.key, found.params)
            yield {
                "file": found.path,
                "hand": None,
                "ok": False,
                "error": found.error,
                "_said": said,
            }
            continue
        try:
            yield from replay_file(
                Path(found.path),
                kind,
                auto_showdown=auto_showdown,
                unit=unit,
                rake=rake,
                rake_cap=rake_cap,
            )
        except HandHistoryError as exc:  # the engine's detailed sentence (its key is coarser)
            yield {"file": found.path, "hand": None, "ok": False, "error": str(exc)}


def _decimal(
    parser: argparse.ArgumentParser, option: str, text: str | None, lang: str
) -> Decimal | None:
    if text is None:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        value = Decimal(-1)
    if not value.is_finite() or value < 0 or value > 10**12:
        parser.error(say("cli.replay.number", lang, option=option, value=repr(text)))
    return value


def main_replay(argv: list[str] | None = None) -> int:
    """Run ``pokertable replay``; return 0 if every hand replayed, 1 otherwise."""
    lang = argv_lang(argv)
    parser = argparse.ArgumentParser(
        prog="pokertable replay", description=say("cli.help.replay.about", lang)
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar=say("cli.help.metavar.path", lang),
        help=say("cli.help.replay.paths", lang),
    )
    parser.add_argument(
        "--game",
        choices=[kind.value for kind in GameKind],
        default=GameKind.TOURNAMENT.value,
        help=say("cli.help.replay.game", lang),
    )
    parser.add_argument(
        "--no-auto-showdown",
        action="store_true",
        help=say("cli.help.replay.no_auto_showdown", lang),
    )
    parser.add_argument(
        "--unit",
        metavar=say("cli.help.metavar.money", lang),
        help=say("cli.help.replay.unit", lang),
    )
    parser.add_argument("--rake", metavar="N", help=say("cli.help.replay.rake", lang))
    parser.add_argument(
        "--rake-cap",
        metavar=say("cli.help.metavar.money", lang),
        help=say("cli.help.replay.rake_cap", lang),
    )
    parser.add_argument(
        "--rake-preflop", action="store_true", help=say("cli.help.replay.rake_preflop", lang)
    )
    lang_option(parser, lang)
    args = parser.parse_args(argv)
    lang = cli_lang(args.lang)
    try:
        unit = None if args.unit is None else parse_unit(args.unit)
    except HandHistoryError as exc:
        parser.error(said_error(exc, lang))
    percent = _decimal(parser, "--rake", args.rake, lang)
    cap = _decimal(parser, "--rake-cap", args.rake_cap, lang)
    if percent is not None and percent > 100:
        parser.error(say("cli.replay.rake", lang))
    try:  # the table's own rake policy (HOUSE-RAKE), from the percentage
        rake = None if percent is None else rake_from_percent(percent, None, not args.rake_preflop)
    except PokerTableError as exc:
        parser.error(said_error(exc, lang))
    status = 0
    for line in replay_paths(
        args.paths,
        args.game,
        auto_showdown=not args.no_auto_showdown,
        unit=unit,
        rake=rake,
        rake_cap=cap,
    ):
        key, params = line.pop("_said", (None, {}))  # for the sentence, not the JSON
        print(json.dumps(line), flush=True)
        if not line["ok"]:
            status = 1
            error = said(key, params, line["error"], lang)
            print(f"pokertable replay: {error}", file=sys.stderr)
    return status


if __name__ == "__main__":  # pragma: no cover
    with argparse_speaks(argv_lang(None)):  # as through pokertable (firmware.cli.main)
        raise SystemExit(main_replay())
