"""Real hardware drivers (serial RFID shoe and chip trays, GPIO, PC/SC); see issue 4."""
