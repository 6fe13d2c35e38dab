"""Equity results: :class:`Share` per hand and the :class:`Tally` that counts them.

Both enumerations (board by board in :mod:`firmware.odds.equity`, by rank
pattern in :mod:`firmware.odds.patterns`) hand the tally rows of strengths,
one row per hand, with the number of boards each column stands for; the tally
keeps integer counts, so the two give identical results.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["Share", "Tally"]

_ROW_NUMBERS = np.arange(64, dtype=np.int8)


@dataclass(frozen=True)
class Share:
    """One hand's result over all boards.

    :ivar wins: boards won outright.
    :ivar ties: boards split with at least one other hand.
    :ivar tie_share: sum over split boards of 1 / (hands sharing the pot).
    :ivar boards: number of boards enumerated (the same for every hand).
    """

    wins: int
    ties: int
    tie_share: float
    boards: int

    @property
    def win(self) -> float:
        """Fraction of boards won outright."""
        return self.wins / self.boards

    @property
    def tie(self) -> float:
        """Fractional split shares, as a fraction of all boards."""
        return self.tie_share / self.boards

    @property
    def equity(self) -> float:
        """Expected share of the pot: ``win + tie``."""
        return self.win + self.tie


class Tally:
    """Integer win and split counts of ``players`` hands, added column by column."""

    def __init__(self, players: int) -> None:
        self.players = players
        #: ``split[p, k]``: boards hand ``p`` won together with ``k - 1`` others.
        self.split = np.zeros((players, players + 1), dtype=np.int64)

    def add(
        self,
        strengths: npt.NDArray[np.uint16],
        boards: npt.NDArray[np.int64] | None = None,
        sign: int = 1,
    ) -> None:
        """Count showdowns: ``strengths[p, i]`` is hand ``p``'s strength in column ``i``.

        :param boards: boards each column stands for (1 each when omitted).
        :param sign: -1 to take a showdown back out (a flush correction).
        """
        if strengths.shape[1] == 0:
            return
        if self.players == 2 and boards is not None:
            first, second = strengths[0], strengths[1]
            total = int(boards.sum())
            won = int(boards[first > second].sum())
            lost = int(boards[first < second].sum())
            self.split[0, 1] += sign * won
            self.split[1, 1] += sign * lost
            self.split[:, 2] += sign * (total - won - lost)
            return
        players = self.players
        weights = np.ones(strengths.shape[1]) if boards is None else boards.astype(np.float64)
        best = strengths.max(axis=0)
        winners = strengths == best
        sharing = winners.sum(axis=0, dtype=np.int8)
        # A hand's row number where it wins alone; ties are counted apart below.
        first = (winners * _ROW_NUMBERS[:players, None]).sum(axis=0, dtype=np.int8)
        first[sharing > 1] = players
        # Float weights hold integer sums below 2**53 exactly; rint only drops the ".0".
        alone = np.bincount(first, weights=weights, minlength=players + 1)[:players]
        self.split[:, 1] += sign * np.rint(alone).astype(np.int64)
        tied = np.flatnonzero(sharing > 1)
        if tied.size:
            # One bincount over the (winning hand, tied column) pairs, keyed by hand and sharers.
            hands, columns = np.nonzero(winners[:, tied])
            counts = np.bincount(
                hands * (players + 1) + sharing[tied][columns],
                weights=weights[tied][columns],
                minlength=players * (players + 1),
            )
            self.split += sign * np.rint(counts).astype(np.int64).reshape(players, players + 1)

    def shares(self, boards: int) -> list[Share]:
        """One :class:`Share` per hand, out of ``boards`` boards in all."""
        out = []
        for p in range(self.players):
            ties = int(self.split[p, 2:].sum())
            tie_share = sum(int(self.split[p, k]) / k for k in range(2, self.players + 1))
            out.append(Share(int(self.split[p, 1]), ties, tie_share, boards))
        return out
