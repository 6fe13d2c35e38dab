-- The schema the floor created before versioned migrations (every statement is
-- IF NOT EXISTS: on a store made by that code this migration changes nothing and
-- is only recorded as applied).

CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    last_seq BIGINT NOT NULL DEFAULT 0,
    seen_at TIMESTAMPTZ,
    status JSONB NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables (id),
    seq BIGINT NOT NULL,
    time DOUBLE PRECISION NOT NULL,
    kind TEXT NOT NULL,
    record BYTEA NOT NULL,
    setup BYTEA,
    ingested_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS hands (
    table_id TEXT NOT NULL REFERENCES tables (id),
    seq BIGINT NOT NULL,
    hand INTEGER NOT NULL,
    finished DOUBLE PRECISION NOT NULL,
    record JSONB NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX IF NOT EXISTS hands_by_number ON hands (table_id, hand);
CREATE TABLE IF NOT EXISTS alerts (
    id BIGSERIAL PRIMARY KEY,
    table_id TEXT,
    seq BIGINT,
    at TIMESTAMPTZ NOT NULL DEFAULT now(),
    rule TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL,
    resolved BOOLEAN NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX IF NOT EXISTS alerts_once ON alerts (table_id, seq, rule, text);
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    buy_in BIGINT NOT NULL,
    starting_chips BIGINT NOT NULL,
    state JSONB NOT NULL DEFAULT '{}',
    created TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS registrations (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    player_id TEXT NOT NULL REFERENCES players (id),
    entry INTEGER NOT NULL,
    registered TIMESTAMPTZ NOT NULL DEFAULT now(),
    place INTEGER,
    prize BIGINT,
    PRIMARY KEY (tournament_id, player_id, entry)
);
CREATE TABLE IF NOT EXISTS seat_assignments (
    id BIGSERIAL PRIMARY KEY,
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    player_id TEXT NOT NULL REFERENCES players (id),
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    chips BIGINT NOT NULL,
    reason TEXT NOT NULL,
    at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS floor_commands (
    n BIGSERIAL PRIMARY KEY,
    tournament_id TEXT NOT NULL,
    id TEXT NOT NULL UNIQUE,
    table_id TEXT NOT NULL,
    key TEXT NOT NULL,
    body JSONB NOT NULL,
    follow JSONB,
    reply JSONB,
    settled BOOLEAN NOT NULL DEFAULT false,
    at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS floor_commands_open ON floor_commands (tournament_id)
    WHERE NOT settled;

CREATE TABLE IF NOT EXISTS tournament_log (
    id BIGSERIAL PRIMARY KEY,
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS waiting_list (
    id BIGSERIAL PRIMARY KEY,
    game TEXT NOT NULL,
    player TEXT NOT NULL,
    added TIMESTAMPTZ NOT NULL DEFAULT now(),
    added_by TEXT NOT NULL,
    called_table TEXT,
    called_at TIMESTAMPTZ,
    removed_at TIMESTAMPTZ
);
CREATE TABLE IF NOT EXISTS table_notices (
    id BIGSERIAL PRIMARY KEY,
    table_id TEXT NOT NULL,
    at TIMESTAMPTZ NOT NULL DEFAULT now(),
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    key TEXT,
    params JSONB NOT NULL DEFAULT '{}',
    device TEXT,
    acked_by TEXT,
    acked_at TIMESTAMPTZ
);
CREATE TABLE IF NOT EXISTS table_faults (
    table_id TEXT PRIMARY KEY,
    faults JSONB NOT NULL,
    seen_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS staff_actions (
    id BIGSERIAL PRIMARY KEY,
    at TIMESTAMPTZ NOT NULL DEFAULT now(),
    staff TEXT NOT NULL,
    role TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS clock_pauses (
    tournament_id TEXT PRIMARY KEY,
    paused_at DOUBLE PRECISION,
    paused_seconds DOUBLE PRECISION NOT NULL DEFAULT 0
);
