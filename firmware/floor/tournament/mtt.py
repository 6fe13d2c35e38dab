"""Multi-table tournament procedures: pure decisions the floor takes, tables apply.

Nothing here does I/O or keeps a clock: each function takes the room as plain
mappings (``{table: {seat: player}}``) and returns what to do. Randomness comes
from an injected :class:`random.Random` (production passes
:class:`random.SystemRandom`, TDA-13's cryptographic source). The one-move
balancing rule (TDA-25 / HG-4) and the seat draw (TDA-13 / HG-5) are those of
:mod:`firmware.table.draws`; this module applies them over a whole room.

The procedures, in our words (``docs/floor.md`` has the full text):

* **Seat draw over all tables (TDA-13)**: every player draws a table and a
  seat at random; tables are filled evenly (no table has two more players
  than another), and every player is equally likely to get any drawn seat.
* **Breaking (TDA-24)**: when the players left fit in one table fewer, the
  next table in the predetermined break order breaks; its players are drawn
  at random into the empty seats of the shortest tables. They take the
  rights and obligations of the new seat (the table applies that).
* **Balancing (TDA-25 / HG-4)**: after eliminations, one player at a time
  moves from the fullest table to the shortest until no table has two more
  players than another; a table short three or more stops play.
* **Final table (HG-5)**: when everyone left fits at one table, all seats
  are drawn again.
* **Payouts (house procedure FLOOR-PAY)**: the prize pool is split by a
  percentage table; amounts are rounded down to the chip unit and the
  remainder goes to the first place, so the payouts add up to the pool.
* **Late registration and re-entry (house procedure FLOOR-LATE)**: entries are
  taken until the end of a configured level; a re-entry only after the
  player's last entry is out, up to a maximum; each is seated by the draw of
  a random empty seat at a shortest table (TDA-13) and adds to the pool.
* **Places in hand order**: eliminations are ranked by the moment their hand
  ended, whatever order the floor learned of them.
* **Hand-for-hand (house procedure FLOOR-HFH)**: near the money all tables
  play one hand at a time and wait for each other; players eliminated in the
  same hand-for-hand hand at different tables share their places' prizes;
  at the same table the one who started the hand with more chips takes the
  better place.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from firmware.errors import ConfigError, IllegalAction
from firmware.table.draws import Move, draw_seats, suggest_move

T = TypeVar("T", bound=Hashable)

Room = Mapping[T, Mapping[int, str]]
"""Who sits where: ``{table: {seat: player}}``."""


@dataclass(frozen=True)
class Seat(Generic[T]):
    """A table and a seat at it."""

    table: T
    seat: int


# ------------------------------------------------------------------ the draw (TDA-13)


def draw_over_tables(
    players: Sequence[str],
    tables: Sequence[T],
    seats_per_table: int,
    rng: random.Random,
) -> dict[str, Seat[T]]:
    """Draw a table and a seat for every player at random, filling the tables evenly (TDA-13).

    Each table gets ``len(players) // len(tables)`` players or one more; which
    tables get the extra players is random, and so is every seat.

    >>> draw = draw_over_tables(["a", "b", "c"], ["T1", "T2"], 9, random.Random(1))
    >>> sorted(s.table for s in draw.values()).count("T1") in (1, 2)
    True
    """
    if len(set(players)) != len(players):
        raise IllegalAction("Each player may be drawn only once; remove the duplicate entry.")
    if not tables or len(players) > len(tables) * seats_per_table:
        raise IllegalAction(
            f"{len(players)} players do not fit at {len(tables)} table(s) of "
            f"{seats_per_table} seats; open more tables before the draw."
        )
    per_table = {t: rng.sample(range(1, seats_per_table + 1), seats_per_table) for t in tables}
    slots: list[Seat[T]] = []
    for round_ in range(seats_per_table):
        order = list(tables)
        rng.shuffle(order)  # which tables take the odd players is drawn too
        slots.extend(Seat(t, per_table[t][round_]) for t in order)
    chosen = slots[: len(players)]
    rng.shuffle(chosen)
    return dict(zip(players, chosen, strict=True))


def draw_late_seat(room: Room[T], seats_per_table: int, rng: random.Random) -> Seat[T]:
    """A seat for a late registration or a re-entry: a random empty seat at one
    of the shortest tables (TDA-13 within the balance of TDA-25)."""
    open_tables = [t for t, s in room.items() if len(s) < seats_per_table]
    if not open_tables:
        raise IllegalAction(
            "Every table is full; open a new table for the late entries.", key="floor.entry.full"
        )
    fewest = min(len(room[t]) for t in open_tables)
    table = rng.choice([t for t in open_tables if len(room[t]) == fewest])
    empty = [s for s in range(1, seats_per_table + 1) if s not in room[table]]
    return Seat(table, rng.choice(empty))


# ------------------------------------------------------------------ breaking and balancing


def tables_needed(players: int, seats_per_table: int) -> int:
    """How many tables ``players`` need (at least one).

    >>> tables_needed(19, 9), tables_needed(18, 9), tables_needed(1, 9)
    (3, 2, 1)
    """
    return max(1, -(-players // seats_per_table))


def table_to_break(room: Room[T], seats_per_table: int, break_order: Sequence[T]) -> T | None:
    """The table that breaks now, or ``None`` (TDA-24).

    A table breaks when the players left fit at one table fewer; which one
    is the first table of the predetermined ``break_order`` still running.
    """
    running = [t for t in break_order if t in room]
    players = sum(len(s) for s in room.values())
    if len(room) <= 1 or tables_needed(players, seats_per_table) >= len(room):
        return None
    if not running:
        raise ConfigError("The break order names none of the running tables; fix the order.")
    return running[0]


def break_table(
    room: Room[T], broken: T, seats_per_table: int, rng: random.Random
) -> list[Move[T]]:
    """Seat every player of ``broken`` at random in the empty seats of the other
    tables, always at one of the shortest tables (TDA-24).

    The moved players take the rights and obligations of their new seat; the
    table applying the move decides blinds and the button from the seat.
    """
    left = {t: dict(s) for t, s in room.items() if t != broken}
    free = sum(seats_per_table - len(s) for s in left.values())
    leaving = list(room[broken].items())
    if len(leaving) > free:
        raise IllegalAction(
            f"Table {broken} cannot break: {len(leaving)} players but only {free} empty seats."
        )
    rng.shuffle(leaving)
    moves: list[Move[T]] = []
    for seat, player in leaving:
        target = draw_late_seat(left, seats_per_table, rng)
        left[target.table][target.seat] = player
        moves.append(
            Move(
                player,
                broken,
                seat,
                target.table,
                target.seat,
                f"TDA-24: table {broken} breaks; {player} drew seat {target.seat} at table "
                f"{target.table}.",
            )
        )
    return moves


def balance_room(
    room: Room[T],
    big_blinds: Mapping[T, int],
    buttons: Mapping[T, int] | None = None,
    method: str = "tda",
    seats_per_table: int = 10,
) -> list[Move[T]]:
    """Every move needed so that no table has two players more than another
    (TDA-25, or HG-4 with ``method="hg"``), one at a time, each by the rule of
    :func:`firmware.table.draws.suggest_move` on the room as the moves leave it."""
    current = {t: dict(s) for t, s in room.items()}
    moves: list[Move[T]] = []
    while True:
        move = suggest_move(current, big_blinds, buttons, method, seats_per_table)
        if move is None:
            return moves
        del current[move.from_table][move.from_seat]
        current[move.to_table][move.to_seat] = move.player
        moves.append(move)


def final_table_draw(
    room: Room[T], final: T, seats_per_table: int, rng: random.Random
) -> dict[str, int]:
    """Draw every seat again for the final table (HG-5): ``{player: seat}``."""
    players = sorted(p for seated in room.values() for p in seated.values())
    if len(players) > seats_per_table:
        raise IllegalAction(
            f"{len(players)} players do not fit at the final table of {seats_per_table} seats."
        )
    return draw_seats(players, list(range(1, seats_per_table + 1)), rng)


# ------------------------------------------------------------------ payouts (FLOOR-PAY)

DEFAULT_PAYOUTS: tuple[tuple[int, tuple[int, ...]], ...] = (
    # (entries up to, percentages of the pool by place); each row adds up to 100.
    (6, (70, 30)),
    (10, (50, 30, 20)),
    (20, (40, 25, 15, 12, 8)),
    (50, (30, 20, 13, 10, 8, 6, 5, 4, 4)),
    (10**9, (25, 16, 11, 8, 6, 5, 4, 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1)),
)
"""The house payout table: the first row whose entry count is not exceeded applies."""


def payout_percentages(
    entries: int, table: Sequence[tuple[int, Sequence[int]]] = DEFAULT_PAYOUTS
) -> tuple[int, ...]:
    """The percentage paid to each place for ``entries`` entries."""
    for limit, shares in table:
        if entries <= limit:
            if sum(shares) != 100:
                raise ConfigError(f"The payout row for up to {limit} entries must add up to 100.")
            return tuple(shares[: max(1, entries)])
    raise ConfigError("The payout table needs a last row that covers any number of entries.")


def payouts(pool: int, percentages: Sequence[int], unit: int = 1) -> list[int]:
    """Split ``pool`` by ``percentages`` (FLOOR-PAY): each amount rounded down to
    ``unit``, the remainder to the first place; the payouts add up to ``pool``.

    >>> payouts(1000, (50, 30, 20)), payouts(1001, (50, 30, 20), unit=5)
    ([500, 300, 200], [501, 300, 200])
    """
    if pool < 0 or unit < 1 or not percentages or any(p < 0 for p in percentages):
        raise ConfigError("A payout needs a pool of 0 or more, a unit of 1 or more and shares.")
    total = sum(percentages)
    amounts = [pool * p // total // unit * unit for p in percentages]
    amounts[0] += pool - sum(amounts)
    return amounts


# ------------------------------------------------------------------ eliminations (FLOOR-HFH)


@dataclass(frozen=True)
class Bust:
    """An entry eliminated: where, in which hand, the chips it started that hand
    with, the hand-for-hand round (or ``None``) and ``at``, the moment the hand
    ended (the table's wall clock when it journaled the hand's last record)."""

    player: str
    table: Hashable
    hand: int
    chips_at_start: int
    round: int | None = None
    at: float = 0.0

    @property
    def group(self) -> tuple[Hashable, ...]:
        """Entries eliminated together: one hand at one table, or one hand-for-hand round."""
        return ("round", self.round) if self.round is not None else ("hand", self.table, self.hand)


@dataclass
class Standings:
    """Eliminations in the order they happened, with the places and prizes they earn.

    Places follow the hands' real order, not the order the floor learned of
    them: every elimination keeps the moment its hand ended, and the places
    are worked out again from all of them whenever one arrives (a table that
    was cut off reports its busts late) or the entries change (late
    registration and re-entry add entries and prize money).

    :param entries: How many entries started (each re-entry counts).
    :param prizes: The prize of each place from first down (FLOOR-PAY).
    """

    entries: int
    prizes: list[int]
    busts: list[Bust] = field(default_factory=list)
    """Every elimination, in the order the floor learned of it."""
    champion: str = ""
    places: dict[str, int] = field(default_factory=dict)
    """Each eliminated entry's finishing place (tied entries share the best place)."""
    won: dict[str, int] = field(default_factory=dict)
    """Each paid entry's prize."""

    @property
    def left(self) -> int:
        """Entries still in the tournament."""
        return self.entries - len(self.busts) - (1 if self.champion else 0)

    def prize_for(self, best: int, count: int) -> list[int]:
        """Split the prizes of places ``best .. best+count-1`` among ``count`` tied players;
        the odd chip units go to the first of them."""
        pooled = sum(self.prizes[p - 1] for p in range(best, best + count) if p <= len(self.prizes))
        share, odd = divmod(pooled, count)
        return [share + (1 if i < odd else 0) for i in range(count)]

    def eliminate(self, busts: Sequence[Bust]) -> None:
        """Record entries eliminated together: in one hand at one table, or in one
        hand-for-hand round at several tables (FLOOR-HFH).

        At one table the entry that started the hand with more chips finishes
        higher; entries at different tables in the same hand-for-hand round tie
        and share the prizes of the places they cover.
        """
        if not busts:
            return
        names = [b.player for b in busts]
        if len(set(names)) != len(names) or any(n in self.places for n in names):
            raise IllegalAction("A player can be eliminated only once; check the report.")
        if len(busts) >= self.left:
            raise IllegalAction("At least one player must stay in the tournament.")
        if len({b.table for b in busts}) > 1 and any(b.round is None for b in busts):
            raise IllegalAction(
                "Players at different tables are eliminated together only in hand-for-hand play."
            )
        self.busts.extend(busts)
        self.rank()

    def add_entries(self, count: int, prizes: list[int]) -> None:
        """Late registrations or re-entries: more entries and a bigger prize pool."""
        if count < 1 or self.champion:
            raise IllegalAction("Entries are added while the tournament runs, one or more.")
        self.entries += count
        self.prizes = prizes
        self.rank()

    def rank(self) -> None:
        """Work out every place and prize again from the eliminations in hand order."""
        groups: dict[tuple[Hashable, ...], list[Bust]] = {}
        for bust in self.busts:
            groups.setdefault(bust.group, []).append(bust)
        # Earliest hand first (it takes the worst places); same moment: as learned.
        order = sorted(groups.values(), key=lambda g: min(b.at for b in g))
        self.places, self.won = {}, {}
        worst = self.entries
        for group in order:
            if len({b.table for b in group}) > 1:
                tiers = [group]  # one hand-for-hand round at several tables: all tie
            else:  # one table: more chips at the start finishes higher; equal chips tie
                chips = sorted({b.chips_at_start for b in group})
                tiers = [[b for b in group if b.chips_at_start == c] for c in chips]
            for tier in tiers:
                best = worst - len(tier) + 1
                for bust, prize in zip(tier, self.prize_for(best, len(tier)), strict=True):
                    self.places[bust.player] = best
                    if prize:
                        self.won[bust.player] = prize
                worst -= len(tier)
        if self.champion:
            self.places[self.champion] = 1
            if self.prizes:
                self.won[self.champion] = self.prizes[0]

    def winner(self, player: str) -> None:
        """Record the last player standing (first place)."""
        if self.left != 1 or player in self.places:
            raise IllegalAction("The winner is recorded when exactly one player is left.")
        self.champion = player
        self.rank()


