"""Reading and writing hands in the Poker Hand History format (PHH, TOML).

PHH is the open hand-history format of the PokerKit project. This module
reads and writes the two Texas hold'em variants that PokerKit 0.7.7 defines:

* ``NT``: no-limit Texas hold'em (fields ``min_bet``),
* ``FT``: fixed-limit Texas hold'em (fields ``small_bet`` and ``big_bet``).

PokerKit 0.7.7 has no pot-limit Texas hold'em code (``PO`` is pot-limit
Omaha), so pot-limit hands cannot be written as PHH.

Player order
    PHH players ``p1 .. pN`` are in our position order: ``p1`` is the first
    player left of the button (small blind) and ``pN`` the button. In a
    heads-up hand ``p1`` is the big blind and ``p2`` the button, exactly as
    our position indices 0 and 1. The lists ``antes`` and
    ``blinds_or_straddles`` are, however, written by *blind slot*: in a
    heads-up hand ``blinds_or_straddles = [1, 2]`` means the small blind of 1
    is posted by ``p2`` (the button) and the big blind of 2 by ``p1``; the
    same reversal applies to ``antes`` (PokerKit 0.7.7, ``State.
    get_effective_blind_or_straddle``). With three or more players slot ``i``
    is player ``i``.

Antes
    ``ante_trimming_status = true`` means uniform antes that are matched like
    bets (our :attr:`StartHand.antes`); ``false`` (the PHH default) means each
    ante goes straight into the main pot as dead money (our
    :attr:`StartHand.dead`), which is how big-blind antes are written. A hand
    with both kinds is written with matched ``antes`` and the project field
    ``_dead`` (PHH tools ignore fields starting with an underscore).

Actions
    ``d dh p1 AcKd`` (``????`` for cards not seen), ``d db AhKhQh``,
    ``p1 f``, ``p1 cc``, ``p1 cbr 200`` (bet or raise *to* 200),
    ``p1 sm AcKd`` (show), ``p1 sm`` (muck), and ``# comment`` after any
    action. Burned cards are not written in PHH. Any other action syntax is
    an error; unknown *fields* are ignored.

The reader is strict: unlike PokerKit's reader, it never inserts a missing
check or fold. :func:`play_phh` applies every action to our engine and turns
the engine's refusal into a :class:`~firmware.errors.HandHistoryError`
naming the file, the action's index and text, and the reason. Two PokerKit
conventions are accepted as what they are, not repaired:

* PokerKit makes all-in players show before the remaining board is dealt;
  our engine tables those hands by itself (TDA-9), so a ``sm`` that shows
  exactly the cards already tabled is accepted as a no-op, and a show of
  cards not read at the deal (``????``) is applied when the showdown begins.
* With ``finish_showdown=True``, a file whose actions stop exactly at the
  showdown is finished with :func:`~firmware.engine.showdown.auto_showdown_event`.

Our engine's hands are written by :mod:`firmware.engine.histories.phh_writer`
(:func:`hand_to_phh`, :func:`dump_phh`), importable from here.
"""

from __future__ import annotations

import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any, Final

import tomli_w

from firmware.engine.histories.amounts import MAX_CHIPS, from_chips, to_chips, unit_for
from firmware.engine.histories.fasttoml import other_toml, scan_toml
from firmware.engine.histories.phh_hand import (
    _KNOWN_FIELDS,
    MAX_ACTIONS,
    MAX_FILE_BYTES,
    MAX_PLAYERS,
    VARIANTS,
    PHHAction,
    PHHHand,
)
from firmware.engine.histories.phh_play import PHHReplay, play_phh
from firmware.engine.histories.phh_writer import (
    dump_phh,
    hand_to_phh,
    hand_to_phh_data,
)
from firmware.errors import HandHistoryError

# --------------------------------------------------------------------- reading


