-- The cash game's books (issue 25): the room's time zone, every seat's money move as
-- the floor's replica saw it, and documented views an accountant queries
-- (docs/accounting.md has each view's question, query and caveats).
-- Amounts are whole chips in the table's smallest unit, as the tables journal them.
-- depends: 0002.store-invariants

-- ---------------------------------------------------------------- the room's settings
-- The floor writes the room's time zone here at every start ([room] timezone in its
-- configuration, else the system's): "a day" in every view is a day on the room's clock.
CREATE TABLE room_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
COMMENT ON TABLE room_settings IS
    'The room''s settings the views read (timezone: the IANA zone days are counted in).';
INSERT INTO room_settings (key, value) VALUES ('timezone', 'UTC');

-- Both functions name the room's own schema (written in when the migration runs), so a
-- query from another search_path still reads this room's zone; plain SQL functions
-- without settings, PostgreSQL inlines them: the zone is read once per query, not per row.
DO $books$
BEGIN
    EXECUTE format(
        'CREATE FUNCTION %1$I.room_zone() RETURNS TEXT LANGUAGE sql STABLE AS '
        '$f$ SELECT coalesce((SELECT value FROM %1$I.room_settings WHERE key = ''timezone''), '
        '''UTC'') $f$', current_schema());
    EXECUTE format(
        'CREATE FUNCTION %1$I.room_day(moment TIMESTAMPTZ) RETURNS DATE LANGUAGE sql STABLE AS '
        '$f$ SELECT (moment AT TIME ZONE %1$I.room_zone())::date $f$', current_schema());
END
$books$;
COMMENT ON FUNCTION room_zone() IS 'The room''s time zone (room_settings), UTC if unset.';
COMMENT ON FUNCTION room_day(TIMESTAMPTZ) IS
    'The day a moment falls on by the room''s clock (room_zone()).';

-- ---------------------------------------------------------------- seat money
-- One row per sit-down, rebuy, cash-out and sit-out change the table accepted, written
-- by the ingest in the same transaction as the record: the amount of a cash-out is the
-- stack (with any rebuy not yet in play) the floor's replica held just before it, which
-- the journal record itself does not carry. A record the table refused has no row.
CREATE TABLE seat_money (
    table_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    at TIMESTAMPTZ NOT NULL,
    kind TEXT NOT NULL
        CHECK (kind IN ('sit', 'rebuy', 'seat_rebuy', 'cash_out', 'sit_out', 'sit_in',
                        'adjust_stack')),
    seat INTEGER NOT NULL CHECK (seat BETWEEN 1 AND 10),
    player TEXT NOT NULL,
    card TEXT NOT NULL DEFAULT '',
    amount BIGINT NOT NULL CHECK (amount >= 0 OR kind = 'adjust_stack'),
    PRIMARY KEY (table_id, seq),
    FOREIGN KEY (table_id, seq) REFERENCES events (table_id, seq)
);
COMMENT ON TABLE seat_money IS
    'Seat money moves the table accepted: sit (buy-in), rebuy (the dealer''s), seat_rebuy '
    '(the seat''s own), cash_out (the whole stack), sit_out / sit_in (amount 0), adjust_stack '
    '(the floor set the stack: the change, + or -). Written by the ingest.';
COMMENT ON COLUMN seat_money.card IS 'The player card''s id, '''' when seated by name.';
CREATE INDEX seat_money_by_seat ON seat_money (table_id, seat, seq);
CREATE INDEX seat_money_by_player ON seat_money (card, player);
CREATE INDEX seat_money_by_at ON seat_money (at);

-- The money records the tables journal (MONEY.md), found without reading every event.
CREATE INDEX events_money ON events (kind, table_id, seq)
    WHERE kind IN ('time_charge', 'jackpot_award', 'rake_zone', 'bank_open', 'bank_fill',
                   'bank_credit', 'shift_count');
CREATE INDEX hands_by_table_finish ON hands (table_id, finished_wall);

-- ---------------------------------------------------------------- the hands' money
-- Each finished hand with its stakes (from the set-up it was played under), its rake and
-- its jackpot drop; a record without them counts 0.
CREATE VIEW hand_money AS
SELECT h.table_id, h.seq, h.hand, h.finished_wall AS at, room_day(h.finished_wall) AS day,
       coalesce(s.setup_data #>> '{stakes,structure}', '?') || ' '
           || coalesce(s.setup_data #>> '{stakes,small_blind}', '?') || '/'
           || coalesce(s.setup_data #>> '{stakes,big_blind}', '?') AS stakes,
       CASE WHEN jsonb_typeof(h.record->'rake') = 'number'
            THEN (h.record->>'rake')::bigint ELSE 0 END AS rake,
       CASE WHEN jsonb_typeof(h.record->'jackpot_drop') = 'number'
            THEN (h.record->>'jackpot_drop')::bigint ELSE 0 END AS jackpot_drop
FROM hands h
LEFT JOIN events s ON s.table_id = h.table_id AND s.seq = h.session;
COMMENT ON VIEW hand_money IS
    'Each finished hand: table, record number, room day, stakes ("NL 1/2"), rake, jackpot drop.';

-- The time charges the tables journaled (time_charge records).
CREATE VIEW time_charges AS
SELECT table_id, seq, at, room_day(at) AS day, (data->>'seat')::integer AS seat,
       coalesce(data->>'player', '') AS player, (data->>'amount')::bigint AS amount,
       (data->>'minutes')::integer AS minutes
FROM events WHERE kind = 'time_charge';
COMMENT ON VIEW time_charges IS 'Each time charge: table, seat, player card, amount, minutes.';

-- Revenue per table per day: rake and time charges (the jackpot drop is the players',
-- shown apart).
CREATE VIEW revenue_by_table_day AS
WITH raked AS (
    SELECT table_id, day, count(*) AS hands, count(*) FILTER (WHERE rake > 0) AS raked_hands,
           sum(rake) AS rake, sum(jackpot_drop) AS jackpot_drop
    FROM hand_money GROUP BY table_id, day),
timed AS (
    SELECT table_id, day, sum(amount) AS time_charges FROM time_charges GROUP BY table_id, day)
SELECT table_id, day, coalesce(r.hands, 0) AS hands, coalesce(r.raked_hands, 0) AS raked_hands,
       coalesce(r.rake, 0)::bigint AS rake, coalesce(t.time_charges, 0)::bigint AS time_charges,
       (coalesce(r.rake, 0) + coalesce(t.time_charges, 0))::bigint AS revenue,
       coalesce(r.jackpot_drop, 0)::bigint AS jackpot_drop
FROM raked r FULL JOIN timed t USING (table_id, day);
COMMENT ON VIEW revenue_by_table_day IS
    'The house''s revenue per table and room day: rake + time charges (jackpot drop apart).';

CREATE VIEW rake_by_stakes AS
SELECT stakes, day, count(*) AS hands, count(*) FILTER (WHERE rake > 0) AS raked_hands,
       sum(rake)::bigint AS rake,
       CASE WHEN count(*) FILTER (WHERE rake > 0) > 0
            THEN round(sum(rake)::numeric / count(*) FILTER (WHERE rake > 0), 2)
            ELSE 0 END AS rake_per_raked_hand
FROM hand_money GROUP BY stakes, day;
COMMENT ON VIEW rake_by_stakes IS 'Rake per stakes and room day, with the hands raked.';

-- What the tray read in the rake zone against what the table computed. The table
-- journals a rake_zone record for every comparison of a raked hand: one that agrees,
-- one that differs (resolved_by ''), then the dealer's answer to a difference, a
-- recount (a new comparison) or a confirmation of the reading (resolved_by his badge).
-- One row per reading that differed, with what resolved it: the next comparison of
-- that hand.
CREATE VIEW rake_zone_checks AS
WITH z AS (
    SELECT table_id, seq, at, (data->>'hand')::integer AS hand,
           (data->>'read')::bigint AS read, (data->>'computed')::bigint AS computed,
           coalesce(data->>'resolved_by', '') AS resolved_by
    FROM events WHERE kind = 'rake_zone')
SELECT d.table_id, d.seq, d.at, room_day(d.at) AS day, d.hand, d.read, d.computed,
       d.read - d.computed AS difference, coalesce(r.resolved_by, '') AS resolved_by,
       CASE WHEN r.seq IS NULL THEN 'open'
            WHEN r.resolved_by <> '' THEN 'confirmed'
            ELSE 'recounted' END AS resolution,
       r.read AS recount
FROM z d
LEFT JOIN LATERAL (
    SELECT n.seq, n.read, n.resolved_by FROM z n
    WHERE n.table_id = d.table_id AND n.hand = d.hand AND n.seq > d.seq
      AND n.computed = d.computed
    ORDER BY n.seq LIMIT 1) r ON true
WHERE d.read <> d.computed AND d.resolved_by = '';
COMMENT ON VIEW rake_zone_checks IS
    'Each rake-zone reading that differed from the computed rake, and how it was resolved: '
    'confirmed (resolved_by: the badge), recounted (recount: the next reading) or open.';

-- ---------------------------------------------------------------- jackpots
-- Every share of every award (jackpot_award records).
CREATE VIEW jackpot_awards AS
SELECT e.table_id, e.seq, e.at, room_day(e.at) AS day, e.data->>'jackpot' AS jackpot,
       (e.data->>'hand')::integer AS hand, coalesce(e.data->>'staff', '') AS staff,
       (s.value->>'seat')::integer AS seat, coalesce(s.value->>'player', '') AS player,
       s.value->>'share' AS share, (s.value->>'amount')::bigint AS amount
FROM events e, jsonb_array_elements(
    CASE WHEN jsonb_typeof(e.data->'shares') = 'array' THEN e.data->'shares' ELSE '[]' END) s
WHERE e.kind = 'jackpot_award';
COMMENT ON VIEW jackpot_awards IS
    'Each share of each jackpot or promotion paid: jackpot, hand, seat, player card, share, amount.';

-- Money in (drops, per hand) and out (bad beats paid) of the jackpot fund, per table and
-- day. As at the table (JACKPOT, docs/rules.md): a bad beat's reserve share stays in the
-- fund, and a high hand is the house's promotion, not paid from the fund.
CREATE VIEW jackpot_ledger AS
SELECT table_id, day, 'drop' AS movement, sum(jackpot_drop)::bigint AS amount
FROM hand_money WHERE jackpot_drop > 0 GROUP BY table_id, day
UNION ALL
SELECT table_id, day, jackpot AS movement, -sum(amount)::bigint AS amount
FROM jackpot_awards WHERE jackpot = 'bad_beat' AND share <> 'reserve'
GROUP BY table_id, day, jackpot;
COMMENT ON VIEW jackpot_ledger IS
    'Jackpot fund movements per table and room day: drop (+), bad_beat paid (-, the '
    'reserve share stays in the fund).';

CREATE VIEW jackpot_fund AS
SELECT coalesce((SELECT sum(jackpot_drop) FROM hand_money), 0)::bigint AS dropped,
       coalesce((SELECT sum(amount) FROM jackpot_awards
                 WHERE jackpot = 'bad_beat' AND share <> 'reserve'), 0)::bigint
           AS bad_beat_paid,
       coalesce((SELECT sum(amount) FROM jackpot_awards WHERE jackpot <> 'bad_beat'), 0)::bigint
           AS promotions_paid,
       (coalesce((SELECT sum(jackpot_drop) FROM hand_money), 0)
        - coalesce((SELECT sum(amount) FROM jackpot_awards
                    WHERE jackpot = 'bad_beat' AND share <> 'reserve'), 0))::bigint AS balance;
COMMENT ON VIEW jackpot_fund IS
    'The jackpot fund now: everything dropped, paid as bad-beat jackpots (the reserve '
    'share stays in the fund), paid as promotions by the house (not from the fund), and '
    'the balance left (without the tables'' configured seeds).';

-- ---------------------------------------------------------------- player sessions
-- A session runs from a sit at a seat to the next cash-out or sit at that seat; one still
-- seated runs to the table's last record (stood_at NULL). Never any card of any hand.
CREATE VIEW player_sessions AS
WITH sessions AS (
    SELECT e.table_id, e.seat, e.player, e.card, e.seq AS sit_seq, e.at AS sat_at,
           n.seq AS stood_seq, n.at AS stood_at, e.amount AS buy_in,
           CASE WHEN n.kind = 'cash_out' THEN n.amount END AS cash_out,
           coalesce(n.seq, 9223372036854775807) AS end_seq,
           coalesce(n.at, (SELECT l.at FROM events l WHERE l.table_id = e.table_id
                           ORDER BY l.seq DESC LIMIT 1)) AS end_at
    FROM seat_money e
    LEFT JOIN LATERAL (  -- the seat's next sit-down or cash-out ends the stay
        SELECT m.seq, m.at, m.kind, m.amount FROM seat_money m
        WHERE m.table_id = e.table_id AND m.seat = e.seat AND m.seq > e.seq
          AND m.kind IN ('sit', 'cash_out')
        ORDER BY m.seq LIMIT 1) n ON true
    WHERE e.kind = 'sit')
SELECT s.table_id, s.seat, s.player, s.card, room_day(s.sat_at) AS day,
       s.sit_seq, s.sat_at, s.stood_seq, s.stood_at, s.buy_in,
       coalesce(r.rebuys, 0)::bigint AS rebuys, coalesce(r.rebuy_count, 0) AS rebuy_count,
       s.cash_out,
       (SELECT count(*) FROM hand_players p WHERE p.table_id = s.table_id AND p.seat = s.seat
          AND p.player = s.player AND p.seq > s.sit_seq AND p.seq < s.end_seq) AS hands,
       round((extract(epoch FROM s.end_at - s.sat_at) / 3600)::numeric, 3) AS hours,
       round((coalesce(o.seconds_out, 0) / 3600)::numeric, 3) AS hours_sitting_out
FROM sessions s
LEFT JOIN LATERAL (
    SELECT sum(m.amount) AS rebuys, count(*) AS rebuy_count FROM seat_money m
    WHERE m.table_id = s.table_id AND m.seat = s.seat AND m.kind IN ('rebuy', 'seat_rebuy')
      AND m.seq > s.sit_seq AND m.seq < s.end_seq) r ON true
LEFT JOIN LATERAL (
    SELECT sum(extract(epoch FROM coalesce(
        (SELECT min(b.at) FROM seat_money b WHERE b.table_id = s.table_id AND b.seat = s.seat
           AND b.kind = 'sit_in' AND b.seq > m.seq AND b.seq < s.end_seq), s.end_at) - m.at))
        AS seconds_out
    FROM seat_money m
    WHERE m.table_id = s.table_id AND m.seat = s.seat AND m.kind = 'sit_out'
      AND m.seq > s.sit_seq AND m.seq < s.end_seq) o ON true;
COMMENT ON VIEW player_sessions IS
    'Each player''s stay at a seat: sit-down and stand-up, buy-in, rebuys, cash-out, hands '
    'dealt in, hours seated and hours of them sitting out (room day of the sit-down).';

CREATE VIEW player_days AS
SELECT card, player, table_id, day, count(*) AS sessions, min(sat_at) AS first_sat,
       max(coalesce(stood_at, sat_at)) AS last_stood, sum(buy_in)::bigint AS buy_ins,
       sum(rebuys)::bigint AS rebuys, sum(coalesce(cash_out, 0))::bigint AS cash_outs,
       sum(hands)::bigint AS hands, sum(hours) AS hours
FROM player_sessions GROUP BY card, player, table_id, day;
COMMENT ON VIEW player_days IS 'Each player''s sessions summed per table and room day.';

CREATE VIEW player_hours AS
SELECT card, player, count(*) AS sessions, count(DISTINCT table_id) AS tables,
       count(DISTINCT day) AS days, sum(hours) AS hours,
       sum(hours - hours_sitting_out) AS hours_playing, sum(hands)::bigint AS hands,
       sum(buy_in + rebuys)::bigint AS bought, sum(coalesce(cash_out, 0))::bigint AS cashed_out
FROM player_sessions GROUP BY card, player;
COMMENT ON VIEW player_hours IS 'Hours, hands and money per player (card and name), all days.';

-- ---------------------------------------------------------------- the table's bank
-- Shifts as the table's own shift report (firmware/table/shiftreport.py) cuts them: a
-- shift ends with a shift_count, and the next one begins right after it with what was
-- counted as its opening; the bank stays open across counts. The first shift takes
-- every record from the table's first; a table appears once it has opened its bank, and
-- a shift after the last count is listed (open, count_seq NULL) once a chip moved in it.
-- Every total counts the table's records in the shift's range (start_seq, end_seq].
CREATE VIEW table_shifts AS
WITH counts AS (
    SELECT table_id, seq, at, (data->>'counted')::bigint AS counted,
           (data->>'expected')::bigint AS expected,
           lag(seq) OVER w AS prev_seq, lag(at) OVER w AS prev_at,
           lag((data->>'counted')::bigint) OVER w AS prev_counted,
           lead(seq) OVER w AS next_seq
    FROM events WHERE kind = 'shift_count'
    WINDOW w AS (PARTITION BY table_id ORDER BY seq)),
banked AS (
    SELECT DISTINCT ON (table_id) table_id, seq AS first_open, at AS first_open_at
    FROM events WHERE kind = 'bank_open' ORDER BY table_id, seq),
bounds AS (
    SELECT c.table_id, coalesce(c.prev_seq, 0) AS start_seq, c.seq AS end_seq,
           c.seq AS count_seq, c.at AS closed_at, c.prev_seq, c.prev_at,
           coalesce(c.prev_counted, 0) AS opening, c.counted, c.expected
    FROM counts c
    UNION ALL  -- after the table's last count, or with no count yet
    SELECT b.table_id, coalesce(c.seq, 0), 9223372036854775807, NULL, NULL, c.seq, c.at,
           coalesce(c.counted, 0), NULL, NULL
    FROM banked b LEFT JOIN counts c ON c.table_id = b.table_id AND c.next_seq IS NULL
    WHERE EXISTS (
        SELECT 1 FROM events e WHERE e.table_id = b.table_id AND e.seq > coalesce(c.seq, 0)
          AND e.kind IN ('sit', 'rebuy', 'seat_rebuy', 'cash_out', 'time_charge',
                         'jackpot_award', 'bank_open', 'bank_fill', 'bank_credit',
                         'adjust_stack', 'chip_race'))
       OR EXISTS (
        SELECT 1 FROM hands h WHERE h.table_id = b.table_id AND h.seq > coalesce(c.seq, 0))),
shifts AS (
    SELECT x.table_id, x.start_seq, x.end_seq, x.count_seq, x.closed_at, x.opening,
           x.counted, x.expected, coalesce(x.prev_seq, b.first_open) AS open_seq,
           coalesce(x.prev_at, b.first_open_at) AS opened_at
    FROM bounds x JOIN banked b ON b.table_id = x.table_id AND b.first_open <= x.end_seq)
SELECT s.table_id, room_day(s.opened_at) AS day, s.open_seq, s.opened_at, s.count_seq,
       s.closed_at, s.opening, coalesce(b.opening_float, 0)::bigint AS opening_float,
       coalesce(b.fills, 0)::bigint AS fills, coalesce(b.credits, 0)::bigint AS credits,
       coalesce(m.buy_ins, 0)::bigint AS buy_ins, coalesce(m.rebuys, 0)::bigint AS rebuys,
       (coalesce(m.buy_ins, 0) + coalesce(m.rebuys, 0))::bigint AS cash_drop,
       coalesce(m.cash_outs, 0)::bigint AS cash_outs,
       coalesce(h.rake, 0)::bigint AS rake, coalesce(b.time_charges, 0)::bigint AS time_charges,
       coalesce(h.jackpot_drop, 0)::bigint AS jackpot_drop,
       coalesce(j.jackpots_paid, 0)::bigint AS jackpots_paid,
       coalesce(j.promotions_paid, 0)::bigint AS promotions_paid,
       coalesce(m.adjustments, 0)::bigint AS adjustments,
       s.counted, s.expected, s.counted - s.expected AS difference
FROM shifts s
LEFT JOIN LATERAL (
    SELECT sum((data->>'amount')::bigint) FILTER (WHERE kind = 'bank_open') AS opening_float,
           sum((data->>'amount')::bigint) FILTER (WHERE kind = 'bank_fill') AS fills,
           sum((data->>'amount')::bigint) FILTER (WHERE kind = 'bank_credit') AS credits,
           sum((data->>'amount')::bigint) FILTER (WHERE kind = 'time_charge') AS time_charges
    FROM events e WHERE e.table_id = s.table_id
      AND e.kind IN ('bank_open', 'bank_fill', 'bank_credit', 'time_charge')
      AND e.seq > s.start_seq AND e.seq <= s.end_seq) b ON true
LEFT JOIN LATERAL (
    SELECT sum(amount) FILTER (WHERE kind = 'sit') AS buy_ins,
           sum(amount) FILTER (WHERE kind IN ('rebuy', 'seat_rebuy')) AS rebuys,
           sum(amount) FILTER (WHERE kind = 'cash_out') AS cash_outs,
           sum(amount) FILTER (WHERE kind = 'adjust_stack') AS adjustments
    FROM seat_money m WHERE m.table_id = s.table_id
      AND m.seq > s.start_seq AND m.seq <= s.end_seq) m ON true
LEFT JOIN LATERAL (
    SELECT sum(rake) AS rake, sum(jackpot_drop) AS jackpot_drop FROM hand_money h
    WHERE h.table_id = s.table_id AND h.seq > s.start_seq AND h.seq <= s.end_seq) h ON true
LEFT JOIN LATERAL (
    SELECT sum(amount) FILTER (WHERE jackpot = 'bad_beat') AS jackpots_paid,
           sum(amount) FILTER (WHERE jackpot <> 'bad_beat') AS promotions_paid
    FROM jackpot_awards a WHERE a.table_id = s.table_id AND a.share <> 'reserve'
      AND a.seq > s.start_seq AND a.seq <= s.end_seq) j ON true;
COMMENT ON VIEW table_shifts IS
    'The table''s bank per shift (ended by a shift_count, as the table''s shift report): '
    'opening (the previous count), opening float, fills, credits, drop (buy-ins + rebuys), '
    'cash-outs, rake, time charges, jackpot drop, jackpots and promotions paid, the '
    'floor''s stack adjustments, the count '
    'against what the table expected and the difference.';

CREATE VIEW room_shift_report AS
SELECT day, count(*) AS shifts, count(DISTINCT table_id) AS tables,
       count(count_seq) AS counted_shifts, sum(opening)::bigint AS opening,
       sum(opening_float)::bigint AS opening_float, sum(fills)::bigint AS fills,
       sum(credits)::bigint AS credits, sum(buy_ins)::bigint AS buy_ins,
       sum(rebuys)::bigint AS rebuys, sum(cash_drop)::bigint AS cash_drop,
       sum(cash_outs)::bigint AS cash_outs, sum(rake)::bigint AS rake,
       sum(time_charges)::bigint AS time_charges, sum(jackpot_drop)::bigint AS jackpot_drop,
       sum(jackpots_paid)::bigint AS jackpots_paid,
       sum(promotions_paid)::bigint AS promotions_paid,
       sum(adjustments)::bigint AS adjustments, sum(counted)::bigint AS counted, sum(expected)::bigint AS expected,
       sum(difference)::bigint AS difference
FROM table_shifts GROUP BY day;
COMMENT ON VIEW room_shift_report IS
    'The room''s shifts summed per room day (the day a shift opened).';
