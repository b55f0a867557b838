//! Which open connections are still sending a request, and shedding the slowest of them.
//!
//! A connection is *reading* from the moment it is accepted, or its last reply went out, until
//! its request has arrived whole: its head (a new connection, or an idle keep-alive one waiting
//! for its next request) and then its body. Slow senders from a few addresses would otherwise
//! fill `max_connections` with requests that never end (the header and body timeouts close
//! each one in time, but new ones keep coming). So at most `max_reading_connections` may be
//! reading: past that, the connection that has been reading longest is closed, once it has
//! been reading for [`GRACE`] (checked when a connection is accepted, and every
//! [`SWEEP`] while the count is over). A client that sends its request at once is reading for
//! a moment only: a burst of ordinary clients, accepted faster than their requests are read,
//! passes the cap for that moment and none of them is shed for it.
//!
//! The states are atomics on each connection, set per request without a lock; only accepting
//! and closing connections, and shedding, take the list's lock.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use tokio::sync::Notify;

/// How long a connection must have been reading before it may be shed.
pub const GRACE: Duration = Duration::from_secs(2);
/// How often the count is checked again while it is over the cap.
pub const SWEEP: Duration = Duration::from_millis(250);

/// Every open connection (until its HTTP part ends: an upgraded WebSocket session is not
/// reading), and how many are reading.
pub struct Readers {
    cap: usize,
    reading: AtomicUsize,
    /// Order of the reads: the lower a connection's ticket, the longer it has been reading.
    tickets: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Conn>>>,
    /// Times are kept as milliseconds since this instant (an atomic per connection).
    epoch: Instant,
    grace: Duration,
}

/// One connection's part in [`Readers`].
pub struct Conn {
    id: u64,
    readers: Arc<Readers>,
    /// The ticket of the read under way; 0 when not reading.
    reading: AtomicU64,
    /// When the read under way began (ms since the epoch of [`Readers`]).
    since_ms: AtomicU64,
    /// Notified when the connection is shed.
    pub shed: Notify,
}

impl Readers {
    /// At most `cap` connections reading (at least one).
    pub fn new(cap: usize) -> Arc<Readers> {
        Self::with_grace(cap, GRACE)
    }

    /// [`Readers::new`] with another grace (tests).
    pub fn with_grace(cap: usize, grace: Duration) -> Arc<Readers> {
        Arc::new(Readers {
            cap: cap.max(1),
            reading: AtomicUsize::new(0),
            tickets: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
            epoch: Instant::now(),
            grace,
        })
    }

