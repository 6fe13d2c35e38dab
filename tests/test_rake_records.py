"""The rake at the table (HOUSE-RAKE): in the hand record, the history, the PHH and
PokerStars exports, and checked by ``pokertable replay`` with the same policy."""

from __future__ import annotations

import json
import pathlib

import pytest

from firmware.cli.replay import main_replay, replay_hand
from firmware.engine.histories.phh import loads_phh
from firmware.engine.rules import GameKind, Structure
from firmware.errors import HandHistoryError
from firmware.service.history import HandHistory
from firmware.table.options import Stakes
from hal_sim.table_soak import Soak

STAKES = Stakes(
    Structure.NO_LIMIT,
    small_blind=5,
    big_blind=10,
    chip_unit=5,
    rake_basis_points=500,
    rake_cap=15,
    rake_min_pot=40,
)


@pytest.fixture
def raked(tmp_path: pathlib.Path):  # type: ignore[no-untyped-def]
    history = HandHistory(str(tmp_path / "history.sqlite"))
    soak = Soak("casino-cash", seed=7, stakes=STAKES)
    soak.table.hand_listeners.append(history.listener(lambda: soak.table.now))
    for _ in range(60):
        soak.play_hand()  # the soak's ledger counts the rake: chips are conserved
    yield history, soak
    history.close()


def _complete(soak: Soak) -> list[dict]:  # type: ignore[type-arg]
    return [r for r in soak.table.records if not r["void"] and r["pots"]]


def _exportable(history: HandHistory, soak: Soak, raked: bool) -> tuple[dict, str]:  # type: ignore[type-arg]
    """A finished hand (raked or not) and its PHH text (a killed hand has no PHH form)."""
    for record in _complete(soak):
        if bool(record["rake"]) is raked:
            try:
                return record, history.to_phh(record["hand"])
            except HandHistoryError:
                continue
    raise AssertionError("no such hand in the soak")


def test_each_record_names_the_rake_per_pot_and_in_total(raked) -> None:  # type: ignore[no-untyped-def]
    """Every pot records its rake and pays its winners the rest; no flop, no drop; the
    cap and the minimum pot hold; the chips the house took are gone from the stacks."""
    _history, soak = raked
    records = _complete(soak)
    taken = [r for r in records if r["rake"]]
    assert taken, "no hand was raked in 60 hands"
    assert any(not r["rake"] for r in records)
    for record in records:
        assert record["rake"] == sum(p["rake"] for p in record["pots"])
        assert record["rake"] <= STAKES.rake_cap and record["rake"] % STAKES.chip_unit == 0
        total = sum(p["amount"] for p in record["pots"])
        if not record["cards"]["board"] or total < STAKES.rake_min_pot:
            assert record["rake"] == 0, record
        for pot in record["pots"]:
            assert sum(pot["shares"].values()) == pot["amount"] - pot["rake"]
        brought = sum(record["starting_stacks"].values())
        assert sum(record["finishing_stacks"].values()) + record["rake"] == brought
    assert soak.raked == sum(r["rake"] for r in soak.table.records) > 0


def test_exports_carry_the_rake_and_replay_checks_it(raked, tmp_path: pathlib.Path) -> None:  # type: ignore[no-untyped-def]
    """The PHH export has the ``rake`` field and the policy; ``pokertable replay`` plays it
    with the same policy and agrees; a changed rake is a difference. The PokerStars
    export says ``Rake N`` and what each winner collected after it."""
    history, soak = raked
    record, text = _exportable(history, soak, raked=True)
    assert f"rake = {record['rake']}" in text
    line = replay_hand(loads_phh(text), GameKind.CASH)
    assert line["matches_file"] is True and line["rake"] == record["rake"]
    assert line["finishing_stacks"] == [record["finishing_stacks"][str(s)] for s in record["seats"]]
    forged = text.replace(f"rake = {record['rake']}", f"rake = {record['rake'] + 5}")
    line = replay_hand(loads_phh(forged), GameKind.CASH)
    assert line["matches_file"] is False and line["difference"]["rake"] == [5]
    path = tmp_path / "hand.phh"
    path.write_text(text, encoding="utf-8")
    assert main_replay([str(path), "--game", "cash"]) == 0
    stars = history.to_pokerstars(record["hand"], unit=None)
    assert f"| Rake {record['rake']}" in stars
    for pot in record["pots"]:
        for seat, chips in pot["shares"].items():
            name = record["players"][seat]
            assert f"{name} collected {chips} from" in stars


def test_an_unraked_hand_exports_as_before(raked) -> None:  # type: ignore[no-untyped-def]
    """A hand the house did not rake says ``Rake 0`` and the PHH ``rake = 0``."""
    history, soak = raked
    record, text = _exportable(history, soak, raked=False)
    assert "| Rake 0" in history.to_pokerstars(record["hand"], unit=None)
    assert "rake = 0" in text
    assert json.loads(json.dumps(record))["rake"] == 0


