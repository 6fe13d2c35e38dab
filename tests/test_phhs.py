"""PHH collections (.phhs), exact decimal amounts, rake, and shown cards nobody recorded."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from pokerkit import HandHistory

from firmware.cli.replay import main_replay, replay_paths
from firmware.engine.histories.amounts import parse_unit
from firmware.engine.histories.phh import dumps_phh, loads_phh, play_phh
from firmware.engine.histories.phhs import loads_phhs
from firmware.engine.histories.rake import rake_from_percent, take_rake
from firmware.engine.histories.unknown import decide_phh
from firmware.errors import HandHistoryError

DATA = Path(__file__).parent / "data" / "phh"

CASH = """variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [0.25, 0.5, 0]
min_bet = 0.5
starting_stacks = [50, 200.3, 41.75]
actions = ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 cbr 1.5", "p1 f", "p2 cc",
  "d db 7h8h2c", "p2 cc", "p3 cbr 2", "p2 cc", "d db Kd", "p2 cc", "p3 cc", "d db 3s",
  "p2 cc", "p3 cc", "p2 sm QsQd", "p3 sm"]
finishing_stacks = [49.75, 203.55, 38.25]
winnings = [0, 6.75, 0]
"""
"""A cash hand in dollars: pot 7.25, of which the house kept 0.50 (p2 was paid 6.75)."""


def test_pokerkit_collection_is_read_hand_by_hand() -> None:
    hands = [HandHistory.loads(p.read_text()) for p in sorted(DATA.glob("nt_*.phh"))]
    text = HandHistory.dumps_all(hands)
    entries = loads_phhs(text, name="pk.phhs")
    assert [e.label for e in entries] == [str(i + 1) for i in range(len(hands))]
    for entry, hand in zip(entries, hands, strict=True):
        assert entry.hand is not None
        replay = play_phh(entry.hand, finish_showdown=True)
        assert replay.hand.result is not None
        assert list(replay.hand.result.finishing_stacks) == list(hand.finishing_stacks or [])


def test_one_bad_hand_names_its_header_and_line_and_the_others_are_read() -> None:
    good = (DATA / "nt_heads_up_allin.phh").read_text()
    text = f"# three hands\n[1]\n{good}\n[2]\nvariant = 'XX'\n\n[3]\n{good}"
    entries = loads_phhs(text, name="c.phhs")
    assert [e.hand is not None for e in entries] == [True, False, True]
    assert entries[1].error is not None and "c.phhs [2] (line " in entries[1].error
    assert entries[1].line == text.splitlines().index("[2]") + 1


def test_text_before_the_first_header_and_repeated_headers_are_errors() -> None:
    with pytest.raises(HandHistoryError, match="before the first hand header"):
        loads_phhs("variant = 'NT'\n[1]\n", name="x.phhs")
    with pytest.raises(HandHistoryError, match="appears twice"):
        loads_phhs("[1]\na = 1\n[1]\na = 2\n", name="x.phhs")


def test_replay_reads_phhs_files_one_line_per_hand(tmp_path: Path) -> None:
    hands = [HandHistory.loads(p.read_text()) for p in sorted(DATA.glob("nt_*.phh"))]
    (tmp_path / "all.phhs").write_text(HandHistory.dumps_all(hands * 3))
    lines = list(replay_paths([str(tmp_path)]))
    assert len(lines) == 3 * len(hands)
    assert all(line["ok"] and line["matches_file"] for line in lines)
    assert [line["hand"] for line in lines] == [str(i + 1) for i in range(len(lines))]


def test_decimal_amounts_are_exact_chip_units_and_written_back_the_same() -> None:
    hand = loads_phh(CASH, name="cash.phh")
    assert hand.unit == Decimal("0.01")
    assert hand.starting_stacks == (5000, 20030, 4175)
    assert hand.blinds_or_straddles == (25, 50, 0)
    again = loads_phh(dumps_phh(hand), name="cash.phh")
    assert again == hand
    assert "20030" not in dumps_phh(hand) and "200.30" in dumps_phh(hand)
    replay = play_phh(hand)
    assert replay.hand.result is not None
    # p3 opened to 1.50, p2 called; 2 more each on the flop: pot 0.25 + 3.50 * 2 = 7.25.
    assert sum(p.amount for p in replay.hand.result.pots) == 725


def test_a_given_unit_must_divide_every_amount() -> None:
    assert loads_phh(CASH, unit=parse_unit("0.05")).starting_stacks == (1000, 4006, 835)
    with pytest.raises(HandHistoryError, match=r"not a whole number of chip units of 0\.1"):
        loads_phh(CASH, unit=parse_unit("0.1"))
    with pytest.raises(HandHistoryError, match="positive decimal"):
        parse_unit("-1")


def test_rake_reconciles_recorded_cash_winnings(tmp_path: Path) -> None:
    (tmp_path / "cash.phh").write_text(CASH)
    plain = next(replay_paths([str(tmp_path)], "cash"))
    assert plain["ok"] and plain["matches_file"] is False
    assert plain["winnings"] == [0, 725, 0]
    assert plain["difference"] == {"finishing_stacks": [0, -50, 0], "winnings": [0, -50, 0]}
    raked = next(
        replay_paths([str(tmp_path)], "cash", rake=rake_from_percent(Decimal(5)), rake_cap=None)
    )
    assert raked["rake"] == 36 and raked["matches_file"] is False
    capped = next(
        replay_paths(
            [str(tmp_path)], "cash", rake=rake_from_percent(Decimal(10)), rake_cap=Decimal("0.5")
        )
    )
    assert capped["rake"] == 50 and capped["matches_file"] is True
    assert capped["unit"] == "0.01" and "difference" not in capped


def test_no_flop_no_drop_and_split_of_the_rake_over_pots_and_winners() -> None:
    replay = play_phh(loads_phh((DATA / "nt_three_way_side_pot.phh").read_text()))
    result = replay.hand.result
    assert result is not None
    total, taken = take_rake(result, 5, rake_from_percent(Decimal(10)))
    assert total == 21 and sum(taken) == 21
    assert taken == (0, 6, 15)  # 150-chip main pot to p3, 60-chip side pot to p2
    assert take_rake(result, 0, rake_from_percent(Decimal(10)))[0] == 0
    assert (
        take_rake(result, 0, rake_from_percent(Decimal(10), None, no_flop_no_drop=False))[0] == 21
    )


UNKNOWN = """variant = "NT"
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [100, 100]
actions = ["d dh p1 {p1}", "d dh p2 ????", "p2 cbr 100", "p1 cc", "d db {flop}", "d db {turn}",
  "d db {river}", "p2 sm ????", "p1 sm {p1}"]
