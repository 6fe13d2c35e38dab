"""Sample ``view`` messages (docs/protocols/table.md) for the screen tests and screenshots."""

from __future__ import annotations

import copy
from typing import Any

View = dict[str, Any]

NAMES = ["Ana", "Bruno", "Carla", "Diego", "Elena", "Fermín", "Gabriela", "Hugo", "Inés"]


def _seats(cards_for: dict[int, list[str]]) -> list[dict[str, Any]]:
    seats = []
    for i, name in enumerate(NAMES, start=1):
        seats.append(
            {
                "seat": i,
                "name": name,
                "stack": 1000 - 40 * i,
                "bet": 0,
                "status": "active",
                "markers": "",
                "blind": "",
                "button": False,
                "cards": cards_for.get(i, ["??", "??"]),
                "shown": False,
            }
        )
    return seats


def seat_waiting() -> View:
    """Seat 3 between hands: no cards, waiting for the next hand; seat 8 sits out (ML)."""
    seats = _seats({})
    for s in seats:
        s["cards"] = []
    seats[7]["status"] = "sitting-out"
    seats[7]["markers"] = "ML"
    seats[4]["button"] = True
    return {
        "type": "view",
        "audience": "seat",
        "seat": 3,
        "lang": "es",
        "table": {
            "hand": None,
            "phase": "idle",
            "street": 0,
            "button": 5,
            "small_blind": 6,
            "big_blind": 7,
            "board": [],
            "pots": [],
            "pot_total": 0,
            "actor": None,
            "clock": None,
            "seats": seats,
            "winners": [],
        },
        "recall": [],
    }


def seat_to_act() -> View:
    """Seat 3 on the flop facing a bet of 20 from seat 6, clock running."""
    seats = _seats({3: ["Ah", "Kd"]})
    seats[4]["button"] = True
    seats[5]["blind"] = "SB"
    seats[5]["bet"] = 20
    seats[6]["blind"] = "BB"
    seats[0]["status"] = "folded"
    seats[0]["cards"] = []
    seats[8]["status"] = "sitting-out"
    seats[8]["markers"] = "MS"
    seats[8]["cards"] = []
    seats[2]["stack"] = 180
    return {
        "type": "view",
        "audience": "seat",
        "seat": 3,
        "lang": "en",
        "table": {
            "hand": 12,
            "phase": "betting",
            "street": 1,
            "button": 5,
            "small_blind": 6,
            "big_blind": 7,
            "board": ["Qs", "7c", "2h"],
            "pots": [{"amount": 130, "seats": [2, 3, 4, 5, 6, 7, 8]}],
            "pot_total": 150,
            "actor": 3,
            "clock": {"seat": 3, "left": 42.0, "countdown": False},
            "seats": seats,
            "winners": [],
        },
        "legal": {
            "fold": True,
            "check": False,
            "call": 20,
            "min_raise": 40,
            "max_raise": 180,
            "presets": {"min": 40, "half_pot": 75, "pot": 150, "all_in": 180},
        },
        "recall": [],
    }


def seat_waiting_turn() -> View:
    """The same flop, but seat 6 is to act with 8 s left of a called clock (TDA-5)."""
    view = seat_to_act()
    del view["legal"]
    view["table"]["actor"] = 6
    view["table"]["clock"] = {"seat": 6, "left": 8.0, "countdown": True}
    return view


def seat_allin_showdown() -> View:
    """Seat 3 all-in and called: hands tabled (TDA-9), side pot, winners named."""
    seats = _seats({3: ["Ah", "Kd"], 6: ["9s", "9d"], 7: ["Kc", "Ks"]})
    for s in seats:
        if s["seat"] not in (3, 6, 7):
            s["status"] = "folded"
            s["cards"] = []
    seats[2].update(stack=0, status="all-in")
    seats[5].update(stack=0, status="all-in")
    seats[6].update(stack=640)
    for i in (2, 5, 6):
        seats[i]["shown"] = True
    seats[4]["button"] = True
    return {
        "type": "view",
        "audience": "seat",
        "seat": 3,
        "lang": "es",
        "table": {
            "hand": 13,
            "phase": "showdown",
            "street": 3,
            "button": 5,
            "small_blind": 6,
            "big_blind": 7,
            "board": ["Kh", "9c", "2s", "7d", "Ad"],
            "pots": [{"amount": 540, "seats": [3, 6, 7]}, {"amount": 120, "seats": [3, 7]}],
            "pot_total": 660,
            "actor": None,
            "clock": None,
            "seats": seats,
            "winners": [
                {"seat": 7, "amount": 540, "hand": "Trío de reyes"},
                {"seat": 7, "amount": 120, "hand": "Trío de reyes"},
            ],
        },
        "recall": [],
    }


