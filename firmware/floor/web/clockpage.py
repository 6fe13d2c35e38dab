"""The public tournament clock for the room's TV (1920x1080, 1280x720 and the like).

One screen, never scrolled: the page is a grid the size of the window and
every size is in viewport units, so the same layout fills a 1080p and a 720p
TV. The countdown takes most of the height (read across a room); around it
the level with its blinds and ante, the next level, the break countdown,
players left of entries, the average stack, the prize pool, the payouts and
a chip-up notice when the next levels no longer need the smallest chip. The
live part is sent again every second by ``/events?page=clock`` (server-sent
events). Once the tournament has a winner the clock stops counting levels and
shows the final results (places, players, prizes).
"""

from __future__ import annotations

import html
import math
from typing import Any

from firmware.floor.store import dashboard
from firmware.floor.web.texts import plural
from firmware.floor.web.webpage import page
from firmware.i18n import tr

e = html.escape

PAYOUT_ROWS = 8
"""Places listed beside the clock (the rest are counted in one line)."""
RESULT_ROWS = 10

STYLE = """
*{box-sizing:border-box}
html,body{margin:0;width:100%;height:100%;overflow:hidden}
body{background:#06281e;color:#f6f6f6;font-family:"DejaVu Sans",system-ui,sans-serif}
#live{display:grid;width:100vw;height:100vh;padding:2.5vh 2.5vw;gap:2vh 2.5vw;
grid-template-columns:minmax(0,2.1fr) minmax(0,1fr);grid-template-rows:auto minmax(0,1fr) auto}
header{grid-column:1/3;display:flex;justify-content:space-between;align-items:baseline;gap:2vw;
min-width:0}
h1{font-size:5vh;margin:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#level{font-size:5.5vh;font-weight:bold;color:#f2c14e;white-space:nowrap}
.centre{display:flex;flex-direction:column;align-items:center;justify-content:center;
min-height:0;text-align:center;background:#0c3a2c;border-radius:2vh}
#time{font-size:min(30vh,17vw);font-weight:bold;line-height:1;
font-variant-numeric:tabular-nums;letter-spacing:.02em}
#time.paused{color:#ffcf70}
#blinds{font-size:min(8vh,4vw);font-weight:bold;margin:1vh 0 0}
.small{font-size:3vh;margin:.5vh 0;opacity:.95}
aside{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);
grid-auto-rows:min-content;gap:1.4vh 1vw;min-height:0;overflow:hidden;align-content:start}
aside .wide{grid-column:1/3}
.stat{background:#0e4634;border-radius:1.4vh;padding:1vh 1.2vw}
.stat .label{font-size:2.4vh;opacity:.9;display:block}
.stat .value{font-size:min(4.4vh,2.4vw);font-weight:bold;display:block;white-space:nowrap;
overflow:hidden;text-overflow:ellipsis;font-variant-numeric:tabular-nums}
.stat{min-width:0}
table{border-collapse:collapse;width:100%;font-size:2.6vh;font-variant-numeric:tabular-nums}
td{padding:.3vh .6vw} td.n{text-align:right}
footer{grid-column:1/3;display:flex;gap:2vw;font-size:3.2vh;min-height:4vh;color:#ffcf70}
#paused{font-weight:bold}
.results{grid-column:1/3;display:grid;grid-template-columns:1fr 1fr;gap:2vh 2.5vw;min-height:0}
#winner{font-size:8vh;font-weight:bold;color:#f2c14e;margin:0;display:flex;align-items:center;
justify-content:center;text-align:center;background:#0c3a2c;border-radius:2vh;padding:2vh 2vw}
.results>div{background:#0e4634;border-radius:2vh;padding:2vh 2vw;min-height:0;overflow:hidden}
.results table{font-size:3.6vh} .results td{padding:.6vh .6vw}
.results td:first-child{width:14%;color:#f2c14e}
"""


def level_at(levels: list[dict[str, Any]], elapsed: float) -> tuple[int, dict[str, Any], float]:
    """The level (1-based number and entry) ``elapsed`` seconds into the schedule, and the
    seconds left in it; breaks are entries with ``break_minutes``.

    >>> level_at([{"small_blind": 1, "big_blind": 2, "minutes": 1},
    ...           {"small_blind": 2, "big_blind": 4, "minutes": 1}], 90)
    (2, {'small_blind': 2, 'big_blind': 4, 'minutes': 1}, 30.0)
    """
    number = 0
    for entry in levels:
        length = float(entry.get("minutes", entry.get("break_minutes", 0))) * 60
        if "break_minutes" not in entry:
            number += 1
        if elapsed < length:
            return number, entry, length - elapsed
        elapsed -= length
    return number, levels[-1], 0.0


