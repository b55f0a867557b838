-- Rating lists imported for the registration desk (src/ratings, src/rpc/rating_lists.rs): one
-- row per list ('egf', 'ffg', 'aga'), replaced whole by a newer import in one statement. `data`
-- is the file as imported (unpacked, in its own encoding): each daemon reads it again with its
-- own parser when it loads the list, so an older import reads as this goswiss reads files.
-- `digest` (SHA-256 of `data`, hex) and `imported_at` (ms since the epoch) tell the daemons
-- sharing the database that another one imported a newer list.
CREATE TABLE rating_lists (
    kind TEXT PRIMARY KEY,
    imported_at BIGINT NOT NULL,
    digest TEXT NOT NULL,
    list_date TEXT,
    entries BIGINT NOT NULL,
    source TEXT NOT NULL,
    data BYTEA NOT NULL
);
