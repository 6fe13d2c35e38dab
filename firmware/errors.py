"""The project's error tree.

Every error subclasses both :class:`PokerTableError` and a builtin, as
gpiozero does, so callers can catch either. Messages are full sentences that
say what went wrong and what to do. Errors that reach a screen also carry a
message ``key`` and ``params`` so the screen can show them translated (see
:mod:`firmware.i18n`).
"""

from __future__ import annotations

from typing import Any


class PokerTableError(Exception):
    """Base class of every error raised by the firmware.

    :param message: The English sentence shown in logs.
    :param key: An optional message-catalog key for translated display.
    :param params: Values substituted into the translated message.
    """

    def __init__(self, message: str, key: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.key = key
        self.params = params


class CardError(PokerTableError, ValueError):
    """A card or list of cards could not be parsed or is not valid here."""


class IllegalAction(PokerTableError, ValueError):
    """An event cannot be applied to the hand in its current state."""


class ConfigError(PokerTableError, ValueError):
    """A configuration value is missing, unknown or out of range."""


class HandHistoryError(PokerTableError, ValueError):
    """A hand history file cannot be read or replayed."""


class HardwareError(PokerTableError, OSError):
    """A device cannot be opened or stopped working; the message names it."""
