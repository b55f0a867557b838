//! Time limits hyper does not have: a peer that stops reading a reply (or reads it a trickle
//! at a time), or stops sending a request body after a complete head, would otherwise hold its
//! connection, its file descriptor and the buffered reply for ever. Also the file-descriptor
//! budget behind `max_connections`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use hyper::body::Frame;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use crate::app::turn::Outbox;

/// A connection whose writes fail once the peer has accepted no byte for `limit`, or (with
/// [`WriteDeadline::min_rate`]) has taken bytes slower than a minimum rate while the daemon
/// waited on it. It also counts what the peer took for the connection's
/// [`Outbox`](crate::app::turn::Outbox), and holds what must live exactly as long as the
/// socket: the connection's place under `max_connections` and its address's count, which a
/// WebSocket session (the socket handed on by hyper's upgrade) keeps too.
pub struct WriteDeadline<T> {
    inner: T,
    limit: Duration,
    /// Armed while a write is pending; disarmed by any progress.
    stalled: Option<Pin<Box<Sleep>>>,
    rate: Option<MinRate>,
    outbox: Option<Arc<Outbox>>,
    _held: Option<Box<dyn Send + Sync>>,
    /// Set once the peer was cut off: reads fail too, so a WebSocket session ends.
    cut: Option<io::ErrorKind>,
    /// The task waiting to read, woken when the peer is cut off: after a WebSocket upgrade
    /// reads and writes are separate tasks, and a session whose writes failed ends only when
    /// its reader sees the cut (a peer that sends nothing would never wake it).
    reader: Option<Waker>,
}

/// A socket that can be made to reset rather than drain when it is closed.
pub trait Abort {
    /// What the socket still holds for the peer is dropped when it is closed.
    fn abort_on_close(&self);
}

impl Abort for tokio::net::TcpStream {
    fn abort_on_close(&self) {
        // SO_LINGER 0: no blocking on close, the send buffer is discarded.
        let _ = self.set_zero_linger();
    }
}

impl<T> WriteDeadline<T> {
    pub fn new(inner: T, limit: Duration) -> Self {
        WriteDeadline {
            inner,
            limit,
            stalled: None,
            rate: None,
            outbox: None,
            _held: None,
            cut: None,
            reader: None,
        }
    }

    /// Writes also fail once the peer, while the daemon waits on it, takes fewer than
    /// `bytes_per_sec` bytes a second over `window` of waiting. 0: no minimum.
    pub fn min_rate(mut self, bytes_per_sec: u64, window: Duration) -> Self {
        self.rate = (bytes_per_sec > 0).then(|| MinRate::new(bytes_per_sec, window));
        self
    }

    /// Counts the bytes written into `outbox`, which gives its held turns back when the
    /// socket is dropped.
    pub fn counting(mut self, outbox: Arc<Outbox>) -> Self {
        self.outbox = Some(outbox);
        self
    }

    /// Keeps `held` until the socket is dropped.
    pub fn holding(mut self, held: impl Send + Sync + 'static) -> Self {
        self._held = Some(Box::new(held));
        self
    }

    fn was_cut(&self) -> Option<io::Error> {
        self.cut
            .map(|kind| io::Error::new(kind, "the connection was cut off"))
    }
}

impl<T: Abort> WriteDeadline<T> {
    fn pending<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        if let Some(rate) = &mut self.rate
            && let Err(e) = rate.waiting(cx)
        {
            return Poll::Ready(Err(self.cut_off(e)));
        }
        let limit = self.limit;
        let sleep = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(self.cut_off(io::Error::new(
                io::ErrorKind::TimedOut,
                "the peer read nothing for the write timeout",
            )))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// After `n` bytes were written.
    fn progress(&mut self, n: usize) -> io::Result<()> {
        self.stalled = None;
        if let Some(outbox) = &self.outbox {
            outbox.wrote(n);
        }
        if let Some(rate) = &mut self.rate
            && let Err(e) = rate.progress(n)
        {
            return Err(self.cut_off(e));
        }
        Ok(())
    }

