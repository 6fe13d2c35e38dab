"""Firmware of the automated Texas Hold'em table.

The engine (cards, evaluator, hands, pots) is pure and deterministic; the
table procedures, persistence, hardware-abstraction interfaces, the controller
and the command line live beside it.
"""

__version__ = "0.1.0"
