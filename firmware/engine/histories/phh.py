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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from firmware.engine.events import (
    Event,
    Muck,
    Show,
    StartHand,
)
from firmware.engine.hand import Hand, Phase
from firmware.engine.histories.fasttoml import fast_toml
from firmware.engine.histories.phh_actions import action_error, parse_action, parse_actions
from firmware.engine.histories.phh_writer import (
    dump_phh,
    hand_to_phh,
    hand_to_phh_data,
    slots_to_players,
)
from firmware.engine.rules import GameKind, HandConfig, Structure
from firmware.engine.showdown import auto_showdown_event
from firmware.errors import ConfigError, HandHistoryError, IllegalAction

VARIANTS: dict[str, Structure] = {"NT": Structure.NO_LIMIT, "FT": Structure.FIXED_LIMIT}
"""PHH variant codes we read and write, and their betting structures."""

_KNOWN_FIELDS = frozenset(
    {
        "variant",
        "ante_trimming_status",
        "antes",
        "blinds_or_straddles",
        "min_bet",
        "small_bet",
        "big_bet",
        "starting_stacks",
        "actions",
        "finishing_stacks",
        "seats",
        "players",
        "_dead",
    }
)


@dataclass(frozen=True)
class PHHAction:
    """One entry of a PHH ``actions`` list and the event it means.

    :param index: Position of the action in the ``actions`` list (0-based).
    :param text: The action exactly as written in the file.
    :param event: The event, or ``None`` for a comment-only entry.
    """

    index: int
    text: str
    event: Event | None


_CONFIGS: dict[tuple[Structure, GameKind, int | None, int | None, int | None], HandConfig] = {}
"""HandConfig (immutable) by the fields it is built from; hands of one file or game share it."""

_Item = tuple[int, str, Event]
"""An action as played: its index in the file, its text and its event."""


@dataclass(frozen=True)
class PHHHand:
    """A Texas hold'em hand read from PHH; amounts per *PHH slot* as in the file.

    :param source: File name (or ``<text>``) used in error messages.
    :param variant: ``NT`` or ``FT``.
    :param antes: Antes per blind slot, as written.
    :param blinds_or_straddles: Blinds and straddles per blind slot, as written.
    :param min_bet: No-limit minimum bet (the big blind).
    :param small_bet: Fixed-limit small bet.
    :param big_bet: Fixed-limit big bet.
    :param starting_stacks: Stacks of ``p1 .. pN``.
    :param actions: The action strings.
    :param ante_trimming_status: Whether antes are matched (``True``) or dead.
    :param finishing_stacks: Stacks after the hand, if the file records them.
    :param seats: Seat numbers of ``p1 .. pN``, if recorded.
    :param players: Player names of ``p1 .. pN``, if recorded.
    :param dead: Project extension ``_dead``: dead money per player.
    :param ignored: Other fields of the file, read and ignored.
    """

    source: str
    variant: str
    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    min_bet: int | None
    small_bet: int | None
    big_bet: int | None
    starting_stacks: tuple[int, ...]
    actions: tuple[str, ...]
    ante_trimming_status: bool = False
    finishing_stacks: tuple[int, ...] | None = None
    seats: tuple[int, ...] | None = None
    players: tuple[str, ...] | None = None
    dead: tuple[int, ...] | None = None
    ignored: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def player_count(self) -> int:
        """Number of players in the hand."""
        return len(self.starting_stacks)

    def config(self, game: GameKind = GameKind.TOURNAMENT) -> HandConfig:
        """Return the rules of this hand under ``game`` (cash or tournament)."""
        structure = VARIANTS[self.variant]
        key = (structure, game, self.min_bet, self.small_bet, self.big_bet)
        config = _CONFIGS.get(key)
        if config is None:
            config = self._new_config(structure, game)
            if len(_CONFIGS) >= 1024:
                _CONFIGS.clear()
            _CONFIGS[key] = config
        return config

    def _new_config(self, structure: Structure, game: GameKind) -> HandConfig:
        try:
            if structure is Structure.FIXED_LIMIT:
                assert self.small_bet is not None and self.big_bet is not None
                return HandConfig(structure, game, min_bet=self.small_bet, big_bet=self.big_bet)
            assert self.min_bet is not None
            return HandConfig(structure, game, min_bet=self.min_bet)
        except ConfigError as exc:
            raise HandHistoryError(f"In {self.source}, the bet sizes are not valid: {exc}") from exc

    def start_event(self, game: GameKind = GameKind.TOURNAMENT) -> StartHand:
        """Return the :class:`StartHand` event of this hand (position order)."""
        n = self.player_count
        blinds = slots_to_players(self.blinds_or_straddles)
        antes = slots_to_players(self.antes)
        if self.ante_trimming_status:
            matched, dead = antes, self.dead or (0,) * n
        else:
            matched, dead = (0,) * n, antes
            if self.dead is not None:
                dead = tuple(a + d for a, d in zip(dead, self.dead, strict=True))
        return StartHand(
            config=self.config(game),
            seats=self.seats if self.seats is not None else tuple(range(1, n + 1)),
            names=self.players if self.players is not None else tuple(_labels(n)),
            stacks=self.starting_stacks,
            antes=matched,
            blinds=blinds,
            dead=dead,
        )

    def parsed_actions(self) -> list[PHHAction]:
        """Return every action with the event it means.

        :raises HandHistoryError: if an action's syntax is not PHH hold'em syntax.
        """
        n = self.player_count
        return [
            PHHAction(i, text, parse_action(self.source, n, i, text))
            for i, text in enumerate(self.actions)
        ]

    def to_events(self, game: GameKind = GameKind.TOURNAMENT) -> list[Event]:
        """Return the hand as our events: :class:`StartHand` then one per action.

        This is a translation only; :func:`play_phh` also checks every event
        against the rules.
        """
        events: list[Event] = [self.start_event(game)]
        events.extend(a.event for a in self.parsed_actions() if a.event is not None)
        return events


