"""Seat touchscreens and the dealer console (pygame-ce).

* :mod:`ui.widgets` - theme, text fitting, buttons, slider, dialogs, the screen base class;
* :mod:`ui.cards` - card faces (two- or four-colour deck), backs, the game-recall page;
* :mod:`ui.seat` - :class:`~ui.seat.SeatScreen`, a player's screen;
* :mod:`ui.console` - :class:`~ui.console.ConsoleScreen`, the dealer's console;
* :mod:`ui.app` - the run loop against a controller link or a source of views.

A screen renders one ``view`` message (docs/protocols/table.md) and nothing
else, and turns taps (mouse events) into the protocol's client messages.
"""
