-- One row that a health check rewrites (with 64 KiB of padding) while commits are failing,
-- to learn whether the disk has room again without waiting for a client's write.
CREATE TABLE health_probe (
    id  INTEGER PRIMARY KEY,
    at  INTEGER NOT NULL,
    pad BLOB
);
