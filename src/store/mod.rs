//! Durable store: each tournament is an append-only event log (DESIGN §3).
//!
//! The RPC layer only sees the [`Store`] trait, so a PostgreSQL implementation can sit beside
//! the SQLite one without touching handlers. An implementation must not return from `create` or
//! `append` before the events are durable: the caller acknowledges a client's call only then.

pub mod sqlite;

use std::future::Future;
use std::pin::Pin;

use crate::tournament::Event;

pub type TournamentId = i64;
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(String),
    #[error("event {seq} of tournament {id} already exists (another writer got there first)")]
    Conflict { id: TournamentId, seq: u64 },
    #[error("corrupt event {seq} of tournament {id}: {message}")]
    Corrupt {
        id: TournamentId,
        seq: u64,
        message: String,
    },
    #[error("the store is closed")]
    Closed,
    /// The store's writer stopped unexpectedly: no write can be recorded until a restart.
    #[error("{0}")]
    WriterDied(String),
}

/// A tournament's full log, as loaded at start-up.
pub struct StoredTournament {
    pub id: TournamentId,
    pub events: Vec<Event>,
}

pub trait Store: Send + Sync {
    /// Every tournament with its events in order.
    fn load_all(&self) -> StoreFuture<'_, Vec<StoredTournament>>;
    /// Allocates a new tournament id and stores its first events (seq 0..), atomically.
    fn create(&self, events: Vec<Event>) -> StoreFuture<'_, TournamentId>;
    /// Appends events at `first_seq`, `first_seq + 1`, ... in one transaction. Fails with
    /// [`StoreError::Conflict`] if any of those sequence numbers is taken.
    ///
    /// The events are borrowed only for the call itself (an implementation encodes them before
    /// it returns the future): the caller applies the very same events to its cached state
    /// once the future says they are durable, without a copy.
    fn append(&self, id: TournamentId, first_seq: u64, events: &[Event]) -> StoreFuture<'_, ()>;
    /// Flushes and closes; later calls fail with [`StoreError::Closed`].
    fn close(&self) -> StoreFuture<'_, ()>;
    /// Whether writes can still be recorded (for `/health`); cheap, no I/O.
    fn health(&self) -> Result<(), StoreError> {
        Ok(())
    }
}
