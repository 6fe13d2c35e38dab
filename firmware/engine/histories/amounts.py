"""Exact money amounts in hand histories: decimal text to integer chip units and back.

Hand histories from card rooms write money (``0.25``, ``200.3``); our engine
counts whole chips. An amount is converted with a *unit*, the value of one
chip unit in the file's money (``0.01`` for cents): ``chips = amount / unit``,
which must be a whole number. Amounts are read as :class:`~decimal.Decimal`
(never ``float``), so ``0.1 + 0.2`` problems cannot arise. The unit is given
(``--unit 0.01``) or derived from the file: the smallest power of ten that
makes every amount in the hand whole (``0.25`` and ``200.3`` give ``0.01``).

Limits: an amount is at most :data:`MAX_CHIPS` chip units and is written with
at most :data:`MAX_DIGITS` digits.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Final

from firmware.errors import HandHistoryError

MAX_CHIPS: Final = 10**15
"""Largest amount a hand history may give, in chip units (a thousand million million)."""

MAX_DIGITS: Final = 24
"""Most digits (before and after the point) an amount may be written with."""

ONE: Final = Decimal(1)


def parse_unit(text: str) -> Decimal:
    """The unit given by a user (``"0.01"``), checked to be a positive decimal number.

    :raises HandHistoryError: if ``text`` is not a positive number.
    """
    try:
        unit = Decimal(text)
    except InvalidOperation:
        unit = Decimal(0)
    if not unit.is_finite() or unit <= 0 or len(unit.as_tuple().digits) > MAX_DIGITS:
        raise HandHistoryError(
            f"The unit {text!r} is not a positive decimal number; give the value of one chip "
            "unit, for example 0.01 for cents."
        )
    return unit


def decimal_places(value: Decimal) -> int:
    """Digits after the point ``value`` needs (``2.50`` needs 1, ``3`` needs 0)."""
    if not value.is_finite():
        return 0
    exponent = value.normalize().as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


def unit_for(values: list[Decimal]) -> Decimal | None:
    """The unit that makes every value whole: ``None`` when they already are."""
    places = 0
    for value in values:
        places = max(places, decimal_places(value))
    return None if places == 0 else Decimal(1).scaleb(-places)


def to_chips(value: int | Decimal, unit: Decimal | None, what: str, name: str) -> int:
    """``value`` (a whole number or a decimal amount) in chip units.

    :raises HandHistoryError: naming ``what`` and the file ``name`` if the value
        is negative, too large, not finite, or not a whole number of units.
    """
    if value.__class__ is int and unit is None:
        chips = int(value)
    else:
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            raise HandHistoryError(
                f"In {name}, {what} is {value!r}, which is not an amount; write a number."
            )
        amount = Decimal(value)
        if not amount.is_finite() or len(amount.as_tuple().digits) > MAX_DIGITS:
            raise HandHistoryError(
                f"In {name}, {what} is {value!r}; amounts are finite numbers of at most "
                f"{MAX_DIGITS} digits."
            )
        scaled = amount / (unit or ONE)
        if scaled != scaled.to_integral_value():
            given = "1" if unit is None else str(unit)
            raise HandHistoryError(
                f"In {name}, {what} is {value}, which is not a whole number of chip units of "
                f"{given}; give a smaller unit (--unit) or correct the amount."
            )
        chips = int(scaled)
    if not 0 <= chips <= MAX_CHIPS:
        raise HandHistoryError(
            f"In {name}, {what} is {value}; amounts must be from 0 to {MAX_CHIPS} chip units."
        )
    return chips


def amount_text(text: str, unit: Decimal | None, what: str, name: str) -> int:
    """An amount written in an action (``"2.5"``) in chip units (see :func:`to_chips`)."""
    if unit is None and text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS:
        return to_chips(int(text), None, what, name)
    try:
        value = Decimal(text) if len(text) <= 2 * MAX_DIGITS else Decimal("NaN")
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or not text.replace(".", "", 1).isdigit():
        shown = text if len(text) <= 30 else text[:30] + "..."
        raise HandHistoryError(
            f"In {name}, {what} is {shown!r}; write an amount such as 200 or 2.50."
        )
    return to_chips(value, unit, what, name)


def from_chips(chips: int, unit: Decimal | None) -> int | Decimal:
    """An amount in chip units written back in the file's money (exact)."""
    if unit is None:
        return chips
    exponent = unit.as_tuple().exponent
    assert isinstance(exponent, int)
    return (chips * unit).quantize(unit) if exponent < 0 else int(chips * unit)


def chips_text(chips: int, unit: Decimal | None) -> str:
    """An amount in chip units as text in the file's money (``250`` at ``0.01`` is ``2.50``)."""
    return str(from_chips(chips, unit))
