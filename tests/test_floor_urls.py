"""NATS addresses and stream settings from the configuration, checked before anything connects.

A table's ``[floor] url`` and the floor's ``[nats] url`` take one address,
several separated by commas or a TOML list (a cluster's nodes); a wrong one
is a sentence naming it, with a catalog key, and ``pokertable config check``
finds it. The floor's stream keys are read with their units. The behaviour
on a real cluster is ``tests/test_floor_cluster.py``.
"""

from __future__ import annotations

import tomllib

import pytest

from firmware.cli.config_check import check_problems
from firmware.errors import ConfigError
from firmware.floor.messaging.stream import StreamSettings
from firmware.i18n import tr
from firmware.service.floorwire import FloorConfig

NODES = ["nats://10.0.0.5:4222", "nats://10.0.0.6:4222", "tls://nats3.room:4222"]


def test_a_table_takes_a_list_of_nodes_or_one_address() -> None:
    config = FloorConfig.from_config({"url": NODES, "table": "T7"})
    assert config.servers == tuple(NODES)
    assert FloorConfig.from_config({"url": "nats://a:1, nats://b:2", "table": "T7"}).servers == (
        "nats://a:1",
        "nats://b:2",
    )
    assert FloorConfig.from_config({"url": NODES[0], "table": "T7"}).servers == (NODES[0],)


@pytest.mark.parametrize(
    ("url", "key"),
    [
        (["nats://a:1", "http://b:2"], "config.nats.url_bad"),
        ("nats://a:1,nats://a:1", "config.nats.url_twice"),
        ([], "config.nats.url_empty"),
        (["nats://a:1", 5], "config.nats.url_kind"),
        ("nats://a:99999", "config.nats.url_bad"),
    ],
)
def test_a_wrong_address_is_named_in_both_languages(url: object, key: str) -> None:
    with pytest.raises(ConfigError) as refused:
        FloorConfig.from_config({"url": url, "table": "T7"})
    assert refused.value.key == key
    assert "[floor] url" in str(refused.value)
    spanish = tr(key, "es", **refused.value.params)
    assert spanish != str(refused.value) and "[floor] url" in spanish


def test_config_check_names_a_wrong_floor_address() -> None:
    text = '[table]\nprofile = "home"\n[floor]\nurl = ["nats://a:1", "nats:/b"]\ntable = "T1"\n'
    problems = check_problems(tomllib.loads(text), text, "table.toml")
    assert [p.key for p in problems if "floor" in str(p)] == ["config.nats.url_bad"]
    good = text.replace('"nats:/b"', '"nats://b:2"')
    assert not [p for p in check_problems(tomllib.loads(good), good, "t") if "floor" in str(p)]


def test_stream_settings_read_with_their_units() -> None:
    settings = StreamSettings.from_section(
        {"replicas": 3, "max_age": "3d", "placement_cluster": "room", "placement_tags": ["ssd"]}
    )
    assert settings.replicas == 3 and settings.max_age == 3 * 86400
    assert settings.placement_cluster == "room" and settings.placement_tags == ("ssd",)
    assert StreamSettings.from_section({"max_age": "72h"}).max_age == 72 * 3600
    assert StreamSettings.from_section({"max_age": 90}).max_age == 90
    assert StreamSettings.from_section({}) == StreamSettings()  # nothing said: keep
    for bad in ({"replicas": 0}, {"replicas": 6}, {"max_age": "3 weeks"}, {"placement_tags": "x"}):
        with pytest.raises(ConfigError):
            StreamSettings.from_section(bad)
