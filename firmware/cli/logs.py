"""Logging for the services: levels, system-journal priorities, throttling.

:func:`setup_logging` configures the root logger once per process:

* ``--log-level`` (``debug``, ``info``, ``warning``, ``error``) sets what is kept;
* under systemd (``JOURNAL_STREAM`` is set: standard error goes to the
  journal) each line starts with its syslog priority, ``<3>`` for an error,
  ``<4>`` a warning, ``<6>`` information, ``<7>`` debugging, which journald
  turns into the entry's priority (``journalctl -p warning`` works); the
  journal adds the time, so the line does not;
* elsewhere each line has the time, the level and the logger's name;
* :class:`Throttle` keeps a message that repeats (same logger, same
  template) from flooding the log: after ``burst`` in ``window`` seconds the
  rest are counted, and one line says how many were left out.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

LEVELS = ("debug", "info", "warning", "error")

PRIORITY = {
    logging.DEBUG: 7,
    logging.INFO: 6,
    logging.WARNING: 4,
    logging.ERROR: 3,
    logging.CRITICAL: 2,
}
"""syslog priority of each logging level (sd-daemon(3) prefixes)."""


class JournalFormatter(logging.Formatter):
    """``<priority>logger: message``, for standard error connected to journald."""

    def format(self, record: logging.LogRecord) -> str:
        priority = PRIORITY.get(record.levelno, 6)
        text = super().format(record)
        # Every line of a multi-line message keeps the priority.
        return "\n".join(f"<{priority}>{line}" for line in text.splitlines() or [""])


class Throttle(logging.Filter):
    """Let at most ``burst`` records of one template through per ``window`` seconds.

    When a window with dropped records ends, the next record of that template
    carries a note of how many were dropped.
    """

    def __init__(
        self, burst: int = 5, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.burst = burst
        self.window = window
        self.clock = clock
        self._seen: dict[tuple[str, str], tuple[float, int, int]] = {}
        """(logger, template) -> (window start, passed, dropped)."""

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = self.clock()
        start, passed, dropped = self._seen.get(key, (now, 0, 0))
        if now - start >= self.window:
            if dropped:
                record.msg = f"{record.msg} (and {dropped} more like it in the last minute)"
            self._seen[key] = (now, 1, 0)
            return True
        if passed < self.burst:
            self._seen[key] = (start, passed + 1, dropped)
            return True
        self._seen[key] = (start, passed, dropped + 1)
        if len(self._seen) > 1000:  # never an unbounded table of templates
            self._seen.clear()
        return False


def setup_logging(level: str = "info", stream: TextIO | None = None) -> logging.Handler:
    """Configure the root logger for a service; return the handler installed.

    :raises ValueError: for a level not in :data:`LEVELS`.
    """
    if level not in LEVELS:
        raise ValueError(f"The log level must be one of {', '.join(LEVELS)}, not {level!r}.")
    handler = logging.StreamHandler(stream or sys.stderr)
    if os.environ.get("JOURNAL_STREAM"):
        handler.setFormatter(JournalFormatter("%(name)s: %(message)s"))
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S")
        )
    handler.addFilter(Throttle())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper()))
    return handler
