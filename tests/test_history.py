"""Hand history in a real SQLite file: queries by hand, seat, player and time; exports."""

import pathlib

import pytest

from firmware.cli.history import main_history
from firmware.engine.histories.phh import loads_phh, play_phh
from firmware.i18n import tr
from firmware.service.history import HandHistory
from firmware.table.script import parse_event
from hal_sim.table_soak import Soak


@pytest.fixture
def played(tmp_path):  # type: ignore[no-untyped-def]
    history = HandHistory(str(tmp_path / "history.sqlite"))
    soak = Soak("casino-cash", seed=21)
    soak.table.hand_listeners.append(history.listener(lambda: soak.table.now))
    for _ in range(40):
        soak.play_hand()
    yield history, soak
    history.close()


def test_every_hand_is_stored_and_found_by_number_seat_and_player(played) -> None:  # type: ignore[no-untyped-def]
    history, soak = played
    assert list(history.numbers()) == [r["hand"] for r in soak.table.records]
    last = soak.table.records[-1]
    assert history.get(last["hand"]) == last
    seat = last["seats"][0]
    found = history.find(seat=seat, limit=100)
    assert found and all(seat in r["seats"] for r in found)
    name = last["players"][str(seat)]
    assert all(name in r["players"].values() for r in history.find(player=name, limit=100))
    times = [r["finished_at"] for r in soak.table.records]
    middle = times[len(times) // 2]
    assert all(r["finished_at"] >= middle for r in history.find(since=middle, limit=100))


def test_exports_phh_pokerstars_and_script(played) -> None:  # type: ignore[no-untyped-def]
    history, soak = played
    complete = [r for r in soak.table.records if not r["void"] and r["pots"]]
    record = complete[-1]
    phh = history.to_phh(record["hand"])
    hand = play_phh(loads_phh(phh), "cash", finish_showdown=True).hand
    assert hand.result is not None
    assert list(hand.result.finishing_stacks) == [
        record["finishing_stacks"][str(s)] for s in record["seats"]
    ]
    text = history.to_pokerstars(record["hand"])
    assert text.startswith(f"PokerStars Hand #{record['hand']}:")
    assert "collected" in text
    lines = history.to_script(record["hand"]).splitlines()
    assert lines[:2] == ["shuffle", "cut"]
    for number, line in enumerate(lines, start=1):
        assert parse_event(line, number, soak.table)


def test_retention_keeps_the_newest_hands(played) -> None:  # type: ignore[no-untyped-def]
    history, _ = played
    numbers = list(history.numbers())
    assert history.prune(keep_hands=10) == len(numbers) - 10
    assert list(history.numbers()) == numbers[-10:]


def test_listing_an_empty_history_says_there_are_no_hands(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "history.sqlite")
    HandHistory(db).close()
    for lang in ("en", "es"):
        assert main_history(["--db", db, "list"], lang) == 0
        assert capsys.readouterr().out == tr("cli.history.none", lang) + "\n"
