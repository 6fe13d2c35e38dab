"""A simulated table that plays many random hands through the table procedures.

Bots act through the engine's legal actions; seats sit out, come back, bust,
rebuy, cash out and arrive at random; the dealer's incidents are injected at
random (exposed cards, misdeals, face-up cards, premature cards, burn error
case a, killed hands, the clock, advance actions, floor undo). A ledger of
chips bought in and taken out checks after every hand that not one chip was
created or lost.

Run it as a benchmark: ``python -m hal_sim.table_soak --profile casino-cash
--hands 10000``; the test suite runs a few hundred hands per profile.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from firmware.engine.bots import RandomBot
from firmware.engine.events import BetRaise, CheckCall, Fold, Muck, Show
from firmware.engine.hand import Phase
from firmware.engine.showdown import auto_showdown_event
from firmware.errors import IllegalAction
from firmware.hal.deck import VirtualDeck
from firmware.service.journal import Journal
from firmware.service.recovery import schedule_entries, store_table_setup
from firmware.service.retention import Retention, after_hand
from firmware.table import events as te
from firmware.table.jackpot import JackpotRules
from firmware.table.options import Stakes, TableConfig, profile_options
from firmware.table.table import Table
from firmware.table.tournament import LevelSchedule

NAMES = ("Ana", "Bruno", "Carmen", "Diego", "Elena", "Fabio", "Gloria", "Hugo", "Ines", "Jorge")


@dataclass
class SoakResult:
    """What a soak run did and whether chips were conserved."""

    profile: str
    hands: int
    voided: int = 0
    incidents: Counter[str] = field(default_factory=Counter)
    refusals: int = 0
    chips_in: int = 0
    chips_out: int = 0
    on_table: int = 0
    conserved: bool = True
    seconds: float = 0.0

    @property
    def hands_per_second(self) -> float:
        """Hands played per second of wall time."""
        return self.hands / self.seconds if self.seconds else 0.0


class Soak:
    """Drive one table with random players, events and incidents.

    :param profile: Rules profile name.
    :param seed: Seed of every random choice (reproducible runs).
    :param incident_rate: Chance per hand of injecting an incident.
    :param snapshot_every: With a journal, save a snapshot of the table in it every
        so many hands, as ``pokertable serve`` does (None: never).
    """

    def __init__(
        self,
        profile: str,
        seed: int,
        incident_rate: float = 0.15,
        journal: Journal | None = None,
        snapshot_every: int | None = None,
        stakes: Stakes | None = None,
        jackpot: JackpotRules | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.journal = journal
        self.profile = profile
        self.incident_rate = incident_rate
        options = profile_options(profile)
        stakes = stakes or Stakes(small_blind=1, big_blind=2, ante=0)
        schedule = None
        if options.game == "tournament":
            schedule = LevelSchedule.from_dicts(
                [
                    {"small_blind": 1, "big_blind": 2, "minutes": 10},
                    {"small_blind": 2, "big_blind": 4, "ante": 1, "minutes": 10},
                    {
                        "small_blind": 3,
                        "big_blind": 6,
                        "ante": 6,
                        "big_blind_ante": True,
                        "minutes": 10_000,
                    },
                ]
            )
        config = TableConfig(profile, options, stakes, jackpot=jackpot)
        if journal is not None:
            store_table_setup(journal, config, deck_ready=True, schedule=schedule_entries(schedule))
        self.table = Table(config, deck_ready=True, schedule=schedule)
        self.raked = 0
        """Chips the house took (HOUSE-RAKE): they leave the table, and the ledger counts them."""
        self.table.hand_listeners.append(self._count_rake)
        self.bot = RandomBot(self.rng, aggression=0.25, looseness=0.75)
        self.result = SoakResult(profile, 0)
        self.buy_in = 200
        self.names = iter(f"{NAMES[i % 10]}{i}" for i in range(10**9))
        for seat in self.rng.sample(range(1, 11), 6):
            self._sit(seat)
        if journal is not None and snapshot_every:
            self.table.hand_listeners.append(self._snapshot_listener(snapshot_every))

    def _snapshot_listener(self, every: int) -> Callable[[dict[str, Any], object], None]:
        """A hand listener saving a snapshot in the journal every ``every`` hands."""
        policy = Retention(snapshot_every_hands=every, rotate_every_hands=10**12)
        count = [0]

        def listener(record: dict[str, Any], hand: object) -> None:
            count[0] += 1
            if self.journal is not None:
                self.journal = after_hand(self.journal, self.table, policy, count[0])

        return listener

    # ------------------------------------------------------------ helpers

    def _apply(self, event: te.TableEvent) -> bool:
        if self.journal is not None:
            self.journal.append(event)  # committed before it takes effect
        try:
            self.table.apply(event)
        except IllegalAction:
            self.result.refusals += 1
            return False
        return True

    def _sit(self, seat: int) -> None:
        if self._apply(te.SitDown(seat, next(self.names), self.buy_in)):
            self.result.chips_in += self.buy_in

    def _on_table(self) -> int:
        return sum(s.stack + s.rebuy for s in self.table.seating.seats.values())

    def _count_rake(self, record: dict[str, Any], _hand: object) -> None:
        # The rake and the jackpot drop both leave the table (HOUSE-RAKE, JACKPOT).
        self.raked += record.get("rake", 0) + record.get("jackpot_drop", 0)

    def _check_ledger(self) -> None:
        removed = self.table.penalties.chips_removed + self.raked
        on_table = self._on_table()
        if on_table + self.result.chips_out + removed != self.result.chips_in:
            self.result.conserved = False
            raise AssertionError(
                f"Chips not conserved after hand {self.table.hand_number}: on the table "
                f"{on_table}, out {self.result.chips_out}, removed {removed}, in "
                f"{self.result.chips_in}."
            )

    # ------------------------------------------------------------ between hands

    def _between_hands(self) -> None:
        rng, seating = self.rng, self.table.seating
        for number, seat in list(seating.seats.items()):
            if seat.busted and not seat.rebuy:
                if self.table.config.options.game == "cash" and rng.random() < 0.7:
                    if self._apply(te.Rebuy(number, self.buy_in)):
                        self.result.chips_in += self.buy_in
                else:
                    self._apply(te.CashOut(number))  # leaves with nothing / eliminated
            elif rng.random() < 0.03:
                self._apply(te.SitOut(number, not seat.sitting_out))
            elif rng.random() < 0.01 and self.table.config.options.game == "cash":
                chips = seat.stack + seat.rebuy
                if self._apply(te.CashOut(number)):
                    self.result.chips_out += chips
        free = [x for x in range(1, 11) if x not in seating.seats]
        playing = [s for s in seating.seats.values() if not s.sitting_out]
        if free and (len(playing) < 3 or rng.random() < 0.05):
            self._sit(rng.choice(free))
        if len([s for s in seating.seats.values() if not s.sitting_out]) < 2:
            for number, seat in seating.seats.items():
                if seat.sitting_out:
                    self._apply(te.SitOut(number, False))

    # ------------------------------------------------------------ a hand

    def play_hand(self) -> None:
        """Play one hand, with an incident now and then."""
        self._between_hands()
        self._apply(te.Tick(self.table.now + self.rng.uniform(20, 90)))
        if not self._apply(te.Shuffle()):
            return
        self._apply(te.Cut())
        incident = (
            self.rng.choice(
                [
                    "exposed",
                    "misdeal",
                    "face_up",
                    "premature",
                    "burn_a",
                    "kill",
                    "clock",
                    "advance",
                    "undo",
                ]
            )
            if self.rng.random() < self.incident_rate
            else None
        )
        self.finish_hand(incident)

    def finish_hand(self, incident: str | None = None) -> None:
        """Play the hand in progress to its end (also after a restart from the journal).

        The virtual deck holds the cards not seen yet in this hand, shuffled
        again: undealt cards were never written anywhere.
        """
        current = self.table.hand
        assert current is not None
        seen = {d.card for d in current.draws if d.role != "returned"}
        deck = VirtualDeck(self.rng, exclude=seen)
        draws = len(current.draws)
        number = self.table.hand_number
        while self.table.hand is not None and self.table.hand_number == number:
            th = self.table.hand  # a floor undo rebuilds the hand object
            role, _ = th.next_card_role()
            hand = th.hand
            if th.s.premature:
                self._apply(te.PrematureCard())
                deck.return_to_stub(c for c in th.draws_returned())
                continue
            if role != "none":
                if len(deck) == 0:
                    self._apply(te.DeckEmpty())
                    continue
                card = deck.draw()
                draws += 1
                if incident == "face_up" and draws == 3:
                    self._apply(te.FaceUpInDeck(card))
                    incident = None
                    continue
                self._apply(te.CardDrawn(card))
                if incident == "exposed" and role == "hole" and draws == self.rng.randint(1, 8):
                    self._apply(te.ExposedCard(card))
                    incident = None
                elif incident == "misdeal" and draws == 4:
                    self._apply(te.Misdeal("cards flashed"))
                    incident = None
                elif incident == "burn_a" and role == "burn" and hand.street == 1:
                    self._apply(te.BurnError("a"))
                    incident = None
                continue
            if hand.phase is Phase.BETTING and hand.actor is not None:
                seat = th.seat(hand.actor)
                if incident == "premature" and hand.street >= 1 and len(deck) >= 2:
                    self._apply(te.CardDrawn(deck.draw()))
                    self._apply(te.CardDrawn(deck.draw()))
                    incident = None
                    continue
                if incident == "kill":
                    self._apply(te.KillSeat(seat, "unprotected hand"))
                    incident = None
                    continue
                if incident == "clock":
                    self._apply(te.CallClock(self.table.now))
                    self._apply(te.Tick(self.table.now + 61))
                    incident = None
                    continue
                if incident == "advance":
                    others = [p for p in hand.in_hand() if p != hand.actor and hand.stacks[p]]
                    if others:
                        who = th.seat(self.rng.choice(others))
                        self._apply(
                            te.Advance(
                                who, self.rng.choice(["fold", "check_fold", "call", "check"])
                            )
                        )
                    incident = None
                    continue
                self._act(seat)
                if incident == "undo" and self.table.hand is not None:
                    self._apply(te.UndoLast("mis-tap"))
                    incident = None
                continue
            if hand.phase is Phase.SHOWDOWN:
                event = auto_showdown_event(hand)
                if isinstance(event, Show):
                    self._apply(te.ShowCards(th.seat(event.player), event.cards))
                elif isinstance(event, Muck):
                    self._apply(te.MuckCards(th.seat(event.player)))
                continue
            raise AssertionError(f"The soak is stuck: {self.table.prompt()}")
        self.result.hands += 1
        last = self.table.records[-1]
        if last["void"]:
            self.result.voided += 1
        for entry in last["incidents"]:
            self.result.incidents[entry["rule"]] += 1
        self._check_ledger()

    def _act(self, seat: int) -> None:
        th = self.table.hand
        assert th is not None
        event = self.bot.decide(th.hand.legal_actions())
        if isinstance(event, Fold):
            act = te.Act(seat, "fold")
        elif isinstance(event, CheckCall):
            act = te.Act(seat, "call")
        else:
            assert isinstance(event, BetRaise)
            act = te.Act(seat, "raise", event.to)
        if not self._apply(act):
            raise AssertionError(f"A legal action was refused: {act!r}")


def run_soak(
    profile: str,
    hands: int,
    seed: int = 1,
    incident_rate: float = 0.15,
    journal: Journal | None = None,
    snapshot_every: int | None = None,
) -> SoakResult:
    """Play ``hands`` hands at a ``profile`` table; raise if a chip is lost or created."""
    soak = Soak(profile, seed, incident_rate, journal, snapshot_every)
    started = time.perf_counter()
    while soak.result.hands < hands:
        soak.play_hand()
    soak.result.seconds = time.perf_counter() - started
    soak.result.on_table = soak._on_table()
    return soak.result


def main(argv: list[str] | None = None) -> int:
    """Command line: run a soak and print its figures."""
    parser = argparse.ArgumentParser(description="Play random hands at a simulated table.")
    parser.add_argument("--profile", default="casino-cash")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--journal", help="journal every event to this SQLite file")
    parser.add_argument(
        "--snapshot-every", type=int, default=10, help="hands between snapshots in the journal"
    )
    args = parser.parse_args(argv)
    journal = Journal(args.journal) if args.journal else None
    result = run_soak(
        args.profile, args.hands, args.seed, journal=journal, snapshot_every=args.snapshot_every
    )
    print(
        f"{result.profile}: {result.hands} hands in {result.seconds:.2f} s "
        f"({result.hands_per_second:.0f} hands/s), {result.voided} void, "
        f"incidents {dict(result.incidents)}, refusals {result.refusals}, "
        f"chips conserved: {result.conserved}"
    )
    return 0 if result.conserved else 1


if __name__ == "__main__":
    sys.exit(main())


def resume_soak(journal: Journal, seed: int) -> Soak:
    """Rebuild a soak from its journal after a crash: the table by
    :func:`firmware.service.recovery.restore`, the chip ledger by a second replay that
    watches buy-ins, rebuys and cash-outs."""
    from firmware.service.recovery import restore

    table = restore(journal)
    ledger = restore_ledger(journal)
    soak = Soak.__new__(Soak)
    soak.rng = random.Random(seed)
    soak.journal = journal
    soak.profile = table.config.profile
    soak.incident_rate = 0.15
    soak.table = table
    soak.bot = RandomBot(soak.rng, aggression=0.25, looseness=0.75)
    soak.result = SoakResult(table.config.profile, 0, chips_in=ledger[0], chips_out=ledger[1])
    soak.buy_in = 200
    soak.names = iter(f"R{i}" for i in range(10**9))
    soak.raked = ledger[2]
    table.hand_listeners.append(soak._count_rake)
    return soak


def restore_ledger(journal: Journal) -> tuple[int, int, int]:
    """Chips bought in, taken out and raked by the house, from replaying the journal."""
    setup_table = _blank_table(journal)
    chips_in = chips_out = 0
    raked = [0]
    setup_table.hand_listeners.append(
        lambda record, _th: raked.__setitem__(
            0, raked[0] + record.get("rake", 0) + record.get("jackpot_drop", 0)
        )
    )
    for event in journal.events():
        before = None
        if isinstance(event, te.CashOut):
            seat = setup_table.seating.seats.get(event.seat)
            before = None if seat is None else seat.stack + seat.rebuy
        try:
            setup_table.apply(event)
        except IllegalAction:
            continue
        if isinstance(event, te.SitDown | te.Rebuy):
            chips_in += event.chips
        elif before is not None:
            chips_out += before
    return chips_in, chips_out, raked[0]


def _blank_table(journal: Journal) -> Table:
    from firmware.service.journal import Journal as _J
    from firmware.service.recovery import restore

    empty = _J(":memory:")
    empty.set_meta("table", journal.meta("table"))
    table = restore(empty)
    empty.close()
    return table
