-- Who created each tournament, for the creation quotas (src/rpc/auth.rs): the creator's network
-- prefix (e.g. '203.0.113.0/24', '2001:db8:1:2::/64') or 'admin'. A creation counts its owner's
-- rows in the statement that inserts it, after an advisory lock on the owner taken in the same
-- transaction, so daemons creating at the same time for one owner cannot overshoot its quota;
-- the counts need nothing kept elsewhere, survive restarts and are the same for every daemon,
-- and a deletion gives the slot back. NULL: created before this step, or by a path that has
-- no caller (copies keep what the source had).
ALTER TABLE tournaments ADD COLUMN owner TEXT;

CREATE INDEX tournaments_owner ON tournaments (owner);