    /// Ends the connection for `e`: the peer is reset rather than sent what the socket holds
    /// (megabytes, for a reply it was reading slowly), and reads fail too.
    fn cut_off(&mut self, e: io::Error) -> io::Error {
        if self.cut.is_none() {
            self.inner.abort_on_close();
            let reason = if self.rate.as_ref().is_some_and(|r| r.failed) {
                "slow_reader"
            } else {
                "write_timeout"
            };
            tracing::debug!(error = %e, "connection cut off");
            metrics::counter!("goswiss_connections_cut_total", "reason" => reason).increment(1);
        }
        self.cut = Some(e.kind());
        if let Some(reader) = self.reader.take() {
            reader.wake();
        }
        e
    }

    fn wrote(
        &mut self,
        r: Poll<io::Result<usize>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<usize>> {
        match r {
            Poll::Pending => self.pending(cx),
            Poll::Ready(Ok(n)) => match self.progress(n) {
                Ok(()) => Poll::Ready(Ok(n)),
                Err(e) => Poll::Ready(Err(e)),
            },
            done => {
                self.stalled = None;
                done
            }
        }
    }
}

impl<T> Drop for WriteDeadline<T> {
    fn drop(&mut self) {
        if let Some(outbox) = &self.outbox {
            outbox.release_all();
        }
    }
}

/// The minimum read rate: the time the daemon has waited on the peer (writes pending on a
/// full socket) and the bytes the peer took meanwhile, judged every `window` of waiting. A
/// reply that fits the socket buffers never waits, so small replies are never judged.
struct MinRate {
    bytes_per_sec: u64,
    window: Duration,
    /// Since when the current write has waited.
    blocked_since: Option<Instant>,
    /// Waiting in this window before `blocked_since`.
    waited: Duration,
    /// Bytes taken in this window.
    taken: u64,
    /// Wakes a write still waiting when the window ends.
    check: Option<(Instant, Pin<Box<Sleep>>)>,
    failed: bool,
}

impl MinRate {
    fn new(bytes_per_sec: u64, window: Duration) -> MinRate {
        MinRate {
            bytes_per_sec,
            window: window.max(Duration::from_millis(1)),
            blocked_since: None,
            waited: Duration::ZERO,
            taken: 0,
            check: None,
            failed: false,
        }
    }

    /// A write is pending: the daemon waits on the peer.
    fn waiting(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        loop {
            let now = Instant::now();
            let since = match self.blocked_since {
                Some(since) => since,
                None => {
                    if self.waited.is_zero() {
                        // A new window: what filled the socket buffers before it is no credit.
                        self.taken = 0;
                    }
                    self.blocked_since = Some(now);
                    now
                }
            };
            let total = self.waited + (now - since);
            if total >= self.window {
                self.judge(total)?;
                self.blocked_since = Some(now);
                continue;
            }
            let at = since + (self.window - self.waited);
            let timer = match &mut self.check {
                Some((armed, timer)) => {
                    if *armed != at {
                        timer.as_mut().reset(at);
                        *armed = at;
                    }
                    timer
                }
                None => {
                    &mut self
                        .check
                        .insert((at, Box::pin(tokio::time::sleep_until(at))))
                        .1
                }
            };
            match timer.as_mut().poll(cx) {
                Poll::Ready(()) => continue,
                Poll::Pending => return Ok(()),
            }
        }
    }

    /// `n` bytes were taken.
    fn progress(&mut self, n: usize) -> io::Result<()> {
        self.taken = self.taken.saturating_add(n as u64);
        if let Some(since) = self.blocked_since.take() {
            let total = self.waited + since.elapsed();
            if total >= self.window {
                self.judge(total)?;
            } else {
                self.waited = total;
            }
        }
        Ok(())
    }

