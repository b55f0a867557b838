-- Rating lists imported for the registration desk (src/ratings, src/rpc/rating_lists.rs): one
-- row per list ('egf', 'ffg', 'aga'), replaced whole by a newer import in one statement. `data`
-- is the file as imported (unpacked, in its own encoding): each daemon reads it again with its
-- own parser when it loads the list, so an older import reads as this goswiss reads files.
-- `digest` (SHA-256 of `data`, hex) and `imported_at` (ms since the epoch) tell daemons that
-- share the database when another one imported a newer list.
CREATE TABLE rating_lists (
    kind TEXT PRIMARY KEY,
    imported_at INTEGER NOT NULL,
    digest TEXT NOT NULL,
    list_date TEXT,
    entries INTEGER NOT NULL,
    source TEXT NOT NULL,
    data BLOB NOT NULL
);
