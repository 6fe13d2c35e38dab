-- A store that lasts: the invariants as constraints, indexes for the dashboard's and an
-- accountant's queries, wall-clock times as timestamptz, events readable as jsonb, the
-- messages the floor could not read parked, command replies with a retention index.
-- Written to upgrade a store that holds data: rows that would break a new constraint
-- are moved aside or completed first, never silently lost.
-- depends: 0001.baseline

-- ---------------------------------------------------------------- parked messages
-- A message the floor cannot read, or one whose body disagrees with the table its
-- subject names, is kept here (with an alert) and acknowledged: ingest goes on.
CREATE TABLE dead_letters (
    id BIGSERIAL PRIMARY KEY,
    stream_seq BIGINT UNIQUE,
    subject TEXT NOT NULL,
    table_id TEXT,
    msg_id TEXT,
    reason TEXT NOT NULL,
    body BYTEA NOT NULL,
    at TIMESTAMPTZ NOT NULL DEFAULT now()
);
COMMENT ON TABLE dead_letters IS
    'Messages the floor refused to ingest (unreadable, or naming another table than '
    'their subject); stream_seq is JetStream''s sequence, so a redelivery is parked once.';
CREATE INDEX dead_letters_by_table ON dead_letters (table_id, id);

-- ---------------------------------------------------------------- tables and events
ALTER TABLE tables ADD CONSTRAINT tables_last_seq CHECK (last_seq >= 0);
ALTER TABLE tables ADD CONSTRAINT tables_id CHECK (id ~ '^[A-Za-z0-9_-]{1,32}$');

ALTER TABLE events ADD CONSTRAINT events_seq CHECK (seq >= 1);
ALTER TABLE events ADD CONSTRAINT events_time CHECK (time >= 0 AND time < 'Infinity');
ALTER TABLE events ADD COLUMN at TIMESTAMPTZ GENERATED ALWAYS AS (to_timestamp(time)) STORED;
ALTER TABLE events ADD COLUMN data JSONB;
ALTER TABLE events ADD COLUMN setup_data JSONB;
COMMENT ON COLUMN events.time IS 'Seconds since the Unix epoch (UTC) when the table journaled it.';
COMMENT ON COLUMN events.at IS 'events.time as a timestamp with time zone.';
COMMENT ON COLUMN events.record IS 'The record as the table journaled it (msgpack, the exact copy replicas are rebuilt from).';
COMMENT ON COLUMN events.data IS 'The same record as jsonb, for SQL (NULL only while an upgrade fills it in).';
CREATE INDEX events_ingested ON events (ingested_at);
CREATE INDEX events_at ON events (at);

-- ---------------------------------------------------------------- hands
-- A hand's number is unique within one set-up of its table (a table set up anew starts
-- again at hand 1): session is the sequence number of the set-up record it was played under.
ALTER TABLE hands ADD COLUMN session BIGINT;
UPDATE hands h SET session = coalesce(
    (SELECT max(e.seq) FROM events e
     WHERE e.table_id = h.table_id AND e.setup IS NOT NULL AND e.seq <= h.seq), 0);
ALTER TABLE hands ALTER COLUMN session SET NOT NULL;
ALTER TABLE hands ALTER COLUMN session SET DEFAULT 0;
-- A second copy of a hand number (there should be none) is parked, not deleted.
WITH copies AS (
    SELECT table_id, seq FROM (
        SELECT table_id, seq, row_number() OVER (
            PARTITION BY table_id, session, hand ORDER BY seq) AS n
        FROM hands) numbered
    WHERE n > 1),
moved AS (
    DELETE FROM hands h USING copies c
    WHERE h.table_id = c.table_id AND h.seq = c.seq
    RETURNING h.table_id, h.seq, h.record)
INSERT INTO dead_letters (subject, table_id, reason, body)
SELECT 'hands', table_id, 'a second copy of hand ' || (record->>'hand') || ' at record ' || seq,
       convert_to(record::text, 'UTF8')
FROM moved;
ALTER TABLE hands ADD CONSTRAINT hands_once UNIQUE (table_id, session, hand);
ALTER TABLE hands ADD CONSTRAINT hands_hand CHECK (hand >= 1);
ALTER TABLE hands ADD COLUMN started_wall TIMESTAMPTZ;
ALTER TABLE hands ADD COLUMN finished_wall TIMESTAMPTZ;
COMMENT ON COLUMN hands.finished IS 'The table''s own clock (seconds since the table started), not a wall-clock time.';
COMMENT ON COLUMN hands.started_wall IS 'From the record''s started_wall (UTC); NULL in records written before it existed.';
COMMENT ON COLUMN hands.finished_wall IS 'From the record''s finished_wall, else the time the table journaled the record that finished the hand.';
UPDATE hands SET started_wall = to_timestamp((record->>'started_wall')::double precision)
WHERE jsonb_typeof(record->'started_wall') = 'number';
UPDATE hands SET finished_wall = to_timestamp((record->>'finished_wall')::double precision)
WHERE jsonb_typeof(record->'finished_wall') = 'number';
UPDATE hands h SET finished_wall = e.at FROM events e
WHERE h.finished_wall IS NULL AND e.table_id = h.table_id AND e.seq = h.seq;
CREATE INDEX hands_by_finish ON hands (finished_wall);

