//! Tournaments in memory, in front of the durable store.
//!
//! Each tournament sits behind its own async mutex. A mutating call takes the lock, asks the
//! engine for the events the command produces, has the store commit them, applies them to the
//! cached state and only then returns: an acknowledged call is durable, and a failed write
//! leaves the cached state untouched.
//!
//! One [`Registry`] serves one engine ([`Engine`]): `matchmaker.*` and `tournament.*` each have
//! theirs, over the same store, whose ids are one space across both.
//!
//! On a store several daemons share (PostgreSQL), the cache may fall behind another daemon's
//! writes. Three things keep it right: a tournament missing from the cache is looked up in the
//! store on first access; an append that loses the race is refused by the store's
//! compare-and-set, and the registry catches up with the events it missed and runs the command
//! again on the fresh state ([`MAX_TRIES`] times at most, then a conflict error); and
//! [`Registry::follow`] applies the store's change feed as it arrives, so reads and
//! subscribers see other daemons' changes within moments.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::{Mutex, broadcast};

use crate::store::{
    HeadChange, LogKind, RawEvent, Store, StoreError, StoredTournament, TournamentId,
};

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

/// Runs of one command against a fresh state after losing a race to another daemon.
pub const MAX_TRIES: usize = 5;

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

/// Changes of the store's feed [`Registry::follow`] handles together at most (one store read).
const FOLLOW_BURST: usize = 1024;

struct Slot<E> {
    state: E,
    /// Number of events stored so far: the sequence number of the next one.
    seq: u64,
    /// An append failed without saying whether it landed (the database went away around
    /// its COMMIT): the next use reads the store's tail first, so no caller is answered
    /// from a cache that may lack an event that is in the log.
    unsure: bool,
}

/// A cached tournament: its state behind its lock, and its event count readable without the
/// lock (the change feed skips a change the cache already holds without waiting on a command).
struct Entry<E> {
    slot: Arc<Mutex<Slot<E>>>,
    seq: AtomicU64,
}

impl<E> Entry<E> {
    fn new(state: E, seq: u64) -> Arc<Entry<E>> {
        Arc::new(Entry {
            slot: Arc::new(Mutex::new(Slot {
                state,
                seq,
                unsure: false,
            })),
            seq: AtomicU64::new(seq),
        })
    }
}

type Entries<E> = HashMap<TournamentId, Arc<Entry<E>>>;

pub struct Registry<E: Engine> {
    store: Arc<dyn Store>,
    /// Whether other daemons may write the store too (it has a change feed).
    shared: bool,
    tournaments: RwLock<Entries<E>>,
    changes: broadcast::Sender<Change<E::Event>>,
}

