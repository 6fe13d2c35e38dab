"""Table meters persist across restarts; unknown meters are refused."""

import pytest

from firmware.service.meters import Meters


def test_meters_count_and_survive_a_restart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "meters.sqlite")
    meters = Meters(path)
    meters.bump("power_ups")
    meters.bump("hands_played", 3)
    meters.close()
    again = Meters(path)
    again.bump("hands_played")
    values = again.read()
    assert values["power_ups"] == 1 and values["hands_played"] == 4
    assert values["device_faults"] == 0
    with pytest.raises(ValueError, match="not a meter"):
        again.bump("jackpots")
