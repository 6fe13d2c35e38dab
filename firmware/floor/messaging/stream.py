"""The stream the tables publish into and the floor's consumer: created, checked, widened.

The floor's ``[nats]`` section may say how the room's stream is kept on a
NATS cluster:

- ``replicas`` (1-5): copies of the stream on different nodes (3 survives
  the loss of any one node of a 3-node cluster);
- ``consumer_replicas`` (default: ``replicas``): copies of the floor's
  durable consumer (where it is in the stream);
- ``max_age``: how long records are kept (``"72h"``, ``"3d"``, ``"30m"`` or
  seconds; ``0``: for ever, until acknowledged records are removed by hand);
- ``placement_cluster`` and ``placement_tags``: the cluster and server tags
  the stream's nodes are chosen from.

A stream that does not exist is created with these settings (replicas 1 and
no age limit where the section says nothing). An existing stream is never
downgraded: a setting the section leaves out keeps what the stream has; a
setting that would keep less (fewer replicas, a shorter age, another
placement, memory instead of file storage) is refused with a sentence
naming what differs, and a setting that keeps more (more replicas, a longer
age or none) widens the stream. The floor's consumer follows the same rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from firmware.errors import ConfigError
from firmware.service.floorwire import EVENTS, STREAM

CONSUMER = "floor-ingest"
"""The floor's durable consumer (the name the ingest binds to)."""
DUPLICATE_WINDOW = 3600.0
"""Seconds JetStream remembers message ids (as the ingest expects)."""
ACK_WAIT = 5.0
MAX_ACK_PENDING = 20_000

_AGE = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd]?)")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class StreamSettings:
    """What the floor's configuration says of the stream (``None``: not said)."""

    replicas: int | None = None
    consumer_replicas: int | None = None
    max_age: float | None = None
    """Seconds (0: no limit)."""
    placement_cluster: str | None = None
    placement_tags: tuple[str, ...] | None = None

    KEYS = frozenset(
        {"replicas", "consumer_replicas", "max_age", "placement_cluster", "placement_tags"}
    )

    @classmethod
    def from_section(cls, section: dict[str, Any]) -> StreamSettings:
        """Read the stream keys of ``[nats]``; a wrong value is a sentence."""

        def replicas(key: str) -> int | None:
            value = section.get(key)
            if value is None:
                return None
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 5:
                raise ConfigError(f"[nats] {key} is a number of copies from 1 to 5.")
            return value

        cluster = section.get("placement_cluster")
        if cluster is not None and (not isinstance(cluster, str) or not cluster):
            raise ConfigError("[nats] placement_cluster is the name of a NATS cluster.")
        tags = section.get("placement_tags")
        if tags is not None and (
            not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags)
        ):
            raise ConfigError('[nats] placement_tags is a list of server tags, like ["ssd"].')
        return cls(
            replicas("replicas"),
            replicas("consumer_replicas"),
            _seconds(section.get("max_age")),
            cluster,
            tuple(tags) if tags is not None else None,
        )


