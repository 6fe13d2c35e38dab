"""The engine's dataclasses that spell out their ``__init__`` take exactly their fields.

Events, pots, results and PHH hands write their ``__init__`` by hand so that the
compiled build compiles it (see :mod:`firmware.engine.events`). A field added to
the class body but not to the ``__init__`` (or a default that differs) would
pass unnoticed in most tests; these tests compare each ``__init__`` with what
:func:`dataclasses.dataclass` would have generated.
"""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from firmware.engine import events
from firmware.engine.histories.phh import PHHReplay
from firmware.engine.histories.phh_hand import PHHHand
from firmware.engine.pots import Pot
from firmware.engine.state import HandResult, PotResult

pytestmark = pytest.mark.skipif(
    events.__file__.endswith(".so"),
    reason="the compiled build's __init__ has no Python signature and typed fields; "
    "these tests read the source, which the pure build runs",
)

SPELLED_OUT = [
    *(cls for cls in events.EVENT_KINDS if dataclasses.fields(cls)),
    Pot,
    PotResult,
    HandResult,
    PHHReplay,
    PHHHand,
]


def _expected_default(field: dataclasses.Field[object]) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return None  # the hand-written __init__ takes None for "the factory's value"
    return inspect.Parameter.empty


@pytest.mark.parametrize("cls", SPELLED_OUT, ids=lambda c: c.__name__)
def test_init_takes_the_fields_in_order_with_their_defaults(cls: type) -> None:
    assert "__init__" in vars(cls), f"{cls.__name__} no longer spells out its __init__"
    params = list(inspect.signature(vars(cls)["__init__"]).parameters.values())[1:]
    fields = dataclasses.fields(cls)
    assert [p.name for p in params] == [f.name for f in fields]
    assert [p.default for p in params] == [_expected_default(f) for f in fields]
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params)


@pytest.mark.parametrize("cls", SPELLED_OUT, ids=lambda c: c.__name__)
def test_init_sets_every_field_to_its_argument(cls: type) -> None:
    fields = dataclasses.fields(cls)
    markers = {f.name: object() for f in fields}
    made = cls(**markers)
    for f in fields:
        assert getattr(made, f.name) is markers[f.name], f.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, fields[0].name, 1)


def test_phh_hand_ignored_defaults_to_a_new_dict_each_time() -> None:
    def hand() -> PHHHand:
        return PHHHand("<t>", "NT", (0, 0), (1, 2), 2, None, None, (10, 10), ())

    first, second = hand(), hand()
    assert first.ignored == {} and first.ignored is not second.ignored
    assert first == second
