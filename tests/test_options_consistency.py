"""House options that cannot work together are refused when the configuration is read.

``pokertable config check`` used to pass them, and the table then failed later: a
countdown longer than the clock stopped every shuffle (TDA-5), and a maximum buy-in
below the minimum refused every player (CC-16).
"""

from __future__ import annotations

import pytest

from firmware.errors import ConfigError
from firmware.table.options import load_table_config, profile_options
from firmware.table.script import ScriptError, run_script


@pytest.mark.parametrize(
    ("overrides", "said"),
    [
        ({"clock_countdown_seconds": 100}, "clock_countdown_seconds (100) must be from 0 to"),
        ({"clock_countdown_seconds": -1}, "clock_countdown_seconds (-1) must be from 0 to"),
        ({"min_buy_in_multiple": 50, "max_buy_in_multiple": 10}, "no buy-in could be accepted"),
        ({"min_buy_in_multiple": -5}, "min_buy_in_multiple must be 0 or more"),
        ({"max_buy_in_multiple": -1}, "max_buy_in_multiple must be 0 or more"),
        ({"reentry_wait_minutes": -30}, "reentry_wait_minutes must be 0 or more"),
    ],
    ids=["countdown-above-clock", "negative-countdown", "max-below-min", "negative-min",
         "negative-max", "negative-wait"],
)  # fmt: skip
def test_tda_5_cc_16_hg_6_options_that_cannot_work_are_refused(
    overrides: dict[str, int], said: str
) -> None:
    """Each option is checked with the others when the profile is built."""
    with pytest.raises(ConfigError) as caught:
        profile_options("casino-cash", **overrides)
    assert said in str(caught.value)


def test_the_limits_themselves_are_accepted() -> None:
    """A countdown as long as the clock, no maximum (0), equal minimum and maximum."""
    opts = profile_options(
        "casino-cash",
        clock_seconds=30,
        clock_countdown_seconds=30,
        min_buy_in_multiple=20,
        max_buy_in_multiple=20,
        reentry_wait_minutes=0,
    )
    assert (opts.clock_countdown_seconds, opts.max_buy_in_multiple) == (30, 20)
    assert profile_options("casino-cash", max_buy_in_multiple=0).max_buy_in_multiple == 0


def test_tda_5_a_countdown_longer_than_the_clock_stops_the_configuration_not_the_shuffle() -> None:
    """The table configuration names the problem; a script stops at its set-up, not at
    the first shuffle."""
    with pytest.raises(ConfigError, match="clock_countdown_seconds"):
        load_table_config(
            '[table]\nprofile = "casino-cash"\n[options]\nclock_countdown_seconds = 100\n'
        )
    with pytest.raises(ScriptError, match="Set-up"):
        run_script(
            "profile casino-cash\noption clock_countdown_seconds 100\ndeck-ready\n"
            "seat 1 A 200\nseat 2 B 200\nshuffle\ncut\nexpect unfinished\n"
        )
