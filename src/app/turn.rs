//! How long a request keeps its turn at heavy work: until its reply has been written out.
//!
//! A heavy call's answer can be hundreds of megabytes, and it is held in memory for as long as
//! its client takes to read it. Were the turn (one of `max_heavy_calls`, see
//! [`super::work::take_turn`]) given back when the work ended, slow readers could pile up any number
//! of big answers. So the turn a request's work took is kept for the request
//! ([`holding_turn`]: a `system.multicall`'s or a JSON-RPC batch's later heavy calls reuse it
//! rather than take a second one), handed with the reply to the connection's [`Outbox`], and
//! given back when the connection has written that many more bytes, or is gone.
//!
//! A turn sitting in a request must never wait on a tournament's lock, whose holder may be
//! waiting for a turn: multicalls and batches [`give_back`] theirs before a call that may take
//! one, and a handler calls `off_workers` after its last lock wait (the views, the import).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::OwnedSemaphorePermit;

tokio::task_local! {
    /// The turn of the request being served on this task, between two of its heavy calls.
    static REQUEST_TURN: RefCell<Option<OwnedSemaphorePermit>>;
}

/// Runs `fut`, a request's calls, keeping the turn their heavy work took; returns it with the
/// output, for the caller to hold until the reply is written out ([`Outbox::hold_until_sent`]).
/// Inside another request's scope (a call of a batch) the turn stays with that request and
/// `None` is returned.
pub async fn holding_turn<F: Future>(fut: F) -> (F::Output, Option<OwnedSemaphorePermit>) {
    if REQUEST_TURN.try_with(|_| ()).is_ok() {
        return (fut.await, None);
    }
    REQUEST_TURN
        .scope(RefCell::new(None), async {
            let out = fut.await;
            let turn = REQUEST_TURN.with(|t| t.borrow_mut().take());
            (out, turn)
        })
        .await
}

/// The turn the current request holds already, if any (taken from it: give it back with
/// [`keep`] when the work is done).
pub(crate) fn reuse() -> Option<OwnedSemaphorePermit> {
    REQUEST_TURN
        .try_with(|t| t.borrow_mut().take())
        .ok()
        .flatten()
}

/// Gives back the turn the current request holds between its calls, before a call that may
/// wait on a tournament's lock (an `Async` handler): the lock's holder may be waiting for a
/// turn, and with the last one sitting idle here neither would move (for ever, with no
/// budget). A multicall's or a batch's answers so far then go out without a turn.
pub fn give_back() {
    drop(reuse());
}

/// Keeps `turn` for the current request until its reply is sent; outside a request (tests,
/// the library used directly), or when it holds one already, the turn is given back now.
pub(crate) fn keep(turn: OwnedSemaphorePermit) {
    let mut turn = Some(turn);
    let _ = REQUEST_TURN.try_with(|t| {
        let mut held = t.borrow_mut();
        if held.is_none() {
            *held = turn.take();
        }
    });
}

/// What the server knows of the connection a request came on; the accept loop puts it in
/// every request's extensions (jsonrpsee hands a WebSocket upgrade's to all the session's
/// calls).
#[derive(Clone)]
pub struct Connection {
    /// The client's address (quotas, auth).
    pub addr: IpAddr,
    pub outbox: Arc<Outbox>,
}

/// One connection's count of the bytes its peer has taken, and the turns held until it has
/// taken the replies they belong to.
#[derive(Debug)]
pub struct Outbox {
    written: AtomicU64,
    /// The lowest count at which a held turn is given back; `u64::MAX` when none is held, so
    /// that a write looks at one atomic and takes no lock.
    next_release: AtomicU64,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    /// The count at which the last reply handed over will have been written.
    promised: u64,
    queue: VecDeque<(u64, OwnedSemaphorePermit)>,
}

impl Default for Outbox {
    fn default() -> Self {
        Outbox {
            written: AtomicU64::new(0),
            next_release: AtomicU64::new(u64::MAX),
            held: Mutex::new(Held::default()),
        }
    }
}