@dataclass(frozen=True)
class PHHReplay:
    """A PHH hand played through our engine.

    :param phh: The hand as read.
    :param hand: Our engine's hand after the last action.
    :param auto_showdown: Number of show/muck events added by
        :func:`~firmware.engine.showdown.auto_showdown_event` because the file's
        actions stopped at the showdown.
    """

    phh: PHHHand
    hand: Hand
    auto_showdown: int


# --------------------------------------------------------------------- reading


def load_phh(source: str | Path, *, name: str | None = None) -> PHHHand:
    """Read one PHH hand from a file path or from PHH text.

    A :class:`~pathlib.Path`, or a string that names an existing file and
    contains no newline, is read as a file; any other string is PHH text.

    :param name: Name used in error messages (defaults to the path or ``<text>``).
    :raises HandHistoryError: if the file cannot be read or is not a valid hand.
    """
    if isinstance(source, Path) or ("\n" not in source and Path(source).is_file()):
        path = Path(source)
        label = name or str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise HandHistoryError(
                f"The hand history {label} cannot be read ({exc}); check the path and that it "
                "is a UTF-8 text file."
            ) from exc
    else:
        text = str(source)
        label = name or "<text>"
    return loads_phh(text, name=label)


def loads_phh(text: str, *, name: str = "<text>") -> PHHHand:
    """Read one PHH hand from its TOML text (see :func:`load_phh`)."""
    data = fast_toml(text)
    if data is not None:
        return _from_mapping(data, name)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HandHistoryError(
            f"{name} is not valid TOML ({exc}); a PHH file is a TOML document."
        ) from exc
    return _from_mapping(data, name)


