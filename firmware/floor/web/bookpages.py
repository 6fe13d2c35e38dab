"""The floor's money pages: the players' sessions of a day, the jackpot board, and the
room's shift report as CSV (issue 25), read from the views of ``0003.books.sql``
(``docs/accounting.md``).

Pure rendering, like :mod:`firmware.floor.web.pages`: :mod:`firmware.floor.web.app` routes,
checks the session and the role (:data:`ROLES`) and sends what these return. Times are
shown in the room's time zone (``room_zone()``); no page shows a card of any hand.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import psycopg

from firmware.floor.store import dashboard
from firmware.floor.web.webpage import e, page
from firmware.i18n import tr

HTML = "text/html; charset=utf-8"
CSV = "text/csv; charset=utf-8"
AWARDS_SHOWN = 20
DAY = timedelta(days=1)

SESSIONS = """
SELECT table_id, seat, player, card, sat_at, stood_at, buy_in, rebuys, cash_out, hands, hours
FROM player_sessions WHERE sat_at >= %s AND sat_at < %s ORDER BY sat_at, table_id, seat
"""
AWARDS = """
SELECT at, table_id, jackpot, hand, seat, player, share, amount
FROM jackpot_awards ORDER BY seq DESC, amount DESC LIMIT %s
"""
ROOM_CSV = "SELECT * FROM room_shift_report ORDER BY day"
TABLES_CSV = "SELECT * FROM table_shifts ORDER BY day, table_id, open_seq"

Answer = tuple[str, str, dict[str, str]]
"""A page's body, its content type and extra headers."""


def _zone(conninfo: str) -> ZoneInfo:
    rows = dashboard.query(conninfo, "SELECT room_zone()")
    try:
        return ZoneInfo(str(rows[0][0]))
    except (ZoneInfoNotFoundError, ValueError, IndexError):
        return ZoneInfo("UTC")


def _clock(moment: datetime | None, zone: ZoneInfo) -> str:
    return moment.astimezone(zone).strftime("%H:%M") if moment is not None else "—"


def _back(lang: str) -> str:
    return f"<p><a href='/?lang={lang}'>{e(tr('floor.web.back', lang))}</a></p>"