-- Who played each hand ("the hands of player X" without reading every record).
CREATE TABLE hand_players (
    table_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    seat INTEGER NOT NULL CHECK (seat BETWEEN 1 AND 10),
    player TEXT NOT NULL,
    PRIMARY KEY (table_id, seq, seat),
    FOREIGN KEY (table_id, seq) REFERENCES hands (table_id, seq) ON DELETE CASCADE
);
CREATE INDEX hand_players_by_player ON hand_players (player, table_id, seq);
INSERT INTO hand_players (table_id, seq, seat, player)
SELECT h.table_id, h.seq, p.key::integer, p.value
FROM hands h, jsonb_each_text(h.record->'players') p
WHERE jsonb_typeof(h.record->'players') = 'object' AND p.key ~ '^([1-9]|10)$'
ON CONFLICT DO NOTHING;

-- ---------------------------------------------------------------- alerts
-- Every table an alert, a command or a seat assignment names has its row.
INSERT INTO tables (id) SELECT DISTINCT table_id FROM alerts WHERE table_id IS NOT NULL
ON CONFLICT (id) DO NOTHING;
INSERT INTO tables (id) SELECT DISTINCT table_id FROM floor_commands ON CONFLICT (id) DO NOTHING;
INSERT INTO tables (id) SELECT DISTINCT table_id FROM seat_assignments ON CONFLICT (id) DO NOTHING;
ALTER TABLE alerts ADD CONSTRAINT alerts_table FOREIGN KEY (table_id) REFERENCES tables (id);
ALTER TABLE alerts ADD COLUMN key TEXT;
ALTER TABLE alerts ADD COLUMN params JSONB NOT NULL DEFAULT '{}';
COMMENT ON COLUMN alerts.key IS 'The catalog key of the sentence (text is its English form), when the floor wrote it.';
-- An alert with no table or record is once too (NULLs compare equal in this index).
DELETE FROM alerts a USING alerts b
WHERE a.id > b.id AND a.table_id IS NOT DISTINCT FROM b.table_id
  AND a.seq IS NOT DISTINCT FROM b.seq AND a.rule = b.rule AND a.text = b.text;
DROP INDEX alerts_once;
CREATE UNIQUE INDEX alerts_once ON alerts (table_id, seq, rule, text) NULLS NOT DISTINCT;
CREATE INDEX alerts_open ON alerts (table_id, id) WHERE NOT resolved;

-- ---------------------------------------------------------------- tournaments
ALTER TABLE tournaments ADD CONSTRAINT tournaments_buy_in CHECK (buy_in >= 0);
ALTER TABLE tournaments ADD CONSTRAINT tournaments_chips CHECK (starting_chips > 0);
ALTER TABLE registrations ADD CONSTRAINT registrations_entry CHECK (entry >= 1);
ALTER TABLE registrations ADD CONSTRAINT registrations_place CHECK (place >= 1);
ALTER TABLE registrations ADD CONSTRAINT registrations_prize CHECK (prize >= 0);
CREATE INDEX registrations_by_player ON registrations (player_id);
ALTER TABLE seat_assignments ADD CONSTRAINT seat_assignments_table
    FOREIGN KEY (table_id) REFERENCES tables (id);
ALTER TABLE seat_assignments ADD CONSTRAINT seat_assignments_seat CHECK (seat BETWEEN 1 AND 10);
ALTER TABLE seat_assignments ADD CONSTRAINT seat_assignments_chips CHECK (chips >= 0);
CREATE INDEX seat_assignments_by_tournament ON seat_assignments (tournament_id, id);
CREATE INDEX seat_assignments_by_player ON seat_assignments (player_id, id);
CREATE INDEX tournament_log_by_tournament ON tournament_log (tournament_id, id);

-- ---------------------------------------------------------------- the director's commands
ALTER TABLE floor_commands ADD CONSTRAINT floor_commands_table
    FOREIGN KEY (table_id) REFERENCES tables (id);
-- Settled commands are deleted after the retention (outbox.RETENTION_DAYS).
CREATE INDEX floor_commands_settled ON floor_commands (at) WHERE settled;

-- ---------------------------------------------------------------- the dashboard
CREATE INDEX table_notices_open ON table_notices (table_id, id) WHERE acked_at IS NULL;