def _from_mapping(data: dict[str, Any], name: str) -> PHHHand:
    variant = data.get("variant")
    if variant not in VARIANTS:
        raise HandHistoryError(
            f"{name} has the variant {variant!r}, which is not a Texas hold'em variant we read; "
            f"use one of {', '.join(sorted(VARIANTS))} (PokerKit 0.7.7 defines no pot-limit "
            "Texas hold'em code)."
        )
    for required in ("antes", "blinds_or_straddles", "starting_stacks", "actions"):
        if required not in data:
            raise HandHistoryError(f"{name} lacks the required field {required!r}; add it.")
    stacks = _int_list(data, "starting_stacks", name)
    n = len(stacks)
    if n < 2:
        raise HandHistoryError(f"{name} has {n} starting stack(s); a hand needs two players.")
    raw_antes = data["antes"]
    if isinstance(raw_antes, int) and not isinstance(raw_antes, bool):
        data = {**data, "antes": [raw_antes] * n}
    antes = _int_list(data, "antes", name, n)
    blinds = _int_list(data, "blinds_or_straddles", name, n)
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
            continue
        amounts[key] = _whole(value, f"the field {key!r}", name)
    actions = data["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise HandHistoryError(f"In {name}, the field 'actions' must be a list of strings.")
    trimming = data.get("ante_trimming_status", False)
    if not isinstance(trimming, bool):
        raise HandHistoryError(f"In {name}, the field 'ante_trimming_status' must be true/false.")
    finishing = _int_list(data, "finishing_stacks", name, n) if "finishing_stacks" in data else None
    seats = _int_list(data, "seats", name, n) if "seats" in data else None
    players: tuple[str, ...] | None = None
    if "players" in data:
        raw = data["players"]
        if not isinstance(raw, list) or len(raw) != n or not all(isinstance(p, str) for p in raw):
            raise HandHistoryError(f"In {name}, the field 'players' must list {n} names.")
        players = tuple(raw)
    dead = _int_list(data, "_dead", name, n) if "_dead" in data else None
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
        ignored={k: v for k, v in data.items() if k not in _KNOWN_FIELDS},
    )


