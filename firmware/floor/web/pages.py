"""The floor's HTML pages, built from PostgreSQL rows (every sentence from the catalog).

Pure rendering: :mod:`firmware.floor.web.app` routes, checks sessions and
permissions and calls these. Every value from a table or a person is
escaped; forms carry the session's CSRF token.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from firmware.floor.store import dashboard
from firmware.floor.tournament.control import Plan, Step
from firmware.floor.web.handpages import hand_page, hands_page
from firmware.floor.web.texts import plural, stored_text, translate
from firmware.floor.web.webpage import STYLE, e, page
from firmware.i18n import CATALOG, tr

__all__ = ["STYLE", "hand_page", "hands_page", "page"]


def text_of(key: str | None, params: dict[str, Any], fallback: str, lang: str) -> str:
    """A catalog sentence if the key is known and its fields given, else the English text."""
    if key and key in CATALOG:
        try:
            return tr(key, lang, **params)
        except (KeyError, IndexError, ValueError):
            pass
    return fallback


def form(
    action: str, csrf: str, lang: str, inner: str, button: str, ident: str, quiet: bool = False
) -> str:
    """A POST form to ``/do/<action>`` with the CSRF token."""
    css = " class='quiet'" if quiet else ""
    return (
        f"<form class='inline' method='post' action='/do/{action}?lang={lang}'>"
        f"<input type='hidden' name='csrf' value='{e(csrf)}'>{inner}"
        f"<button type='submit' id='{e(ident)}'{css}>{e(button)}</button></form>"
    )


def login_page(lang: str, error: str, token: str = "") -> str:
    """The staff login form (``token``: its CSRF token; see
    :mod:`firmware.floor.web.loginguard`)."""
    problem = f"<p class='alert' id='error' role='alert'>{e(error)}</p>" if error else ""
    other = "es" if lang == "en" else "en"
    body = (
        f"<main class='login'><h1>{e(tr('floor.web.login_title', lang))}</h1>{problem}"
        f"<form method='post' action='/login?lang={lang}'>"
        f"<input type='hidden' name='csrf' value='{e(token)}'>"
        f"<label>{e(tr('floor.web.badge', lang))}"
        "<input name='badge' id='badge' autocomplete='off'></label>"
        f"<label>{e(tr('floor.web.pin', lang))}"
        "<input name='pin' id='pin' type='password' inputmode='numeric'></label>"
        f"<button id='login' type='submit'>{e(tr('floor.web.login', lang))}</button></form>"
        f"<p><a href='/login?lang={other}' lang='{other}'>{e(tr('floor.web.language', other))}"
        "</a></p></main>"
    )
    return page(tr("floor.web.login_title", lang), body, lang)


def message_page(lang: str, text: str) -> str:
    """A page with one sentence (refusals) and a way back."""
    back = e(tr("floor.web.back", lang))
    body = (
        f"<main><p class='alert' id='error' role='alert'>{e(text)}</p>"
        f"<p><a href='/?lang={lang}'>{back}</a></p></main>"
    )
    return page(tr("floor.web.title", lang), body, lang)


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
    return page(tr("floor.plan.confirm_title", lang), f"<main>{body}</main>", lang)


def _tables(conninfo: str) -> list[tuple[Any, ...]]:
    return dashboard.query(
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
        summary = tr("floor.web.table_name", lang, table=table_id)
        counts = ", ".join(
            (
                plural("floor.web.hands_count", int(hands), lang),
                plural("floor.web.free_seats", free, lang),
                tr("floor.web.record_no", lang, seq=last_seq),
            )
        )
        game = game_of(status)
        state = tr("floor.web.playing" if status.get("playing") else "floor.web.between", lang)
        fault_rows = "".join(
            f"<li class='fault'>{e(fault_text(d, x, lang))}</li>"
            for d, x in sorted((faults or {}).items())
        )
        link = f"/hands?table={quote(table_id)}&lang={lang}"
        parts.append(
            f"<div class='card table' id='table-{e(table_id)}'><h3>{e(summary)}</h3>"
            f"<p class='status'>{e(counts)}</p>"
            f"<p>{e(game)} · {e(state)}</p><table>{rows}</table>"
            f"<ul class='faults'>{fault_rows}</ul>"
            f"<a href='{e(link)}'>{e(tr('floor.web.hands', lang))}</a></div>"
        )
    parts.append("</div>")
    return "".join(parts)


def fault_text(device: str, detail: str, lang: str) -> str:
    """A device in fault: its detail in the page's language when the catalog knows it
    (:func:`~firmware.floor.web.texts.translate`), else, outside English, only the device."""
    said = translate(detail, lang)
    if said is None and lang == "en":
        said = detail
    if said is None:
        return tr("floor.web.fault_only", lang, device=device)
    return tr("floor.web.fault", lang, device=device, detail=said)


CASH_ONLY_KEYS = frozenset({"error.table.rebuy_pending", "ui.incident.rebuy"})
"""Notices that only a cash game can have: a tournament player out of chips is out."""
CASH_ONLY_RULES = ("HG-13",)


def cash_only(key: str | None, rule: str, text: str) -> bool:
    """Whether a notice or alert belongs to a cash game (rebuy or leave, HG-13)."""
    return key in CASH_ONLY_KEYS or rule in CASH_ONLY_RULES or "(HG-13)" in text


def _tournament_tables(conninfo: str) -> set[str]:
    """The tables of tournaments under way (their cash-game notices are left out)."""
    rows = dashboard.query(
        conninfo,
        "SELECT state FROM tournaments WHERE NOT coalesce((state->>'finished')::bool, false)",
    )
    return {table for (state,) in rows for table in (state.get("room") or {})}


def calls_section(conninfo: str, lang: str, csrf: str) -> str:
    """Floor calls and alerts not yet acknowledged, each with its button, in the page's
    language, fairly shared among the tables (:func:`dashboard.open_notices`); a cash
    game's notices (rebuy or leave) are left out at tournament tables."""
    notices = dashboard.open_notices(conninfo)
    alerts = dashboard.open_alerts(conninfo)
    in_tournament = _tournament_tables(conninfo)
    parts = [f"<h2>{e(tr('floor.web.alerts', lang))}</h2><ul id='alerts' class='items'>"]
    for nid, table_id, kind, text, key, params, _at in notices:
        if table_id in in_tournament and cash_only(key, "", text):
            continue
        line = tr(
            "floor.web.call" if kind == "call" else "floor.web.notice",
            lang,
            table=table_id,
            text=stored_text(text, lang, key, params or {}, unknown="floor.web.alert_unknown"),
        )
        hidden = f"<input type='hidden' name='notice' value='{int(nid)}'>"
        button = form("ack", csrf, lang, hidden, tr("floor.web.ack", lang), f"ack-n{nid}", True)
        css = "alert call" if kind == "call" else "alert"
        parts.append(f"<li class='{css}'><span>{e(line)}</span> {button}</li>")
    for aid, table_id, rule, text, key, params in alerts:
        table_id, rule = table_id or "", str(rule or "")
        if table_id in in_tournament and cash_only(key, rule, text):
            continue
        said = stored_text(text, lang, key, params, "floor.web.alert_unknown", rule)
        line = tr("floor.web.alert", lang, table=table_id or "-", text=said)
        hidden = f"<input type='hidden' name='alert' value='{int(aid)}'>"
        ident = f"ack-a{int(aid)}"
        button = form("ack", csrf, lang, hidden, tr("floor.web.ack", lang), ident, True)
        parts.append(f"<li class='alert'><span>{e(line)}</span> {button}</li>")
    parts.append("</ul>")
    return "".join(parts)


