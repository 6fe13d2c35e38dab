"""Simulated hardware: in-process fakes and wire-level emulators; see issue 4."""
