"""Check the evaluator on all 133,784,560 seven-card hands.

Every seven-card hand is evaluated with the batch evaluator and the hands are
counted per category; the counts must equal the published ones. The hands
are enumerated without materialising them: the 2,598,960 five-card subsets
of the deck are listed by their lowest card as additive weight sums (see
:func:`firmware.odds.equity.board_sums`), and for each pair of cards ``a < b`` the
pair's weight is added to the suffix of subsets whose lowest card is above
``b``. Each seven-card hand is counted once, from its two lowest cards.

Command line (wired as ``pokertable verify-evaluator``)::

    python -m firmware.odds.verify
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb

import numpy as np
import numpy.typing as npt

from firmware.engine.evaluator import DISTINCT_VALUES, Category, category_of
from firmware.i18n import argv_language, tr
from firmware.odds.batch import MASK_WEIGHTS, WEIGHTS64, strengths_from_sums
from firmware.odds.equity import board_sums

__all__ = [
    "EXPECTED_DISTINCT_VALUES",
    "EXPECTED_SEVEN_CARD_COUNTS",
    "VerifyResult",
    "main_verify",
    "verify_seven_card",
]

#: Published number of seven-card hands per category (royal flush included
#: in straight flush).
EXPECTED_SEVEN_CARD_COUNTS: dict[Category, int] = {
    Category.STRAIGHT_FLUSH: 41_584,
    Category.FOUR_OF_A_KIND: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}
#: Distinct strengths that a best-five-of-seven can take (no 7-high or
#: worse-than-8-7-5-4-3 high card hands are possible from seven cards).
EXPECTED_DISTINCT_VALUES = 4_824
#: Number of seven-card hands, C(52, 7).
SEVEN_CARD_HANDS = comb(52, 7)

#: ``progress(hands_done, hands_total)``, called once per lowest card (52 times).
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of :func:`verify_seven_card`.

    :ivar counts: hands per category.
    :ivar expected: the published counts.
    :ivar distinct: number of distinct strengths seen.
    :ivar hands: hands evaluated (must be 133,784,560).
    :ivar elapsed: wall-clock seconds.
    """

    counts: dict[Category, int]
    expected: dict[Category, int]
    distinct: int
    hands: int
    elapsed: float

    @property
    def ok(self) -> bool:
        """True when every count matches."""
        return (
            self.counts == self.expected
            and self.distinct == EXPECTED_DISTINCT_VALUES
            and self.hands == SEVEN_CARD_HANDS
        )

    def summary(self) -> str:
        """One line: verdict, hands and time."""
        verdict = "OK" if self.ok else "FAILED"
        return (
            f"Seven-card check {verdict}: {self.hands:,} hands, {self.distinct} distinct "
            f"strengths, {self.elapsed:.1f} s."
        )


def verify_seven_card(progress: Progress | None = None) -> VerifyResult:
    """Evaluate every seven-card hand and compare the category counts.

    :param progress: optional callback ``progress(hands_done, hands_total)``.
    """
    started = time.perf_counter()
    five_w, five_m = board_sums(list(range(52)), 5)
    total_five = five_w.size
    histogram = np.zeros(DISTINCT_VALUES + 1, dtype=np.int64)
    done = 0
    for a in range(52):
        for b in range(a + 1, 52):
            # Five-card subsets whose lowest card is above b form a suffix.
            first = total_five - comb(52 - (b + 1), 5)
            if first >= total_five:
                continue
            suffix_w, suffix_m = five_w[first:], five_m[first:]
            pair_w = int(WEIGHTS64[a] + WEIGHTS64[b])
            pair_m = int(MASK_WEIGHTS[a] + MASK_WEIGHTS[b])

            def masks(
                rows: npt.NDArray[np.intp], sm: npt.NDArray[np.int64] = suffix_m, pm: int = pair_m
            ) -> npt.NDArray[np.int64]:
                return sm[rows] + pm

            strengths = strengths_from_sums(suffix_w + pair_w, 7, masks)
            histogram += np.bincount(strengths, minlength=DISTINCT_VALUES + 1)
            done += suffix_w.size
        if progress is not None:
            progress(done, SEVEN_CARD_HANDS)
    counts = dict.fromkeys(EXPECTED_SEVEN_CARD_COUNTS, 0)
    for strength in np.flatnonzero(histogram):
        counts[category_of(int(strength))] += int(histogram[strength])
    return VerifyResult(
        counts=counts,
        expected=dict(EXPECTED_SEVEN_CARD_COUNTS),
        distinct=int(np.count_nonzero(histogram)),
        hands=int(histogram.sum()),
        elapsed=time.perf_counter() - started,
    )


def main_verify(argv: Sequence[str] | None = None) -> int:
    """Run the check from the command line: progress on stderr, result on stdout.

    Takes no options but ``--lang`` (and ``--help``).
    Returns 0 when every count matches, 1 otherwise (2 for unexpected arguments).
    """
    import argparse

    given = list(sys.argv[1:] if argv is None else argv)
    lang = argv_language(given)  # --lang, else the locale's (see firmware.cli.lang)
    parser = argparse.ArgumentParser(
        prog="pokertable verify-evaluator", description=tr("cli.help.verify_evaluator.about", lang)
    )
    parser.add_argument("--lang", choices=("es", "en"), help=tr("cli.help.lang", lang))
    _, args = parser.parse_known_args(given)
    if args:
        said = tr("cli.verify.args", lang, args=repr(" ".join(args)))
        print(f"pokertable verify-evaluator: {said}", file=sys.stderr)
        return 2

    def report(done: int, total: int) -> None:
        line = tr("cli.verify.progress", lang, done=f"{done:,}", total=f"{total:,}")
        print(f"\r{line} ({done / total:.0%})", end="", file=sys.stderr)

    result = verify_seven_card(report)
    print(file=sys.stderr)
    for category in sorted(result.expected, reverse=True):
        got, want = result.counts[category], result.expected[category]
        mark = "ok" if got == want else tr("cli.verify.expected", lang, count=f"{want:,}")
        name = tr(f"cli.verify.category.{category.name.lower()}", lang)
        print(f"{name:18s} {got:>12,} {mark}")
    print(
        tr(
            "cli.verify.ok" if result.ok else "cli.verify.failed",
            lang,
            hands=f"{result.hands:,}",
            distinct=result.distinct,
            seconds=f"{result.elapsed:.1f}",
        )
    )
    return 0 if result.ok else 1


if __name__ == "__main__":
    raise SystemExit(main_verify())
