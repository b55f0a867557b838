//! Tournaments in memory, in front of the durable store.
//!
//! Each tournament sits behind its own async mutex. A mutating call takes the lock, asks the
//! engine for the events the command produces, has the store commit them, applies them to the
//! cached state and only then returns: an acknowledged call is durable, and a failed write
//! leaves the cached state untouched.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use tokio::sync::Mutex;

use crate::store::{Store, StoreError, TournamentId};
use crate::tournament::{EngineError, Event, Tournament};

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("no tournament {0}")]
    NotFound(TournamentId),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Tournaments up to this size run their commands inline: pairing them takes well under a
/// millisecond, less than a trip to the blocking pool.
const INLINE_PLAYERS: usize = 512;

struct Slot {
    state: Tournament,
    /// Number of events stored so far: the sequence number of the next one.
    seq: u64,
}

pub struct Registry {
    store: Box<dyn Store>,
    tournaments: RwLock<HashMap<TournamentId, Arc<Mutex<Slot>>>>,
}

impl Registry {
    /// Loads every stored tournament and replays it.
    pub async fn open(store: Box<dyn Store>) -> Result<Registry, RegistryError> {
        let stored = store.load_all().await?;
        let mut map = HashMap::with_capacity(stored.len());
        for t in stored {
            let state = Tournament::replay(&t.events).map_err(|e| StoreError::Corrupt {
                id: t.id,
                seq: 0,
                message: e.to_string(),
            })?;
            let slot = Slot {
                state,
                seq: t.events.len() as u64,
            };
            map.insert(t.id, Arc::new(Mutex::new(slot)));
        }
        Ok(Registry {
            store,
            tournaments: RwLock::new(map),
        })
    }

    pub fn len(&self) -> usize {
        self.tournaments.read().map(|m| m.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the store can still record writes.
    pub fn health(&self) -> Result<(), StoreError> {
        self.store.health()
    }

    fn slot(&self, id: TournamentId) -> Result<Arc<Mutex<Slot>>, RegistryError> {
        // A poisoned lock only means another thread panicked mid-insert of a whole Arc; the
        // map itself is still consistent.
        let map = self.tournaments.read().unwrap_or_else(|p| p.into_inner());
        map.get(&id).cloned().ok_or(RegistryError::NotFound(id))
    }

    /// Stores a new tournament from its `Created` event and returns its id.
    pub async fn create(&self, created: Event) -> Result<TournamentId, RegistryError> {
        let state = Tournament::from_created(&created)?;
        let id = self.store.create(vec![created]).await?;
        let slot = Arc::new(Mutex::new(Slot { state, seq: 1 }));
        self.tournaments
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, slot);
        Ok(id)
    }

    /// Reads a tournament's current state.
    pub async fn read<R>(
        &self,
        id: TournamentId,
        f: impl FnOnce(&Tournament) -> R,
    ) -> Result<R, RegistryError> {
        let slot = self.slot(id)?;
        let guard = slot.lock().await;
        Ok(f(&guard.state))
    }

    /// Runs a command: `f` returns the events to store and the answer; the events are
    /// committed, then applied, then the answer is returned.
    ///
    /// For large tournaments the command (which may pair a round) runs on the blocking pool,
    /// so a big pairing never stalls the async workers serving other connections.
    pub async fn mutate<R, F>(&self, id: TournamentId, f: F) -> Result<R, RegistryError>
    where
        F: FnOnce(&Tournament) -> Result<(Vec<Event>, R), EngineError> + Send + 'static,
        R: Send + 'static,
    {
        let slot = self.slot(id)?;
        let mut guard = slot.lock_owned().await;
        let (events, answer) = if guard.state.players().len() > INLINE_PLAYERS {
            let (back, outcome) = tokio::task::spawn_blocking(move || {
                let outcome = f(&guard.state);
                (guard, outcome)
            })
            .await
            .map_err(|e| EngineError::Corrupt(format!("command panicked: {e}")))?;
            guard = back;
            outcome?
        } else {
            f(&guard.state)?
        };
        if !events.is_empty() {
            self.store.append(id, guard.seq, &events).await?;
            // The engine produced these events from this very state, so applying them cannot
            // fail short of a bug; the sequence number still advances so the log and the
            // cache never disagree on where the next event goes.
            guard.seq += events.len() as u64;
            for e in &events {
                guard.state.apply(e)?;
            }
        }
        Ok(answer)
    }

    /// Flushes and closes the store.
    pub async fn close(&self) -> Result<(), StoreError> {
        self.store.close().await
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::store::sqlite::SqliteStore;
    use crate::tournament::PairingMode;

    #[tokio::test]
    async fn a_dead_store_fails_the_call_at_once_and_leaves_the_state_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("t.db")).await.unwrap();
        let crash = store.crasher();
        let registry = Registry::open(Box::new(store)).await.unwrap();
        let created =
            Tournament::create(vec![1, 2, 3, 4], 0, false, PairingMode::default(), 1).unwrap();
        let id = registry.create(created).await.unwrap();
        registry.mutate(id, |t| t.checkout()).await.unwrap();
        assert!(registry.health().is_ok());
        crash();
        let call = registry.mutate(id, |t| t.checkout());
        let r = tokio::time::timeout(Duration::from_secs(10), call)
            .await
            .expect("a dead store answers, it does not hang");
        assert!(
            matches!(r, Err(RegistryError::Store(StoreError::WriterDied(_)))),
            "{:?}",
            r.map(|_| ())
        );
        // The failed call changed nothing: still one match out, and the next call fails too.
        let out = registry.read(id, |t| t.checked_out_matches().len()).await;
        assert_eq!(out.unwrap(), 1);
        let again = registry.mutate(id, |t| t.checkout()).await;
        assert!(matches!(again, Err(RegistryError::Store(_))));
        // And `/health` can tell.
        assert!(matches!(registry.health(), Err(StoreError::WriterDied(_))));
    }
}
