//! Time limits hyper does not have: a peer that stops reading a reply, or stops sending a
//! request body after a complete head, would otherwise hold its connection, its file descriptor
//! and the buffered reply for ever. Also the file-descriptor budget behind `max_connections`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use hyper::body::Frame;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// A connection whose writes fail once the peer has accepted no byte for `limit`.
pub struct WriteDeadline<T> {
    inner: T,
    limit: Duration,
    /// Armed while a write is pending; disarmed by any progress.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteDeadline<T> {
    pub fn new(inner: T, limit: Duration) -> Self {
        WriteDeadline {
            inner,
            limit,
            stalled: None,
        }
    }

    fn pending<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        let limit = self.limit;
        let sleep = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the peer read nothing for the write timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteDeadline<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Pending => self.pending(cx),
            done => {
                self.stalled = None;
                done
            }
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write_vectored(cx, bufs) {
            Poll::Pending => self.pending(cx),
            done => {
                self.stalled = None;
                done
            }
        }
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
