"""The dashboard's actions (``POST /do/<action>``): who may take each, and what it does.

:data:`ACTIONS` names the roles allowed each action (docs/security.md: a
technician acknowledges alerts and faults but neither runs the tournament nor
the waiting list); :func:`do_action` carries out one the web server
(:mod:`firmware.floor.web.app`) has already checked (session, CSRF token, role)
and writes it to ``staff_actions`` with the person and role. A request refused
here or there is a :class:`Refusal`: a status and one sentence in the page's
language.
"""

from __future__ import annotations

from firmware.errors import IllegalAction
from firmware.floor.store import dashboard
from firmware.floor.tournament.control import TournamentControl
from firmware.floor.web import pages
from firmware.i18n import tr

STAFF_ROLES = ("floor", "technician")
ACTIONS: dict[str, tuple[str, ...]] = {
    "logout": STAFF_ROLES,
    "ack": STAFF_ROLES,
    "wait_add": ("floor",),
    "wait_remove": ("floor",),
    "wait_call": ("floor",),
    "start": ("floor",),
    "pause": ("floor",),
    "resume": ("floor",),
    "apply": ("floor",),
    "enter": ("floor",),
}
"""Each dashboard action and the roles that may take it."""
NAME_LIMIT = 40
"""The longest player or game name a form may give."""


class Refusal(Exception):
    """A request refused with a status and a sentence for the person."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


def do_action(
    db: str,
    control: TournamentControl | None,
    action: str,
    form: dict[str, str],
    staff: tuple[str, str],
    lang: str,
) -> str:
    """Carry out one allowed action; the sentence shown after it.

    :param db: The store's connection string.
    :param control: The running tournament's control, if the floor runs one.
    :raises Refusal: a form that is not one of the pages' (400), or a tournament
        action on a floor without a tournament (404).
    """
    if action == "logout":
        dashboard.write(db, staff, "logout", "", "SELECT 1", ())
        return ""
    if action == "ack":
        if form.get("notice", "").isdigit():
            n = int(form["notice"])
            dashboard.write(
                db, staff, "ack", f"notice {n}",
                "UPDATE table_notices SET acked_by = %s, acked_at = now() "
                "WHERE id = %s AND acked_at IS NULL", (staff[0], n),
            )  # fmt: skip
        elif form.get("alert", "").isdigit():
            n = int(form["alert"])
            dashboard.write(
                db, staff, "ack", f"alert {n}",
                "UPDATE alerts SET resolved = true WHERE id = %s", (n,),
            )  # fmt: skip
        else:
            raise Refusal(400, tr("floor.web.bad_form", lang))
        return tr("floor.web.acked", lang)
    if action == "wait_add":
        game = " ".join(form.get("game", "").split())
        player = " ".join(form.get("player", "").split())
        if not (0 < len(game) <= NAME_LIMIT and 0 < len(player) <= NAME_LIMIT):
            return tr("floor.wait.bad", lang, limit=NAME_LIMIT)
        dashboard.write(
            db, staff, "wait_add", f"{player} for {game}",
            "INSERT INTO waiting_list (game, player, added_by) VALUES (%s, %s, %s)",
            (game, player, staff[0]),
        )  # fmt: skip
        return tr("floor.wait.added", lang, player=player, game=game)
    if action in ("wait_remove", "wait_call"):
        entry = form.get("entry", "")
        if not entry.isdigit():
            raise Refusal(400, tr("floor.web.bad_form", lang))
        if action == "wait_remove":
            changed = dashboard.write(
                db, staff, action, f"entry {entry}",
                "UPDATE waiting_list SET removed_at = now() WHERE id = %s "
                "AND removed_at IS NULL", (int(entry),),
            )  # fmt: skip
            return tr("floor.wait.removed" if changed else "floor.wait.gone", lang)
        table = form.get("table", "")
        known = dashboard.query(db, "SELECT 1 FROM tables WHERE id = %s", (table,))
        if not known:
            return tr("floor.wait.no_table", lang, table=table)
        changed = dashboard.write(
            db, staff, action, f"entry {entry} to {table}",
            "UPDATE waiting_list SET called_table = %s, called_at = now() WHERE id = %s "
            "AND removed_at IS NULL", (table, int(entry)),
        )  # fmt: skip
        return tr("floor.wait.call_done" if changed else "floor.wait.gone", lang, table=table)
    if control is None:
        raise Refusal(404, tr("floor.web.not_found", lang))
    if action == "start":
        control.start()
    elif action == "pause":
        control.pause()
    elif action == "resume":
        control.resume()
    elif action == "enter":
        return _enter(db, control, form, staff, lang)
    else:
        plan = control.apply(form.get("token", ""))
        dashboard.write(db, staff, "apply", "; ".join(pages.plan_lines(plan, "en")), "SELECT 1", ())
        return tr("floor.plan.applied", lang, steps=len(plan.steps))
    dashboard.write(db, staff, action, "", "SELECT 1", ())
    return tr(f"floor.t.{action}_done", lang)


def _enter(
    db: str,
    control: TournamentControl,
    form: dict[str, str],
    staff: tuple[str, str],
    lang: str,
) -> str:
    """A late registration or a re-entry (FLOOR-LATE); the sentence shown after it.

    :raises IllegalAction: why the entry is refused (a catalog key: shown as one
        sentence in the page's language).
    """
    player = " ".join(form.get("player", "").split())
    kind = form.get("kind", "")
    if kind not in ("late", "reentry"):
        raise Refusal(400, tr("floor.web.bad_form", lang))
    if not 0 < len(player) <= NAME_LIMIT:
        raise IllegalAction(
            f"Give the player's name (1 to {NAME_LIMIT} characters).",
            key="floor.entry.bad_name",
            limit=NAME_LIMIT,
        )
    seat, name = control.enter(player, kind == "reentry")
    what = "re-entry" if kind == "reentry" else "late registration"
    dashboard.write(
        db, staff, "enter",
        f"{what}: {name} at table {seat.table} seat {seat.seat}", "SELECT 1", (),
    )  # fmt: skip
    return tr(f"floor.entry.done_{kind}", lang, player=name, table=seat.table, seat=seat.seat)
