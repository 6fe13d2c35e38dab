"""The floor: one service for a card room's tables (``pokertable floor``).

It sits at the top of the layer stack: nothing in the table's firmware
imports it, and a table without a floor runs exactly as before. Pure
tournament decisions are in :mod:`firmware.floor.tournament.mtt`; the transport is NATS
JetStream (:mod:`firmware.service.floorlink` on the table's side) and the
central store PostgreSQL (:mod:`firmware.floor.store.central`).
"""