def test_the_seats_and_the_console_say_the_pot_and_the_rake() -> None:
    """After a raked hand the console's distribution says "Bote 480 · comisión 20" (the
    pot as bet, then the rake) in Spanish and "Pot 480 · rake 20" in English; the seat
    view carries the same line; the narration names the rake too."""
    from firmware.views.audience import console_view, seat_view
    from firmware.views.narrate import narrate

    soak = Soak("casino-cash", seed=7, stakes=STAKES)
    for _ in range(60):
        soak.play_hand()
        record = soak.table.records[-1]
        if soak.table.hand is None and record["rake"] and len(record["pots"]) == 1:
            break
    else:
        raise AssertionError("no single-pot raked hand in 60 hands")
    (pot,) = record["pots"]
    es = console_view(soak.table, "es")["console"]["distribution"][0]
    assert es["said"] == f"Bote {pot['amount']} · comisión {pot['rake']}"
    en = console_view(soak.table, "en")["console"]["distribution"][0]
    assert en["said"] == f"Pot {pot['amount']} · rake {pot['rake']}"
    seat = int(next(iter(pot["shares"])))
    assert seat_view(soak.table, seat, "es")["distribution"][0]["said"] == es["said"]
    told = "\n".join(narrate(record, "es"))
    assert f"comisión {pot['rake']}" in told and "rake" not in told


def test_history_lists_the_rake_and_shows_it_in_the_record(  # type: ignore[no-untyped-def]
    raked, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pokertable history list`` names each raked hand's rake (Spanish: comisión) and
    ``history show`` gives the record with its rake per pot and in total."""
    from firmware.cli.history import main_history

    _history, soak = raked
    record = next(r for r in _complete(soak) if r["rake"])
    path = str(tmp_path / "history.sqlite")  # the fixture's history
    assert main_history(["--db", path, "--lang", "es", "list", "--limit", "1000"]) == 0
    listed = capsys.readouterr().out
    line = next(x for x in listed.splitlines() if x.startswith(f"#{record['hand']:>6}"))
    assert f"comisión {record['rake']}" in line
    unraked = next(r for r in _complete(soak) if not r["rake"])
    other = next(x for x in listed.splitlines() if x.startswith(f"#{unraked['hand']:>6}"))
    assert "comisión" not in other
    assert main_history(["--db", path, "show", str(record["hand"]), "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["rake"] == record["rake"] and [p["rake"] for p in shown["pots"]]


def test_a_raked_table_is_rebuilt_from_its_journal(tmp_path: pathlib.Path) -> None:
    """The rake is part of the journaled set-up and of each hand's configuration: the
    table restored from the journal has the same stacks and the same raked records."""
    from firmware.service.journal import Journal
    from firmware.service.recovery import restore

    journal = Journal(str(tmp_path / "journal.sqlite"))
    soak = Soak("casino-cash", seed=7, journal=journal, stakes=STAKES)
    for _ in range(30):
        soak.play_hand()
    journal.close()
    again = restore(Journal(str(tmp_path / "journal.sqlite")))
    assert again.config.stakes == STAKES
    assert {k: v.stack for k, v in again.seating.seats.items()} == {
        k: v.stack for k, v in soak.table.seating.seats.items()
    }
    assert sum(r["rake"] for r in soak.table.records) > 0


def test_replay_rake_options_are_the_tables_rake_policy(capsys, tmp_path: pathlib.Path) -> None:  # type: ignore[no-untyped-def]
    """``pokertable replay --rake`` builds the table's own ``RakePolicy`` (one
    implementation): a single pot is raked the same by the table and by replay, with the
    cap and "no flop, no drop"; a percentage finer than a hundredth is refused with a
    sentence in the reader's language."""
    from decimal import Decimal

    from firmware.engine.histories.rake import rake_from_percent, take_rake
    from firmware.engine.rules import RakePolicy

    policy = rake_from_percent(Decimal("2.5"), 7, no_flop_no_drop=True)
    assert policy == RakePolicy(250, 7, True)
    for total in (0, 39, 40, 280, 281, 1000):
        for board in (0, 3, 5):
            assert policy.hand_rake(total, board) == policy.pot_rakes([total], board, 1)[0]
    replay = loads_phh(
        (pathlib.Path(__file__).parent / "data" / "phh" / "nt_three_way_side_pot.phh").read_text()
    )
    from firmware.engine.histories.phh_play import play_phh

    result = play_phh(replay).hand.result
    assert result is not None
    total, taken = take_rake(result, 5, rake_from_percent(Decimal(10)))
    assert total == RakePolicy(1000).hand_rake(210, 5) == sum(taken) == 21
    assert take_rake(result, 5, rake_from_percent(Decimal(10), 0))[0] == 0  # a cap of nothing
    path = tmp_path / "hand.phh"
    path.write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main_replay([str(path), "--rake", "2.125", "--lang", "es"])
    assert "centésimas" in capsys.readouterr().err


def test_the_seat_screen_draws_the_raked_pot_of_a_single_pot_hand() -> None:
    """The seat's screen itself (not only its view) writes "Bote 480 · comisión 20" over
    the winner of a raked hand with one pot."""
    import os

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from firmware.views.audience import seat_view
    from ui.seat import SeatScreen

    soak = Soak("casino-cash", seed=7, stakes=STAKES)
    for _ in range(60):
        soak.play_hand()
        record = soak.table.records[-1]
        if record["rake"] and len(record["pots"]) == 1 and not record["void"]:
            break
    else:
        raise AssertionError("no single-pot raked hand in 60 hands")
    (pot,) = record["pots"]
    seat = int(next(iter(pot["shares"])))
    pygame.init()
    pygame.display.set_mode((800, 480))
    try:
        screen = SeatScreen(seat_view(soak.table, seat, "es"))
        screen.draw()
        drawn = list(screen.drawn)
    finally:
        pygame.quit()
    assert f"Bote {pot['amount']} · comisión {pot['rake']}" in drawn, drawn