# ------------------------------------------------------------------ late entries


@dataclass(frozen=True)
class EntryRules:
    """When entries are taken after the start (configured per tournament).

    :param late_until_level: Late registration and re-entry stay open until the
        end of this level (0: they close when the tournament starts).
    :param max_entries: Entries per player in all (1: no re-entry); a re-entry
        is taken only once the player's last entry is eliminated.
    """

    late_until_level: int = 0
    max_entries: int = 1

    def check(self, level: int, entries: int, playing: bool) -> None:
        """Refuse an entry the window does not allow, saying why.

        :param level: The level in force (1-based; during a break, the level after
            it, so the break after the last open level is closed).
        :param entries: The player's entries so far (0: a late registration).
        :param playing: The player's last entry is still in the tournament.
        """
        if self.late_until_level == 0:
            raise IllegalAction(
                "This tournament takes no entries after the start.", key="floor.entry.none"
            )
        if level > self.late_until_level:
            raise IllegalAction(
                f"Late registration and re-entry closed at the end of level "
                f"{self.late_until_level}.",
                key="floor.entry.closed",
                level=self.late_until_level,
            )
        if playing:
            raise IllegalAction(
                "A player re-enters only after his last entry is eliminated.",
                key="floor.entry.playing",
            )
        if entries >= self.max_entries:
            raise IllegalAction(
                f"This tournament takes at most {self.max_entries} entr"
                f"{'y' if self.max_entries == 1 else 'ies'} per player.",
                key="floor.entry.max_one" if self.max_entries == 1 else "floor.entry.max",
                max=self.max_entries,
            )


