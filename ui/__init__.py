"""Seat touchscreen and dealer console (pygame); see issue 5."""
