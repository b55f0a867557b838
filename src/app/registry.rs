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
//! [`Registry::follow`] takes the store's change feed as it arrives: a tournament with
//! subscribers here has other daemons' changes read and published within moments; for the
//! others it only notes which cached tournaments moved, and the next read or command of one of them reads its tail first (a
//! daemon does not decode the writes of tournaments nobody asks it about).
//!
//! Live notifications come from one feed per tournament ([`Registry::subscribe`]): created by
//! its first subscriber, shared by all of them, dropped with the last. A write reaches only
//! its own tournament's subscribers, so thousands of subscriptions to other tournaments cost
//! it nothing; a tournament nobody follows costs one map lookup per write.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex, RwLock};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::{Mutex, broadcast};

use crate::store::{
    HeadChange, LogKind, LogPage, Owner, RawEvent, Store, StoreError, StoredTournament,
    TournamentId,
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
    /// The refusal of a write that would take the log past its byte budget
    /// ([`Registry::with_byte_budget`]): `size` bytes stored, `adding` more asked for.
    fn log_full(budget: u64, size: u64, adding: u64) -> Self::Error;
    /// An event as live subscribers get it once it is event `seq` of the log: an engine may
    /// leave out what subscribers do not read and could be big (a game record's text), since
    /// a change waits in the subscribers' buffer until the slowest has read it.
    fn published(seq: u64, event: Self::Event) -> Self::Event {
        let _ = seq;
        event
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError<E: std::error::Error> {
    #[error("no tournament {0}")]
    NotFound(TournamentId),
    #[error(transparent)]
    Engine(E),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The call's budget ran out while its command waited for a turn at heavy work: the
    /// budget's error (-32012), nothing computed or recorded.
    #[error("{0}")]
    OverBudget(crate::app::AppError),
}

/// Runs of one command against a fresh state after losing a race to another daemon.
pub const MAX_TRIES: usize = 5;

/// A change to one tournament, as published to its [`Registry::subscribe`]rs once it is durable
/// and applied. Whoever wrote it (this daemon, or another one on a shared database whose writes
/// this daemon picked up), subscribers see the same stream, in the tournament's log order.
#[derive(Debug)]
pub enum Change<Ev> {
    /// `events` were appended at `first_seq`, `first_seq + 1`, ...
    Appended {
        id: TournamentId,
        first_seq: u64,
        events: Arc<Vec<Ev>>,
    },
    /// The tournament and its log are gone; `revision`: the events it had when this daemon
    /// forgot it (for a deletion by another daemon, the last this one had applied).
    Deleted { id: TournamentId, revision: u64 },
}

impl<Ev> Clone for Change<Ev> {
    fn clone(&self) -> Self {
        match self {
            Change::Appended {
                id,
                first_seq,
                events,
            } => Change::Appended {
                id: *id,
                first_seq: *first_seq,
                events: Arc::clone(events),
            },
            Change::Deleted { id, revision } => Change::Deleted {
                id: *id,
                revision: *revision,
            },
        }
    }
}

/// Changes of one tournament a slow subscriber may fall behind by before it is told it lagged.
/// A feed holds this many slots from its first subscriber on (tens of bytes each): one
/// tournament's writes come at a director's pace, so a few hundred is a long way behind.
pub const FEED_BUFFER: usize = 256;

/// The live feeds: one broadcast per tournament that has subscribers, none for the others.
type Feeds<Ev> = StdMutex<HashMap<TournamentId, broadcast::Sender<Change<Ev>>>>;

/// One subscription to one tournament's changes ([`Registry::subscribe`]). Dropping the last
/// subscription of a tournament drops its feed.
pub struct Subscription<Ev> {
    id: TournamentId,
    /// Always `Some` until dropped (taken out in `drop`, under the feeds' lock).
    rx: Option<broadcast::Receiver<Change<Ev>>>,
    feeds: Arc<Feeds<Ev>>,
}

impl<Ev> Subscription<Ev> {
    /// The tournament this follows.
    pub fn id(&self) -> TournamentId {
        self.id
    }

    /// The next change (cancel-safe). `Lagged(n)`: `n` changes were dropped because this
    /// subscriber fell [`FEED_BUFFER`] changes behind; it goes on with the oldest kept.
    pub async fn recv(&mut self) -> Result<Change<Ev>, broadcast::error::RecvError> {
        match self.rx.as_mut() {
            Some(rx) => rx.recv().await,
            None => Err(broadcast::error::RecvError::Closed),
        }
    }

    /// The next change if one is waiting.
    pub fn try_recv(&mut self) -> Result<Change<Ev>, broadcast::error::TryRecvError> {
        match self.rx.as_mut() {
            Some(rx) => rx.try_recv(),
            None => Err(broadcast::error::TryRecvError::Closed),
        }
    }
}

impl<Ev> Drop for Subscription<Ev> {
    fn drop(&mut self) {
        let mut feeds = self.feeds.lock().unwrap_or_else(|p| p.into_inner());
        // Dropped under the lock, so a subscriber arriving meanwhile either joins this feed
        // before the count is read or finds it gone and starts a new one.
        drop(self.rx.take());
        if feeds
            .get(&self.id)
            .is_some_and(|tx| tx.receiver_count() == 0)
        {
            feeds.remove(&self.id);
        }
    }
}

/// Changes of the store's feed [`Registry::follow`] handles together at most (one store read).
const FOLLOW_BURST: usize = 1024;

/// Bytes of event bodies read at once while a log is replayed from the store (at start, or
/// on first use on a shared database): a log is folded a page at a time, never held whole.
const REPLAY_PAGE_BYTES: usize = 4 << 20;

/// Events read at once while a log is replayed.
const REPLAY_PAGE_EVENTS: usize = 10_000;

struct Slot<E> {
    state: E,
    /// Number of events stored so far: the sequence number of the next one.
    seq: u64,
    /// Bytes of the stored events' bodies: what the log's byte budget counts.
    bytes: u64,
    /// An append failed without saying whether it landed (the database went away around
    /// its COMMIT): the next use reads the store's tail first, so no caller is answered
    /// from a cache that may lack an event that is in the log.
    unsure: bool,
    /// The session of the store's change feed this state was last read or created in
    /// ([`Store::feed_epoch`]): in any other, the feed may not tell this daemon of other
    /// daemons' writes to it, so the next use reads the tail first (which signs up again).
    epoch: u64,
}

/// A cached tournament: its state behind its lock, and its event count readable without the
/// lock (the change feed skips a change the cache already holds without waiting on a command).
struct Entry<E> {
    slot: Arc<Mutex<Slot<E>>>,
    seq: AtomicU64,
    /// The highest head the change feed reported that the cache was not known to hold (0:
    /// none, `u64::MAX`: unknown, check). With no subscriber the feed only notes it here, and
    /// the next read or command of this tournament reads the tail first.
    heard: AtomicU64,
}

impl<E> Entry<E> {
    fn new(state: E, seq: u64, bytes: u64, epoch: u64) -> Arc<Entry<E>> {
        Arc::new(Entry {
            slot: Arc::new(Mutex::new(Slot {
                state,
                seq,
                bytes,
                unsure: false,
                epoch,
            })),
            seq: AtomicU64::new(seq),
            heard: AtomicU64::new(0),
        })
    }
}

type Entries<E> = HashMap<TournamentId, Arc<Entry<E>>>;

pub struct Registry<E: Engine> {
    store: Arc<dyn Store>,
    /// Whether other daemons may write the store too (it has a change feed).
    shared: bool,
    tournaments: RwLock<Entries<E>>,
    /// Tournaments of this engine another daemon created that this one has not read yet: the
    /// change feed only notes them (for [`Registry::ids`]), and the first use reads one.
    elsewhere: StdMutex<HashSet<TournamentId>>,
    /// One feed per tournament with subscribers.
    feeds: Arc<Feeds<E::Event>>,
    /// Changes handed to subscribers so far, one per subscriber reached: what the feeds
    /// cost (tests, and the counter of live notifications).
    delivered: AtomicU64,
    /// The daemon's turns at heavy work (`max_heavy_calls`, see [`crate::app::work::take_turn`]):
    /// a heavy state's command (a big pairing) takes one, like a stateless heavy call. None:
    /// no limit (a registry outside a daemon).
    heavy: Option<Arc<tokio::sync::Semaphore>>,
    /// Most bytes of event bodies one log may hold (0: no limit): a write that would pass it
    /// is refused ([`Engine::log_full`]), nothing recorded.
    max_bytes: u64,
}

fn body_bytes<S: AsRef<str>>(bodies: &[S]) -> u64 {
    bodies.iter().map(|b| b.as_ref().len() as u64).sum()
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
        let shared = store.changes().is_some();
        // What another daemon sharing the store writes to these is not heard of (the whole
        // load signs this daemon up for none of them): each is read again on its first use.
        let epoch = if shared { u64::MAX } else { store.feed_epoch() };
        let mut map = HashMap::new();
        for t in logs.iter().filter(|t| t.kind == E::KIND) {
            let (state, events) = Self::replay_stored(t)?;
            let bytes = body_bytes(&t.events);
            map.insert(t.id, Entry::new(state, events.len() as u64, bytes, epoch));
        }
        Ok(Self::with_map(store, shared, map))
    }

    fn with_map(store: Arc<dyn Store>, shared: bool, map: Entries<E>) -> Registry<E> {
        Registry {
            shared,
            store,
            tournaments: RwLock::new(map),
            elsewhere: StdMutex::new(HashSet::new()),
            feeds: Arc::new(StdMutex::new(HashMap::new())),
            delivered: AtomicU64::new(0),
            heavy: None,
            max_bytes: 0,
        }
    }

    /// Replays every log of this engine's kind from the store, one log and one page of it at
    /// a time ([`Store::heads`], [`Store::load_page`]): what the daemon holds while it starts
    /// is the folded states and one page, never every log at once.
    pub async fn from_store(store: Arc<dyn Store>) -> Result<Registry<E>, StoreError> {
        let shared = store.changes().is_some();
        // As in `open`: on a shared store each is read again on its first use.
        let epoch = if shared { u64::MAX } else { store.feed_epoch() };
        let mut map = HashMap::new();
        for head in store.heads().await? {
            if head.kind != E::KIND {
                continue;
            }
            // Deleted by another daemon since the heads were read: nothing to serve.
            if let Some((state, seq, bytes)) = Self::fold_from(&*store, head.id).await? {
                map.insert(head.id, Entry::new(state, seq, bytes, epoch));
            }
        }
        Ok(Self::with_map(store, shared, map))
    }

    /// Folds one log read page by page: its state, number of events and bytes; `None` if the
    /// store does not have it (or it is another engine's).
    async fn fold_from(
        store: &dyn Store,
        id: TournamentId,
    ) -> Result<Option<(E, u64, u64)>, StoreError> {
        let mut state: Option<E> = None;
        let (mut seq, mut bytes) = (0u64, 0u64);
        loop {
            let Some(page) = store
                .load_page(id, seq, REPLAY_PAGE_EVENTS, REPLAY_PAGE_BYTES)
                .await?
            else {
                return Ok(None);
            };
            if page.kind != E::KIND {
                return Ok(None);
            }
            if page.events.is_empty() {
                break;
            }
            let events = decode::<E>(id, seq, &page.events)?;
            bytes += body_bytes(&page.events);
            drop(page.events);
            let corrupt = |k: usize, e: E::Error| StoreError::Corrupt {
                id,
                seq: seq + k as u64,
                message: e.to_string(),
            };
            match &mut state {
                None => state = Some(E::replay(&events).map_err(|e| corrupt(0, e))?),
                Some(s) => {
                    for (k, e) in events.iter().enumerate() {
                        s.apply(e).map_err(|e| corrupt(k, e))?;
                    }
                }
            }
            seq += events.len() as u64;
            if seq >= page.head {
                break;
            }
        }
        match state {
            Some(state) => Ok(Some((state, seq, bytes))),
            None => Err(StoreError::Corrupt {
                id,
                seq: 0,
                message: "empty log".into(),
            }),
        }
    }

    /// Caps each log at `max_bytes` bytes of event bodies (0: no cap).
    pub fn with_byte_budget(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// Refuses `adding` bytes more to a log of `size` bytes past the budget.
    fn check_budget(&self, size: u64, adding: u64) -> Result<(), RegistryError<E::Error>> {
        if self.max_bytes > 0 && size.saturating_add(adding) > self.max_bytes {
            return Err(RegistryError::Engine(E::log_full(
                self.max_bytes,
                size,
                adding,
            )));
        }
        Ok(())
    }

    /// A page of a tournament's log read from the store (see [`Store::load_page`]): the log is
    /// not kept in memory. `NotFound` when the store has no log of this engine by that id.
    pub async fn read_page(
        &self,
        id: TournamentId,
        from: u64,
        max_events: usize,
        max_bytes: usize,
    ) -> Result<LogPage, RegistryError<E::Error>> {
        match self
            .store
            .load_page(id, from, max_events, max_bytes)
            .await?
        {
            Some(page) if page.kind == E::KIND => Ok(page),
            _ => Err(RegistryError::NotFound(id)),
        }
    }

    /// The body of event `seq` of a tournament's log, read from the store.
    pub async fn read_event(
        &self,
        id: TournamentId,
        seq: u64,
    ) -> Result<String, RegistryError<E::Error>> {
        let page = self.read_page(id, seq, 1, 0).await?;
        page.events.into_iter().next().ok_or_else(|| {
            RegistryError::Store(StoreError::Corrupt {
                id,
                seq,
                message: format!("no event {seq} (the log has {})", page.head),
            })
        })
    }

    /// Heavy states' commands take one of these turns before they compute.
    pub fn with_heavy_turns(mut self, heavy: Arc<tokio::sync::Semaphore>) -> Self {
        self.heavy = Some(heavy);
        self
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

    /// Caches a tournament of `seq` events and `bytes` bytes of stored bodies unless it is
    /// cached already (then the cached one wins). Returns the cached entry. `epoch`: the
    /// feed's session before the store read or created it. Nothing is published: a
    /// subscriber reads the state after subscribing, so it starts from whichever copy this
    /// keeps.
    fn insert(
        &self,
        id: TournamentId,
        state: E,
        seq: u64,
        bytes: u64,
        epoch: u64,
    ) -> Arc<Entry<E>> {
        let mut map = self.tournaments.write().unwrap_or_else(|p| p.into_inner());
        self.not_elsewhere(id);
        if let Some(entry) = map.get(&id) {
            return Arc::clone(entry);
        }
        let entry = Entry::new(state, seq, bytes, epoch);
        map.insert(id, Arc::clone(&entry));
        entry
    }

    /// Forgets a tournament deleted (by whoever) and tells subscribers, once.
    fn forget(&self, id: TournamentId) {
        let mut map = self.tournaments.write().unwrap_or_else(|p| p.into_inner());
        self.not_elsewhere(id);
        if let Some(entry) = map.remove(&id) {
            let revision = entry.seq.load(Ordering::Acquire);
            self.publish(id, || Change::Deleted { id, revision });
        }
    }

    /// Drops `id` from the tournaments created elsewhere and not read yet.
    fn not_elsewhere(&self, id: TournamentId) {
        self.elsewhere
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
    }

    /// Brings a cached tournament up to the store's head (another daemon wrote it), under its
    /// lock. A tournament the store no longer has is forgotten: `NotFound`.
    async fn catch_up(
        &self,
        id: TournamentId,
        entry: &Entry<E>,
        slot: &mut Slot<E>,
    ) -> Result<(), RegistryError<E::Error>> {
        let epoch = self.store.feed_epoch();
        let Some(t) = self.store.load_since(id, slot.seq).await? else {
            self.forget(id);
            return Err(RegistryError::NotFound(id));
        };
        self.apply_tail(id, entry, slot, slot.seq, &t.events)?;
        slot.epoch = epoch;
        Ok(())
    }

    /// Before a read or a command, under the tournament's lock: reads the store's tail first if
    /// the cache may lack events of its log (an append whose COMMIT went unanswered, or a change
    /// another daemon made that the feed only noted).
    async fn refresh(
        &self,
        id: TournamentId,
        entry: &Entry<E>,
        slot: &mut Slot<E>,
    ) -> Result<(), RegistryError<E::Error>> {
        let heard = entry.heard.load(Ordering::Acquire);
        if slot.unsure || heard > slot.seq || slot.epoch != self.store.feed_epoch() {
            self.catch_up(id, entry, slot).await?;
            slot.unsure = false;
            // A head heard of meanwhile stays noted (the next use checks again).
            let _ = entry
                .heard
                .compare_exchange(heard, 0, Ordering::AcqRel, Ordering::Acquire);
        }
        Ok(())
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
        slot.bytes += body_bytes(&bodies[skip..]);
        entry.seq.store(slot.seq, Ordering::Release);
        self.publish(id, || Change::Appended {
            id,
            first_seq,
            events: Arc::new(Self::for_subscribers(first_seq, events)),
        });
        Ok(())
    }

    /// Applies the store's change feed (other daemons' writes, and this one's if the store
    /// echoes them) until the store goes away. Does nothing on a store with no feed. Spawn it once per registry.
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
    /// heads beyond the cached one are read (all in one store call) and applied when the
    /// tournament has subscribers here, or only noted when it has none, and tournaments of
    /// this engine created elsewhere are noted for [`Registry::ids`] (nobody can follow one
    /// before this daemon has read it, and reading it is what caches it).
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
                (None, None) => self.not_elsewhere(id),
                (Some(entry), Some((head, _))) => {
                    let known = head != u64::MAX;
                    if known && entry.seq.load(Ordering::Acquire) >= head {
                        continue;
                    }
                    // Nobody here follows it: the next use of the tournament reads its tail
                    // (if it is used on this daemon at all), rather than every daemon reading
                    // and decoding every other daemon's writes as they happen.
                    if !self.followed(id) {
                        entry.heard.fetch_max(head, Ordering::AcqRel);
                        continue;
                    }
                    // This daemon's own write may be applying right now (its echo came
                    // first): wait for it rather than read what it is about to hold.
                    let seq = entry.slot.lock().await.seq;
                    if known && seq >= head {
                        continue;
                    }
                    wants.push((id, seq));
                    cached.push(entry);
                }
                // Created elsewhere for this engine: noted (so listings name it), and read
                // on its first use here, if any (a subscription reads it too). Every daemon
                // reading and replaying every tournament every other daemon creates, at
                // creation, cost a store read per creation on each of them.
                (None, Some((_, true))) => {
                    self.elsewhere
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(id);
                }
                // Another engine's, or one this daemon never cached: nothing to follow.
                (None, Some((_, false))) => {}
            }
        }
        if wants.is_empty() {
            return;
        }
        let epoch = self.store.feed_epoch();
        let tails = match self.store.load_tails(wants.clone()).await {
            Ok(tails) => tails,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read other daemons' changes");
                return;
            }
        };
        for (((id, from), entry), tail) in wants.into_iter().zip(cached).zip(tails) {
            let outcome = match tail {
                None => {
                    self.forget(id);
                    Ok(())
                }
                Some(t) => {
                    let mut slot = entry.slot.lock().await;
                    let applied = self.apply_tail(id, &entry, &mut slot, from, &t.events);
                    if applied.is_ok() {
                        slot.epoch = epoch;
                    }
                    applied
                }
            };
            if let Err(e) = outcome {
                tracing::warn!(id, error = %e, "cannot apply another daemon's change");
            }
        }
    }

    /// Looks a tournament up in a shared store (another daemon created it) and caches it,
    /// reading its log a page at a time as the start-up does: never the whole log at once.
    async fn load(&self, id: TournamentId) -> Result<Arc<Entry<E>>, RegistryError<E::Error>> {
        let epoch = self.store.feed_epoch();
        match Self::fold_from(&*self.store, id).await? {
            Some((state, seq, bytes)) => Ok(self.insert(id, state, seq, bytes, epoch)),
            None => {
                self.not_elsewhere(id);
                Err(RegistryError::NotFound(id))
            }
        }
    }

    /// Every change to tournament `id` from now on, as it becomes durable (live notifications
    /// are built on this). The tournament need not exist (nor be cached) yet: a caller
    /// subscribes first and then reads the state, so that no change falls between the two.
    pub fn subscribe(&self, id: TournamentId) -> Subscription<E::Event> {
        let mut feeds = self.feeds.lock().unwrap_or_else(|p| p.into_inner());
        let rx = feeds
            .entry(id)
            .or_insert_with(|| broadcast::channel(FEED_BUFFER).0)
            .subscribe();
        Subscription {
            id,
            rx: Some(rx),
            feeds: Arc::clone(&self.feeds),
        }
    }

    /// Events appended from `first_seq` on, as subscribers get them ([`Engine::published`]).
    fn for_subscribers(first_seq: u64, events: Vec<E::Event>) -> Vec<E::Event> {
        events
            .into_iter()
            .enumerate()
            .map(|(k, e)| E::published(first_seq + k as u64, e))
            .collect()
    }

    /// Whether tournament `id` has subscribers on this daemon.
    fn followed(&self, id: TournamentId) -> bool {
        let feeds = self.feeds.lock().unwrap_or_else(|p| p.into_inner());
        feeds.contains_key(&id)
    }

    /// Tournaments with subscribers on this daemon: the feeds open.
    pub fn feeds(&self) -> usize {
        self.feeds.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Changes handed to subscribers since the registry opened, counted once per subscriber
    /// reached.
    pub fn delivered(&self) -> u64 {
        self.delivered.load(Ordering::Relaxed)
    }

    /// Publishes a change of tournament `id` to its subscribers; a tournament nobody follows
    /// (the common case) costs a lookup, and other tournaments' subscribers are never woken.
    fn publish(&self, id: TournamentId, change: impl FnOnce() -> Change<E::Event>) {
        let tx = {
            let feeds = self.feeds.lock().unwrap_or_else(|p| p.into_inner());
            feeds.get(&id).cloned()
        };
        // Sent outside the lock: waking a popular tournament's subscribers must not hold up
        // every other tournament's writes. A feed whose last subscriber left meanwhile has
        // nobody to tell (an error), and one who joined meanwhile reads the state after.
        if let Some(tx) = tx
            && let Ok(reached) = tx.send(change())
        {
            self.delivered.fetch_add(reached as u64, Ordering::Relaxed);
        }
    }

    /// The tournaments cached, and those another daemon created that this one has not read.
    pub fn len(&self) -> usize {
        self.ids().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ids of every tournament of this engine, ascending: those cached and those another
    /// daemon created that this one has not read yet (reading one caches it).
    pub fn ids(&self) -> Vec<TournamentId> {
        let map = self.tournaments.read().unwrap_or_else(|p| p.into_inner());
        let mut ids: Vec<_> = map.keys().copied().collect();
        ids.extend(
            self.elsewhere
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .copied(),
        );
        ids.sort_unstable();
        ids.dedup();
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
        let epoch = self.store.feed_epoch();
        let rows = encode::<E>(&events)?;
        let bytes: u64 = rows.iter().map(|r| r.body.len() as u64).sum();
        self.check_budget(0, bytes)?;
        let id = self.store.create(E::KIND, rows).await?;
        // The change feed may have cached it first; then that copy (the same log) stays.
        self.insert(id, state, events.len() as u64, bytes, epoch);
        Ok(id)
    }

    /// [`Registry::create`] counted against `owner` ([`Store::create_owned`]): `None` when the
    /// owner has its cap of tournaments already, and nothing was stored.
    pub async fn create_owned(
        &self,
        events: Vec<E::Event>,
        owner: Owner,
    ) -> Result<Option<TournamentId>, RegistryError<E::Error>> {
        let state = E::replay(&events).map_err(RegistryError::Engine)?;
        let epoch = self.store.feed_epoch();
        let rows = encode::<E>(&events)?;
        let bytes: u64 = rows.iter().map(|r| r.body.len() as u64).sum();
        self.check_budget(0, bytes)?;
        let created = self.store.create_owned(E::KIND, rows, owner).await?;
        if let Some(id) = created {
            self.insert(id, state, events.len() as u64, bytes, epoch);
        }
        Ok(created)
    }

    /// Reads a tournament's current state, with the number of events it has (its revision).
    pub async fn read<R>(
        &self,
        id: TournamentId,
        f: impl FnOnce(&E, u64) -> R,
    ) -> Result<R, RegistryError<E::Error>> {
        let entry = self.slot(id).await?;
        let mut guard = entry.slot.lock().await;
        self.refresh(id, &entry, &mut guard).await?;
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
        self.refresh(id, &entry, &mut slot).await?;
        let mut tries = 0;
        let (first_seq, events, answer, adding) = loop {
            tries += 1;
            let outcome = if slot.state.heavy() {
                // The wait for a turn counts against the call's budget, as the command's
                // own work does; the turn is held until the work ends.
                let turn = match &self.heavy {
                    Some(heavy) => Some(
                        crate::app::work::take_turn_within_budget(heavy)
                            .await
                            .map_err(RegistryError::OverBudget)?,
                    ),
                    None => None,
                };
                let f = Arc::clone(&f);
                let (back, outcome) = tokio::task::spawn_blocking(move || {
                    let _turn = turn;
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
            let rows = encode::<E>(&events)?;
            let adding: u64 = rows.iter().map(|r| r.body.len() as u64).sum();
            self.check_budget(slot.bytes, adding)?;
            match self.store.append(id, slot.seq, rows).await {
                Ok(()) => break (slot.seq, events, answer, adding),
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
            guard.bytes += adding;
            entry.seq.store(guard.seq, Ordering::Release);
            for e in &events {
                guard.state.apply(e).map_err(RegistryError::Engine)?;
            }
            // Published under the tournament's lock, so subscribers see its log in order.
            self.publish(id, || Change::Appended {
                id,
                first_seq,
                events: Arc::new(Self::for_subscribers(first_seq, events)),
            });
        }
        Ok(answer)
    }

    /// Deletes a tournament and its log. Calls already waiting on its lock finish first; later
    /// ones find no tournament.
    pub async fn delete(&self, id: TournamentId) -> Result<(), RegistryError<E::Error>> {
        match self
            .delete_if(id, |_, _| Ok::<(), std::convert::Infallible>(()))
            .await?
        {
            Ok(()) => Ok(()),
            Err(never) => match never {},
        }
    }

    /// [`Registry::delete`] if `allow` lets it: `allow` sees the current state and revision
    /// under the tournament's lock, in the same step as the deletion (so nothing that lands
    /// before, such as a new director token, escapes it). Its refusal is handed back and
    /// nothing is deleted.
    pub async fn delete_if<X>(
        &self,
        id: TournamentId,
        allow: impl FnOnce(&E, u64) -> Result<(), X>,
    ) -> Result<Result<(), X>, RegistryError<E::Error>> {
        let entry = self.slot(id).await?;
        let mut guard = entry.slot.lock().await;
        self.refresh(id, &entry, &mut guard).await?;
        if let Err(refused) = allow(&guard.state, guard.seq) {
            return Ok(Err(refused));
        }
        match self.store.delete(id).await {
            // Already deleted by another daemon: the outcome the caller asked for, but the
            // call did not do it.
            Ok(()) | Err(StoreError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
        self.forget(id);
        Ok(Ok(()))
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

    /// A store whose next append commits and then answers as if the connection had gone
    /// away around the COMMIT: what PostgreSQL's store reports when it cannot know.
    struct LostCommit {
        inner: SqliteStore,
        lose_next: std::sync::atomic::AtomicBool,
    }

    impl Store for LostCommit {
        fn load_all(&self) -> crate::store::StoreFuture<'_, Vec<StoredTournament>> {
            self.inner.load_all()
        }
        fn load_since(
            &self,
            id: TournamentId,
            from: u64,
        ) -> crate::store::StoreFuture<'_, Option<StoredTournament>> {
            self.inner.load_since(id, from)
        }
        fn create(
            &self,
            kind: LogKind,
            events: Vec<RawEvent>,
        ) -> crate::store::StoreFuture<'_, TournamentId> {
            self.inner.create(kind, events)
        }
        fn create_owned(
            &self,
            kind: LogKind,
            events: Vec<RawEvent>,
            owner: Owner,
        ) -> crate::store::StoreFuture<'_, Option<TournamentId>> {
            self.inner.create_owned(kind, events, owner)
        }
        fn append(
            &self,
            id: TournamentId,
            first_seq: u64,
            events: Vec<RawEvent>,
        ) -> crate::store::StoreFuture<'_, ()> {
            Box::pin(async move {
                self.inner.append(id, first_seq, events).await?;
                if self.lose_next.swap(false, Ordering::SeqCst) {
                    return Err(StoreError::Unavailable(
                        "storage unavailable: connection lost during COMMIT".into(),
                    ));
                }
                Ok(())
            })
        }
        fn delete(&self, id: TournamentId) -> crate::store::StoreFuture<'_, ()> {
            self.inner.delete(id)
        }
        fn close(&self) -> crate::store::StoreFuture<'_, ()> {
            self.inner.close()
        }
    }

    async fn lost_commit_registry() -> (
        tempfile::TempDir,
        Arc<LostCommit>,
        Registry<Tournament>,
        TournamentId,
        (i64, i64),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(LostCommit {
            inner: SqliteStore::open(dir.path().join("t.db")).await.unwrap(),
            lose_next: false.into(),
        });
        let registry = Registry::<Tournament>::open(store.clone(), &[]).unwrap();
        let created =
            Tournament::create(vec![1, 2, 3, 4], 0, false, PairingMode::default(), 1).unwrap();
        let id = registry.create(vec![created]).await.unwrap();
        let pair = registry.mutate(id, |t, _| t.checkout()).await.unwrap();
        (dir, store, registry, id, pair)
    }

    /// Commits `pair` through a store that loses the answer of that append.
    async fn commit_losing_the_answer(
        store: &LostCommit,
        registry: &Registry<Tournament>,
        id: TournamentId,
        pair: (i64, i64),
    ) {
        store.lose_next.store(true, Ordering::SeqCst);
        let r = registry
            .mutate(id, move |t, _| Ok((t.commit(pair, 1)?, ())))
            .await;
        assert!(
            matches!(r, Err(RegistryError::Store(StoreError::Unavailable(_)))),
            "{r:?}"
        );
        assert!(!store.lose_next.load(Ordering::SeqCst), "the append ran");
    }

    /// The events of `id` in the store, and how many of them record a result.
    async fn stored(store: &LostCommit, id: TournamentId) -> (usize, usize) {
        let log = store.inner.load_since(id, 0).await.unwrap().unwrap();
        let events = decode::<Tournament>(id, 0, &log.events).unwrap();
        let results = events
            .iter()
            .filter(|e| matches!(e, crate::matchmaker::Event::Committed { .. }))
            .count();
        (events.len(), results)
    }

    #[tokio::test]
    async fn after_an_ambiguous_commit_the_next_read_sees_the_event_that_landed() {
        let (_dir, store, registry, id, pair) = lost_commit_registry().await;
        commit_losing_the_answer(&store, &registry, id, pair).await;
        // The append landed: the next read must say so, not answer from the old cache
        // (which still has the match out, at revision 3).
        let (out, revision) = registry
            .read(id, |t, seq| (t.checked_out_matches().len(), seq))
            .await
            .unwrap();
        assert_eq!((out, revision), (0, 4));
        // A client that retries the call (it never got an answer) is refused, and the log
        // holds the result once.
        let again = registry
            .mutate(id, move |t, _| Ok((t.commit(pair, 1)?, ())))
            .await;
        assert!(
            matches!(
                again,
                Err(RegistryError::Engine(
                    crate::matchmaker::EngineError::NotCheckedOut
                ))
            ),
            "{:?}",
            again.map(|_| ())
        );
        assert_eq!(stored(&store, id).await, (4, 1));
    }

    #[tokio::test]
    async fn after_an_ambiguous_commit_a_retried_command_runs_on_the_landed_state() {
        let (_dir, store, registry, id, pair) = lost_commit_registry().await;
        commit_losing_the_answer(&store, &registry, id, pair).await;
        // No read in between: the retry itself must catch up before it judges the command,
        // so the result is not recorded a second time at seq 4 (which SQLite would refuse as
        // a conflict only because its head moved; the cache must not even try).
        let again = registry
            .mutate(id, move |t, _| Ok((t.commit(pair, 1)?, ())))
            .await;
        assert!(
            matches!(
                again,
                Err(RegistryError::Engine(
                    crate::matchmaker::EngineError::NotCheckedOut
                ))
            ),
            "{:?}",
            again.map(|_| ())
        );
        // The next command runs on the state with the result in it, at the right seq.
        let next = registry
            .mutate(id, |t, seq| Ok((t.checkout()?.0, seq)))
            .await;
        assert_eq!(next.unwrap(), 4);
        assert_eq!(stored(&store, id).await, (5, 1));
    }

    /// A store with a change feed the test drives by hand, standing in for PostgreSQL with
    /// another daemon writing: counts the tails the registry reads.
    struct Fed {
        inner: SqliteStore,
        feed: broadcast::Sender<HeadChange>,
        /// Reads of a log's tail (`load_since`): a whole log when from 0.
        tail_reads: AtomicU64,
        /// Pages read (`load_page`), as a log is replayed a page at a time.
        page_reads: AtomicU64,
    }

    impl Store for Fed {
        fn load_all(&self) -> crate::store::StoreFuture<'_, Vec<StoredTournament>> {
            self.inner.load_all()
        }
        fn load_since(
            &self,
            id: TournamentId,
            from: u64,
        ) -> crate::store::StoreFuture<'_, Option<StoredTournament>> {
            self.tail_reads.fetch_add(1, Ordering::SeqCst);
            self.inner.load_since(id, from)
        }
        fn load_page(
            &self,
            id: TournamentId,
            from: u64,
            max_events: usize,
            max_bytes: usize,
        ) -> crate::store::StoreFuture<'_, Option<crate::store::LogPage>> {
            self.page_reads.fetch_add(1, Ordering::SeqCst);
            self.inner.load_page(id, from, max_events, max_bytes)
        }
        fn create(
            &self,
            kind: LogKind,
            events: Vec<RawEvent>,
        ) -> crate::store::StoreFuture<'_, TournamentId> {
            self.inner.create(kind, events)
        }
        fn create_owned(
            &self,
            kind: LogKind,
            events: Vec<RawEvent>,
            owner: Owner,
        ) -> crate::store::StoreFuture<'_, Option<TournamentId>> {
            self.inner.create_owned(kind, events, owner)
        }
        fn append(
            &self,
            id: TournamentId,
            first_seq: u64,
            events: Vec<RawEvent>,
        ) -> crate::store::StoreFuture<'_, ()> {
            self.inner.append(id, first_seq, events)
        }
        fn delete(&self, id: TournamentId) -> crate::store::StoreFuture<'_, ()> {
            self.inner.delete(id)
        }
        fn close(&self) -> crate::store::StoreFuture<'_, ()> {
            self.inner.close()
        }
        fn changes(&self) -> Option<broadcast::Receiver<HeadChange>> {
            Some(self.feed.subscribe())
        }
    }

    /// A registry following a [`Fed`] store, one tournament in it, and a checkout "another
    /// daemon" appended behind the registry's back and announced on the feed.
    async fn written_elsewhere() -> (
        tempfile::TempDir,
        Arc<Fed>,
        Arc<Registry<Tournament>>,
        TournamentId,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Fed {
            inner: SqliteStore::open(dir.path().join("t.db")).await.unwrap(),
            feed: broadcast::channel(16).0,
            tail_reads: AtomicU64::new(0),
            page_reads: AtomicU64::new(0),
        });
        let registry = Arc::new(Registry::<Tournament>::open(store.clone(), &[]).unwrap());
        assert!(registry.shared);
        let created =
            Tournament::create(vec![1, 2, 3, 4], 0, false, PairingMode::default(), 1).unwrap();
        let id = registry.create(vec![created]).await.unwrap();
        let follower = Arc::clone(&registry);
        tokio::spawn(async move { follower.follow().await });
        // A feed only reaches receivers that exist when it sends.
        for _ in 0..1000 {
            if store.feed.receiver_count() > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(
            store.feed.receiver_count(),
            1,
            "the registry follows the feed"
        );
        (dir, store, registry, id)
    }

    /// What the other daemon does: a checkout on its own copy of the log, then the NOTIFY.
    async fn other_daemon_checks_out(store: &Fed, id: TournamentId) {
        let log = store.inner.load_since(id, 0).await.unwrap().unwrap();
        let events = decode::<Tournament>(id, 0, &log.events).unwrap();
        let theirs = Tournament::replay(&events).unwrap();
        let (new, _) = theirs.checkout().unwrap();
        let head = (events.len() + new.len()) as u64;
        store
            .inner
            .append(id, events.len() as u64, encode::<Tournament>(&new).unwrap())
            .await
            .unwrap();
        notify(store, id, None, Some(head));
    }

    #[tokio::test]
    async fn with_no_subscriber_another_daemons_change_is_read_on_the_next_use_only() {
        let (_dir, store, registry, id) = written_elsewhere().await;
        other_daemon_checks_out(&store, id).await;
        // The follower notes the change (head 3) without reading anything.
        let noted = || {
            let map = registry.tournaments.read().unwrap();
            map.get(&id)
                .is_some_and(|e| e.heard.load(Ordering::Acquire) >= 3)
        };
        for _ in 0..6000 {
            if noted() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(noted(), "the follower did not note the change in 60 s");
        assert_eq!(store.tail_reads.load(Ordering::SeqCst), 0);
        // The next read reads the tail once and sees the other daemon's checkout.
        let (out, seq) = registry
            .read(id, |t, seq| (t.checked_out_matches().len(), seq))
            .await
            .unwrap();
        assert_eq!((out, seq), (1, 3));
        assert_eq!(store.tail_reads.load(Ordering::SeqCst), 1);
        // Once caught up, reads come from the cache again.
        registry.read(id, |_, seq| seq).await.unwrap();
        assert_eq!(store.tail_reads.load(Ordering::SeqCst), 1);
        // And a command runs on the fresh state, without first losing a race at the store.
        let pair = registry.mutate(id, |t, _| t.checkout()).await.unwrap();
        let seq = registry.read(id, |_, seq| seq).await.unwrap();
        assert_eq!(seq, 4, "{pair:?}");
        assert_eq!(store.tail_reads.load(Ordering::SeqCst), 1);
    }

    /// The NOTIFY another daemon's write sends, as the store's change feed hands it on.
    fn notify(store: &Fed, id: TournamentId, kind: Option<LogKind>, head: Option<u64>) {
        store.feed.send(HeadChange { id, kind, head }).unwrap();
    }

    /// What another daemon's creation looks like here: the log in the store, then the NOTIFY.
    async fn other_daemon_creates(store: &Fed) -> TournamentId {
        let created =
            Tournament::create(vec![5, 6, 7, 8], 0, false, PairingMode::default(), 2).unwrap();
        let id = store
            .inner
            .create(
                LogKind::Matchmaker,
                encode::<Tournament>(&[created]).unwrap(),
            )
            .await
            .unwrap();
        notify(store, id, Some(LogKind::Matchmaker), Some(1));
        id
    }

    #[tokio::test]
    async fn with_no_subscriber_a_tournament_created_elsewhere_is_listed_and_read_on_first_use() {
        let (_dir, store, registry, mine) = written_elsewhere().await;
        let theirs = other_daemon_creates(&store).await;
        // Listed once the feed brought it, without a read of the store.
        for _ in 0..1000 {
            if registry.ids().contains(&theirs) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(registry.ids(), vec![mine, theirs]);
        assert_eq!(registry.len(), 2);
        assert_eq!(store.tail_reads.load(Ordering::SeqCst), 0);
        let pages_before = store.page_reads.load(Ordering::SeqCst);
        // The first use reads it, once; then it is cached like any other.
        let players = registry
            .read(theirs, |t, _| t.players().len())
            .await
            .unwrap();
        assert_eq!(players, 4);
        registry.read(theirs, |_, seq| seq).await.unwrap();
        // A page at a time, as at start: never the whole log in one read.
        assert_eq!(store.tail_reads.load(Ordering::SeqCst), 0);
        assert_eq!(store.page_reads.load(Ordering::SeqCst), pages_before + 1);
        assert_eq!(registry.ids(), vec![mine, theirs]);

        // One created, then deleted elsewhere before any use here, is listed, then not.
        let gone = other_daemon_creates(&store).await;
        for _ in 0..1000 {
            if registry.ids().contains(&gone) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(registry.ids(), vec![mine, theirs, gone]);
        store.inner.delete(gone).await.unwrap();
        notify(&store, gone, None, None);
        let mut listed = Vec::new();
        for _ in 0..1000 {
            listed = registry.ids();
            if !listed.contains(&gone) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(listed, vec![mine, theirs]);
        assert!(matches!(
            registry.read(gone, |_, seq| seq).await,
            Err(RegistryError::NotFound(_))
        ));
    }

    #[tokio::test]
    async fn with_a_subscriber_another_daemons_change_is_published_at_once() {
        let (_dir, store, registry, id) = written_elsewhere().await;
        let mut watch = registry.subscribe(id);
        other_daemon_checks_out(&store, id).await;
        let change = tokio::time::timeout(Duration::from_secs(10), watch.recv())
            .await
            .expect("published without any call")
            .unwrap();
        match change {
            Change::Appended {
                id: got,
                first_seq,
                events,
            } => assert_eq!((got, first_seq, events.len()), (id, 1, 2)),
            other => panic!("{other:?}"),
        }
        assert_eq!(store.tail_reads.load(Ordering::SeqCst), 1);
    }

    /// A registry over a fresh SQLite store and `n` matchmaker tournaments of 64 players
    /// (hundreds of writes each before they end).
    async fn with_tournaments(
        n: usize,
    ) -> (tempfile::TempDir, Registry<Tournament>, Vec<TournamentId>) {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("t.db")).await.unwrap();
        let registry = Registry::<Tournament>::open(Arc::new(store), &[]).unwrap();
        let mut ids = Vec::new();
        for seed in 0..n as u64 {
            let created =
                Tournament::create((1..=64).collect(), 0, false, PairingMode::default(), seed)
                    .unwrap();
            ids.push(registry.create(vec![created]).await.unwrap());
        }
        (dir, registry, ids)
    }

    /// One write: a checkout, or the commit of a match out.
    async fn write(registry: &Registry<Tournament>, id: TournamentId) {
        let out = registry
            .read(id, |t, _| t.checked_out_matches().first().copied())
            .await
            .unwrap();
        match out {
            Some(pair) => registry
                .mutate(id, move |t, _| Ok((t.commit(pair, 1)?, ())))
                .await
                .unwrap(),
            None => {
                registry.mutate(id, |t, _| t.checkout()).await.unwrap();
            }
        }
    }

    #[tokio::test]
    async fn a_write_reaches_its_own_tournaments_subscribers_and_no_others() {
        let (_dir, registry, ids) = with_tournaments(2).await;
        let (a, b) = (ids[0], ids[1]);
        let mut theirs: Vec<_> = (0..5000).map(|_| registry.subscribe(b)).collect();
        let mut mine = registry.subscribe(a);
        assert_eq!(
            registry.feeds(),
            2,
            "one feed per tournament, however many follow"
        );
        let before = registry.delivered();
        for _ in 0..20 {
            write(&registry, a).await;
        }
        // A's one subscriber got each change; B's 5,000 were never handed anything.
        assert_eq!(registry.delivered() - before, 20);
        assert!(
            theirs
                .iter_mut()
                .all(|s| matches!(s.try_recv(), Err(broadcast::error::TryRecvError::Empty)))
        );
        let mut next = 1;
        for _ in 0..20 {
            match mine.try_recv() {
                Ok(Change::Appended {
                    id,
                    first_seq,
                    events,
                }) => {
                    assert_eq!((id, first_seq), (a, next));
                    next += events.len() as u64;
                }
                other => panic!("{other:?}"),
            }
        }
        // A write to B reaches all of them.
        write(&registry, b).await;
        assert_eq!(registry.delivered() - before, 20 + 5000);
        assert!(theirs.iter_mut().all(|s| s.try_recv().is_ok()));
        // The feeds go with their last subscriber.
        theirs.truncate(1);
        assert_eq!(registry.feeds(), 2);
        drop(theirs);
        assert_eq!(registry.feeds(), 1);
        drop(mine);
        assert_eq!(registry.feeds(), 0);
        write(&registry, a).await;
        assert_eq!(registry.delivered() - before, 20 + 5000);
        // A new subscriber after the feed went starts a new one.
        let mut again = registry.subscribe(a);
        write(&registry, a).await;
        assert!(matches!(again.try_recv(), Ok(Change::Appended { id, .. }) if id == a));
    }

    #[tokio::test]
    async fn subscribers_of_other_tournaments_cost_a_write_no_cpu() {
        let (_dir, registry, ids) = with_tournaments(2).await;
        let (a, b) = (ids[0], ids[1]);
        let registry = Arc::new(registry);
        // Warm up (the store's first writes, the allocator), then the cost of 100 writes with
        // nobody subscribed anywhere, on this thread (the test's runtime has one thread, so
        // every task woken by a write runs here and is counted).
        for _ in 0..20 {
            write(&registry, a).await;
        }
        let cpu = cpu_time::ThreadTime::now();
        for _ in 0..100 {
            write(&registry, a).await;
        }
        let alone = cpu.elapsed();
        // 5,000 subscribers of B, each a task waiting for its next change.
        let woken = Arc::new(AtomicU64::new(0));
        let mut tasks = Vec::new();
        for _ in 0..5000 {
            let mut sub = registry.subscribe(b);
            let woken = Arc::clone(&woken);
            tasks.push(tokio::spawn(async move {
                while sub.recv().await.is_ok() {
                    woken.fetch_add(1, Ordering::Relaxed);
                }
            }));
        }
        tokio::task::yield_now().await;
        let cpu = cpu_time::ThreadTime::now();
        for _ in 0..100 {
            write(&registry, a).await;
        }
        let beside = cpu.elapsed();
        tokio::task::yield_now().await;
        assert_eq!(woken.load(Ordering::Relaxed), 0, "B's subscribers slept");
        // One global feed woke every subscriber on every write: 500,000 wake-ups here, about
        // half a second. The slack only absorbs noise; the factor is generous.
        assert!(
            beside <= alone * 3 + Duration::from_millis(50),
            "100 writes: {alone:?} alone, {beside:?} beside 5,000 idle subscriptions"
        );
        // And they hear of B's own writes.
        write(&registry, b).await;
        for _ in 0..1000 {
            if woken.load(Ordering::Relaxed) == 5000 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(woken.load(Ordering::Relaxed), 5000);
        for t in tasks {
            t.abort();
        }
    }

    #[tokio::test]
    async fn a_deletion_ends_the_feed_with_the_revision_it_had() {
        let (_dir, registry, ids) = with_tournaments(2).await;
        let mut sub = registry.subscribe(ids[0]);
        let mut other = registry.subscribe(ids[1]);
        write(&registry, ids[0]).await;
        let seq = registry.read(ids[0], |_, seq| seq).await.unwrap();
        registry.delete(ids[0]).await.unwrap();
        assert!(matches!(sub.try_recv(), Ok(Change::Appended { .. })));
        match sub.try_recv() {
            Ok(Change::Deleted { id, revision }) => assert_eq!((id, revision), (ids[0], seq)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            other.try_recv(),
            Err(broadcast::error::TryRecvError::Empty)
        ));
    }

    #[tokio::test]
    async fn a_subscriber_that_falls_behind_is_told_it_lagged() {
        let (_dir, registry, ids) = with_tournaments(2).await;
        let mut slow = registry.subscribe(ids[0]);
        let mut elsewhere = registry.subscribe(ids[1]);
        for _ in 0..FEED_BUFFER + 10 {
            write(&registry, ids[0]).await;
        }
        assert!(matches!(
            slow.recv().await,
            Err(broadcast::error::RecvError::Lagged(10))
        ));
        // It goes on with the oldest change kept; another tournament's follower lost nothing.
        assert!(matches!(slow.recv().await, Ok(Change::Appended { .. })));
        assert!(matches!(
            elsewhere.try_recv(),
            Err(broadcast::error::TryRecvError::Empty)
        ));
    }

    /// A `tournament.*` tournament with a 300 kB record on its one game, set and then
    /// corrected three times (keeping it, and sending it again).
    async fn with_a_record(
        registry: &Registry<crate::tournament::Tournament>,
    ) -> (TournamentId, String) {
        use crate::tournament::Tournament as T;
        use crate::tournament::model::{Game, Outcome, Player, Settings, System};
        use crate::tournament::results::{RecordChange, ResultInput};
        let created = T::create(
            Settings {
                name: "Records".into(),
                rounds: 3,
                ..Settings::defaults(System::Mcmahon)
            },
            1,
        )
        .unwrap();
        let id = registry.create(vec![created]).await.unwrap();
        for name in ["A", "B"] {
            let p = Player {
                name: name.into(),
                ..Player::default()
            };
            registry
                .mutate(id, move |t, _| t.register_player(p.clone()))
                .await
                .unwrap();
        }
        let game = Game {
            table: 1,
            white: 1,
            black: 2,
            komi2: 13,
            ..Game::default()
        };
        registry
            .mutate(id, move |t, _| {
                t.set_round(1, vec![game.clone()], vec![]).map(|e| (e, ()))
            })
            .await
            .unwrap();
        let sgf = format!(
            "(;GM[1]FF[4]SZ[19]KM[6.5]RE[W+R];B[pd]C[{}])",
            "c".repeat(300_000)
        );
        for (k, change) in [
            RecordChange::Set(sgf.clone()),
            RecordChange::Keep,
            RecordChange::Set(sgf.clone()),
            RecordChange::Keep,
        ]
        .into_iter()
        .enumerate()
        {
            let input = ResultInput {
                outcome: Outcome::WhiteWins,
                forfeit: k % 2 == 1,
                record: change,
                strict: false,
            };
            registry
                .mutate(id, move |t, _| t.set_result(1, 1, input.clone()))
                .await
                .unwrap();
        }
        (id, sgf)
    }

    /// What a tournament's resident state takes, as its JSON.
    async fn resident(
        registry: &Registry<crate::tournament::Tournament>,
        id: TournamentId,
    ) -> usize {
        registry
            .read(id, |t, _| serde_json::to_string(t).unwrap().len())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn records_stay_in_the_store_and_the_log_is_counted_across_a_restart() {
        use crate::tournament::Tournament as T;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.unwrap());
        let registry = Registry::<T>::open(Arc::clone(&store), &[]).unwrap();
        let (id, sgf) = with_a_record(&registry).await;
        let size = resident(&registry, id).await;
        assert!(size < 20_000, "the state holds {size} bytes");
        // The record is stored once: the log is one record and small events.
        let log = store.load_since(id, 0).await.unwrap().unwrap();
        let stored = body_bytes(&log.events);
        assert!(stored > 300_000 && stored < 320_000, "{stored}");
        let at = registry
            .read(id, |t, _| t.game(1, 1).unwrap().record.clone().unwrap())
            .await
            .unwrap();
        let text: serde_json::Value =
            serde_json::from_str(&registry.read_event(id, at.text_seq).await.unwrap()).unwrap();
        assert_eq!(text["record"]["sgf"], serde_json::json!(sgf));
        store.close().await.unwrap();
        drop(registry);

        // Reopened: replayed a page at a time, the record still out of the state, and the
        // byte budget counts the stored log: 10 bytes more than it holds is refused.
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.unwrap());
        let registry = Registry::<T>::from_store(Arc::clone(&store))
            .await
            .unwrap()
            .with_byte_budget(stored + 10);
        assert_eq!(resident(&registry, id).await, size);
        let rev = registry.read(id, |_, rev| rev).await.unwrap();
        let archive = registry
            .mutate(id, |t, _| t.archive(true).map(|e| (e, ())))
            .await;
        assert!(
            matches!(
                &archive,
                Err(RegistryError::Engine(crate::tournament::TournamentError::LogFull {
                    budget, size, ..
                })) if *budget == stored + 10 && *size == stored
            ),
            "{archive:?}"
        );
        assert_eq!(registry.read(id, |_, rev| rev).await.unwrap(), rev);
        assert_eq!(
            store.load_since(id, 0).await.unwrap().unwrap().events.len() as u64,
            rev
        );
    }
}