"""


def _unknown(p1: str, flop: str, turn: str, river: str) -> str:
    return UNKNOWN.format(p1=p1, flop=flop, turn=turn, river=river)


def test_unknown_show_decided_when_no_holding_can_change_the_result() -> None:
    # p1 has four aces; with no three suited cards in sequence, nothing beats them.
    decision = decide_phh(loads_phh(_unknown("AsAh", "AcAd7s", "Kh", "2c")))
    assert decision.decided and decision.unknown == (1,) and decision.tried == 990
    assert decision.replay is not None and decision.replay.hand.result is not None
    assert decision.replay.hand.result.finishing_stacks == (200, 0)


def test_unknown_show_undecidable_is_reported_with_a_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "u.phh").write_text(_unknown("7c2d", "KhQs9d", "4c", "3h"))
    assert main_replay([str(tmp_path / "u.phh")]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["ok"] and line["decided"] is False and line["finishing_stacks"] is None
    assert "p2 showed cards nobody recorded" in line["undecidable"]
    assert "p1 wins 200" in line["undecidable"] and "p2 wins 200" in line["undecidable"]
    assert line["stopped_at"] == 7


def test_unknown_show_of_cards_dealt_face_up_shows_them() -> None:
    text = _unknown("7c2d", "KhQs9d", "4c", "3h").replace('"d dh p2 ????"', '"d dh p2 AhAd"')
    decision = decide_phh(loads_phh(text))
    assert decision.decided and decision.tried == 0
    assert decision.replay is not None and decision.replay.hand.result is not None
    assert decision.replay.hand.result.finishing_stacks == (0, 200)


def test_reading_a_collection_as_one_hand_says_what_it_is() -> None:
    text = "[1]\n" + (DATA / "nt_heads_up_allin.phh").read_text() + "\n[2]\nvariant = 'NT'\n"
    with pytest.raises(HandHistoryError, match=r"collection of 2 hands \(\.phhs\)"):
        loads_phh(text, name="two.phhs")
