"""Shared fixtures: the floor's real servers (``tests/floor_kit.py``)."""

pytest_plugins = ["tests.floor_kit"]
