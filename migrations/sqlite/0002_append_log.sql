-- The event log becomes an append-only rowid table, and the optimistic-concurrency guard moves
-- to a per-tournament head: tournaments.next_seq, advanced by a compare-and-set in the same
-- transaction as the events (src/store/sqlite.rs).
--
-- Why: with (tournament_id, seq) as the clustered key, every tournament's newest events sit on
-- their own B-tree leaf, so a group commit of n tournaments wrote n 4 KiB WAL frames. Appended
-- in rowid order, a commit writes the last events page or two plus the few pages holding the
-- active tournaments' heads (BENCHMARKS.md, "Store on its own thread").

ALTER TABLE tournaments ADD COLUMN next_seq INTEGER NOT NULL DEFAULT 0;

UPDATE tournaments
SET next_seq = (SELECT COALESCE(MAX(e.seq) + 1, 0) FROM events e WHERE e.tournament_id = tournaments.id);

CREATE TABLE events_log (
    -- The append order. Events of one tournament are appended in seq order, so reading by id
    -- gives each tournament's log in order without an index.
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    at INTEGER NOT NULL
);

INSERT INTO events_log (tournament_id, seq, kind, body, at)
SELECT tournament_id, seq, kind, body, at FROM events ORDER BY tournament_id, seq;

DROP TABLE events;

ALTER TABLE events_log RENAME TO events;
