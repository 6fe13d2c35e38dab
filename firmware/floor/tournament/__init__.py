"""The tournament director: the pure procedures (mtt), the director that runs them
over the room's tables, its stored state, orders to tables, resuming, and staff control."""