def load_phh(
    source: str | Path, *, name: str | None = None, unit: Decimal | None = None
) -> PHHHand:
    """Read one PHH hand from a file path or from PHH text.

    A :class:`~pathlib.Path`, or a string that names an existing file and
    contains no newline, is read as a file; any other string is PHH text.

    :param name: Name used in error messages (defaults to the path or ``<text>``).
    :param unit: Value of one chip unit in the file's money; derived from the
        file when ``None`` (see :mod:`firmware.engine.histories.amounts`).
    :raises HandHistoryError: if the file cannot be read or is not a valid hand.
    """
    if isinstance(source, Path) or ("\n" not in source and Path(source).is_file()):
        path = Path(source)
        label = name or str(path)
        text = read_text_file(path, label)
    else:
        text = str(source)
        label = name or "<text>"
    return loads_phh(text, name=label, unit=unit)


def read_text_file(path: Path, label: str) -> str:
    """The UTF-8 text of a hand-history file, at most :data:`MAX_FILE_BYTES` long.

    :raises HandHistoryError: if the file cannot be read, is too large or is not UTF-8.
    """
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise HandHistoryError(
            f"The hand history {label} cannot be read ({exc.strerror or exc}); check the path."
        ) from exc
    if len(data) > MAX_FILE_BYTES:
        raise HandHistoryError(
            f"The hand history {label} is larger than {MAX_FILE_BYTES} bytes; split it."
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise HandHistoryError(
            f"The hand history {label} is not UTF-8 text: line {line} has the byte "
            f"{data[exc.start : exc.start + 1]!r}; save it as UTF-8."
        ) from exc


def loads_phh(text: str, *, name: str = "<text>", unit: Decimal | None = None) -> PHHHand:
    """Read one PHH hand from its TOML text (see :func:`load_phh`)."""
    if not text.strip():
        raise HandHistoryError(f"{name} is empty; it holds no hand.")
    data = scan_toml(text)
    if data is not None:
        return _from_mapping(data, name, unit, exact=True, uniform=True)
    data = other_toml(text)
    if data is not None:
        return _from_mapping(data, name, unit, exact=True)
    try:
        data = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise HandHistoryError(
            f"{name} is not valid TOML ({exc}); a PHH file is a TOML document."
        ) from exc
    except (ValueError, RecursionError) as exc:
        raise HandHistoryError(
            f"{name} has a value TOML cannot hold ({str(exc)[:80]}); check the numbers."
        ) from exc
    return _from_mapping(data, name, unit)


_AMOUNT_FIELDS: Final = (
    "antes",
    "blinds_or_straddles",
    "min_bet",
    "small_bet",
    "big_bet",
    "starting_stacks",
    "finishing_stacks",
    "winnings",
    "_dead",
)


def _file_unit(
    data: dict[str, Any], name: str, exact: bool = False, uniform: bool = False
) -> Decimal | None:
    """The unit that makes every amount of the hand whole (``None``: they are).

    :param exact: The values come from :func:`fast_toml`, which reads no decimal
        number (only the actions' text can hold one).
    :param uniform: Every array of ``data`` holds items of one type (see :func:`_strings`).
    """
    values: list[Decimal] = []
    if not exact:
        for key in _AMOUNT_FIELDS:
            raw = data.get(key)
            items = raw if isinstance(raw, list) else [raw]
            values.extend(v for v in items if isinstance(v, Decimal))
    actions = data.get("actions")
    if isinstance(actions, list) and _strings(actions, uniform) and "." in "".join(actions):
        for text in actions:
            if "." in text and " cbr " in text:
                words = text.split("#", 1)[0].split()
                if len(words) == 3 and words[1] == "cbr":
                    try:
                        values.append(Decimal(words[2]))
                    except ArithmeticError:
                        continue  # the action's reader names the bad amount
    if not values:
        return None
    return unit_for(values)


def _strings(values: list[Any], uniform: bool = False) -> bool:
    """Whether every item of ``values`` is a ``str`` (one pass in C).

    :param uniform: The items are known to be of one type (arrays read by
        :func:`~firmware.engine.histories.fasttoml.scan_toml`): the first tells.
    """
    if not values:
        return True
    if uniform:
        return type(values[0]) is str
    return set(map(type, values)) == _STR_TYPE


_STR_TYPE: Final = {str}
_INT_TYPE: Final = {int}


def _from_mapping(
    data: dict[str, Any],
    name: str,
    unit: Decimal | None = None,
    *,
    exact: bool = False,
    uniform: bool = False,
) -> PHHHand:
    variant = data.get("variant")
    if variant is None and data and all(isinstance(v, dict) for v in data.values()):
        raise HandHistoryError(
            f"{name} is a collection of {len(data)} hands (.phhs), not one hand; read it with "
            "firmware.engine.histories.phhs.loads_phhs or pokertable replay."
        )
    if variant not in VARIANTS:
        raise HandHistoryError(
            f"{name} has the variant {variant!r}, which is not a Texas hold'em variant we read; "
            f"use one of {', '.join(sorted(VARIANTS))} (PokerKit 0.7.7 defines no pot-limit "
            "Texas hold'em code)."
        )
    for required in ("antes", "blinds_or_straddles", "starting_stacks", "actions"):
        if required not in data:
            raise HandHistoryError(f"{name} lacks the required field {required!r}; add it.")
    if unit is None:
        unit = _file_unit(data, name, exact, uniform)
    stacks = _int_list(data, "starting_stacks", name, None, unit, uniform)
    n = len(stacks)
    if n < 2:
        raise HandHistoryError(f"{name} has {n} starting stack(s); a hand needs two players.")
    if n > MAX_PLAYERS:
        raise HandHistoryError(
            f"In {name}, the field 'starting_stacks' gives {n} players; a hand has at most "
            f"{MAX_PLAYERS} players (a table seats ten)."
        )
    raw_antes = data["antes"]
    if not isinstance(raw_antes, (list, bool)):
        data = {**data, "antes": [raw_antes] * n}
    antes = _int_list(data, "antes", name, n, unit, uniform)
    blinds = _int_list(data, "blinds_or_straddles", name, n, unit, uniform)
    amounts: dict[str, int | None] = {}
    needed = ("small_bet", "big_bet") if variant == "FT" else ("min_bet",)
    for key in ("min_bet", "small_bet", "big_bet"):
        value = data.get(key)
        if value is None:
            if key in needed:
                raise HandHistoryError(
                    f"{name} lacks the field {key!r}, which the variant {variant} requires."
                )
            amounts[key] = None
        elif type(value) is int and unit is None and 0 <= value <= MAX_CHIPS:
            amounts[key] = value  # what to_chips gives, without wording its error first
        else:
            amounts[key] = to_chips(value, unit, f"the field {key!r}", name)
    actions = data["actions"]
    if not isinstance(actions, list) or not _strings(actions, uniform):
        raise HandHistoryError(f"In {name}, the field 'actions' must be a list of strings.")
    if len(actions) > MAX_ACTIONS:
        raise HandHistoryError(
            f"In {name}, the field 'actions' has {len(actions)} actions; a hand has at most "
            f"{MAX_ACTIONS}."
        )
    trimming = data.get("ante_trimming_status", False)
    if not isinstance(trimming, bool):
        raise HandHistoryError(f"In {name}, the field 'ante_trimming_status' must be true/false.")

    seats = _int_list(data, "seats", name, n, None, uniform) if "seats" in data else None
    players: tuple[str, ...] | None = None
    if "players" in data:
        raw = data["players"]
        if not isinstance(raw, list) or len(raw) != n or not _strings(raw, uniform):
            raise HandHistoryError(f"In {name}, the field 'players' must list {n} names.")
        players = tuple(raw)
    finishing = (
        _int_list(data, "finishing_stacks", name, n, unit, uniform)
        if "finishing_stacks" in data
        else None
    )
    dead = _int_list(data, "_dead", name, n, unit, uniform) if "_dead" in data else None
    winnings = _int_list(data, "winnings", name, n, unit, uniform) if "winnings" in data else None
    # Usually every field is known: a subset test makes no set, a difference would.
    unknown = set() if data.keys() <= _KNOWN_FIELDS else data.keys() - _KNOWN_FIELDS
    return PHHHand(
        source=name,
        variant=str(variant),
        antes=antes,
        blinds_or_straddles=blinds,
        min_bet=amounts["min_bet"],
        small_bet=amounts["small_bet"],
        big_bet=amounts["big_bet"],
        starting_stacks=stacks,
        actions=tuple(actions),
        ante_trimming_status=trimming,
        finishing_stacks=finishing,
        seats=seats,
        players=players,
        dead=dead,
        ignored={k: v for k, v in data.items() if k in unknown} if unknown else {},
        unit=unit,
        winnings=winnings,
    )


def _int_list(
    data: dict[str, Any],
    key: str,
    name: str,
    length: int | None = None,
    unit: Decimal | None = None,
    uniform: bool = False,
) -> tuple[int, ...]:
    raw = data[key]
    if not isinstance(raw, list):
        raise HandHistoryError(f"In {name}, the field {key!r} must be a list of numbers.")
    if length is not None and len(raw) != length:
        raise HandHistoryError(
            f"In {name}, the field {key!r} has {len(raw)} values but the hand has {length} "
            "players; give one value per player."
        )
    if unit is None and (
        not raw
        or (
            (type(raw[0]) is int if uniform else set(map(type, raw)) == _INT_TYPE)
            and min(raw) >= 0
            and max(raw) <= MAX_CHIPS
        )
    ):
        return tuple(raw)  # whole chips already (the checks in C)
    return tuple(
        to_chips(v, unit, f"value {i + 1} of the field {key!r}", name) for i, v in enumerate(raw)
    )


# --------------------------------------------------------------------- writing
# Our engine's hands are written by firmware.engine.histories.phh_writer (hand_to_phh, dump_phh).


def dumps_phh(phh: PHHHand) -> str:
    """Return a :class:`PHHHand` as PHH text (fields as read; ignored fields dropped).

    Amounts are written back in the file's money with its unit (``250`` chip
    units at ``0.01`` are written ``2.50``), exactly, as the file had them.
    """
    unit = phh.unit

    def money(values: tuple[int, ...]) -> list[int | Decimal]:
        return [from_chips(v, unit) for v in values]

    data: dict[str, Any] = {"variant": phh.variant}
    data["ante_trimming_status"] = phh.ante_trimming_status
    data["antes"] = money(phh.antes)
    data["blinds_or_straddles"] = money(phh.blinds_or_straddles)
    for key in ("min_bet", "small_bet", "big_bet"):
        value = getattr(phh, key)
        if value is not None:
            data[key] = from_chips(value, unit)
    data["starting_stacks"] = money(phh.starting_stacks)
    data["actions"] = list(phh.actions)
    if phh.finishing_stacks is not None:
        data["finishing_stacks"] = money(phh.finishing_stacks)
    if phh.winnings is not None:
        data["winnings"] = money(phh.winnings)
    if phh.seats is not None:
        data["seats"] = list(phh.seats)
    if phh.players is not None:
        data["players"] = list(phh.players)
    if phh.dead is not None:
        data["_dead"] = money(phh.dead)
    return tomli_w.dumps(data)


__all__ = [
    "VARIANTS",
    "PHHAction",
    "PHHHand",
    "PHHReplay",
    "dump_phh",
    "dumps_phh",
    "hand_to_phh",
    "hand_to_phh_data",
    "load_phh",
    "loads_phh",
    "play_phh",
]