def _table(ident: str, caption: str, heads: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th scope='col'>{e(h)}</th>" for h in heads)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return (
        f"<table id='{ident}'><caption>{e(caption)}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def sessions_page(conninfo: str, lang: str, query: dict[str, str]) -> Answer:
    """The players' sessions of one day in the room (``?day=YYYY-MM-DD``; the room's
    today by default): who sat where, when, with how much, and for how many hands."""
    zone = _zone(conninfo)
    try:
        day = date.fromisoformat(query.get("day", ""))
    except ValueError:
        day = datetime.now(zone).date()
    start = datetime.combine(day, time(), zone)  # the room's midnight: an indexed range
    rows = dashboard.query(conninfo, SESSIONS, (start, datetime.combine(day + DAY, time(), zone)))
    title = tr("floor.sessions.title", lang)
    heads = [tr(f"floor.sessions.{c}", lang) for c in (
        "player", "card", "table", "seat", "sat", "stood", "buy_in", "rebuys", "cash_out",
        "hands", "hours")]  # fmt: skip
    lines = []
    for table, seat, player, card, sat, stood, buy_in, rebuys, cash, hands, hours in rows:
        lines.append([str(player), str(card) or "—", str(table), str(seat)])
        lines[-1] += [_clock(sat, zone), _clock(stood, zone), str(buy_in), str(rebuys)]
        lines[-1] += ["—" if cash is None else str(cash), str(hands), f"{float(hours):.2f}"]
    picker = (
        f"<form method='get' action='/sessions'><input type='hidden' name='lang' value='{lang}'>"
        f"<label for='day'>{e(tr('floor.sessions.day', lang))}</label> "
        f"<input type='date' id='day' name='day' value='{day.isoformat()}'> "
        f"<button type='submit' id='show'>{e(tr('floor.sessions.show', lang))}</button></form>"
    )
    caption = tr("floor.sessions.caption", lang, day=day.isoformat(), count=len(rows))
    listing = (
        _table("sessions", caption, heads, lines)
        if rows
        else f"<p id='none'>{e(tr('floor.sessions.none', lang, day=day.isoformat()))}</p>"
    )
    download = (
        f"<p><a id='csv' href='/shifts.csv?lang={lang}' download>"
        f"{e(tr('floor.shifts.download', lang))}</a></p>"
    )
    body = f"<main>{_back(lang)}<h1>{e(title)}</h1>{picker}{listing}{download}</main>"
    return page(title, body, lang), HTML, {}


def jackpot_page(conninfo: str, lang: str, query: dict[str, str]) -> Answer:
    """The jackpot board: the fund now (dropped, paid, balance) and the last awards."""
    zone = _zone(conninfo)
    dropped, bad_beat, promotions, balance = dashboard.query(
        conninfo, "SELECT dropped, bad_beat_paid, promotions_paid, balance FROM jackpot_fund"
    )[0]
    awards = dashboard.query(conninfo, AWARDS, (AWARDS_SHOWN,))
    title = tr("floor.jackpot.title", lang)
    fund = (
        f"<section aria-labelledby='fund-title'><h2 id='fund-title'>"
        f"{e(tr('floor.jackpot.fund', lang))}</h2>"
        f"<p id='balance' class='big'>{e(str(balance))}</p><dl>"
        f"<dt>{e(tr('floor.jackpot.dropped', lang))}</dt><dd id='dropped'>{dropped}</dd>"
        f"<dt>{e(tr('floor.jackpot.bad_beat_paid', lang))}</dt><dd id='paid'>{bad_beat}</dd>"
        f"<dt>{e(tr('floor.jackpot.promotions_paid', lang))}</dt>"
        f"<dd id='promotions'>{promotions}</dd></dl></section>"
    )
    heads = [tr(f"floor.jackpot.{c}", lang) for c in (
        "when", "table", "jackpot", "hand", "seat", "player", "share", "amount")]  # fmt: skip
    lines = []
    for at, table, kind, hand, seat, player, share, amount in awards:
        named = tr(f"floor.jackpot.kind.{kind}", lang) if kind in JACKPOTS else str(kind)
        part = tr(f"floor.jackpot.share.{share}", lang) if share in SHARES else str(share)
        lines.append([f"{at.astimezone(zone):%Y-%m-%d %H:%M}", str(table), named, str(hand)])
        lines[-1] += [str(seat) if seat else "—", str(player) or "—", part, str(amount)]
    listing = (
        _table("awards", tr("floor.jackpot.last", lang), heads, lines)
        if awards
        else f"<p id='none'>{e(tr('floor.jackpot.none', lang))}</p>"
    )
    body = f"<main>{_back(lang)}<h1>{e(title)}</h1>{fund}{listing}</main>"
    return page(title, body, lang), HTML, {}


SHARES = ("loser", "winner", "table", "reserve", "high_hand")
JACKPOTS = ("bad_beat", "high_hand")


def shifts_csv(conninfo: str, lang: str, query: dict[str, str]) -> Answer:
    """The room's shift report as CSV, one line per room day (``?by=table``: one line per
    table shift); the columns are the view's (``docs/accounting.md``)."""
    by_table = query.get("by") == "table"
    with psycopg.connect(conninfo, connect_timeout=5) as conn, conn.cursor() as cur:
        cur.execute(TABLES_CSV if by_table else ROOM_CSV)
        names = [d.name for d in cur.description or []]
        rows = cur.fetchall()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(names)
    for row in rows:
        writer.writerow(["" if v is None else _csv_value(v) for v in row])
    name = "table-shifts.csv" if by_table else "room-shifts.csv"
    return out.getvalue(), CSV, {"Content-Disposition": f"attachment; filename={name}"}


def _csv_value(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


ROUTES: dict[str, Callable[[str, str, dict[str, str]], Answer]] = {
    "/sessions": sessions_page,
    "/jackpot": jackpot_page,
    "/shifts.csv": shifts_csv,
}
ROLES: dict[str, tuple[str, ...]] = {
    "/sessions": ("floor",),
    "/jackpot": ("floor", "technician"),
    "/shifts.csv": ("floor",),
}
"""Who reads each page: players' money and the room's books are the floor's; the
jackpot board (what a room shows its players anyway) any staff."""
