"""Calling the clock (TDA-5) and the automatic action timer with a time bank."""

import random

import pytest

from firmware.errors import ConfigError, IllegalAction
from firmware.table.clock import ActionClock, ActionTimer
from firmware.table.options import profile_options


def _collect(clock: ActionClock, times: list[float]) -> list[int]:
    said: list[int] = []
    for t in times:
        said.extend(clock.status(t).announcements)
    return said


def test_tda_5_called_clock_gives_one_minute_then_the_hand_is_dead() -> None:
    """TDA-5: once time is called the player has one minute; if he has not acted then, his hand is
    dead.
    """
    clock = ActionClock()
    clock.call(seat=3, now=1000.0, called_by="floor")
    assert clock.seconds_left(1000.0) == 60.0
    assert not clock.expired(1059.9)
    status = clock.status(1059.9)
    assert status.running and not status.expired
    assert status.seconds_left == pytest.approx(0.1)
    assert clock.expired(1060.0)
    assert clock.status(1075.0).seconds_left == 0.0


def test_tda_5_countdown_covers_the_last_ten_seconds_only() -> None:
    """TDA-5: only the last ten seconds of the called clock are counted down aloud."""
    clock = ActionClock(seconds=60, countdown=10)
    clock.call(seat=1, now=0.0, called_by="dealer")
    assert not clock.status(49.9).counting_down
    assert clock.status(50.0).counting_down
    assert clock.status(59.5).counting_down
    assert not clock.status(60.0).counting_down  # expired, no longer counting


def test_tda_5_each_second_from_ten_to_one_is_announced_once_with_steady_polling() -> None:
    """TDA-5: each second from ten to one is announced exactly once when the clock is polled
    steadily.
    """
    clock = ActionClock()
    clock.call(seat=1, now=0.0, called_by="floor")
    assert _collect(clock, [i * 0.25 for i in range(0, 300)]) == list(range(10, 0, -1))


def test_tda_5_irregular_and_repeated_polls_still_announce_each_second_exactly_once() -> None:
    """TDA-5: irregular or repeated polling never repeats nor skips a countdown second."""
    rng = random.Random(5)
    for _ in range(50):
        clock = ActionClock()
        clock.call(seat=2, now=10.0, called_by="floor")
        times = sorted(rng.uniform(10.0, 75.0) for _ in range(rng.randint(1, 40)))
        times = [t for t in times for _ in range(rng.randint(1, 2))] + [75.0]  # repeats
        assert _collect(clock, times) == list(range(10, 0, -1))


def test_tda_5_a_late_poll_gives_the_missed_seconds_highest_first() -> None:
    """TDA-5: a late poll announces the seconds it missed, highest first, so the countdown stays
    complete.
    """
    clock = ActionClock()
    clock.call(seat=2, now=0.0, called_by="floor")
    assert clock.status(49.0).announcements == ()
    assert clock.status(53.5).announcements == (10, 9, 8, 7)
    assert clock.status(52.0).announcements == ()  # time going backwards says nothing
    assert clock.status(54.0).announcements == (6,)


def test_tda_5_acting_stops_the_clock_and_nothing_more_is_announced() -> None:
    """TDA-5: acting stops the called clock; no further second is announced."""
    clock = ActionClock()
    clock.call(seat=4, now=0.0, called_by="floor")
    clock.status(52.0)
    clock.stop(55.0)
    assert not clock.running
    assert not clock.expired(100.0)
    status = clock.status(100.0)
    assert status.announcements == () and not status.expired
    assert status.seconds_left == 5.0


def test_tda_5_a_seat_requests_the_clock_and_the_floor_confirms() -> None:
    """TDA-5: a seat may ask for the clock, but it starts only when the floor or the dealer
    confirms.
    """
    clock = ActionClock()
    clock.request(seat=5, now=3.0, requested_by=2)
    assert clock.pending_request and not clock.running
    assert not clock.expired(500.0)  # not running until confirmed
    clock.confirm(now=20.0, confirmed_by="floor")
    assert clock.seat == 5
    assert clock.seconds_left(50.0) == 30.0
    assert clock.expired(80.0)
    assert any("seat 2 asks for the clock on seat 5" in line for line in clock.log)


def test_tda_5_only_floor_or_dealer_call_the_clock_and_not_twice() -> None:
    """TDA-5: only the floor or the dealer may call the clock, and not twice on the same action."""
    clock = ActionClock()
    with pytest.raises(IllegalAction, match="Only the floor or the dealer"):
        clock.call(seat=1, now=0.0, called_by="seat 3")
    with pytest.raises(IllegalAction, match="itself"):
        clock.request(seat=1, now=0.0, requested_by=1)
    with pytest.raises(IllegalAction, match="No seat has asked"):
        clock.confirm(now=0.0, confirmed_by="floor")
    clock.call(seat=1, now=0.0, called_by="floor")
    with pytest.raises(IllegalAction, match="already running"):
        clock.call(seat=1, now=1.0, called_by="dealer")


def test_tda_5_clock_reads_the_table_options() -> None:
    """TDA-5: the clock's length and countdown come from the table's options."""
    clock = ActionClock.from_options(
        profile_options("tda-tournament", clock_seconds=30, clock_countdown_seconds=5)
    )
    clock.call(seat=1, now=0.0, called_by="floor")
    assert _collect(clock, [float(t) for t in range(0, 31)]) == [5, 4, 3, 2, 1]
    assert clock.expired(30.0)
    with pytest.raises(ConfigError, match=r"countdown \(10 s\) must be from 0 to the clock's 5 s"):
        ActionClock(seconds=5, countdown=10)


def test_tda_5_action_timer_spends_the_bank_after_the_action_time_then_expires() -> None:
    """TDA-5 (house action timer): after the action time the player's time bank is spent, and when
    it runs out the hand is dead.
    """
    timer = ActionTimer(seconds=15, bank_seconds=20)
    assert timer.status(0.0).phase == "idle"
    timer.start(100.0)
    assert timer.status(110.0).phase == "action"
    assert timer.status(110.0).seconds_left == 5.0
    status = timer.status(120.0)
    assert (status.phase, status.seconds_left, status.bank_left) == ("bank", 15.0, 15.0)
    assert not timer.expired(134.9)
    assert timer.expired(135.0)


def test_tda_5_time_bank_carries_over_between_actions() -> None:
    """TDA-5 (house action timer): what is left of the time bank carries over to the player's next
    action.
    """
    timer = ActionTimer(seconds=15, bank_seconds=20)
    timer.start(0.0)
    timer.stop(10.0)  # acted within the action time: bank untouched
    assert timer.bank_left == 20.0
    timer.start(50.0)
    timer.stop(77.0)  # 12 s of bank used
    assert timer.bank_left == 8.0
    timer.start(100.0)
    assert timer.expired(123.0)
    assert not timer.expired(122.9)
    with pytest.raises(ConfigError, match="needs a positive time per action"):
        ActionTimer(seconds=0)
