//! Integration tests: postgres.

mod cluster;
mod copy;
mod lost_commit;
mod rating_lists;
mod store;