impl Outbox {
    /// Bytes the peer has taken so far.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::SeqCst)
    }

    /// Counts `n` more bytes taken by the peer, and gives back the turns whose replies have
    /// now gone out.
    pub fn wrote(&self, n: usize) {
        let total = self.written.fetch_add(n as u64, Ordering::SeqCst) + n as u64;
        if total >= self.next_release.load(Ordering::SeqCst) {
            self.release_upto(total);
        }
    }

    /// Holds `turn` until the peer has taken `bytes` more than every reply handed over before.
    /// The count starts from the reply's body: its head (some hundred bytes on HTTP, a
    /// WebSocket frame's few) is not counted, nor other messages a session sends beside the
    /// replies (notifications, pings), which can only make the turn come back that much early.
    pub fn hold_until_sent(&self, bytes: usize, turn: OwnedSemaphorePermit) {
        let at = {
            let mut held = self.lock();
            let at = held.promised.max(self.written()) + bytes as u64;
            held.promised = at;
            held.queue.push_back((at, turn));
            let first = held.queue.front().map_or(u64::MAX, |(at, _)| *at);
            self.next_release.store(first, Ordering::SeqCst);
            at
        };
        // A write that counted past `at` before the store above did not see it.
        let now = self.written();
        if now >= at {
            self.release_upto(now);
        }
    }

    /// Gives back every held turn: the connection is gone.
    pub fn release_all(&self) {
        let dropped = {
            let mut held = self.lock();
            self.next_release.store(u64::MAX, Ordering::SeqCst);
            std::mem::take(&mut held.queue)
        };
        drop(dropped);
    }

    /// Turns held now (tests, metrics).
    pub fn held(&self) -> usize {
        self.lock().queue.len()
    }

    fn release_upto(&self, total: u64) {
        let mut done = Vec::new();
        {
            let mut held = self.lock();
            while held.queue.front().is_some_and(|(at, _)| *at <= total) {
                if let Some((_, turn)) = held.queue.pop_front() {
                    done.push(turn);
                }
            }
            let first = held.queue.front().map_or(u64::MAX, |(at, _)| *at);
            self.next_release.store(first, Ordering::SeqCst);
        }
        drop(done);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::Semaphore;

    #[test]
    fn turns_come_back_when_their_replies_are_out() {
        let turns = Arc::new(Semaphore::new(2));
        let outbox = Outbox::default();
        outbox.wrote(10);
        outbox.hold_until_sent(100, Arc::clone(&turns).try_acquire_owned().unwrap());
        outbox.hold_until_sent(50, Arc::clone(&turns).try_acquire_owned().unwrap());
        assert_eq!(turns.available_permits(), 0);
        outbox.wrote(99);
        assert_eq!(
            turns.available_permits(),
            0,
            "the first reply is one byte short"
        );
        outbox.wrote(1);
        assert_eq!(turns.available_permits(), 1);
        // The second reply's bytes come after the first's.
        outbox.wrote(49);
        assert_eq!(turns.available_permits(), 1);
        outbox.wrote(1);
        assert_eq!(turns.available_permits(), 2);
        assert_eq!(outbox.held(), 0);
        // A connection that goes away gives its turns back.
        outbox.hold_until_sent(1 << 30, Arc::clone(&turns).try_acquire_owned().unwrap());
        assert_eq!(turns.available_permits(), 1);
        outbox.release_all();
        assert_eq!(turns.available_permits(), 2);
    }

    #[tokio::test]
    async fn a_request_keeps_one_turn_between_its_calls() {
        let turns = Arc::new(Semaphore::new(1));
        let (_, held) = holding_turn(async {
            assert!(reuse().is_none());
            keep(Arc::clone(&turns).try_acquire_owned().unwrap());
            // The next heavy call of the request takes the same turn again.
            let again = reuse().expect("the request's turn");
            assert!(reuse().is_none());
            keep(again);
            // Inside it, a nested scope leaves the turn with the outer request.
            let (_, inner) = holding_turn(async {}).await;
            assert!(inner.is_none());
        })
        .await;
        assert!(held.is_some());
        assert_eq!(turns.available_permits(), 0);
        drop(held);
        assert_eq!(turns.available_permits(), 1);
        // Outside a request a kept turn is given back at once.
        keep(Arc::clone(&turns).try_acquire_owned().unwrap());
        assert_eq!(turns.available_permits(), 1);
    }
}
