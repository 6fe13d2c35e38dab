"""Simulated PC/SC hardware: a virtual card for vsmartcard's ``vpcd`` reader driver.

With ``pcscd`` running the ``vpcd`` driver, :class:`~hal_sim.pcsc.fakecard.FakeCard`
puts a player card or staff badge on a virtual reader, so the real driver
(:mod:`drivers.pcsc`) runs unchanged against it; see ``docs/protocols/idcards.md``.
"""

from hal_sim.pcsc.fakecard import (
    AID,
    VPCD_PORT,
    FakeCard,
    encode_record,
    plain_card,
    player_card,
    staff_badge,
)

__all__ = [
    "AID",
    "VPCD_PORT",
    "FakeCard",
    "encode_record",
    "plain_card",
    "player_card",
    "staff_badge",
]
