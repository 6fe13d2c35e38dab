"""What each audience may see of the table: the one place views are computed.

A view is the ``view`` message of the table protocol (``docs/protocols/table.md``)
for one audience:

* :func:`seat_view` - a seat's screen: its own hole cards and public cards
  only (the board, cards exposed during the deal or shown as burns, hands
  tabled at the showdown, every live hand once no more betting is possible,
  TDA-9), its legal actions with bet presets when it is to act, and its last
  ten hands as it could see them;
* :func:`console_view` - the dealer console: the hand's progress and public
  cards but no hole card, the dealer's prompt (translated), the next card's
  role, incidents, the pot distribution after a hand, alerts, the deck, the
  blind level, the devices, and each hand's live equity during an all-in once
  the hands are tabled (:mod:`firmware.views.live_equity`);
* :func:`technician_view` - device status and the test mode
  (:mod:`firmware.views.diag`): no table and no card.

Free text that names cards (incident reports, alerts) is passed through
:func:`redact`, which replaces every card the audience may not see with
``??``; nobody ever sees an undealt card (TDA-21).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from firmware.engine.cards import format_card, parse_cards
from firmware.engine.evaluator import best_hand
from firmware.engine.hand import Phase
from firmware.engine.pots import Pot
from firmware.engine.rules import Structure
from firmware.i18n import CATALOG, tr
from firmware.views.alerts import alert_text
from firmware.views.devices import controller_names, devices, fault_text
from firmware.views.diag import diag_view
from firmware.views.ending import hand_end
from firmware.views.game import add_game_parts
from firmware.views.jackpot import pot_said
from firmware.views.levelclock import level_part
from firmware.views.live_equity import console_equity
from firmware.views.recall import _record_shown, recall
from firmware.views.redact import UNSEEN, redact
from firmware.views.rules import chip_breakdown, hide_pot, pot_shown, to_show
from firmware.views.share import ViewShare

if TYPE_CHECKING:
    from firmware.service.controller import Controller
    from firmware.service.controller_state import Alert
    from firmware.table.dealing import TableHand
    from firmware.table.table import Table

ALERTS_SHOWN = 20
"""How many of the latest alerts the console view carries."""

PUBLIC_DRAW_ROLES = ("exposed", "removed", "burn")
"""Draw roles whose card is public once the draw is marked public (``held`` waits)."""


# ---------------------------------------------------------------- helpers


def _names(cards: Iterable[int | None]) -> list[str]:
    return [UNSEEN if c is None else format_card(c) for c in cards]


def _holding(th: TableHand, position: int) -> list[int | None]:
    """The hole cards a position holds now (during the deal: those dealt so far)."""
    if th.s.dealt:
        return list(th.hand.hole[position])
    return list(th.s.buffer.get(position, []))


def public_cards(th: TableHand) -> set[str]:
    """Cards everyone at the table may see in the hand in progress.

    The board, cards exposed during the deal or found face up, burns shown
    after a burn error, hands tabled at the showdown, and every live hand once
    the cards are turned up because no more betting is possible (TDA-9).
    """
    hand = th.hand
    seen = {format_card(c) for c in hand.board}
    for draw in th.draws:
        if draw.public and draw.role in PUBLIC_DRAW_ROLES:
            seen.add(format_card(draw.card))
    for position, shown in enumerate(hand.shown):
        if shown is not None:
            seen.update(format_card(c) for c in shown)
        if hand.cards_up and not hand.folded[position]:
            seen.update(format_card(c) for c in hand.hole[position] if c is not None)
    return seen


def _exposed(th: TableHand) -> list[str]:
    return [format_card(d.card) for d in th.draws if d.public and d.role in PUBLIC_DRAW_ROLES]


def _translate_prompt(table: Table, lang: str) -> str:
    """What the dealer should do next, translated (the logic of :meth:`Table.prompt`)."""
    th = table.hand
    if th is None:
        if not table.deck.ready:
            return tr("prompt.checklist", lang)
        return tr("prompt.shuffle", lang)
    if not table.deck.cut:
        return tr("prompt.cut", lang)
    if th.s.premature:
        return tr("prompt.premature", lang)
    role, where = th.next_card_role()
    if role == "hole":
        return tr("prompt.hole", lang, seat=where)
    if role == "dead":
        return tr("prompt.dead", lang)
    if role == "replacement":
        return tr("prompt.replacement", lang, seat=where)
    if role in ("burn", "board"):
        street = ("", "flop", "turn", "river")[where or 0]
        return tr(f"prompt.{role}.{street}", lang)
    engine = th.hand
    if engine.actor is not None:
        return tr("prompt.act", lang, seat=th.seat(engine.actor))
    return tr("prompt.showdown", lang)


# ---------------------------------------------------------------- the table part


def _seats(
    table: Table,
    th: TableHand | None,
    viewer: int | None,
    public: set[str],
    controller: Controller | None = None,
) -> list[Any]:
    rows: list[dict[str, Any]] = []
    seating = table.seating
    for number in sorted(seating.seats):
        seat = seating.seats[number]
        row: dict[str, Any] = {
            "seat": number,
            "name": seat.player,
            "stack": seat.stack,
            "bet": 0,
            "status": "sitting-out" if seat.sitting_out else "away" if seat.away else "waiting",
            "markers": seat.markers,
            "blind": "",
            "button": number == (th.plan.button if th is not None else seating.button),
            "cards": [],
            "shown": False,
            "chips": chip_breakdown(controller, number),
        }
        if th is not None and number in th.plan.seats:
            hand = th.hand
            position = th.plan.seats.index(number)
            row["stack"] = hand.stacks[position]
            row["bet"] = hand.bets[position]
            if hand.folded[position]:
                row["status"] = "folded"
            elif hand.stacks[position] == 0:
                row["status"] = "all-in"
            else:
                row["status"] = "active"
            if number == th.plan.small_blind_seat:
                row["blind"] = "SB"
            elif number == th.plan.big_blind_seat:
                row["blind"] = "BB"
            held = _holding(th, position)
            shown = hand.shown[position]
            if number == viewer:
                row["cards"] = _names(held)
            elif not hand.folded[position]:
                row["cards"] = [
                    format_card(c) if c is not None and format_card(c) in public else UNSEEN
                    for c in held
                ]
            row["shown"] = shown is not None or (hand.cards_up and not hand.folded[position])
            row["declared"] = position in th.s.declared  # a raise declared (TDA-32)
        rows.append(row)
    return rows


def _winners(table: Table, lang: str) -> list[dict[str, Any]]:
    """Who won what in the last finished hand, with the tabled hand described."""
    if table.hand is not None or not table.records:
        return []
    record = table.records[-1]
    if record["void"]:
        return []
    won: dict[int, int] = {}
    for pot in record["pots"]:
        for seat, amount in pot["shares"].items():
            won[int(seat)] = won.get(int(seat), 0) + amount
    shown = _record_shown(record)
    board = parse_cards(record["cards"]["board"]) if record["cards"]["board"] else []
    rows = []
    for seat in sorted(won):
        described = ""
        cards = shown.get(str(seat))
        if cards and len(cards) + len(board) >= 5:
            described = best_hand(parse_cards("".join(cards)) + board).describe(lang)
        rows.append({"seat": seat, "amount": won[seat], "hand": described})
    return rows


def _table(
    table: Table,
    lang: str,
    viewer: int | None,
    controller: Controller | None = None,
    share: ViewShare | None = None,
    visible: bool = True,
) -> tuple[dict[str, Any], set[str]]:
    """The ``table`` part of a view and the set of cards its audience may see.

    With a ``share``, the part everyone may see is computed once and each
    seat's view differs only by the viewer's own row; its lists and maps are
    shared by the views of the change, read only (:func:`hide_pot` replaces the
    pots it hides, TDA-34).

    :param visible: Whether the caller uses the set of cards (a seat's own hole
        cards added to the public ones); without it the public set is returned.
    """
    if share is None:
        return _table_now(table, lang, viewer, controller)
    base, public = share.get(("table", lang), lambda: _table_now(table, lang, None, controller))
    part = dict(base)
    th = table.hand
    if viewer is None or th is None or viewer not in th.plan.seats:
        return part, public
    held = _holding(th, th.plan.seats.index(viewer))
    rows = list(base["seats"])
    for index, row in enumerate(rows):
        if row["seat"] == viewer:
            rows[index] = {**row, "cards": _names(held)}
            break
    part["seats"] = rows
    if not visible:
        return part, public
    return part, public | {format_card(c) for c in held if c is not None}


def _table_now(
    table: Table, lang: str, viewer: int | None, controller: Controller | None = None
) -> tuple[dict[str, Any], set[str]]:
    """The ``table`` part of a view and the set of cards its audience may see."""
    th = table.hand
    if th is None:
        plan_button = table.seating.button
        part: dict[str, Any] = {
            "hand": None,
            "last_hand": table.records[-1]["hand"] if table.records else None,
            "phase": "idle",
            "street": 0,
            "button": plan_button,
            "small_blind": None,
            "big_blind": None,
            "board": [],
            "exposed": [],
            "pots": [],
            "pot_total": 0,
            "actor": None,
            "clock": None,
            "cards_up": False,
            "seats": _seats(table, None, viewer, set(), controller),
            "to_show": None,
            "pot_shown": pot_shown(table),
            "winners": _winners(table, lang),
            "ended": hand_end(table, lang),
        }
        _keep_the_end(part)
        return part, set()
    hand = th.hand
    public = public_cards(th)
    visible = set(public)
    if viewer is not None and viewer in th.plan.seats:
        own = _holding(th, th.plan.seats.index(viewer))
        visible.update(format_card(c) for c in own if c is not None)
    seats = th.plan.seats
    left = th.clock_left(table.now)
    clock = None
    if left is not None and th.s.clock.seat is not None:
        clock = {"seat": th.s.clock.seat, "left": left, "countdown": left <= th.countdown}
    part = {
        "hand": table.hand_number,
        "last_hand": table.records[-1]["hand"] if table.records else None,
        "phase": hand.phase.value,
        "street": hand.street,
        "button": th.plan.button,
        "small_blind": th.plan.small_blind_seat,
        "big_blind": th.plan.big_blind_seat,
        "board": _names(hand.board),
        "exposed": _exposed(th),
        "pots": _live_pots(hand.pots(), hand.stacks, hand.folded, seats),
        "pot_total": hand.pot_total,
        "actor": seats[hand.actor] if hand.actor is not None else None,
        "clock": clock,
        "cards_up": hand.cards_up,
        "seats": _seats(table, th, viewer, public, controller),
        "winners": [],
        "to_show": to_show(th),
        "pot_shown": pot_shown(table),
        "ended": hand_end(table, lang),
    }
    return part, visible


def _keep_the_end(part: dict[str, Any]) -> None:
    """Between hands, the last hand's board and tabled hands stay in the table part.

    Every screen draws ``board`` and the seats' ``cards``: with them filled from
    ``ended`` (public cards only) the river and the hands shown stay on show.
    """
    ended = part.get("ended")
    if not ended:
        return
    part["board"] = list(ended["board"])
    for row in part["seats"]:
        cards = ended["shown"].get(str(row["seat"]))
        if cards:
            row["cards"] = list(cards)
            row["shown"] = True


def _live_pots(
    pots: list[Pot], stacks: list[int], folded: list[bool], seats: tuple[int, ...]
) -> list[dict[str, Any]]:
    """The pots as screens show them during the hand.

    Only an all-in player makes a side pot: the engine's split of the bets by
    level also separates what players have not matched *yet* (the big blind
    before anyone calls, a raise not answered), which is no side pot while they
    may still call. So two neighbouring levels are shown as one pot unless a
    player eligible for the lower one is all in and out of the upper one. A side
    pot one player wins because the others who matched it folded stays apart.
    """
    free = {i for i, stack in enumerate(stacks) if stack > 0 and not folded[i]}
    shown: list[dict[str, Any]] = []
    previous: frozenset[int] = frozenset()
    for pot in pots:
        eligible = frozenset(pot.eligible)
        capped = any(stacks[i] == 0 for i in previous - eligible)
        if shown and not capped:
            shown[-1]["amount"] += pot.amount
        else:
            # Who may still win it: those in it, and anyone who can still put chips in.
            who = sorted(eligible | free)
            shown.append({"amount": pot.amount, "seats": [seats[i] for i in who]})
        previous = eligible
    return shown


def _legal(table: Table, seat: int) -> dict[str, Any] | None:
    """The seat's choices with bet presets, when that seat is to act now."""
    th = table.hand
    if th is None or th.s.premature:
        return None
    hand = th.hand
    if hand.phase is not Phase.BETTING or hand.actor is None or th.seat(hand.actor) != seat:
        return None
    legal = hand.legal_actions()
    position = hand.actor
    low, high = legal.min_raise_to, legal.max_raise_to
    result: dict[str, Any] = {
        "fold": True,
        "check": legal.can_check,
        "call": 0 if legal.can_check else legal.call_amount,
        "min_raise": low,
        "max_raise": high,
        "presets": {},
        "pot_limit": hand.config.structure is Structure.POT_LIMIT,
        "raise_refusal": legal.raise_refusal,
    }
    if low is not None and high is not None:
        to_call = hand.current_bet - hand.bets[position]
        after_call = hand.pot_total + to_call
        all_in = hand.stacks[position] + hand.bets[position]

        def clamp(value: int) -> int:
            return max(low, min(high, value))

        result["presets"] = {
            "min": low,
            "half_pot": clamp(hand.current_bet + after_call // 2),
            "pot": clamp(hand.current_bet + after_call),
            "all_in": clamp(all_in),
        }
    return result


# ---------------------------------------------------------------- devices


# ---------------------------------------------------------------- views


def seat_view(
    table: Table,
    seat: int,
    lang: str,
    controller: Controller | None = None,
    share: ViewShare | None = None,
) -> dict[str, Any]:
    """The view of ``seat``'s screen: its own cards and public cards only.

    :param share: What this change's views have in common (:class:`ViewShare`).
    """
    part, _ = _table(table, lang, seat, controller, share, visible=False)
    share = share or ViewShare()
    view = {
        "type": "view",
        "audience": "seat",
        "seat": seat,
        "lang": lang,
        "table": part,
        "legal": _legal(table, seat),
        "recall": recall(table, seat),
        "paused": controller.paused if controller is not None else False,
        "level": share.get(("level",), lambda: _level(table, controller)),
        "own_hand": _own_hand(table, seat, lang),
        "distribution": share.get(("distribution", lang), lambda: _distribution(table, lang)),
    }
    add_game_parts(view, table, controller, console=False, share=share)
    hide_pot(view)
    return view


def _distribution(table: Table, lang: str) -> list[dict[str, Any]]:
    """Who gets which amount from each pot of the last finished hand."""
    if table.hand is not None or not table.records:
        return []
    record = table.records[-1]
    rows = []
    single = len(record["pots"]) == 1
    for index, pot in enumerate(record["pots"]):
        name = tr("pot.main", lang) if index == 0 else tr("pot.side", lang, number=index)
        rake = pot.get("rake", 0)  # the house's rake (HOUSE-RAKE); records before it have none
        row: dict[str, Any] = {
            "pot": name,
            "amount": pot["amount"],
            "shares": {k: v for k, v in pot["shares"].items()},
            "rake": rake,
        }
        row["jackpot_drop"] = pot.get("jackpot_drop", 0)  # JACKPOT
        # "Bote 480 · comisión 20 · jackpot 5": the pot as bet, then what the house took.
        said = pot_said(pot, tr("ui.pot.hidden", lang) if single else name, lang)
        if said:
            row["said"] = said
        rows.append(row)
    return rows


def _level(table: Table, controller: Controller | None = None) -> dict[str, Any] | None:
    """The level clock's part of a view (:func:`firmware.views.levelclock.level_part`),
    at the controller's time now when there is one: the table's clock moves by ticks,
    and a view made between two ticks must not run a second behind (issue 23)."""
    now = table.now
    if controller is not None:
        now = max(now, controller.table_time())
    return level_part(table.levels, now)


def _own_hand(table: Table, seat: int, lang: str) -> str:
    """The seat's own best hand in ``lang`` once the flop is out ('' before or without cards)."""
    th = table.hand
    if th is None or seat not in th.plan.seats:
        return ""
    cards = tuple(c for c in _holding(th, th.plan.seats.index(seat)) if c is not None)
    board = tuple(th.hand.board)
    if len(cards) != 2 or len(board) < 3:
        return ""
    key = (cards, board, lang)
    described = _OWN_HANDS.get(key)
    if described is None:
        if len(_OWN_HANDS) > 1024:
            _OWN_HANDS.clear()
        described = _OWN_HANDS[key] = best_hand([*cards, *board]).describe(lang)
    return described


_OWN_HANDS: dict[tuple[tuple[int, ...], tuple[int, ...], str], str] = {}
"""Hands already described, by hole cards, board and language (the same on every event
of a street)."""


def _said(key: str, part: str, lang: str, params: dict[str, Any], english: str) -> str:
    """An incident's ``what`` or ``instruction`` in ``lang`` (its English text without a key)."""
    full = f"{key}.{part}"
    if not key or full not in CATALOG:
        return english
    return tr(full, lang, **params)


def _open_alerts(table: Table, controller: Controller) -> list[Alert]:
    """The alerts the console still shows: not dismissed by a dealer, and a call for the
    floor only while that call is open, by its newest alert (answered, it closes: issue 23;
    an earlier, answered call of the same seat does not come back with the next one)."""
    open_seats = {c.seat for c in table.floor_calls.open()}
    shown = controller.alerts.showing()
    newest: dict[Any, int] = {}
    for a in shown:
        if a.key == "alert.call_floor":
            newest[a.params.get("seat")] = a.id
    return [
        a
        for a in shown
        if a.key != "alert.call_floor"
        or (a.params.get("seat") in open_seats and newest.get(a.params.get("seat")) == a.id)
    ]


def _buy_in(table: Table) -> dict[str, int]:
    """The table's buy-in range (CC-16); ``max`` 0 means no maximum."""
    opts, stakes = table.config.options, table.config.stakes
    return {
        "min": opts.min_buy_in_multiple * stakes.big_blind,
        "max": opts.max_buy_in_multiple * stakes.big_blind,
    }


def console_view(
    table: Table,
    lang: str,
    controller: Controller | None = None,
    share: ViewShare | None = None,
) -> dict[str, Any]:
    """The dealer console's view: the hand's progress and public cards, no hole card.

    :param share: What this change's views have in common (:class:`ViewShare`).
    """
    part, visible = _table(table, lang, None, controller, share)
    th = table.hand
    next_card: dict[str, Any] = {"role": "none", "seat": None, "street": None}
    incidents: list[dict[str, str]] = []
    if th is not None:
        role, where = th.next_card_role()
        if role in ("hole", "replacement"):
            next_card = {"role": role, "seat": where, "street": None}
        elif role == "dead":
            next_card = {"role": "hole", "seat": None, "street": None, "dead": True}
        elif role in ("burn", "board"):
            next_card = {"role": role, "seat": None, "street": where}
        incidents = [
            {
                "rule": i.rule,
                "what": redact(_said(i.key, "what", lang, i.params, i.what), visible),
                "instruction": redact(_said(i.key, "do", lang, i.params, i.instruction), visible),
            }
            for i in th.incidents
        ]
    alerts: list[dict[str, Any]] = []
    if controller is not None:
        names = controller_names(controller)  # devices by name in the screen's language
        alerts = [
            {
                "id": a.id,
                "time": a.time,
                "text": alert_text(a.key, a.params, a.text, lang, visible, names),
                "device": a.device,
                "key": a.key,
            }
            for a in _open_alerts(table, controller)[-ALERTS_SHOWN:]
        ]
    deck = table.deck
    view = {
        "type": "view",
        "audience": "console",
        "lang": lang,
        "table": part,
        "recall": recall(table, None),
        "console": {
            "prompt": _translate_prompt(table, lang),
            "next_card": next_card,
            "incidents": incidents,
            "distribution": _distribution(table, lang),
            "paused": controller.paused if controller is not None else False,
            "card_present": bool(controller and controller.state.readers.get("console")),
            "alerts": alerts,
            "deck": {
                "ready": deck.ready,
                "checklist": list(deck.checklist),
                "needs_repair": [format_card(c) for c in deck.needs_repair],
                "withdrawn": [format_card(c) for c in deck.withdrawn],
                "cut": deck.cut,
            },
            "level": _level(table, controller),
            "buy_in": _buy_in(table),
            "max_seats": table.config.options.max_seats,
            "equity": (share or ViewShare()).get(("equity",), lambda: console_equity(th)),
        },
        "devices": devices(controller, lang),
    }
    add_game_parts(view, table, controller, console=True, share=share)
    return view


def technician_view(controller: Controller, lang: str = "es") -> dict[str, Any]:
    """The technician's view: device status and the test mode, no table and no card."""
    return {
        "type": "view",
        "audience": "technician",
        "lang": lang,
        "devices": devices(controller, lang, detail=True),
        "faults": {
            name: fault_text(controller, name, text, lang)
            for name, text in controller.state.faults.items()
        },
        "paused": controller.paused,
        "diag": diag_view(controller, lang),
    }