def entry_name(player: str, entry: int) -> str:
    """The name an entry is ranked under: the player's, then ``name #2``, ``name #3`` ..."""
    return player if entry == 1 else f"{player} #{entry}"


def hand_for_hand_due(players_left: int, paid_places: int) -> bool:
    """Hand-for-hand play starts when one elimination puts everyone left in the
    money (the bubble) and stops once the money is reached (FLOOR-HFH).

    >>> hand_for_hand_due(10, 9), hand_for_hand_due(9, 9), hand_for_hand_due(11, 9)
    (True, False, False)
    """
    return players_left == paid_places + 1


@dataclass
class HandForHand(Generic[T]):
    """The hand-for-hand round: each table plays one hand, then waits for all
    the others (FLOOR-HFH)."""

    tables: frozenset[T]
    round: int = 1
    done: set[T] = field(default_factory=set)

    def may_deal(self, table: T) -> bool:
        """Whether ``table`` may start its next hand now."""
        return table not in self.done

    def hand_finished(self, table: T) -> bool:
        """Record that ``table`` finished its hand of this round; return True when
        every table has and the next round begins."""
        if table not in self.tables:
            raise IllegalAction(f"Table {table} is not in hand-for-hand play.")
        self.done.add(table)
        if self.done >= self.tables:
            self.round += 1
            self.done = set()
            return True
        return False

    def table_broke(self, table: T, left: frozenset[T], playing: bool) -> bool:
        """``table`` broke (TDA-24); ``left`` are the tables still in play and
        ``playing`` says whether the broken table's hand of this round is still to
        be seen (being played, or finished but not yet reported). The next rounds
        are the tables left's; a broken table whose hand is still to be seen keeps
        this round open until it is (its players out in it are out in this round).
        Return True when the break ends the round (the next begins)."""
        pending = {t for t in self.tables if t not in left and t not in self.done and t != table}
        if playing and table in self.tables and table not in self.done:
            pending.add(table)
        self.tables = frozenset(left) | frozenset(pending)
        self.done &= self.tables
        if self.tables and self.done >= self.tables:
            self.round += 1
            self.done = set()
            return True
        return False