def _whole(value: Any, what: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise HandHistoryError(
            f"In {name}, {what} is {value!r}; chip amounts must be whole numbers, 0 or more "
            "(write amounts in the smallest chip unit)."
        )
    return value


def _int_list(
    data: dict[str, Any], key: str, name: str, length: int | None = None
) -> tuple[int, ...]:
    raw = data[key]
    if not isinstance(raw, list):
        raise HandHistoryError(f"In {name}, the field {key!r} must be a list of numbers.")
    if length is not None and len(raw) != length:
        raise HandHistoryError(
            f"In {name}, the field {key!r} has {len(raw)} values but the hand has {length} "
            "players; give one value per player."
        )
    for v in raw:
        if v.__class__ is not int or v < 0:
            return tuple(_whole(v, f"a value of the field {key!r}", name) for v in raw)
    return tuple(raw)


def _labels(n: int) -> list[str]:
    return [f"p{i + 1}" for i in range(n)]


def _fail(phh: PHHHand, index: int, text: str, why: str) -> HandHistoryError:
    return action_error(phh.source, index, text, why)


# --------------------------------------------------------------------- playing


def play_phh(
    phh: PHHHand,
    game: GameKind = GameKind.TOURNAMENT,
    *,
    finish_showdown: bool = False,
) -> PHHReplay:
    """Apply every action of ``phh`` to a new hand of our engine.

    :param game: Cash game or tournament rules (the fixed-limit cap heads-up differs).
    :param finish_showdown: If the actions stop exactly at the showdown,
        finish it with :func:`~firmware.engine.showdown.auto_showdown_event`.
    :raises HandHistoryError: naming the file, the action and the reason, if an
        action is not legal, the hand does not start, or it ends early.
    """
    try:
        hand = Hand.start(phh.start_event(game))
    except IllegalAction as exc:
        raise HandHistoryError(f"The hand in {phh.source} cannot start: {exc}") from exc
    items = parse_actions(phh.source, phh.player_count, phh.actions)
    deferred: list[_Item] = []
    apply = hand.apply
    complete = Phase.COMPLETE
    item: _Item | None = None
    for item in items:
        event = item[2]
        kind = type(event)
        if kind is Show or kind is Muck:
            if kind is Show and _already_tabled(hand, event):  # type: ignore[arg-type]
                continue
            if hand.cards_up and hand.phase is Phase.BOARD:
                # PokerKit shows all-in hands before the runout; ours are tabled then.
                if kind is Muck:
                    raise _fail(
                        phh,
                        item[0],
                        item[1],
                        "mucks a hand that is all-in before the board is run out; such hands "
                        "are tabled (TDA-9) and cannot be mucked.",
                    )
                deferred.append(item)
                continue
        if hand.phase is complete:
            raise _fail(
                phh,
                item[0],
                item[1],
                "comes after the hand is already over; remove it or check the actions before it.",
            )
        try:
            apply(event)
        except IllegalAction as exc:
            raise _illegal(phh, item, exc) from exc
        if deferred and (hand.phase is complete or hand.phase is Phase.SHOWDOWN):
            _apply_deferred(phh, hand, deferred)
            deferred = []
    last = item
    _apply_deferred(phh, hand, deferred)
    added = 0
    if hand.phase is Phase.SHOWDOWN and finish_showdown:
        while hand.phase is Phase.SHOWDOWN:
            hand.apply(auto_showdown_event(hand))
            added += 1
    if hand.phase is not Phase.COMPLETE:
        waits, who = hand.expected()
        after = f"after action {last[0]} ({last[1]!r})" if last else "before any action"
        what = {
            "hole": f"hole cards for p{(who or 0) + 1}",
            "action": f"an action by p{(who or 0) + 1}",
            "board": f"{who} board card(s)",
            "show": f"p{(who or 0) + 1} to show or muck",
        }.get(waits, waits)
        hint = (
            "; replay with the showdown finished automatically, or add the show/muck actions"
            if waits == "show"
            else "; the file is incomplete or an action is missing"
        )
        raise HandHistoryError(
            f"In {phh.source}, the actions end {after} before the hand is complete: "
            f"the hand waits for {what}{hint}.",
            key="error.phh.incomplete",
            file=phh.source,
        )
    return PHHReplay(phh=phh, hand=hand, auto_showdown=added)


def _apply_deferred(phh: PHHHand, hand: Hand, deferred: list[_Item]) -> None:
    """Apply shows made before an all-in runout, now that the showdown has begun."""
    for item in deferred:
        event = item[2]
        if isinstance(event, Show) and _already_tabled(hand, event):
            continue
        if hand.phase is Phase.COMPLETE:
            raise _fail(
                phh,
                item[0],
                item[1],
                "shows cards that do not match the hand this player tabled at the showdown.",
            )
        try:
            hand.apply(event)
        except IllegalAction as exc:
            raise _illegal(phh, item, exc) from exc


def _already_tabled(hand: Hand, event: Show) -> bool:
    if not 0 <= event.player < hand.player_count:
        return False
    shown = hand.shown[event.player]
    return shown is not None and len(shown) == 2 and set(shown) == set(event.cards)


def _illegal(phh: PHHHand, item: _Item, exc: IllegalAction) -> HandHistoryError:
    note = (
        " (the engine numbers players from 0: its player 0 is p1)" if "player" in str(exc) else ""
    )
    return _fail(phh, item[0], item[1], f"is not legal here: {exc}{note}")


# --------------------------------------------------------------------- writing
# Our engine's hands are written by firmware.engine.histories.phh_writer (hand_to_phh, dump_phh).


def dumps_phh(phh: PHHHand) -> str:
    """Return a :class:`PHHHand` as PHH text (fields as read; ignored fields dropped)."""
    data: dict[str, Any] = {"variant": phh.variant}
    data["ante_trimming_status"] = phh.ante_trimming_status
    data["antes"] = list(phh.antes)
    data["blinds_or_straddles"] = list(phh.blinds_or_straddles)
    for key in ("min_bet", "small_bet", "big_bet"):
        value = getattr(phh, key)
        if value is not None:
            data[key] = value
    data["starting_stacks"] = list(phh.starting_stacks)
    data["actions"] = list(phh.actions)
    for key in ("finishing_stacks", "seats", "players"):
        value = getattr(phh, key)
        if value is not None:
            data[key] = list(value)
    if phh.dead is not None:
        data["_dead"] = list(phh.dead)
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