    /// The end of a window of `waited`: too few bytes is the end of the connection; else a
    /// new window.
    fn judge(&mut self, waited: Duration) -> io::Result<()> {
        let needed = (self.bytes_per_sec as f64 * waited.as_secs_f64()) as u64;
        if self.taken < needed {
            self.failed = true;
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the peer read {} bytes in {:.1} s, under min_read_bytes_per_sec ({})",
                    self.taken,
                    waited.as_secs_f64(),
                    self.bytes_per_sec
                ),
            ));
        }
        self.waited = Duration::ZERO;
        self.taken = 0;
        Ok(())
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteDeadline<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(e) = self.was_cut() {
            return Poll::Ready(Err(e));
        }
        let read = Pin::new(&mut self.inner).poll_read(cx, buf);
        if read.is_pending()
            && !self
                .reader
                .as_ref()
                .is_some_and(|w| w.will_wake(cx.waker()))
        {
            self.reader = Some(cx.waker().clone());
        }
        read
    }
}

impl<T: AsyncWrite + Abort + Unpin> AsyncWrite for WriteDeadline<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if let Some(e) = self.was_cut() {
            return Poll::Ready(Err(e));
        }
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.wrote(r, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(e) = self.was_cut() {
            return Poll::Ready(Err(e));
        }
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.wrote(r, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            Poll::Pending => self.pending(cx),
            done => {
                self.stalled = None;
                done
            }
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The error a request body gives when it did not arrive in time.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {0:?}")]
pub struct BodyTimedOut(pub Duration);

/// `body`, failing with [`BodyTimedOut`] unless it is complete within `limit` of now.
pub fn body_deadline(body: Body, limit: Duration) -> Body {
    let deadline = Instant::now() + limit;
    let sleep = Box::pin(tokio::time::sleep_until(deadline));
    Body::new(TimedBody {
        inner: body,
        sleep,
        limit,
    })
}

struct TimedBody {
    inner: Body,
    sleep: Pin<Box<Sleep>>,
    limit: Duration,
}

impl hyper::body::Body for TimedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame);
        }
        match self.sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(axum::Error::new(BodyTimedOut(self.limit))))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// Whether `e` (from reading a body) is a [`BodyTimedOut`], however deeply wrapped.
pub fn is_body_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if err.is::<BodyTimedOut>() {
            return true;
        }
        cur = err.source();
    }
    false
}

/// Files the process may open (the soft RLIMIT_NOFILE), from /proc/self/limits; `None` where
/// that cannot be read (not Linux) or says unlimited.
pub fn open_file_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    parse_open_file_limit(&text)
}

