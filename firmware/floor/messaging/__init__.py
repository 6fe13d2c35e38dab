"""The floor's NATS side: the JetStream stream, the room's NATS configuration
(one identity per table), and commands sent to a table."""
