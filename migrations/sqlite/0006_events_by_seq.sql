-- An index on each tournament's events by sequence number: the daemon no longer keeps whole
-- logs in memory, so it reads single events (a game's record) and pages of a log
-- (`tournament.events`, a log replayed at start) from the store; without the index each such
-- read scanned every event of every tournament.
CREATE INDEX events_by_seq ON events (tournament_id, seq);
