//! Tournaments in memory, in front of the durable store.
//!
//! Each tournament sits behind its own async mutex. A mutating call takes the lock, asks the
//! engine for the events the command produces, has the store commit them, applies them to the
//! cached state and only then returns: an acknowledged call is durable, and a failed write
//! leaves the cached state untouched.
//!
//! One [`Registry`] serves one engine ([`Engine`]): `matchmaker.*` and `tournament.*` each have
//! theirs, over the same store, whose ids are one space across both.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::{Mutex, broadcast};

use crate::store::{LogKind, RawEvent, Store, StoreError, StoredTournament, TournamentId};

/// What the registry needs of an event-sourced engine. The engines themselves know nothing of
/// the store (docs/architecture.md): the RPC namespace that serves an engine implements this for it.
pub trait Engine: Sized + Send + Sync + 'static {
    type Event: Serialize + DeserializeOwned + Send + Sync + 'static;
    type Error: std::error::Error + Send + 'static;
    /// The store's tag for this engine's logs.
    const KIND: LogKind;
    /// Builds the state from a whole log (the first event creates it).
    fn replay(events: &[Self::Event]) -> Result<Self, Self::Error>;
    fn apply(&mut self, event: &Self::Event) -> Result<(), Self::Error>;
    /// The variant's name, stored beside the body for people reading the database.
    fn event_kind(event: &Self::Event) -> &'static str;
    /// Whether commands on this state may take long enough (a big pairing) to belong on the
    /// blocking pool rather than inline on an async worker.
    fn heavy(&self) -> bool;
    /// The error for a command that panicked: a bug, reported as an engine error.
    fn internal(message: String) -> Self::Error;
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError<E: std::error::Error> {
    #[error("no tournament {0}")]
    NotFound(TournamentId),
    #[error(transparent)]
    Engine(E),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A change to one tournament, as published to [`Registry::subscribe`]rs once it is durable and
/// applied. Whoever wrote it (this daemon, or another one on a shared database whose writes
/// this daemon picked up), subscribers see the same stream, in each tournament's log order.
#[derive(Debug)]
pub enum Change<Ev> {
    Created {
        id: TournamentId,
        events: Arc<Vec<Ev>>,
    },
    /// `events` were appended at `first_seq`, `first_seq + 1`, ...
    Appended {
        id: TournamentId,
        first_seq: u64,
        events: Arc<Vec<Ev>>,
    },
    Deleted {
        id: TournamentId,
    },
}

impl<Ev> Clone for Change<Ev> {
    fn clone(&self) -> Self {
        match self {
            Change::Created { id, events } => Change::Created {
                id: *id,
                events: Arc::clone(events),
            },
            Change::Appended {
                id,
                first_seq,
                events,
            } => Change::Appended {
                id: *id,
                first_seq: *first_seq,
                events: Arc::clone(events),
            },
            Change::Deleted { id } => Change::Deleted { id: *id },
        }
    }
}

/// Changes a slow subscriber may fall behind by before it is told it lagged.
const CHANGES_BUFFER: usize = 4096;

struct Slot<E> {
    state: E,
    /// Number of events stored so far: the sequence number of the next one.
    seq: u64,
}

pub struct Registry<E: Engine> {
    store: Arc<dyn Store>,
    tournaments: RwLock<HashMap<TournamentId, Arc<Mutex<Slot<E>>>>>,
    changes: broadcast::Sender<Change<E::Event>>,
}

fn encode<E: Engine>(events: &[E::Event]) -> Result<Vec<RawEvent>, StoreError> {
    events
        .iter()
        .map(|e| {
            Ok(RawEvent {
                kind: E::event_kind(e),
                body: serde_json::to_string(e)
                    .map_err(|e| StoreError::Database(format!("encoding an event: {e}")))?,
            })
        })
        .collect()
}

impl<E: Engine> Registry<E> {
    /// Replays the logs of this engine's kind (others are left to their own registry).
    pub fn open(
        store: Arc<dyn Store>,
        logs: &[StoredTournament],
    ) -> Result<Registry<E>, StoreError> {
        let mut map = HashMap::new();
        for t in logs.iter().filter(|t| t.kind == E::KIND) {
            let corrupt = |seq: usize, message: String| StoreError::Corrupt {
                id: t.id,
                seq: seq as u64,
                message,
            };
            let events = t
                .events
                .iter()
                .enumerate()
                .map(|(seq, body)| {
                    serde_json::from_str(body).map_err(|e| corrupt(seq, e.to_string()))
                })
                .collect::<Result<Vec<E::Event>, _>>()?;
            let state = E::replay(&events).map_err(|e| corrupt(0, e.to_string()))?;
            let slot = Slot {
                state,
                seq: events.len() as u64,
            };
            map.insert(t.id, Arc::new(Mutex::new(slot)));
        }
        Ok(Registry {
            store,
            tournaments: RwLock::new(map),
            changes: broadcast::channel(CHANGES_BUFFER).0,
        })
    }

    /// Every change from now on, as it becomes durable (live notifications are built on this).
    pub fn subscribe(&self) -> broadcast::Receiver<Change<E::Event>> {
        self.changes.subscribe()
    }

    /// Publishes a change; with no subscriber (the common case) this costs nothing.
    fn publish(&self, change: impl FnOnce() -> Change<E::Event>) {
        if self.changes.receiver_count() > 0 {
            // An error only means every subscriber left meanwhile.
            let _ = self.changes.send(change());
        }
    }

    pub fn len(&self) -> usize {
        self.tournaments.read().map(|m| m.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ids of every tournament of this engine, ascending.
    pub fn ids(&self) -> Vec<TournamentId> {
        let map = self.tournaments.read().unwrap_or_else(|p| p.into_inner());
        let mut ids: Vec<_> = map.keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// Whether the store can still record writes.
    pub fn health(&self) -> Result<(), StoreError> {
        self.store.health()
    }

    fn slot(&self, id: TournamentId) -> Result<Arc<Mutex<Slot<E>>>, RegistryError<E::Error>> {
        // A poisoned lock only means another thread panicked mid-insert of a whole Arc; the
        // map itself is still consistent.
        let map = self.tournaments.read().unwrap_or_else(|p| p.into_inner());
        map.get(&id).cloned().ok_or(RegistryError::NotFound(id))
    }

    /// Stores a new tournament from its first events and returns its id.
    pub async fn create(
        &self,
        events: Vec<E::Event>,
    ) -> Result<TournamentId, RegistryError<E::Error>> {
        let state = E::replay(&events).map_err(RegistryError::Engine)?;
        let id = self.store.create(E::KIND, encode::<E>(&events)?).await?;
        let slot = Arc::new(Mutex::new(Slot {
            state,
            seq: events.len() as u64,
        }));
        // Published before the tournament can be found, so no change to it can come first.
        self.publish(|| Change::Created {
            id,
            events: Arc::new(events),
        });
        self.tournaments
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, slot);
        Ok(id)
    }

    /// Reads a tournament's current state, with the number of events it has (its revision).
    pub async fn read<R>(
        &self,
        id: TournamentId,
        f: impl FnOnce(&E, u64) -> R,
    ) -> Result<R, RegistryError<E::Error>> {
        let slot = self.slot(id)?;
        let guard = slot.lock().await;
        Ok(f(&guard.state, guard.seq))
    }

    /// Runs a command: `f` sees the state and its revision (number of events) and returns the
    /// events to store and the answer; the events are committed, then applied, then the answer
    /// is returned.
    ///
    /// For heavy states the command (which may pair a round) runs on the blocking pool, so a
    /// big pairing never stalls the async workers serving other connections.
    pub async fn mutate<R, F>(&self, id: TournamentId, f: F) -> Result<R, RegistryError<E::Error>>
    where
        F: FnOnce(&E, u64) -> Result<(Vec<E::Event>, R), E::Error> + Send + 'static,
        R: Send + 'static,
    {
        let slot = self.slot(id)?;
        let mut guard = slot.lock_owned().await;
        let (events, answer) = if guard.state.heavy() {
            let (back, outcome) = tokio::task::spawn_blocking(move || {
                let outcome = f(&guard.state, guard.seq);
                (guard, outcome)
            })
            .await
            .map_err(|e| RegistryError::Engine(E::internal(format!("command panicked: {e}"))))?;
            guard = back;
            outcome.map_err(RegistryError::Engine)?
        } else {
            f(&guard.state, guard.seq).map_err(RegistryError::Engine)?
        };
        if !events.is_empty() {
            self.store
                .append(id, guard.seq, encode::<E>(&events)?)
                .await?;
            // The engine produced these events from this very state, so applying them cannot
            // fail short of a bug; the sequence number still advances so the log and the
            // cache never disagree on where the next event goes.
            let first_seq = guard.seq;
            guard.seq += events.len() as u64;
            for e in &events {
                guard.state.apply(e).map_err(RegistryError::Engine)?;
            }
            // Published under the tournament's lock, so subscribers see its log in order.
            self.publish(|| Change::Appended {
                id,
                first_seq,
                events: Arc::new(events),
            });
        }
        Ok(answer)
    }

    /// Deletes a tournament and its log. Calls already waiting on its lock finish first; later
    /// ones find no tournament.
    pub async fn delete(&self, id: TournamentId) -> Result<(), RegistryError<E::Error>> {
        let slot = self.slot(id)?;
        let _guard = slot.lock().await;
        self.store.delete(id).await?;
        self.tournaments
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        self.publish(|| Change::Deleted { id });
        Ok(())
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
    use crate::matchmaker::{PairingMode, Tournament};
    use crate::store::sqlite::SqliteStore;

    #[tokio::test]
    async fn a_dead_store_fails_the_call_at_once_and_leaves_the_state_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("t.db")).await.unwrap();
        let crash = store.crasher();
        let registry = Registry::<Tournament>::open(Arc::new(store), &[]).unwrap();
        let created =
            Tournament::create(vec![1, 2, 3, 4], 0, false, PairingMode::default(), 1).unwrap();
        let id = registry.create(vec![created]).await.unwrap();
        registry.mutate(id, |t, _| t.checkout()).await.unwrap();
        assert!(registry.health().is_ok());
        crash();
        let call = registry.mutate(id, |t, _| t.checkout());
        let r = tokio::time::timeout(Duration::from_secs(10), call)
            .await
            .expect("a dead store answers, it does not hang");
        assert!(
            matches!(r, Err(RegistryError::Store(StoreError::WriterDied(_)))),
            "{:?}",
            r.map(|_| ())
        );
        // The failed call changed nothing: still one match out, and the next call fails too.
        let out = registry
            .read(id, |t, _| t.checked_out_matches().len())
            .await;
        assert_eq!(out.unwrap(), 1);
        let again = registry.mutate(id, |t, _| t.checkout()).await;
        assert!(matches!(again, Err(RegistryError::Store(_))));
        // And `/health` can tell.
        assert!(matches!(registry.health(), Err(StoreError::WriterDied(_))));
    }
}
