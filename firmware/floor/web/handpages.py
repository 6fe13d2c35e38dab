"""The floor's hand histories: every table's hands from the store, and one hand as the
table recorded it (the posts, each action in words, the incidents, the whole record).

The hands show every player's hole cards: :mod:`firmware.floor.web.app` serves them to
the floor role only.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from firmware.floor.store import dashboard
from firmware.floor.web.texts import stored_text
from firmware.floor.web.webpage import e, page
from firmware.i18n import tr

UNSEEN = "floor.web.alert_unknown"
"""An incident whose text no catalog key says: only its rule outside English."""

# ------------------------------------------------------------------ hand histories

PAGE = 50


def hands_page(conninfo: str, lang: str, table: str, before: int | None) -> str:
    """A table's hands, newest first, a page at a time."""
    rows = dashboard.query(
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
    return page(title, f"<main>{body}</main>", lang)


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


def post_lines(record: dict[str, Any], names: dict[str, str], lang: str) -> list[str]:
    """The hand's antes, blinds and dead blinds, seat by seat, before the first action."""
    lines: list[str] = []
    posts = record.get("posts") or {}
    for seat in sorted(posts, key=lambda s: int(s) if str(s).isdigit() else 0):
        post, name = posts[seat], names.get(str(seat), str(seat))
        if int(post.get("ante", 0)):
            lines.append(tr("hand.posts_ante", lang, name=name, amount=int(post["ante"])))
        if int(post.get("blind", 0)):
            lines.append(tr("hand.posts", lang, name=name, amount=int(post["blind"])))
        if int(post.get("dead", 0)):
            lines.append(tr("floor.hand.posts_dead", lang, name=name, amount=int(post["dead"])))
    return lines


def hand_page(conninfo: str, lang: str, table: str, seq: int) -> str | None:
    """One hand's record, as the table's history keeps it; None if there is none."""
    rows = dashboard.query(
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
        f"<li class='post'>{e(line)}</li>" for line in post_lines(record, names, lang)
    ) + "".join(f"<li>{e(_action_text(a, names, lang))}</li>" for a in record.get("actions", []))
    incidents = "".join(
        f"<li class='alert'>{e(str(i.get('rule', '')))}: "
        f"{e(stored_text(str(i.get('what', '')), lang, i.get('key'), i.get('params'), UNSEEN))}"
        "</li>"
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
    return page(title, f"<main>{body}</main>", lang)
