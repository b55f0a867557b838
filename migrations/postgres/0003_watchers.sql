-- The daemons to tell when a tournament changes: the channels of the listeners whose daemons
-- hold it in their cache (they read or created it since their listener connected). A write
-- notifies these channels only, apart from the writer's own, so a daemon hears of the
-- tournaments it follows and not of every write on the database, and a write that nobody else
-- follows sends no notification at all (PostgreSQL signals every listening backend of the
-- database for each notifying commit). Kept small by the daemons themselves: a listener that
-- is gone is removed from every tournament (see src/store/postgres.rs, "Watchers").
ALTER TABLE tournaments ADD COLUMN watchers TEXT[] NOT NULL DEFAULT '{}';
