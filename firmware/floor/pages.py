"""The floor's HTML pages, built from PostgreSQL rows (every sentence from the catalog).

Pure rendering: :mod:`firmware.floor.web` routes, checks sessions and
permissions and calls these. Every value from a table or a person is
escaped; forms carry the session's CSRF token.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from firmware.floor import webstore
from firmware.floor.control import Plan, Step
from firmware.i18n import CATALOG, tr

e = html.escape

STYLE = """
body{font-family:sans-serif;background:#0b3d2e;color:#f4f4f4;margin:1.5em}
h1{margin:.2em 0} .grid{display:flex;flex-wrap:wrap;gap:1em}
.card{background:#14543f;border-radius:8px;padding:.8em 1.2em;min-width:14em}
table{border-collapse:collapse} td,th{padding:.15em .6em;text-align:left}
.big{font-size:4em;font-weight:bold} .alert{color:#ffcf70} .fault{color:#ff8c8c}
.ok{color:#9ff59f} input,button,select{font-size:1.05em;margin:.2em 0}
a{color:#bfe6ff} form.inline{display:inline} .bar{display:flex;gap:1em;align-items:center}
"""


def page(title: str, body: str, refresh: int = 0, nonce: str = "") -> str:
    """A whole page; ``refresh`` reloads it every so many seconds unless a form is in use."""
    script = ""
    if refresh and nonce:
        script = (
            f"<script nonce='{nonce}'>setInterval(function(){{var a=document.activeElement;"
            "var busy=a&&(a.tagName==='INPUT'||a.tagName==='SELECT');"
            "document.querySelectorAll('input[type=text]').forEach(function(i){"
            f"if(i.value)busy=true}});if(!busy)location.reload()}},{refresh * 1000});</script>"
        )
    elif refresh:
        script = f'<meta http-equiv="refresh" content="{refresh}">'
    return (
        f"<!doctype html><html><head><meta charset='utf-8'>{script}"
        f"<title>{e(title)}</title><style>{STYLE}</style></head>"
        f"<body>{body}</body></html>"
    )


def text_of(key: str | None, params: dict[str, Any], fallback: str, lang: str) -> str:
    """A catalog sentence if the key is known and its fields given, else the English text."""
    if key and key in CATALOG:
        try:
            return tr(key, lang, **params)
        except (KeyError, IndexError, ValueError):
            pass
    return fallback


def form(action: str, csrf: str, lang: str, inner: str, button: str, ident: str) -> str:
    """A POST form to ``/do/<action>`` with the CSRF token."""
    return (
        f"<form class='inline' method='post' action='/do/{action}?lang={lang}'>"
        f"<input type='hidden' name='csrf' value='{e(csrf)}'>{inner}"
        f"<button type='submit' id='{e(ident)}'>{e(button)}</button></form>"
    )


def login_page(lang: str, error: str) -> str:
    """The staff login form."""
    problem = f"<p class='alert' id='error'>{e(error)}</p>" if error else ""
    other = "es" if lang == "en" else "en"
    body = (
        f"<h1>{e(tr('floor.web.login_title', lang))}</h1>{problem}"
        f"<form method='post' action='/login?lang={lang}'>"
        f"<label>{e(tr('floor.web.badge', lang))}<br>"
        "<input name='badge' id='badge' autocomplete='off'></label><br>"
        f"<label>{e(tr('floor.web.pin', lang))}<br>"
        "<input name='pin' id='pin' type='password' inputmode='numeric'></label><br>"
        f"<button id='login' type='submit'>{e(tr('floor.web.login', lang))}</button></form>"
        f"<p><a href='/login?lang={other}'>{e(tr('floor.web.language', other))}</a></p>"
    )
    return page(tr("floor.web.login_title", lang), body)


def message_page(lang: str, text: str) -> str:
    """A page with one sentence (refusals) and a way back."""
    back = e(tr("floor.web.back", lang))
    body = f"<p class='alert' id='error'>{e(text)}</p><p><a href='/?lang={lang}'>{back}</a></p>"
    return page(tr("floor.web.title", lang), body)


# ------------------------------------------------------------------ the clock


def clock_page(conninfo: str, lang: str) -> str:
    """The public clock of the newest tournament."""
    rows = webstore.query(
        conninfo, "SELECT id, name, state FROM tournaments ORDER BY created DESC LIMIT 1"
    )
    if not rows:
        body = f"<h1>{e(tr('floor.clock.none', lang))}</h1>"
        return page(tr("floor.clock.title", lang), body, refresh=5)
    tid, name, state = rows[0]
    levels = state.get("levels") or []
    started = state.get("started_at")
    parts = [f"<h1 id='name'>{e(name)}</h1>"]
    if levels and started is not None:
        elapsed, paused = webstore.clock_elapsed(conninfo, tid, float(started))
        number, entry, left = level_at(levels, elapsed)
        if "break_minutes" in entry:
            parts.append(f"<p class='big' id='level'>{e(tr('floor.clock.break', lang))}</p>")
        else:
            blinds = f"{entry['small_blind']}/{entry['big_blind']}"
            ante = entry.get("ante", 0)
            text = tr("floor.clock.level", lang, number=number, blinds=blinds, ante=ante)
            parts.append(f"<p class='big' id='level'>{e(text)}</p>")
        minutes, seconds = divmod(int(left), 60)
        parts.append(
            f"<p class='big' id='time'>{minutes:02d}:{seconds:02d}</p>"
            f"<p>{e(tr('floor.clock.time_left', lang))}</p>"
        )
        if paused:
            parts.append(f"<p class='alert' id='paused'>{e(tr('floor.clock.paused', lang))}</p>")
        upcoming = [x for x in levels if "break_minutes" not in x][number:]
        if upcoming:
            nxt = upcoming[0]
            text = tr(
                "floor.clock.next",
                lang,
                blinds=f"{nxt['small_blind']}/{nxt['big_blind']}",
                ante=nxt.get("ante", 0),
            )
            parts.append(f"<p id='next'>{e(text)}</p>")
        brk = next_break(levels, elapsed)
        if brk is not None:
            minutes = int(brk // 60)
            parts.append(
                f"<p id='break'>{e(tr('floor.clock.next_break', lang, minutes=minutes))}</p>"
            )
    left_players = int(state.get("left", 0))
    entries = int(state.get("entries", 0))
    chips = int(state.get("chips", 0))
    average = chips // left_players if left_players else 0
    players = tr("floor.clock.players", lang, left=left_players, entries=entries)
    stack = tr("floor.clock.average", lang, chips=average)
    parts.append(
        f"<div class='grid'><div class='card' id='players'>{e(players)}</div>"
        f"<div class='card' id='average'>{e(stack)}</div></div>"
    )
    if state.get("winner"):
        winner = tr("floor.clock.finished", lang, name=state["winner"])
        parts.append(f"<p class='big' id='winner'>{e(winner)}</p>")
    prizes = state.get("prizes") or []
    if prizes:
        cells = "".join(
            f"<tr><td>{place}</td><td>{amount}</td></tr>" for place, amount in enumerate(prizes, 1)
        )
        parts.append(
            f"<h2>{e(tr('floor.clock.payouts', lang))}</h2><table id='payouts'>{cells}</table>"
        )
    return page(tr("floor.clock.title", lang), "".join(parts), refresh=2)


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


# ------------------------------------------------------------------ the dashboard


def plan_lines(plan: Plan, lang: str) -> list[str]:
    """Each step of a plan as a sentence."""
    return [step_text(step, lang) for step in plan.steps]


def step_text(step: Step, lang: str) -> str:
    """One step as a sentence."""
    if step.kind == "move" and step.move is not None:
        m = step.move
        rule = m.reason.split(":")[0]
        return tr(
            "floor.plan.move",
            lang,
            player=m.player,
            table=m.from_table,
            seat=m.from_seat,
            to_table=m.to_table,
            to_seat=m.to_seat,
            rule=rule,
        )
    if step.kind == "final":
        return tr("floor.plan.final", lang, table=step.table, players=step.players)
    return tr("floor.plan.break", lang, table=step.table, players=step.players)


def tournament_section(
    lang: str, csrf: str, control: dict[str, Any] | None, plan: Plan | None
) -> str:
    """Start, pause, resume and the plan to confirm."""
    if control is None:
        return ""
    if control["finished"]:
        status = tr("floor.t.status_finished", lang)
    elif not control["started"]:
        status = tr("floor.t.status_waiting", lang, players=control["players"])
    elif control["paused"]:
        status = tr("floor.t.status_paused", lang)
    else:
        status = tr("floor.t.status_running", lang)
    parts = [f"<h2>{e(tr('floor.web.tournament', lang))}</h2><p id='t-status'>{e(status)}</p><p>"]
    if not control["started"]:
        parts.append(form("start", csrf, lang, "", tr("floor.t.start", lang), "t-start"))
    elif not control["finished"]:
        if control["paused"]:
            parts.append(form("resume", csrf, lang, "", tr("floor.t.resume", lang), "t-resume"))
        else:
            parts.append(form("pause", csrf, lang, "", tr("floor.t.pause", lang), "t-pause"))
    parts.append("</p>")
    if control["started"] and not control["finished"]:
        parts.append(entries_card(lang, csrf, control))
    if plan is not None and plan.steps:
        items = "".join(f"<li>{e(line)}</li>" for line in plan_lines(plan, lang))
        parts.append(
            f"<div class='card' id='plan'><h3>{e(tr('floor.plan.title', lang))}</h3>"
            f"<ul>{items}</ul><a id='plan-apply' href='/confirm?token={plan.token}&lang={lang}'>"
            f"{e(tr('floor.plan.apply', lang))}</a></div>"
        )
    elif control["started"] and not control["finished"]:
        parts.append(f"<p id='plan-none'>{e(tr('floor.plan.balanced', lang))}</p>")
    return "".join(parts)


def entries_card(lang: str, csrf: str, control: dict[str, Any]) -> str:
    """Late registration and re-entry (FLOOR-LATE): whether the window is open, a name
    and one button for each (the floor checks the window and the name)."""
    if control.get("entries_open"):
        status = tr("floor.entry.open", lang, level=control.get("late_until", 0))
    else:
        status = tr("floor.entry.closed_now", lang)
    if int(control.get("max_entries", 1)) > 1:
        status += " " + tr("floor.entry.per_player", lang, max=control["max_entries"])
    buttons = "".join(
        f"<button type='submit' name='kind' value='{kind}' id='entry-{kind}'>"
        f"{e(tr(f'floor.entry.{kind}', lang))}</button> "
        for kind in ("late", "reentry")
    )
    return (
        f"<div class='card' id='entries'><h3>{e(tr('floor.entry.title', lang))}</h3>"
        f"<p id='entries-status'>{e(status)}</p>"
        f"<form method='post' action='/do/enter?lang={lang}'>"
        f"<input type='hidden' name='csrf' value='{e(csrf)}'>"
        f"<label>{e(tr('floor.wait.player', lang))} <input type='text' name='player' "
        f"id='entry-player' maxlength='40'></label> {buttons}</form></div>"
    )


def confirm_page(lang: str, csrf: str, plan: Plan, token: str) -> str:
    """The one confirmation of a plan."""
    if not plan.steps or plan.token != token:
        return message_page(lang, tr("floor.plan.changed", lang))
    items = "".join(f"<li>{e(line)}</li>" for line in plan_lines(plan, lang))
    hidden = f"<input type='hidden' name='token' value='{e(token)}'>"
    body = (
        f"<h1>{e(tr('floor.plan.confirm_title', lang))}</h1><ul id='confirm-steps'>{items}</ul>"
        + form("apply", csrf, lang, hidden, tr("floor.plan.confirm", lang), "confirm")
        + f" <a href='/?lang={lang}'>{e(tr('floor.web.back', lang))}</a>"
    )
    return page(tr("floor.plan.confirm_title", lang), body)


def _tables(conninfo: str) -> list[tuple[Any, ...]]:
    return webstore.query(
        conninfo,
        "SELECT t.id, t.last_seq, t.status, (SELECT count(*) FROM hands h WHERE "
        "h.table_id = t.id), f.faults FROM tables t LEFT JOIN table_faults f ON "
        "f.table_id = t.id ORDER BY t.id",
    )


def game_of(status: dict[str, Any]) -> str:
    """The game a table runs, as the waiting list names it."""
    return str(status.get("game") or "")


def tables_section(lang: str, tables: Sequence[tuple[Any, ...]]) -> str:
    """A card per table: game, hands, free seats, players, devices in fault."""
    parts = ["<div class='grid'>"]
    for table_id, last_seq, status, hands, faults in tables:
        seats = status.get("seats", {})
        rows = "".join(
            f"<tr><td>{e(n)}</td><td>{e(str(s['player']))}</td><td>{int(s['stack'])}</td></tr>"
            for n, s in sorted(seats.items(), key=lambda item: int(item[0]))
        )
        free = int(status.get("max_seats", 10)) - len(seats)
        summary = tr("floor.web.table", lang, table=table_id, hands=hands, free=free, seq=last_seq)
        game = game_of(status)
        state = tr("floor.web.playing" if status.get("playing") else "floor.web.between", lang)
        fault_rows = "".join(
            f"<li class='fault'>{e(tr('floor.web.fault', lang, device=d, detail=x))}</li>"
            for d, x in sorted((faults or {}).items())
        )
        link = f"/hands?table={quote(table_id)}&lang={lang}"
        parts.append(
            f"<div class='card table' id='table-{e(table_id)}'><h3>{e(summary)}</h3>"
            f"<p>{e(game)} · {e(state)}</p><table>{rows}</table>"
            f"<ul class='faults'>{fault_rows}</ul>"
            f"<a href='{e(link)}'>{e(tr('floor.web.hands', lang))}</a></div>"
        )
    parts.append("</div>")
    return "".join(parts)


def calls_section(conninfo: str, lang: str, csrf: str) -> str:
    """Floor calls and alerts not yet acknowledged, each with its button."""
    notices = webstore.open_notices(conninfo)
    alerts = webstore.open_alerts(conninfo)
    parts = [f"<h2>{e(tr('floor.web.alerts', lang))}</h2><ul id='alerts'>"]
    for nid, table_id, kind, text, key, params, _at in notices:
        line = tr(
            "floor.web.call" if kind == "call" else "floor.web.notice",
            lang,
            table=table_id,
            text=text_of(key, params or {}, text, lang),
        )
        hidden = f"<input type='hidden' name='notice' value='{int(nid)}'>"
        button = form("ack", csrf, lang, hidden, tr("floor.web.ack", lang), f"ack-n{nid}")
        css = "alert call" if kind == "call" else "alert"
        parts.append(f"<li class='{css}'>{e(line)} {button}</li>")
    for aid, table_id, rule, text, key, params in alerts:
        hidden = f"<input type='hidden' name='alert' value='{int(aid)}'>"
        button = form("ack", csrf, lang, hidden, tr("floor.web.ack", lang), f"ack-a{aid}")
        text = text_of(key, params or {}, text, lang)  # a floor alert in the page's language
        parts.append(f"<li class='alert'>{e(table_id or '')} {e(rule)}: {e(text)} {button}</li>")
    parts.append("</ul>")
    return "".join(parts)


def waiting_section(conninfo: str, lang: str, csrf: str, tables: Sequence[tuple[Any, ...]]) -> str:
    """The waiting list by game: add, call to a table with a free seat, take off."""
    rows = webstore.query(
        conninfo,
        "SELECT id, game, player, added, called_table FROM waiting_list "
        "WHERE removed_at IS NULL ORDER BY game, id",
    )
    games = sorted({game_of(t[2]) for t in tables if game_of(t[2])})
    free: dict[str, list[str]] = {}
    for table_id, _seq, status, _hands, _faults in tables:
        if int(status.get("max_seats", 10)) > len(status.get("seats", {})):
            free.setdefault(game_of(status), []).append(table_id)
    parts = [f"<h2>{e(tr('floor.wait.title', lang))}</h2><table id='waiting'>"]
    position: dict[str, int] = {}
    for wid, game, player, added, called in rows:
        position[game] = position.get(game, 0) + 1
        since = tr("floor.wait.since", lang, time=added.strftime("%H:%M"))
        state = tr("floor.wait.called", lang, table=called) if called else since
        options = "".join(
            f"<option value='{e(t)}'>{e(t)}</option>" for t in free.get(game, [])
        ) or "".join(f"<option value='{e(str(t[0]))}'>{e(str(t[0]))}</option>" for t in tables)
        ident = f"<input type='hidden' name='entry' value='{int(wid)}'>"
        call = form(
            "wait_call", csrf, lang,
            ident + f"<select name='table' id='call-table-{wid}'>{options}</select>",
            tr("floor.wait.call", lang), f"call-{wid}",
        )  # fmt: skip
        remove = form("wait_remove", csrf, lang, ident, tr("floor.wait.remove", lang), f"rm-{wid}")
        parts.append(
            f"<tr class='waiting' id='wait-{wid}'><td>{e(game)}</td><td>{position[game]}</td>"
            f"<td>{e(player)}</td><td>{e(state)}</td><td>{call} {remove}</td></tr>"
        )
    parts.append("</table>")
    choices = "".join(f"<option value='{e(g)}'></option>" for g in games)
    inner = (
        f"<label>{e(tr('floor.wait.game', lang))} <input type='text' name='game' id='wait-game' "
        f"list='games' maxlength='40'></label><datalist id='games'>{choices}</datalist> "
        f"<label>{e(tr('floor.wait.player', lang))} <input type='text' name='player' "
        "id='wait-player' maxlength='40'></label> "
    )
    parts.append(
        "<p>" + form("wait_add", csrf, lang, inner, tr("floor.wait.add", lang), "wait-add") + "</p>"
    )
    return "".join(parts)


def dashboard_page(
    conninfo: str,
    lang: str,
    user: tuple[str, str],
    csrf: str,
    nonce: str,
    flash: tuple[str, bool],
    control: dict[str, Any] | None,
    plan: Plan | None,
    refresh: int,
) -> str:
    """Every table, the calls and alerts, the waiting list and the tournament."""
    tables = _tables(conninfo)
    tournaments = webstore.query(
        conninfo, "SELECT name, state FROM tournaments ORDER BY created DESC"
    )
    other = "es" if lang == "en" else "en"
    role = tr(f"floor.role.{user[1]}", lang)
    parts = [
        f"<div class='bar'><h1>{e(tr('floor.web.title', lang))}</h1>"
        f"<span id='user'>{e(tr('floor.web.logged_in', lang, name=user[0]))} ({e(role)})</span>"
        + form("logout", csrf, lang, "", tr("floor.web.logout", lang), "logout")
        + f"<a href='/?lang={other}'>{e(tr('floor.web.language', other))}</a> "
        f"<a href='/clock?lang={lang}'>{e(tr('floor.clock.title', lang))}</a></div>"
    ]
    text, refused = flash
    if text:
        parts.append(f"<p class='{'alert' if refused else 'ok'}' id='flash'>{e(text)}</p>")
    parts.append(tournament_section(lang, csrf, control, plan))
    parts.append(tables_section(lang, tables))
    parts.append(calls_section(conninfo, lang, csrf))
    parts.append(waiting_section(conninfo, lang, csrf, tables))
    for name, state in tournaments:
        decisions = "".join(f"<li>{e(str(d))}</li>" for d in state.get("decisions", []))
        left = tr(
            "floor.clock.players", lang, left=state.get("left", 0), entries=state.get("entries", 0)
        )
        parts.append(f"<h2>{e(name)}</h2><p>{e(left)}</p><ul class='decisions'>{decisions}</ul>")
    return page(tr("floor.web.title", lang), "".join(parts), refresh=refresh, nonce=nonce)


# ------------------------------------------------------------------ hand histories

PAGE = 50


def hands_page(conninfo: str, lang: str, table: str, before: int | None) -> str:
    """A table's hands, newest first, a page at a time."""
    rows = webstore.query(
        conninfo,
        "SELECT seq, hand, finished, record FROM hands WHERE table_id = %s AND seq < %s "
        "ORDER BY seq DESC LIMIT %s",
        (table, before if before is not None else 2**62, PAGE),
    )
    title = tr("floor.hands.title", lang, table=table)
    lines = []
    for seq, hand, _finished, record in rows:
        pot = sum(int(p.get("amount", 0)) for p in record.get("pots", []))
        names = record.get("players", {})
        pots = record.get("pots", [])
        winners = sorted({names.get(str(w), str(w)) for p in pots for w in p.get("winners", [])})
        text = tr("floor.hands.line", lang, hand=hand, pot=pot, winners=", ".join(winners))
        link = f"/hand?table={quote(table)}&seq={int(seq)}&lang={lang}"
        lines.append(f"<tr class='hand'><td><a href='{e(link)}'>{e(text)}</a></td></tr>")
    more = ""
    if len(rows) == PAGE:
        link = f"/hands?table={quote(table)}&before={int(rows[-1][0])}&lang={lang}"
        more = f"<p><a id='older' href='{e(link)}'>{e(tr('floor.hands.older', lang))}</a></p>"
    empty = "" if rows else f"<p>{e(tr('floor.hands.none', lang))}</p>"
    body = (
        f"<p><a href='/?lang={lang}'>{e(tr('floor.web.back', lang))}</a></p><h1>{e(title)}</h1>"
        f"{empty}<table id='hands'>{''.join(lines)}</table>{more}"
    )
    return page(title, body)


def spaced(cards: object) -> str:
    """Cards written together (``9hKc``) or as a list, one space between cards.

    >>> spaced("9hKcKd")
    '9h Kc Kd'
    """
    if isinstance(cards, list):
        return " ".join(str(c) for c in cards)
    text = str(cards or "").replace(" ", "")
    return " ".join(text[i : i + 2] for i in range(0, len(text), 2))


def _action_text(entry: dict[str, Any], names: dict[str, str], lang: str) -> str:
    name = names.get(str(entry.get("seat")), str(entry.get("seat")))
    kind = entry.get("action")
    amount = entry.get("amount", 0)
    if kind == "fold":
        text = tr("action.fold", lang, name=name)
    elif kind == "check_call":
        text = (
            tr("action.call", lang, name=name, amount=amount)
            if amount
            else tr("action.check", lang, name=name)
        )
    elif kind == "bet_raise":
        key = "action.raise" if entry.get("facing") else "action.bet"
        text = tr(key, lang, name=name, amount=entry.get("to", amount))
    elif kind == "returned":
        text = tr("action.returned", lang, name=name, amount=amount)
    elif kind == "show":
        text = tr("floor.hand.shows", lang, name=name, cards=spaced(entry.get("cards", "")))
    elif kind == "turned_up":
        text = tr("showdown.turned_up", lang, name=name, cards=spaced(entry.get("cards", "")))
    elif kind == "muck":
        text = tr("showdown.mucks", lang, name=name)
    elif kind in ("kill", "kill_hand"):
        text = tr("action.killed", lang, name=name, reason=str(entry.get("reason", "")))
    else:
        cards = spaced(entry.get("cards", ""))
        text = tr("floor.hand.other", lang, name=name, action=str(kind), cards=cards)
    if entry.get("all_in"):
        text += tr("action.all_in", lang)
    return text


def hand_page(conninfo: str, lang: str, table: str, seq: int) -> str | None:
    """One hand's record, as the table's history keeps it; None if there is none."""
    rows = webstore.query(
        conninfo, "SELECT hand, record FROM hands WHERE table_id = %s AND seq = %s", (table, seq)
    )
    if not rows:
        return None
    number, record = rows[0]
    names = {str(k): str(v) for k, v in record.get("players", {}).items()}
    title = tr("floor.hand.title", lang, table=table, hand=number)
    start = record.get("starting_stacks", {})
    finish = record.get("finishing_stacks", {})
    hole = record.get("cards", {}).get("hole", {})
    seats = "".join(
        f"<tr><td>{e(s)}</td><td>{e(names.get(s, ''))}</td><td>{e(' '.join(hole.get(s, [])))}</td>"
        f"<td>{int(start.get(s, 0))}</td><td>{int(finish.get(s, 0))}</td>"
        f"<td>{int(finish.get(s, 0)) - int(start.get(s, 0)):+d}</td></tr>"
        for s in sorted(names, key=int)
    )
    head = "".join(
        f"<th>{e(tr(k, lang))}</th>"
        for k in ("floor.hand.seat", "floor.hand.player", "floor.hand.cards",
                  "floor.hand.start", "floor.hand.finish", "floor.hand.result")
    )  # fmt: skip
    board = spaced(record.get("cards", {}).get("board") or "")
    actions = "".join(
        f"<li>{e(_action_text(a, names, lang))}</li>" for a in record.get("actions", [])
    )
    incidents = "".join(
        f"<li class='alert'>{e(str(i.get('rule', '')))}: {e(str(i.get('what', '')))}</li>"
        for i in record.get("incidents", [])
    )
    raw = e(json.dumps(record, indent=1, sort_keys=True))
    body = (
        f"<p><a href='/hands?table={e(quote(table))}&lang={lang}'>"
        f"{e(tr('floor.web.back', lang))}</a></p>"
        f"<h1 id='hand-title'>{e(title)}</h1><table id='seats'><tr>{head}</tr>{seats}</table>"
        f"<p id='board'>{e(tr('floor.hand.board', lang, cards=board or '-'))}</p>"
        f"<ol id='actions'>{actions}</ol><ul>{incidents}</ul>"
        f"<details><summary>{e(tr('floor.hand.record', lang))}</summary><pre>{raw}</pre></details>"
    )
    return page(title, body)