def _seconds(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    found = _AGE.fullmatch(value.strip()) if isinstance(value, str) else None
    if found is None:
        raise ConfigError(
            '[nats] max_age is how long records are kept: "72h", "3d", "30m", or seconds '
            "(0: for ever)."
        )
    return float(found.group(1)) * _UNITS[found.group(2)]


def _age(seconds: float | None) -> str:
    if not seconds:
        return "no age limit"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


def _differences(have: Any, want: StreamSettings) -> tuple[list[str], dict[str, Any]]:
    """What ``want`` would take away from the existing stream config ``have`` (refused),
    and what it widens (the fields to update)."""
    from nats.js.api import StorageType

    refused: list[str] = []
    widen: dict[str, Any] = {}
    current = have.num_replicas or 1
    if want.replicas is not None and want.replicas != current:
        if want.replicas < current:
            refused.append(f"replicas {current} (the configuration says {want.replicas})")
        else:
            widen["num_replicas"] = want.replicas
    age = have.max_age or 0.0
    if want.max_age is not None and want.max_age != age:
        if age == 0 or (want.max_age and want.max_age < age):
            refused.append(f"max_age {_age(age)} (the configuration says {_age(want.max_age)})")
        else:
            widen["max_age"] = want.max_age
    placement = have.placement
    cluster = placement.cluster if placement is not None else None
    tags = tuple(placement.tags or ()) if placement is not None else ()
    if want.placement_cluster is not None and want.placement_cluster != cluster:
        refused.append(
            f"placement cluster {cluster or '(any)'} (the configuration says "
            f"{want.placement_cluster})"
        )
    if want.placement_tags is not None and tuple(sorted(want.placement_tags)) != tuple(
        sorted(tags)
    ):
        refused.append(
            f"placement tags {list(tags)} (the configuration says {list(want.placement_tags)})"
        )
    if have.storage not in (None, StorageType.FILE):
        refused.append("memory storage (the floor keeps its records in file storage)")
    return refused, widen


async def ensure_stream(js: Any, settings: StreamSettings | None = None) -> str:
    """Create the stream and the floor's consumer, or check and widen them; what was done.

    :raises ConfigError: if the configuration would downgrade the existing stream or
        consumer, naming every setting that differs.
    """
    from nats.js.api import Placement, StorageType, StreamConfig
    from nats.js.errors import NotFoundError

    want = settings or StreamSettings()
    placement = None
    if want.placement_cluster is not None or want.placement_tags is not None:
        placement = Placement(want.placement_cluster, list(want.placement_tags or ()) or None)
    try:
        info = await js.stream_info(STREAM)
    except NotFoundError:
        info = None
    if info is None:
        await js.add_stream(
            StreamConfig(
                name=STREAM,
                subjects=[f"{EVENTS}.>"],
                storage=StorageType.FILE,
                duplicate_window=DUPLICATE_WINDOW,
                num_replicas=want.replicas or 1,
                max_age=want.max_age or None,
                placement=placement,
            )
        )
        done = f"created with {want.replicas or 1} replica(s), {_age(want.max_age)}"
    else:
        have = info.config
        refused, widen = _differences(have, want)
        if refused:
            raise ConfigError(
                f"The stream {STREAM} exists with " + "; ".join(refused) + ". The floor never "
                "keeps less than the stream has: change [nats] to match, or change the stream "
                "by hand (nats stream edit) if that is meant."
            )
        subjects = list(have.subjects or [])
        if f"{EVENTS}.>" not in subjects:
            widen["subjects"] = [*subjects, f"{EVENTS}.>"]
        if widen:
            for key, value in widen.items():
                setattr(have, key, value)
            await js.update_stream(have)
            done = "widened: " + ", ".join(sorted(widen))
        else:
            done = "kept as it is"
    await _ensure_consumer(js, want.consumer_replicas or want.replicas)
    return f"The stream {STREAM} {done}."


async def _ensure_consumer(js: Any, replicas: int | None) -> None:
    from nats.js.api import AckPolicy, ConsumerConfig
    from nats.js.errors import NotFoundError

    try:
        info = await js.consumer_info(STREAM, CONSUMER)
    except NotFoundError:
        info = None
    if info is None:
        await js.add_consumer(
            STREAM,
            ConsumerConfig(
                durable_name=CONSUMER,
                name=CONSUMER,
                filter_subject=f"{EVENTS}.>",
                ack_policy=AckPolicy.EXPLICIT,
                ack_wait=ACK_WAIT,
                max_ack_pending=MAX_ACK_PENDING,
                num_replicas=replicas or 0,
            ),
        )
        return
    current = info.config.num_replicas or 0
    if replicas is None or replicas == current or (current == 0 and replicas == 1):
        return
    if current and replicas < current:
        raise ConfigError(
            f"The floor's consumer {CONSUMER} has {current} replicas (the configuration says "
            f"{replicas}); the floor never keeps less: change [nats] consumer_replicas."
        )
    config = info.config
    config.num_replicas = replicas
    await js.add_consumer(STREAM, config)  # JetStream updates a durable it already has
