"""Random hands through the table procedures, per profile: chips conserved exactly.

Each run plays seeded random hands with sit-outs, busts, rebuys, arrivals and
injected incidents; the soak checks a ledger (bought in = on the table +
taken out + removed by disqualification) after every hand and raises at the
first chip created or lost. The suite runs a modest size; set
POKERTABLE_SOAK_HANDS for the big run (bench/bench_table.py runs 10,000).
"""

import os

import pytest

from hal_sim.table_soak import run_soak

HANDS = int(os.environ.get("POKERTABLE_SOAK_HANDS", "600"))


@pytest.mark.parametrize("profile", ["tda-tournament", "casino-cash", "home"])
def test_random_hands_conserve_chips(profile: str) -> None:
    result = run_soak(profile, HANDS, seed=11)
    assert result.conserved
    assert result.hands == HANDS
    assert result.on_table + result.chips_out <= result.chips_in
    # The incidents were really exercised, not skipped.
    for rule in ("TDA-27", "HG-8", "HG-9", "TDA-28", "TDA-5"):
        assert result.incidents[rule] > 0, f"{rule} never happened in {profile}"
    assert result.voided > 0


def test_soak_detects_a_lost_chip(monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware.table import seating

    original = seating.Seating.finish_hand

    def leaky(self, plan, finishing, moved=True):  # type: ignore[no-untyped-def]
        original(
            self,
            plan,
            tuple(max(0, c - 1) if i == 0 else c for i, c in enumerate(finishing)),
            moved,
        )

    monkeypatch.setattr(seating.Seating, "finish_hand", leaky)
    with pytest.raises(AssertionError, match="not conserved"):
        run_soak("casino-cash", 50, seed=3)
