-- Who created each tournament, for the creation quotas (src/rpc/auth.rs): the creator's network
-- prefix (e.g. '203.0.113.0/24', '2001:db8:1:2::/64') or 'admin'. A creation counts the rows of
-- its owner in the same transaction as its insert, so the quotas need no count kept anywhere
-- else, survive restarts, and a deletion gives the slot back. NULL: created before this step,
-- or by a path that has no caller (copies keep what the source had).
ALTER TABLE tournaments ADD COLUMN owner TEXT;

CREATE INDEX tournaments_owner ON tournaments (owner);
