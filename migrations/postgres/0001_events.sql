-- One row per tournament: the id clients see (global across engines, from 1, never reused:
-- a sequence) and its head, next_seq, the sequence number of its next event. Every append
-- moves the head with a compare-and-set in the same transaction as its events, so two daemons
-- writing the same tournament can never both take one sequence number.
CREATE TABLE tournaments (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    next_seq BIGINT NOT NULL
);

-- The append-only event log, one row per event. The primary key is a second guard against a
-- duplicate sequence number and the index that loads one tournament's log (or its tail).
CREATE TABLE events (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id),
    seq BIGINT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);
