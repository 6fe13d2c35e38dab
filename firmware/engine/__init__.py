"""The pure rules engine: cards, evaluator, the hand state machine, betting, pots,
showdown, rulings, events and the hand-history formats.

It imports nothing else of the firmware but :mod:`firmware.errors`, and neither
numpy nor pygame; it does no I/O and holds no randomness of its own.
"""