def seat_recall() -> View:
    """Seat 3 with ten hands to recall."""
    view = seat_waiting()
    view["lang"] = "en"
    recall = []
    for n in range(3, 13):
        recall.append(
            {
                "hand": n,
                "cards": ["Ah", "Kd"] if n % 2 else ["7c", "2d"],
                "board": ["Qs", "7c", "2h", "Td", "3s"][: 3 + n % 3],
                "net": (-20 if n % 2 else 35) * (n % 4),
                "winners": [{"seat": 3 + n % 4, "amount": 40 + 10 * n}],
            }
        )
    view["recall"] = recall
    return view


def clone(view: View) -> View:
    """A deep copy (tests mutate views)."""
    return copy.deepcopy(view)


def _devices(shoe: str = "ok") -> list[dict[str, Any]]:
    """Devices as a Spanish view names them: each by its kind when the configuration gives
    no display name (firmware.views.devices.named_devices), never by its key."""
    return [
        {
            "name": "shoe",
            "label": "Sabot",
            "kind": "shoe",
            "health": shoe,
            "identity": {},
            "link": {"crc_errors": 0},
        },
        {
            "name": "reader",
            "label": "Lectores de tarjetas",
            "kind": "id_readers",
            "health": "ok",
            "identity": {},
            "link": {},
        },
        {
            "name": "seats",
            "label": "Botones",
            "kind": "buttons",
            "health": "ok",
            "identity": {},
            "link": {},
        },
    ]


def console_dealing() -> View:
    """The console mid-deal: the next card is a hole card for seat 4; no hole card in sight."""
    seats = _seats({})
    for s in seats:
        s["cards"] = []
    seats[4]["button"] = True
    return {
        "type": "view",
        "audience": "console",
        "lang": "es",
        "table": {
            "hand": 12,
            "phase": "dealing",
            "street": 0,
            "button": 5,
            "small_blind": 6,
            "big_blind": 7,
            "board": [],
            "pots": [],
            "pot_total": 30,
            "actor": None,
            "clock": None,
            "seats": seats,
            "winners": [],
        },
        "recall": [],
        "console": {
            "prompt": "Reparta una carta de mano al asiento 4.",
            "next_card": {"role": "hole", "seat": 4, "street": None},
            "incidents": [],
            "distribution": [],
            "paused": False,
            "alerts": [],
            "deck": {"ready": True, "checklist": [], "needs_repair": []},
            "level": {
                "number": 3,
                "small_blind": 50,
                "big_blind": 100,
                "ante": 0,
                "seconds_left": 540,
            },
        },
        "devices": _devices(),
        "staff": {"name": "Flor", "role": "floor"},
    }


def console_distribution() -> View:
    """The console after a showdown: a main pot split and a side pot."""
    view = console_dealing()
    view["lang"] = "en"
    view["table"].update(phase="complete", board=["Kh", "9c", "2s", "7d", "Ad"], pot_total=660)
    view["console"].update(
        prompt="Push the pots as shown.",
        next_card={"role": "none", "seat": None, "street": None},
        distribution=[
            {"pot": "Main pot", "amount": 540, "shares": {"3": 270, "7": 270}},
            {"pot": "Side pot 1", "amount": 120, "shares": {"7": 120}},
        ],
    )
    return view


def console_fault() -> View:
    """The console with the shoe faulted and an alert."""
    view = console_dealing()
    view["devices"] = _devices("fault")
    view["console"]["alerts"] = [
        {
            "time": 12.5,
            "text": "El sabot no responde: revise el cable y reinícielo.",
            "device": "shoe",
        }
    ]
    view["console"]["paused"] = True
    return view


def seat_show_or_muck() -> View:
    """Seat 3 at the showdown, its turn to show (``to_show``) after seat 7 tabled."""
    view = seat_allin_showdown()
    t = view["table"]
    t["winners"] = []
    t["to_show"] = 3
    for s in t["seats"]:
        if s["seat"] in (3, 6, 7):
            s.update(status="active", shown=s["seat"] == 7)
        if s["seat"] == 6:
            s.update(status="folded", cards=[])
    return view
