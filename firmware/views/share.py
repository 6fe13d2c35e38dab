"""What the views of one change have in common, computed once (issue 15)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class ViewShare:
    """What the views of one state of the table have in common, computed once.

    After each change the server computes a view for every client; most of each
    view (the seats as everyone may see them, the pots, the level, the last
    hand's winners) is the same for all of them. Pass one share to every view of
    that change (:func:`seat_view`, :func:`console_view`) and drop it: it keeps
    what it computed without checking the table again, so a share used after
    the table changed gives stale views.
    """

    def __init__(self) -> None:
        self._parts: dict[tuple[Any, ...], Any] = {}
        self.packed: dict[int, tuple[object, bytes]] = {}
        """The encoder's bytes of the lists and maps these views hold in common, by
        identity, for this change only (:class:`~firmware.protocol.viewpack.ViewPacker`)."""

    def get(self, key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
        """The part named ``key``, made by ``make()`` the first time."""
        try:
            return self._parts[key]
        except KeyError:
            part = self._parts[key] = make()
            return part
