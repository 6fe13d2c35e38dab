"""The floor's PostgreSQL store: versioned schema, the ingest of the tables' records,
the outbox of commands, the lease between two floors, and the dashboard's own records."""
