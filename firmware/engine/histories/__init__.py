"""Hand-history formats read and written by the engine (PHH)."""