def next_break(levels: list[dict[str, Any]], elapsed: float) -> float | None:
    """Seconds until the next break starts, or None if no break is ahead.

    >>> next_break([{"minutes": 1}, {"break_minutes": 5}, {"minutes": 1}], 20)
    40.0
    """
    start = 0.0
    for entry in levels:
        length = float(entry.get("minutes", entry.get("break_minutes", 0))) * 60
        if "break_minutes" in entry and start >= elapsed:
            return start - elapsed
        start += length
    return None


def _amounts(entry: dict[str, Any]) -> list[int]:
    return [int(entry.get(k, 0)) for k in ("small_blind", "big_blind", "ante") if entry.get(k)]


def chip_up(levels: list[dict[str, Any]], number: int) -> int | None:
    """The smallest chip no level after level ``number`` needs, if that level needs it.

    >>> chip_up([{"small_blind": 25, "big_blind": 50}, {"small_blind": 50, "big_blind": 100}], 1)
    25
    >>> chip_up([{"small_blind": 25, "big_blind": 50}, {"small_blind": 75, "big_blind": 100}], 1)
    """
    plays = [x for x in levels if "break_minutes" not in x]
    if not 0 < number < len(plays):
        return None
    now = math.gcd(*_amounts(plays[number - 1]))
    later = math.gcd(*[a for x in plays[number:] for a in _amounts(x)])
    return now if now and later > now and later % now == 0 else None


def _blinds(entry: dict[str, Any], lang: str) -> str:
    """``25/50 · Ante 50`` or ``25/50 · No ante``."""
    ante = int(entry.get("ante", 0))
    said = tr("floor.clock.ante", lang, ante=ante) if ante else tr("floor.clock.no_ante", lang)
    return f"{entry['small_blind']}/{entry['big_blind']} · {said}"


