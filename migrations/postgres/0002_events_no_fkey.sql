-- The foreign key from events to tournaments ran a trigger (a key-share lock query on the
-- tournament's row) for every event inserted, about a tenth of PostgreSQL's CPU per write. It
-- checked nothing the writes do not already guarantee: an append inserts events only for a
-- tournament whose head its compare-and-set just moved (its row exists and is locked), a
-- creation inserts the row and its events in one statement, and a deletion locks the row
-- before it removes the events and then the row, in one transaction.
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_tournament_id_fkey;
