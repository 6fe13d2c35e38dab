"""The table protocol between the controller and the seat screens and dealer console.

See ``docs/protocols/table.md``: :mod:`~firmware.protocol.framing` (length +
msgpack), :mod:`~firmware.protocol.auth` (terminal secrets, staff logins),
:mod:`~firmware.protocol.server` (the controller's side) and
:mod:`~firmware.protocol.client` (a small blocking client).
"""