    /// Checks the count every [`SWEEP`] while `self` lives: connections over the cap that were
    /// too young to be shed when the last one was accepted are shed once they have been
    /// reading for the grace, even if no connection is accepted then (the daemon may be full).
    pub fn sweep(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(SWEEP).await;
                let Some(readers) = weak.upgrade() else { break };
                readers.shed_past_cap();
            }
        });
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// A newly accepted connection, reading its first request; sheds the oldest readers past
    /// the cap. Call [`Readers::close`] when it ends.
    pub fn open(self: &Arc<Self>) -> Arc<Conn> {
        let id = self.tickets.fetch_add(1, Ordering::SeqCst) + 1;
        let conn = Arc::new(Conn {
            id,
            readers: Arc::clone(self),
            reading: AtomicU64::new(0),
            since_ms: AtomicU64::new(0),
            shed: Notify::new(),
        });
        self.lock().insert(id, Arc::clone(&conn));
        conn.start_reading();
        self.shed_past_cap();
        conn
    }

    /// The connection has ended (or its HTTP part has: an upgrade).
    pub fn close(&self, conn: &Conn) {
        conn.done_reading();
        self.lock().remove(&conn.id);
    }

    /// Connections reading now.
    pub fn reading(&self) -> usize {
        self.reading.load(Ordering::SeqCst)
    }

    fn shed_past_cap(&self) {
        let grace = u64::try_from(self.grace.as_millis()).unwrap_or(u64::MAX);
        while self.reading() > self.cap {
            let oldest = {
                let open = self.lock();
                open.values()
                    .filter_map(|c| {
                        let t = c.reading.load(Ordering::SeqCst);
                        (t != 0).then(|| (t, Arc::clone(c)))
                    })
                    .min_by_key(|(t, _)| *t)
            };
            let Some((_, conn)) = oldest else { break };
            // The oldest is too young: so is every other; the sweep comes back for them.
            if self
                .now_ms()
                .saturating_sub(conn.since_ms.load(Ordering::SeqCst))
                < grace
            {
                break;
            }
            conn.done_reading();
            conn.shed.notify_one();
            tracing::debug!("connection shed: max_reading_connections");
            metrics::counter!("goswiss_connections_cut_total", "reason" => "shed").increment(1);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Conn {
    /// Waiting for a request (its head) from now.
    pub fn start_reading(&self) {
        let ticket = self.readers.tickets.fetch_add(1, Ordering::SeqCst) + 1;
        self.since_ms.store(self.readers.now_ms(), Ordering::SeqCst);
        if self.reading.swap(ticket, Ordering::SeqCst) == 0 {
            self.readers.reading.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The request has arrived whole.
    pub fn done_reading(&self) {
        if self.reading.swap(0, Ordering::SeqCst) != 0 {
            self.readers.reading.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// A request body that marks its connection done reading when it has all arrived.
pub struct ReadingBody<B> {
    inner: B,
    conn: Option<Arc<Conn>>,
}

impl<B: Body> ReadingBody<B> {
    pub fn new(inner: B, conn: Arc<Conn>) -> Self {
        let mut body = ReadingBody {
            inner,
            conn: Some(conn),
        };
        if body.inner.is_end_stream() {
            body.arrived();
        }
        body
    }

    fn arrived(&mut self) {
        if let Some(conn) = self.conn.take() {
            conn.done_reading();
        }
    }
}

impl<B: Body<Data = Bytes> + Unpin> Body for ReadingBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let frame = Pin::new(&mut self.inner).poll_frame(cx);
        match &frame {
            Poll::Ready(None) => self.arrived(),
            Poll::Ready(Some(Ok(_))) if self.inner.is_end_stream() => self.arrived(),
            _ => {}
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A reply body that, once sent (dropped by hyper), marks its connection reading again: it
/// waits for its next request. `None` for a reply after which the connection reads no more
/// HTTP (an upgrade).
pub struct AnsweredBody<B> {
    inner: B,
    conn: Option<Arc<Conn>>,
}

impl<B> AnsweredBody<B> {
    pub fn new(inner: B, conn: Option<Arc<Conn>>) -> Self {
        AnsweredBody { inner, conn }
    }
}

impl<B> Drop for AnsweredBody<B> {
    fn drop(&mut self) {
        if let Some(conn) = &self.conn {
            conn.start_reading();
        }
    }
}

impl<B: Body<Data = Bytes> + Unpin> Body for AnsweredBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_reader_is_shed_past_the_cap() {
        let readers = Readers::with_grace(2, Duration::ZERO);
        let a = readers.open();
        let b = readers.open();
        assert_eq!(readers.reading(), 2);
        // `a` got its request whole, then waits for its next one: now younger than `b`.
        a.done_reading();
        a.start_reading();
        let c = readers.open();
        assert_eq!(readers.reading(), 2);
        // `b` was reading longest.
        assert!(b.reading.load(Ordering::SeqCst) == 0);
        assert!(a.reading.load(Ordering::SeqCst) != 0);
        assert!(c.reading.load(Ordering::SeqCst) != 0);
        // A connection being served is not reading, and is never shed.
        c.done_reading();
        let d = readers.open();
        assert_eq!(readers.reading(), 2);
        assert!(a.reading.load(Ordering::SeqCst) != 0 && d.reading.load(Ordering::SeqCst) != 0);
        for conn in [&a, &b, &c, &d] {
            readers.close(conn);
        }
        assert_eq!(readers.reading(), 0);
        assert!(readers.lock().is_empty());
    }

    #[test]
    fn a_reader_younger_than_the_grace_is_not_shed() {
        let readers = Readers::with_grace(1, Duration::from_secs(3600));
        let a = readers.open();
        let b = readers.open();
        // Over the cap, but nobody has been reading for the grace: a burst, not a slow sender.
        assert_eq!(readers.reading(), 2);
        assert!(a.reading.load(Ordering::SeqCst) != 0 && b.reading.load(Ordering::SeqCst) != 0);
        for conn in [&a, &b] {
            readers.close(conn);
        }
        assert_eq!(readers.reading(), 0);
    }
}
