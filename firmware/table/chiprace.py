"""Colouring up: retiring the smallest chip with a chip race (TDA-2, HG-19).

When the blinds no longer need the smallest chip, it is removed:

1. Whole amounts are exchanged directly, per player (HG-19: 10 x 25 => 2 x 100
   with 2 x 25 left over).
2. The odd chips left over are totalled over the table, and that value is
   turned into a number of higher chips to race: rounded up when the house
   option ``chip_race_round_up`` is on (HG-19: 13 x 25 = 325 => four 100
   chips), otherwise to the nearest whole chip, half a chip or more counting
   as one. TDA-2's wording says nothing about rounding; the nearest chip is
   the usual tournament practice.
3. One face-up card is dealt per odd chip, clockwise, a round at a time, from
   ``start_seat`` (TDA-2: seat 1; HG-19: the dealer's left).
4. The highest card wins the first higher chip, the next highest the second,
   and so on; a player wins at most one chip (HG-19), so only his best card
   counts. Cards are ranked by rank, then by suit, spades > hearts > diamonds
   > clubs (HG-19) - the same order as the card numbers.
5. Nobody is raced out (TDA-2): a player left with no chip at all gets one
   higher chip anyway.

Chip value is conserved except for the rounding of step 2 and the chips of
step 5, both reported in :class:`ChipRaceResult`.

>>> deck = iter([51, 0, 1, 2])  # As, 2c, 2d, 2h
>>> result = chip_race({1: 1, 2: 1, 3: 1, 4: 1}, 25, 100, lambda: next(deck))
>>> result.chips_raced, result.won
(1, {1: 1, 2: 0, 3: 0, 4: 0})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from firmware.engine.cards import Card, check_distinct, format_card, format_cards
from firmware.errors import CardError, ConfigError

CardSource = Callable[[], Card]
"""Returns the next card dealt for the race (a scanned card, or a shuffled deck)."""


@dataclass(frozen=True)
class ChipRaceStep:
    """One recorded step of the race, for the audit log and the console.

    :param kind: ``exchange``, ``total``, ``deal``, ``win``, ``guarantee`` or ``rounding``.
    :param seat: The seat concerned, or ``None`` for a table-wide step.
    :param text: The step in an English sentence.
    """

    kind: str
    seat: int | None
    text: str


@dataclass(frozen=True)
class ChipRaceResult:
    """The outcome of a colour-up, per seat (dicts cover every seat given).

    :param removed: Old-denomination chips removed from each seat.
    :param exchanged: Higher chips each seat received by direct exchange.
    :param odd_chips: Old chips left over after the exchange, raced.
    :param cards: Cards dealt to each seat, in the order dealt.
    :param won: Higher chips won in the race (0 or 1).
    :param guaranteed: Seats given a chip because nobody is raced out (TDA-2).
    :param higher_chips: New-denomination chips each seat receives in all.
    :param value_before: Value of the chips removed from each seat.
    :param value_after: Value of the chips each seat receives.
    :param odd_value: Total value of the odd chips at the table.
    :param chips_raced: Higher chips raced (after rounding).
    :param rounding_difference: ``chips_raced * new - odd_value``: chips created
        (positive) or removed (negative) by rounding.
    :param guarantee_value: Value of the chips given under TDA-2's guarantee.
    :param steps: Every step, in order.
    """

    old_denomination: int
    new_denomination: int
    removed: dict[int, int]
    exchanged: dict[int, int]
    odd_chips: dict[int, int]
    cards: dict[int, tuple[Card, ...]]
    won: dict[int, int]
    guaranteed: tuple[int, ...]
    higher_chips: dict[int, int]
    value_before: dict[int, int]
    value_after: dict[int, int]
    odd_value: int
    chips_raced: int
    rounding_difference: int
    guarantee_value: int
    steps: tuple[ChipRaceStep, ...]

    @property
    def difference(self) -> int:
        """Total value after minus before: rounding plus guarantee, nothing else."""
        return sum(self.value_after.values()) - sum(self.value_before.values())


def chips_to_race(odd_value: int, new_denomination: int, round_up: bool) -> int:
    """Higher chips raced for ``odd_value`` of odd chips.

    >>> chips_to_race(325, 100, round_up=True)   # HG-19: 13 x 25 => four 100 chips
    4
    >>> chips_to_race(325, 100, round_up=False)  # nearest: 3.25 => 3
    3
    >>> chips_to_race(350, 100, round_up=False)  # half a chip or more counts as one
    4
    """
    whole, rest = divmod(odd_value, new_denomination)
    if rest and (round_up or 2 * rest >= new_denomination):
        whole += 1
    return whole


def race_order(seats: list[int], start_seat: int) -> list[int]:
    """``seats`` clockwise (ascending seat numbers) from ``start_seat``, wrapping.

    >>> race_order([2, 5, 7, 9], start_seat=6)
    [7, 9, 2, 5]
    """
    ordered = sorted(seats)
    return [s for s in ordered if s >= start_seat] + [s for s in ordered if s < start_seat]


def chip_race(
    removed: Mapping[int, int],
    old_denomination: int,
    new_denomination: int,
    deal: CardSource,
    *,
    round_up: bool = True,
    start_seat: int = 1,
    other_chips: Mapping[int, int] | None = None,
) -> ChipRaceResult:
    """Colour up ``old_denomination`` chips into ``new_denomination`` chips (TDA-2, HG-19).

    :param removed: Per seat, how many ``old_denomination`` chips it holds.
    :param old_denomination: Value of the chip being retired.
    :param new_denomination: Value of the chip replacing it (a multiple of it).
    :param deal: Returns the next card for the race.
    :param round_up: Round the raced total up (HG-19, ``chip_race_round_up``);
        otherwise to the nearest chip, half or more counting as one.
    :param start_seat: First seat dealt, clockwise: 1 per TDA-2, or the seat
        left of the button per HG-19.
    :param other_chips: Per seat, the value of its chips of other
        denominations. A seat not listed is taken to have none, so it is never
        raced out (TDA-2) - the safe default.
    :raises ConfigError: for bad denominations or counts.
    :raises CardError: if the card source gives a non-card or the same card twice.
    """
    _check(removed, old_denomination, new_denomination)
    others = other_chips or {}
    seats = sorted(removed)
    steps: list[ChipRaceStep] = []
    exchanged: dict[int, int] = {}
    odd: dict[int, int] = {}
    ratio = new_denomination // old_denomination
    for seat in seats:
        exchanged[seat], odd[seat] = divmod(removed[seat], ratio)
        if removed[seat]:
            steps.append(
                ChipRaceStep(
                    "exchange",
                    seat,
                    f"Seat {seat}: {removed[seat]} x {old_denomination} => "
                    f"{exchanged[seat]} x {new_denomination}, {odd[seat]} x "
                    f"{old_denomination} left over.",
                )
            )
    odd_value = sum(odd.values()) * old_denomination
    raced = chips_to_race(odd_value, new_denomination, round_up)
    racers = race_order([s for s in seats if odd[s]], start_seat)
    raced = min(raced, len(racers))  # cannot happen: each racer holds under one chip
    steps.append(
        ChipRaceStep(
            "total",
            None,
            f"{sum(odd.values())} odd chips of {old_denomination} = {odd_value}: "
            f"{raced} x {new_denomination} to race "
            f"({'rounded up' if round_up else 'rounded to the nearest chip'}).",
        )
    )
    cards = _deal(racers, odd, deal, steps)
    won = dict.fromkeys(seats, 0)
    by_best = sorted(racers, key=lambda s: max(cards[s]), reverse=True)
    for place, seat in enumerate(by_best[:raced], start=1):
        won[seat] = 1
        steps.append(
            ChipRaceStep(
                "win",
                seat,
                f"Seat {seat} wins higher chip {place} of {raced} with "
                f"{format_card(max(cards[seat]))}.",
            )
        )
    guaranteed = tuple(
        s for s in racers if exchanged[s] == 0 and won[s] == 0 and others.get(s, 0) == 0
    )
    for seat in guaranteed:
        steps.append(
            ChipRaceStep(
                "guarantee",
                seat,
                f"Seat {seat} would have no chips left and cannot be raced out (TDA-2): "
                f"it gets one {new_denomination} chip.",
            )
        )
    higher = {s: exchanged[s] + won[s] + (s in guaranteed) for s in seats}
    rounding = raced * new_denomination - odd_value
    if rounding:
        steps.append(
            ChipRaceStep(
                "rounding",
                None,
                f"Rounding the odd chips {'adds' if rounding > 0 else 'removes'} "
                f"{abs(rounding)} in chips.",
            )
        )
    return ChipRaceResult(
        old_denomination=old_denomination,
        new_denomination=new_denomination,
        removed={s: removed[s] for s in seats},
        exchanged=exchanged,
        odd_chips=odd,
        cards={s: tuple(cards.get(s, ())) for s in seats},
        won=won,
        guaranteed=guaranteed,
        higher_chips=higher,
        value_before={s: removed[s] * old_denomination for s in seats},
        value_after={s: higher[s] * new_denomination for s in seats},
        odd_value=odd_value,
        chips_raced=raced,
        rounding_difference=rounding,
        guarantee_value=len(guaranteed) * new_denomination,
        steps=tuple(steps),
    )


def _deal(
    racers: list[int], odd: Mapping[int, int], deal: CardSource, steps: list[ChipRaceStep]
) -> dict[int, list[Card]]:
    """Deal one card per odd chip, a round at a time, clockwise from the first racer."""
    cards: dict[int, list[Card]] = {s: [] for s in racers}
    dealt: list[Card] = []
    for round_number in range(max((odd[s] for s in racers), default=0)):
        for seat in racers:
            if odd[seat] > round_number:
                card = deal()
                if not isinstance(card, int) or not 0 <= card < 52:
                    raise CardError(
                        f"The chip race was dealt {card!r}, which is not a card; deal a card "
                        "from a 52-card deck.",
                        key="error.card.number",
                    )
                dealt.append(card)
                check_distinct(dealt)
                cards[seat].append(card)
    for seat in racers:
        steps.append(
            ChipRaceStep("deal", seat, f"Seat {seat} is dealt {format_cards(cards[seat])}.")
        )
    return cards


def _check(removed: Mapping[int, int], old: int, new: int) -> None:
    if old < 1 or new <= old or new % old:
        raise ConfigError(
            f"A chip race exchanges chips of {old} for chips of {new}: the new chip must be "
            "larger and a whole multiple of the old one.",
            key="error.chiprace.denominations",
            old=old,
            new=new,
        )
    for seat, count in removed.items():
        if seat < 1 or count < 0:
            raise ConfigError(
                f"Seat {seat} with {count} chips is not valid: seats are numbered from 1 and "
                "chip counts are 0 or more.",
                key="error.chiprace.count",
                seat=seat,
                count=count,
            )
