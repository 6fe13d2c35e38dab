"""The ``pokertable`` command line, on top of every other layer."""
