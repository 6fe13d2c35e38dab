"""A hand read from PHH: :class:`PHHHand` and the limits of what is read.

Split from :mod:`firmware.engine.histories.phh`, which reads, plays and writes
hands and documents the format; import these names from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Final

from firmware.engine.events import Event, StartHand
from firmware.engine.histories.fasttoml import PHH_FIELDS
from firmware.engine.histories.phh_actions import parse_action
from firmware.engine.histories.phh_writer import (
    drop_policy_of,
    rake_policy_of,
    slots_to_players,
)
from firmware.engine.rules import GameKind, HandConfig, Structure
from firmware.errors import ConfigError, HandHistoryError

VARIANTS: Final[dict[str, Structure]] = {"NT": Structure.NO_LIMIT, "FT": Structure.FIXED_LIMIT}
"""PHH variant codes we read and write, and their betting structures."""

MAX_PLAYERS: Final = 10
"""Most players a hand may have: a table seats ten, and 23 hands use up the deck."""

MAX_ACTIONS: Final = 1000
"""Most actions a hand may have (a long hand of ten players has about 100)."""

MAX_FILE_BYTES: Final = 256 * 1024 * 1024
"""Largest hand-history file read (a 10,000-hand ``.phhs`` file is about 4 MB)."""

_KNOWN_FIELDS: Final = PHH_FIELDS


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


_CONFIGS: Final[dict[tuple[str, bool, int | None, int | None, int | None], HandConfig]] = {}
"""HandConfig (immutable) by the fields it is built from (variant, cash game, bet sizes);
hands of one file or game share it."""
_CASH: Final = GameKind.CASH
_TOURNAMENT: Final = GameKind.TOURNAMENT


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
    :param unit: Value of one chip unit in the file's money (``0.01``), or
        ``None`` when the file's amounts are whole chips; every amount above
        is in chip units (see :mod:`firmware.engine.histories.amounts`).
    :param winnings: The file's ``winnings`` (what each player won), if recorded.
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
    unit: Decimal | None = None
    winnings: tuple[int, ...] | None = None

    def __init__(
        self,
        source: str,
        variant: str,
        antes: tuple[int, ...],
        blinds_or_straddles: tuple[int, ...],
        min_bet: int | None,
        small_bet: int | None,
        big_bet: int | None,
        starting_stacks: tuple[int, ...],
        actions: tuple[str, ...],
        ante_trimming_status: bool = False,
        finishing_stacks: tuple[int, ...] | None = None,
        seats: tuple[int, ...] | None = None,
        players: tuple[str, ...] | None = None,
        dead: tuple[int, ...] | None = None,
        ignored: dict[str, Any] | None = None,
        unit: Decimal | None = None,
        winnings: tuple[int, ...] | None = None,
    ) -> None:
        # Spelled out so that the compiled build compiles it (see firmware.engine.events);
        # ``ignored=None`` stands for the field's default, a new empty dict.
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "variant", variant)
        object.__setattr__(self, "antes", antes)
        object.__setattr__(self, "blinds_or_straddles", blinds_or_straddles)
        object.__setattr__(self, "min_bet", min_bet)
        object.__setattr__(self, "small_bet", small_bet)
        object.__setattr__(self, "big_bet", big_bet)
        object.__setattr__(self, "starting_stacks", starting_stacks)
        object.__setattr__(self, "actions", actions)
        object.__setattr__(self, "ante_trimming_status", ante_trimming_status)
        object.__setattr__(self, "finishing_stacks", finishing_stacks)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "dead", dead)
        object.__setattr__(self, "ignored", {} if ignored is None else ignored)
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "winnings", winnings)

    @property
    def player_count(self) -> int:
        """Number of players in the hand."""
        return len(self.starting_stacks)

    def config(self, game: GameKind = GameKind.TOURNAMENT) -> HandConfig:
        """Return the rules of this hand under ``game`` (cash or tournament).

        A hand our table raked carries its rake policy in user-defined fields
        (``_rake_basis_points`` ...): a cash game replays with it, so the engine
        takes the same rake (HOUSE-RAKE).
        """
        if self.ignored:
            policy = rake_policy_of(self.ignored)
            drop = drop_policy_of(self.ignored)  # and its jackpot drop (JACKPOT)
            if policy is not None or drop is not None:
                return replace(
                    self._new_config(VARIANTS[self.variant], game), rake=policy, jackpot_drop=drop
                )
        # The cache's key holds no enum member: hashing one runs Enum.__hash__ (Python).
        if game is _TOURNAMENT:
            cash = False
        elif game is _CASH:
            cash = True
        else:
            return self._new_config(VARIANTS[self.variant], game)
        key = (self.variant, cash, self.min_bet, self.small_bet, self.big_bet)
        config = _CONFIGS.get(key)
        if config is None:
            config = self._new_config(VARIANTS[self.variant], game)
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
            big_blind=self._big_blind(blinds),
        )

    def _big_blind(self, blinds: tuple[int, ...]) -> int | None:
        """The table's big blind when another player also posted a live big blind
        out of position (CC-13, HG-15): the player before the first to act. PHH has
        no field for it; without such a post the engine's default reading applies."""
        top = max(blinds, default=0)
        n = len(blinds)
        if n <= 2 or top == 0 or blinds.count(top) < 2:
            return None
        for text in self.actions:
            words = text.split()
            actor = words[0] if len(words) >= 2 and words[1] in ("f", "cc", "cbr") else ""
            if actor[:1] == "p" and actor[1:].isdigit():
                opener = (int(actor[1:]) - 2) % n
                return opener if blinds[opener] else None
        return None

    def parsed_actions(self) -> list[PHHAction]:
        """Return every action with the event it means.

        :raises HandHistoryError: if an action's syntax is not PHH hold'em syntax.
        """
        n = self.player_count
        return [
            PHHAction(i, text, parse_action(self.source, n, i, text, self.unit))
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


def _labels(n: int) -> list[str]:
    return [f"p{i + 1}" for i in range(n)]