fn parse_open_file_limit(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Descriptors kept for everything but connections: the listener, the database and its WAL,
/// the writer thread, logs, the blocking pool's files.
pub const RESERVED_FILES: u64 = 64;

/// `max_connections` as the file limit allows: HTTP connections and WebSocket sessions are
/// each capped at it, so together they must fit in what is left after [`RESERVED_FILES`].
pub fn clamp_connections(configured: u32, file_limit: Option<u64>) -> u32 {
    match file_limit {
        None => configured,
        Some(limit) => {
            let fit = limit.saturating_sub(RESERVED_FILES) / 2;
            configured
                .min(u32::try_from(fit).unwrap_or(u32::MAX))
                .max(1)
        }
    }
}

/// Drains `body` for its bytes (test helper for the deadline).
#[cfg(test)]
async fn collect(body: Body) -> Result<Bytes, axum::Error> {
    use http_body_util::BodyExt;
    Ok(body.collect().await?.to_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_soft_limit() {
        let text = "Limit                     Soft Limit           Hard Limit           Units     \n\
                    Max open files            1024                 524288               files     \n";
        assert_eq!(parse_open_file_limit(text), Some(1024));
        assert_eq!(
            parse_open_file_limit("Max open files  unlimited unlimited files"),
            None
        );
    }

    #[test]
    fn connections_fit_the_file_limit() {
        assert_eq!(clamp_connections(10_000, Some(1024)), 480);
        assert_eq!(clamp_connections(10_000, Some(200)), 68);
        assert_eq!(clamp_connections(100, Some(1_048_576)), 100);
        assert_eq!(clamp_connections(10_000, None), 10_000);
        assert_eq!(clamp_connections(10_000, Some(10)), 1);
    }

    #[tokio::test]
    async fn a_body_that_stalls_times_out() {
        use futures::StreamExt;
        let first =
            futures::stream::once(async { Ok::<_, io::Error>(Bytes::from_static(b"<?xml")) });
        let body = Body::from_stream(first.chain(futures::stream::pending()));
        let timed = body_deadline(body, Duration::from_millis(50));
        let e = collect(timed).await.unwrap_err();
        assert!(is_body_timeout(&e), "{e}");
        let quick = body_deadline(Body::from("whole"), Duration::from_millis(50));
        assert_eq!(collect(quick).await.unwrap(), "whole");
    }
}

#[cfg(test)]
mod rate_tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    impl Abort for tokio::io::DuplexStream {
        fn abort_on_close(&self) {}
    }

    #[tokio::test]
    async fn a_slow_reader_is_cut_off_and_a_fast_one_is_not() {
        let turns = Arc::new(tokio::sync::Semaphore::new(1));
        let (near, mut far) = tokio::io::duplex(4096);
        let outbox = Arc::new(Outbox::default());
        let mut io = WriteDeadline::new(near, Duration::from_secs(600))
            .min_rate(64 << 10, Duration::from_millis(500))
            .counting(Arc::clone(&outbox));
        outbox.hold_until_sent(1 << 20, Arc::clone(&turns).try_acquire_owned().unwrap());
        let reader = tokio::spawn(async move {
            let mut buf = [0u8; 512];
            let mut got = 0;
            // 512 bytes every 50 ms: 10 KiB/s.
            while let Ok(n) = far.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                got += n;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            got
        });
        let e = io.write_all(&vec![7u8; 1 << 20]).await.unwrap_err();
        assert!(e.to_string().contains("min_read_bytes_per_sec"), "{e}");
        assert!(outbox.written() < 1 << 20);
        assert_eq!(turns.available_permits(), 0);
        drop(io);
        assert_eq!(
            turns.available_permits(),
            1,
            "the turn outlived the connection"
        );
        assert!(reader.await.unwrap() < 1 << 20);

        // A reader that keeps up takes it all, and the turn comes back when it has.
        let (near, mut far) = tokio::io::duplex(4096);
        let outbox = Arc::new(Outbox::default());
        let mut io = WriteDeadline::new(near, Duration::from_secs(600))
            .min_rate(64 << 10, Duration::from_millis(500))
            .counting(Arc::clone(&outbox));
        outbox.hold_until_sent(1 << 20, Arc::clone(&turns).try_acquire_owned().unwrap());
        let reader = tokio::spawn(async move {
            let mut all = Vec::new();
            far.read_to_end(&mut all).await.map(|_| all.len())
        });
        io.write_all(&vec![7u8; 1 << 20]).await.unwrap();
        assert_eq!(turns.available_permits(), 1);
        drop(io);
        assert_eq!(reader.await.unwrap().unwrap(), 1 << 20);
    }

    /// After a WebSocket upgrade a session reads and writes on separate tasks: a cut-off found
    /// by the writer must wake the reader, waiting on a peer that sends nothing, or the session
    /// (its socket, its place and its turns) would live on.
    #[tokio::test]
    async fn a_cut_off_wakes_the_reader() {
        let (near, far) = tokio::io::duplex(4096);
        let io = WriteDeadline::new(near, Duration::from_secs(600))
            .min_rate(64 << 10, Duration::from_millis(300));
        let (mut r, mut w) = tokio::io::split(io);
        // On this one-thread runtime the reader waits before the writer is cut off: the
        // writer yields as soon as the pipe is full, long before its window ends.
        let reading = tokio::spawn(async move {
            let mut buf = [0u8; 16];
            r.read(&mut buf).await
        });
        let e = w.write_all(&vec![7u8; 1 << 20]).await.unwrap_err();
        assert!(e.to_string().contains("min_read_bytes_per_sec"), "{e}");
        let read = tokio::time::timeout(Duration::from_secs(60), reading)
            .await
            .expect("the reader was not woken")
            .unwrap();
        assert!(read.is_err(), "{read:?}");
        drop(far);
    }
}