def waiting_section(conninfo: str, lang: str, csrf: str, tables: Sequence[tuple[Any, ...]]) -> str:
    """The waiting list by game: add, call to a table with a free seat, take off."""
    rows = dashboard.query(
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
            ident + f"<select name='table' id='call-table-{wid}' "
            f"aria-label='{e(tr('floor.wait.call', lang))}'>{options}</select>",
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


def decisions_section(conninfo: str, lang: str) -> str:
    """Each tournament's players left and its director's last decisions, as sentences in
    the page's language (:func:`~firmware.floor.web.texts.stored_text`)."""
    tournaments = dashboard.query(
        conninfo, "SELECT name, state FROM tournaments ORDER BY created DESC LIMIT 3"
    )
    parts = []
    for name, state in tournaments:
        said = []
        for d in reversed(state.get("decisions", [])):
            if isinstance(d, dict):  # a decision stored with its catalog key
                said.append(
                    stored_text(str(d.get("text", "")), lang, d.get("key"), d.get("params"))
                )
            else:
                said.append(stored_text(str(d), lang))
        items = "".join(f"<li>{e(line)}</li>" for line in said)
        left = tr(
            "floor.clock.players", lang, left=state.get("left", 0), entries=state.get("entries", 0)
        )
        parts.append(
            f"<h2>{e(name)}</h2><p>{e(left)}</p>"
            f"<h3>{e(tr('floor.web.decisions', lang))}</h3><ul class='decisions items'>{items}</ul>"
        )
    return "".join(parts)


def dashboard_main(
    conninfo: str,
    lang: str,
    user: tuple[str, str],
    csrf: str,
    flash: tuple[str, bool],
    control: dict[str, Any] | None,
    plan: Plan | None,
) -> str:
    """The dashboard's live part: the tournament, every table, the calls and alerts, the
    waiting list and the decisions (sent again by ``/events`` when it changes)."""
    del user, flash  # the same for every viewer of one session; shown around the live part
    tables = _tables(conninfo)
    return (
        tournament_section(lang, csrf, control, plan)
        + f"<h2>{e(tr('floor.web.tables', lang))}</h2>"
        + tables_section(lang, tables)
        + calls_section(conninfo, lang, csrf)
        + waiting_section(conninfo, lang, csrf, tables)
        + decisions_section(conninfo, lang)
    )


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
    """The staff dashboard; with ``refresh`` its live part follows the room by itself."""
    other = "es" if lang == "en" else "en"
    role = tr(f"floor.role.{user[1]}", lang)
    parts = [
        f"<header class='bar'><h1>{e(tr('floor.web.title', lang))}</h1>"
        f"<span id='user'>{e(tr('floor.web.logged_in', lang, name=user[0]))} ({e(role)})</span>"
        + form("logout", csrf, lang, "", tr("floor.web.logout", lang), "logout", True)
        + f"<a href='/?lang={other}' lang='{other}'>{e(tr('floor.web.language', other))}</a> "
        f"<a href='/clock?lang={lang}'>{e(tr('floor.clock.title', lang))}</a> "
        + (
            f"<a id='sessions-link' href='/sessions?lang={lang}'>"
            f"{e(tr('floor.web.sessions_link', lang))}</a> "
            if user[1] == "floor"
            else ""
        )
        + f"<a id='jackpot-link' href='/jackpot?lang={lang}'>"
        f"{e(tr('floor.web.jackpot_link', lang))}</a>"
        f"<span class='status'>{e(tr('floor.web.live', lang)) if refresh else ''}</span></header>"
        f"<p class='alert' id='offline' role='status'>{e(tr('floor.web.offline', lang))}</p>"
    ]
    text, refused = flash
    if text:
        role_attr = "alert" if refused else "status"
        css = "alert" if refused else "ok"
        parts.append(f"<p class='{css}' id='flash' role='{role_attr}'>{e(text)}</p>")
    main = dashboard_main(conninfo, lang, user, csrf, flash, control, plan)
    events = f"/events?page=dashboard&amp;lang={lang}"
    parts.append(f"<main id='live' data-events='{events}'>{main}</main>")
    live = events if refresh else ""
    return page(tr("floor.web.title", lang), "".join(parts), lang, nonce=nonce, live=live)
