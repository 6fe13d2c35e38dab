"""Hands whose shown cards nobody recorded (``pN sm ????``).

Public hand histories often record that a player showed at the showdown but
not what he showed. :func:`decide_phh` plays such a hand as far as the known
cards allow and decides it where the result is certain:

* if the player's hole cards were recorded at the deal (or shown later), the
  ``sm ????`` shows those cards;
* otherwise every holding the unseen cards allow is tried (up to
  :data:`MAX_CANDIDATES`); if all give the same pots and stacks the hand is
  decided whatever he held;
* otherwise the hand is *undecidable*: the result carries a sentence naming
  two holdings that give different winners, and the file's other hands are
  not affected.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product

from firmware.engine.cards import format_card
from firmware.engine.events import DealBoard, DealHole, Show
from firmware.engine.histories.phh import PHHHand, PHHReplay, play_phh
from firmware.engine.histories.phh_actions import parse_actions
from firmware.engine.rules import GameKind
from firmware.errors import HandHistoryError

MAX_CANDIDATES = 2000
"""Most holdings tried for the unrecorded cards (one player has at most 1,081)."""


@dataclass(frozen=True)
class Decision:
    """A hand played as far as its known cards allow.

    :param replay: The hand played through the engine (for a hand decided by
        trying holdings, one of them: its stacks and pots are the certain
        result, its hole cards are not known), or ``None`` if undecidable.
    :param reason: Why the hand is undecidable (a sentence), else ``None``.
    :param unknown: Players (position indices) whose shown cards were not recorded.
    :param tried: How many holdings were tried for them (0 when none was needed).
    :param stopped_at: Index of the first ``sm ????`` action of those players.
    """

    replay: PHHReplay | None
    reason: str | None = None
    unknown: tuple[int, ...] = ()
    tried: int = 0
    stopped_at: int | None = None

    @property
    def decided(self) -> bool:
        """Whether the hand's result is certain."""
        return self.replay is not None


def _outcome(replay: PHHReplay) -> tuple[object, ...]:
    result = replay.hand.result
    assert result is not None
    return (result.finishing_stacks, tuple(p.winners for p in result.pots))


def _winners_text(replay: PHHReplay) -> str:
    result = replay.hand.result
    assert result is not None
    parts = []
    for pot in result.pots:
        names = " and ".join(f"p{w + 1}" for w in pot.winners)
        parts.append(f"{names} {'wins' if len(pot.winners) == 1 else 'split'} {pot.amount}")
    return ", ".join(parts)


def decide_phh(
    phh: PHHHand, game: GameKind = GameKind.TOURNAMENT, *, finish_showdown: bool = False
) -> Decision:
    """Play ``phh``, deciding ``sm ????`` shows where the result is certain.

    :raises HandHistoryError: for any error :func:`play_phh` reports that does
        not come from the unrecorded cards.
    """
    items = parse_actions(phh.source, phh.player_count, phh.actions, phh.unit)
    dealt: dict[int, list[int | None]] = {}
    known: set[int] = set()
    unknown: list[int] = []
    first: int | None = None
    for index, _text, event in items:
        if isinstance(event, DealHole):
            dealt.setdefault(event.player, []).extend(event.cards)
            known.update(c for c in event.cards if c is not None)
        elif isinstance(event, DealBoard) or (isinstance(event, Show) and event.cards):
            known.update(event.cards)
        elif isinstance(event, Show):
            cards = dealt.get(event.player, [])
            if (len(cards) != 2 or None in cards) and event.player not in unknown:
                unknown.append(event.player)
                first = index if first is None else first
    if not unknown:
        return Decision(play_phh(phh, game, finish_showdown=finish_showdown))
    rest = [c for c in range(52) if c not in known]
    options: list[list[tuple[int, ...]]] = []
    for player in unknown:
        seen = [c for c in dealt.get(player, []) if c is not None]
        if seen:
            options.append([(seen[0], c) for c in rest])
        else:
            options.append(list(combinations(rest, 2)))
    outcomes: dict[tuple[object, ...], tuple[dict[int, tuple[int, ...]], PHHReplay]] = {}
    tried = 0
    for holding in product(*options):
        used = [c for cards in holding for c in cards]
        if len(set(used)) != len(used):
            continue
        if tried >= MAX_CANDIDATES:
            break
        tried += 1
        holes = dict(zip(unknown, holding, strict=True))
        try:
            replay = play_phh(phh, game, finish_showdown=finish_showdown, holes=holes)
        except HandHistoryError:
            continue  # e.g. a later show by the same player names other cards
        outcomes.setdefault(_outcome(replay), (holes, replay))
        if len(outcomes) > 1:
            break
    who = " and ".join(f"p{p + 1}" for p in unknown)
    players = tuple(unknown)
    if not outcomes:
        # No holding can be played: report the hand's own error.
        play_phh(phh, game, finish_showdown=finish_showdown, holes=None)
        raise HandHistoryError(f"In {phh.source}, no hole cards for {who} make the hand legal.")
    if len(outcomes) == 1:
        (_holes, replay), *_ = outcomes.values()
        exhaustive = tried < MAX_CANDIDATES
        if exhaustive:
            return Decision(replay, None, players, tried, first)
        reason = (
            f"{who} showed cards nobody recorded ('????'); the first {tried} possible holdings "
            "all give the same result, but there are too many to try them all, so the hand "
            "is left undecided."
        )
        return Decision(None, reason, players, tried, first)
    (holes_a, replay_a), (holes_b, replay_b) = list(outcomes.values())[:2]

    def shown(holes: dict[int, tuple[int, ...]]) -> str:
        return ", ".join(
            f"p{p + 1} {''.join(format_card(c) for c in cards)}" for p, cards in holes.items()
        )

    reason = (
        f"{who} showed cards nobody recorded ('????') and the result depends on them: "
        f"with {shown(holes_a)} {_winners_text(replay_a)}; with {shown(holes_b)} "
        f"{_winners_text(replay_b)}."
    )
    return Decision(None, reason, players, tried, first)
