-- Which engine folds a tournament's log: 'matchmaker' (the rswiss-compatible engine behind
-- matchmaker.*) or 'tournament' (the tournament manager behind tournament.*). Every log
-- written before this step is a matchmaker log.
ALTER TABLE tournaments ADD COLUMN kind TEXT NOT NULL DEFAULT 'matchmaker';