fn decode<E: Engine>(
    id: TournamentId,
    from: u64,
    bodies: &[String],
) -> Result<Vec<E::Event>, StoreError> {
    bodies
        .iter()
        .enumerate()
        .map(|(k, body)| {
            serde_json::from_str(body).map_err(|e| StoreError::Corrupt {
                id,
                seq: from + k as u64,
                message: e.to_string(),
            })
        })
        .collect()
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
            let (state, events) = Self::replay_stored(t)?;
            map.insert(t.id, Entry::new(state, events.len() as u64));
        }
        Ok(Registry {
            shared: store.changes().is_some(),
            store,
            tournaments: RwLock::new(map),
            changes: broadcast::channel(CHANGES_BUFFER).0,
        })
    }

    fn replay_stored(t: &StoredTournament) -> Result<(E, Vec<E::Event>), StoreError> {
        let events = decode::<E>(t.id, 0, &t.events)?;
        let state = E::replay(&events).map_err(|e| StoreError::Corrupt {
            id: t.id,
            seq: 0,
            message: e.to_string(),
        })?;
        Ok((state, events))
    }

    /// Caches a tournament unless it is cached already (then the cached one wins) and
    /// publishes its creation if this call cached it. Returns the cached entry.
    fn insert(&self, id: TournamentId, state: E, events: Vec<E::Event>) -> Arc<Entry<E>> {
        let mut map = self.tournaments.write().unwrap_or_else(|p| p.into_inner());
        if let Some(entry) = map.get(&id) {
            return Arc::clone(entry);
        }
        let entry = Entry::new(state, events.len() as u64);
        // Published before the tournament can be found, so no change to it can come first.
        self.publish(|| Change::Created {
            id,
            events: Arc::new(events),
        });
        map.insert(id, Arc::clone(&entry));
        entry
    }

    /// Forgets a tournament deleted (by whoever) and tells subscribers, once.
    fn forget(&self, id: TournamentId) {
        let mut map = self.tournaments.write().unwrap_or_else(|p| p.into_inner());
        if map.remove(&id).is_some() {
            self.publish(|| Change::Deleted { id });
        }
    }

    /// Brings a cached tournament up to the store's head (another daemon wrote it), under its
    /// lock. A tournament the store no longer has is forgotten: `NotFound`.
    async fn catch_up(
        &self,
        id: TournamentId,
        entry: &Entry<E>,
        slot: &mut Slot<E>,
    ) -> Result<(), RegistryError<E::Error>> {
        let Some(t) = self.store.load_since(id, slot.seq).await? else {
            self.forget(id);
            return Err(RegistryError::NotFound(id));
        };
        self.apply_tail(id, entry, slot, slot.seq, &t.events)
    }

    /// Applies a tail of the log read from seq `from` (at most the slot's seq: the log only
    /// grows) under the tournament's lock: the events the slot does not hold yet.
    fn apply_tail(
        &self,
        id: TournamentId,
        entry: &Entry<E>,
        slot: &mut Slot<E>,
        from: u64,
        bodies: &[String],
    ) -> Result<(), RegistryError<E::Error>> {
        let skip = slot.seq.saturating_sub(from) as usize;
        if from > slot.seq || skip >= bodies.len() {
            return Ok(());
        }
        let events = decode::<E>(id, slot.seq, &bodies[skip..])?;
        for e in &events {
            slot.state.apply(e).map_err(RegistryError::Engine)?;
        }
        let first_seq = slot.seq;
        slot.seq += events.len() as u64;
        entry.seq.store(slot.seq, Ordering::Release);
        self.publish(|| Change::Appended {
            id,
            first_seq,
            events: Arc::new(events),
        });
        Ok(())
    }

    /// Applies the store's change feed (other daemons' writes, and this one's echoes) until
    /// the store goes away. Does nothing on a store with no feed. Spawn it once per registry.
    ///
    /// Changes are taken in bursts (everything the feed holds, up to [`FOLLOW_BURST`]) and the
    /// tournaments that moved are read back in one store call: under load a follower costs a
    /// query per burst, not one per write of every other daemon.
    pub async fn follow(&self) {
        let Some(mut feed) = self.store.changes() else {
            return;
        };
        loop {
            let mut burst = Vec::new();
            let mut resync = false;
            let mut closed = false;
            match feed.recv().await {
                Ok(change) if change.is_resync() => resync = true,
                Ok(change) => burst.push(change),
                // Changes were dropped: whatever they were, a check of every cached
                // tournament finds them.
                Err(broadcast::error::RecvError::Lagged(_)) => resync = true,
                Err(broadcast::error::RecvError::Closed) => return,
            }
            while burst.len() < FOLLOW_BURST {
                match feed.try_recv() {
                    Ok(change) if change.is_resync() => resync = true,
                    Ok(change) => burst.push(change),
                    Err(broadcast::error::TryRecvError::Lagged(_)) => resync = true,
                    Err(broadcast::error::TryRecvError::Empty) => break,
                    Err(broadcast::error::TryRecvError::Closed) => {
                        closed = true;
                        break;
                    }
                }
            }
            if resync {
                self.resync().await;
            } else {
                self.apply_changes(burst).await;
            }
            if closed {
                return;
            }
        }
    }

    async fn resync(&self) {
        // Chunks bound the size of one query; every cached tournament is read from its head.
        for ids in self.ids().chunks(FOLLOW_BURST) {
            let changes = ids.iter().map(|&id| HeadChange {
                id,
                kind: None,
                head: Some(u64::MAX),
            });
            self.apply_changes(changes.collect()).await;
        }
    }

    /// Brings the cache up to a burst of changes, in order per tournament: deletions forget,
    /// heads beyond the cached one are read (all in one store call) and applied, and
    /// tournaments of this engine created elsewhere are cached.
    async fn apply_changes(&self, burst: Vec<HeadChange>) {
        // What each tournament needs, in the order first heard of: `None` when it was
        // deleted, else the highest head heard of (`u64::MAX`: unknown, read it) and whether
        // it was created as one of this engine's.
        let mut order = Vec::new();
        let mut needs: HashMap<TournamentId, Option<(u64, bool)>> = HashMap::new();
        for change in burst {
            let need = change.head.map(|h| (h, change.kind == Some(E::KIND)));
            match needs.get_mut(&change.id) {
                None => {
                    order.push(change.id);
                    needs.insert(change.id, need);
                }
                // Deleted for good: ids are never given out again.
                Some(None) => {}
                Some(old @ Some(_)) => {
                    *old = match (*old, need) {
                        (Some((a, new_a)), Some((b, new_b))) => Some((a.max(b), new_a || new_b)),
                        _ => None,
                    }
                }
            }
        }
        let mut wants = Vec::new();
        let mut cached = Vec::new();
        for id in order {
            let entry = {
                let map = self.tournaments.read().unwrap_or_else(|p| p.into_inner());
                map.get(&id).cloned()
            };
            match (entry, needs[&id]) {
                (Some(_), None) => self.forget(id),
                (None, None) => {}
                (Some(entry), Some((head, _))) => {
                    let known = head != u64::MAX;
                    if known && entry.seq.load(Ordering::Acquire) >= head {
                        continue;
                    }
                    // This daemon's own write may be applying right now (its echo came
                    // first): wait for it rather than read what it is about to hold.
                    let seq = entry.slot.lock().await.seq;
                    if known && seq >= head {
                        continue;
                    }
                    wants.push((id, seq));
                    cached.push(Some(entry));
                }
                // Created elsewhere for this engine: cache it now, so subscribers hear of it.
                (None, Some((_, true))) => {
                    wants.push((id, 0));
                    cached.push(None);
                }
                // Another engine's, or one this daemon never cached: nothing to follow.
                (None, Some((_, false))) => {}
            }
        }
        if wants.is_empty() {
            return;
        }
        let tails = match self.store.load_tails(wants.clone()).await {
            Ok(tails) => tails,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read other daemons' changes");
                return;
            }
        };
        for (((id, from), entry), tail) in wants.into_iter().zip(cached).zip(tails) {
            let outcome = match (entry, tail) {
                (Some(_), None) => {
                    self.forget(id);
                    Ok(())
                }
                (Some(entry), Some(t)) => {
                    let mut slot = entry.slot.lock().await;
                    self.apply_tail(id, &entry, &mut slot, from, &t.events)
                }
                (None, Some(t)) if t.kind == E::KIND => Self::replay_stored(&t)
                    .map(|(state, events)| {
                        self.insert(id, state, events);
                    })
                    .map_err(RegistryError::from),
                (None, _) => Ok(()),
            };
            if let Err(e) = outcome {
                tracing::warn!(id, error = %e, "cannot apply another daemon's change");
            }
        }
    }

    /// Looks a tournament up in a shared store (another daemon created it) and caches it.
    async fn load(&self, id: TournamentId) -> Result<Arc<Entry<E>>, RegistryError<E::Error>> {
        match self.store.load_since(id, 0).await? {
            Some(t) if t.kind == E::KIND => {
                let (state, events) = Self::replay_stored(&t)?;
                Ok(self.insert(id, state, events))
            }
            _ => Err(RegistryError::NotFound(id)),
        }
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

    async fn slot(&self, id: TournamentId) -> Result<Arc<Entry<E>>, RegistryError<E::Error>> {
        let cached = {
            // A poisoned lock only means another thread panicked mid-insert of a whole Arc;
            // the map itself is still consistent.
            let map = self.tournaments.read().unwrap_or_else(|p| p.into_inner());
            map.get(&id).cloned()
        };
        match cached {
            Some(entry) => Ok(entry),
            // Only a shared store can hold a tournament this daemon has not seen; a single
            // daemon's cache is complete, so a bad id costs no query.
            None if self.shared && id > 0 => self.load(id).await,
            None => Err(RegistryError::NotFound(id)),
        }
    }

    /// Stores a new tournament from its first events and returns its id.
    pub async fn create(
        &self,
        events: Vec<E::Event>,
    ) -> Result<TournamentId, RegistryError<E::Error>> {
        let state = E::replay(&events).map_err(RegistryError::Engine)?;
        let id = self.store.create(E::KIND, encode::<E>(&events)?).await?;
        // The change feed may have cached it first; then that copy (the same log) stays.
        self.insert(id, state, events);
        Ok(id)
    }

    /// Reads a tournament's current state, with the number of events it has (its revision).
    pub async fn read<R>(
        &self,
        id: TournamentId,
        f: impl FnOnce(&E, u64) -> R,
    ) -> Result<R, RegistryError<E::Error>> {
        let entry = self.slot(id).await?;
        let mut guard = entry.slot.lock().await;
        if guard.unsure {
            self.catch_up(id, &entry, &mut guard).await?;
            guard.unsure = false;
        }
        Ok(f(&guard.state, guard.seq))
    }

    /// Runs a command: `f` sees the state and its revision (number of events) and returns the
    /// events to store and the answer; the events are committed, then applied, then the answer
    /// is returned.
    ///
    /// For heavy states the command (which may pair a round) runs on the blocking pool, so a
    /// big pairing never stalls the async workers serving other connections.
    ///
    /// `f` may run more than once: when another daemon wrote the tournament first, the
    /// registry catches up with its events and runs `f` again on the fresh state.
    pub async fn mutate<R, F>(&self, id: TournamentId, f: F) -> Result<R, RegistryError<E::Error>>
    where
        F: Fn(&E, u64) -> Result<(Vec<E::Event>, R), E::Error> + Send + Sync + 'static,
        R: Send + 'static,
    {
        let f = Arc::new(f);
        let entry = self.slot(id).await?;
        let mut slot = Arc::clone(&entry.slot).lock_owned().await;
        if slot.unsure {
            self.catch_up(id, &entry, &mut slot).await?;
            slot.unsure = false;
        }
        let mut tries = 0;
        let (first_seq, events, answer) = loop {
            tries += 1;
            let outcome = if slot.state.heavy() {
                let f = Arc::clone(&f);
                let (back, outcome) = tokio::task::spawn_blocking(move || {
                    let outcome = f(&slot.state, slot.seq);
                    (slot, outcome)
                })
                .await
                .map_err(|e| {
                    RegistryError::Engine(E::internal(format!("command panicked: {e}")))
                })?;
                slot = back;
                outcome
            } else {
                f(&slot.state, slot.seq)
            };
            let (events, answer) = match outcome {
                Ok(done) => done,
                // On a shared store the refusal may come from a cache behind another
                // daemon's writes (say, a commit of a match checked out there): judged again
                // on the fresh state, if there is one.
                Err(e) if self.shared && tries < MAX_TRIES => {
                    let before = slot.seq;
                    self.catch_up(id, &entry, &mut slot).await?;
                    if slot.seq == before {
                        return Err(RegistryError::Engine(e));
                    }
                    continue;
                }
                Err(e) => return Err(RegistryError::Engine(e)),
            };
            if events.is_empty() {
                return Ok(answer);
            }
            match self.store.append(id, slot.seq, encode::<E>(&events)?).await {
                Ok(()) => break (slot.seq, events, answer),
                Err(StoreError::Conflict { .. }) if tries < MAX_TRIES => {
                    self.catch_up(id, &entry, &mut slot).await?;
                }
                Err(e @ StoreError::Conflict { .. }) => {
                    // Other daemons kept winning: leave the cache current for the client's
                    // next try and say so.
                    self.catch_up(id, &entry, &mut slot).await?;
                    return Err(e.into());
                }
                Err(StoreError::NotFound(_)) => {
                    self.forget(id);
                    return Err(RegistryError::NotFound(id));
                }
                Err(e @ StoreError::Unavailable(_)) => {
                    slot.unsure = true;
                    return Err(e.into());
                }
                Err(e) => return Err(e.into()),
            }
        };
        {
            let guard = &mut *slot;
            // The engine produced these events from this very state, so applying them cannot
            // fail short of a bug; the sequence number still advances so the log and the
            // cache never disagree on where the next event goes.
            guard.seq += events.len() as u64;
            entry.seq.store(guard.seq, Ordering::Release);
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
        let entry = self.slot(id).await?;
        let _guard = entry.slot.lock().await;
        match self.store.delete(id).await {
            // Already deleted by another daemon: the outcome the caller asked for, but the
            // call did not do it.
            Ok(()) | Err(StoreError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
        self.forget(id);
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
