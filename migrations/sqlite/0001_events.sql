-- One row per tournament: the id clients see (rswiss's tournaments.id: global, from 1).
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at INTEGER NOT NULL
);

-- The append-only event log. (tournament_id, seq) is the optimistic-concurrency guard.
CREATE TABLE IF NOT EXISTS events (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, seq)
) WITHOUT ROWID;