def _clock(m: float) -> str:
    minutes, seconds = divmod(max(0, math.ceil(m)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes:02d}:{seconds:02d}"


def _stat(ident: str, label: str, value: str, wide: bool = False) -> str:
    css = "stat wide" if wide else "stat"
    return (
        f"<div class='{css}' id='{ident}'><span class='label'>{e(label)}</span>"
        f"<span class='value'>{e(value)}</span></div>"
    )


def _results(conninfo: str, tid: str, state: dict[str, Any], name: str, lang: str) -> str:
    """The finished tournament: the winner and the places paid."""
    rows = dashboard.query(
        conninfo,
        "SELECT p.name, r.entry, r.place, r.prize FROM registrations r JOIN players p "
        "ON p.id = r.player_id WHERE r.tournament_id = %s AND r.place IS NOT NULL "
        "ORDER BY r.place, p.name LIMIT %s",
        (tid, RESULT_ROWS),
    )
    cells = "".join(
        f"<tr><td>{e(tr('floor.clock.place', lang, place=place))}</td>"
        f"<td>{e(player + (f' #{entry}' if int(entry) > 1 else ''))}</td>"
        f"<td class='n'>{int(prize or 0)}</td></tr>"
        for player, entry, place, prize in rows
    )
    winner = tr("floor.clock.finished", lang, name=state.get("winner") or "-")
    return (
        f"<header><h1 id='name'>{e(name)}</h1>"
        f"<span id='level'>{e(tr('floor.clock.over', lang))}</span></header>"
        f"<section class='results'><p id='winner'>{e(winner)}</p>"
        f"<div><h2 class='small'>{e(tr('floor.clock.results', lang))}</h2>"
        f"<table id='results'>{cells}</table></div></section><footer></footer>"
    )


def clock_main(conninfo: str, lang: str) -> str:
    """The clock's live part for the newest tournament (sent again by ``/events``)."""
    rows = dashboard.query(
        conninfo, "SELECT id, name, state FROM tournaments ORDER BY created DESC LIMIT 1"
    )
    if not rows:
        return f"<header><h1 id='name'>{e(tr('floor.clock.none', lang))}</h1></header>"
    tid, name, state = rows[0]
    if state.get("winner") or state.get("finished"):
        return _results(conninfo, tid, state, name, lang)
    levels = state.get("levels") or []
    started = state.get("started_at")
    level_label = time_text = blinds = left_label = ""
    next_text, break_text, notices, paused = "", "—", [], False
    break_label = tr("floor.clock.no_break", lang)
    if levels and started is not None:
        elapsed, paused = dashboard.clock_elapsed(conninfo, tid, float(started))
        number, entry, left = level_at(levels, elapsed)
        time_text = _clock(left)
        plays = [x for x in levels if "break_minutes" not in x]
        if "break_minutes" in entry:
            level_label = tr("floor.clock.break", lang)
            left_label = tr("floor.clock.break_left", lang)
            upcoming = plays[number : number + 1]
        else:
            level_label = tr("floor.clock.level_label", lang, number=number)
            left_label = tr("floor.clock.time_left", lang)
            blinds = tr("floor.clock.blinds", lang, blinds=_blinds(entry, lang))
            upcoming = plays[number : number + 1]
            chip = chip_up(levels, number)
            if chip is not None:
                brk = next_break(levels, elapsed)
                key = (
                    "floor.clock.chip_up_break" if brk is not None else "floor.clock.chip_up_level"
                )
                notices.append(tr(key, lang, chip=chip))
        if upcoming:
            nxt = upcoming[0]
            next_text = _blinds(nxt, lang)
        else:
            next_text = tr("floor.clock.last_level", lang)
        brk = next_break(levels, elapsed)
        if brk is not None:
            break_text, break_label = _clock(brk), tr("floor.clock.break_in", lang)
    if paused:
        notices.insert(0, tr("floor.clock.paused", lang))
    if state.get("hand_for_hand"):
        notices.append(tr("floor.clock.hfh", lang))
    left_players = int(state.get("left", 0))
    entries = int(state.get("entries", 0))
    average = int(state.get("chips", 0)) // left_players if left_players else 0
    prizes = [int(p) for p in state.get("prizes") or []]
    payout_rows = "".join(
        f"<tr><td>{e(tr('floor.clock.place', lang, place=place))}</td>"
        f"<td class='n'>{amount}</td></tr>"
        for place, amount in enumerate(prizes[:PAYOUT_ROWS], 1)
    )
    more = ""
    if len(prizes) > PAYOUT_ROWS:
        more = plural("floor.clock.more_places", len(prizes) - PAYOUT_ROWS, lang)
        more = f"<tr><td colspan='2'>{e(more)}</td></tr>"
    css = "paused" if paused else ""
    idents = ["paused" if paused and n == 0 else f"notice-{n}" for n in range(len(notices))]
    footer = "".join(
        f"<span id='{ident}' role='status'>{e(text)}</span>"
        for ident, text in zip(idents, notices, strict=True)
    )
    return (
        f"<header><h1 id='name'>{e(name)}</h1><span id='level'>{e(level_label)}</span></header>"
        f"<section class='centre' aria-label='{e(tr('floor.clock.title', lang))}'>"
        f"<div id='time' class='{css}'>{e(time_text)}</div>"
        f"<p class='small'>{e(left_label)}</p><p id='blinds'>{e(blinds)}</p></section>"
        "<aside>"
        + _stat("next", tr("floor.clock.next_label", lang), next_text, wide=True)
        + _stat("break", break_label, break_text)
        + _stat(
            "players",
            tr("floor.clock.players_label", lang),
            tr("floor.clock.players_value", lang, left=left_players, entries=entries),
        )
        + _stat("average", tr("floor.clock.average_label", lang), str(average))
        + _stat("pool", tr("floor.clock.pool_label", lang), str(sum(prizes)))
        + f"<div class='stat wide'><span class='label'>{e(tr('floor.clock.payouts', lang))}</span>"
        f"<table id='payouts'>{payout_rows}{more}</table></div></aside>"
        f"<footer>{footer}</footer>"
    )


def clock_page(conninfo: str, lang: str, nonce: str) -> str:
    """The whole clock page; its live part follows the tournament by server-sent events."""
    events = f"/events?page=clock&amp;lang={lang}"
    body = f"<main id='live' data-events='{events}'>{clock_main(conninfo, lang)}</main>"
    return page(tr("floor.clock.title", lang), body, lang, nonce=nonce, live=events, style=STYLE)
